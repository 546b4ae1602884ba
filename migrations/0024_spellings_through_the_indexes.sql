-- A search's spelling lookup (src/search/spelling.rs) finds a query word's close spellings in the
-- vocabulary through its indexes, whatever the vocabulary's size. The planner prices pg_trgm's
-- `%` like a plain comparison, so on a vocabulary of a few thousand words it chose to scan the
-- table and compute a trigram similarity for every word: 2 to 5 ms a query word on the search
-- bench's 1,069 words, against 0.1 ms through the trigram and b-tree indexes
-- (docs/bench-log/search.md, "The spelling lookup through the indexes"). A function's own
-- settings hold for its statement alone, so the rest of the search keeps the planner's choice.
CREATE FUNCTION canonical.close_spellings(query_word text, swapped text[], max_spellings bigint)
RETURNS text[]
LANGUAGE sql STABLE PARALLEL SAFE
SET enable_seqscan = off
AS $$
    SELECT ARRAY(
        SELECT v.word FROM canonical.search_words AS v
        WHERE v.word % query_word OR v.word = ANY(swapped)
           OR v.word LIKE CASE WHEN length(query_word) >= 3 THEN
                replace(replace(replace(query_word, '\', '\\'), '%', '\%'), '_', '\_') || '%' END
        GROUP BY v.word
        ORDER BY v.word = query_word DESC,
            CASE WHEN v.word = ANY(swapped) THEN 1
                 ELSE levenshtein_less_equal(v.word, query_word, 2) END,
            similarity(v.word, query_word) DESC, v.word
        LIMIT max_spellings)
$$;
