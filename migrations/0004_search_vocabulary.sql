-- Fuzzy search corrects the query's words against this vocabulary (pg_trgm's documented
-- spelling-suggestion pattern) and then runs a full-text search with the corrections, instead of
-- a trigram scan over every name in the country. See docs/search.md, "Matching and scoring".
--
-- No unique constraint, on purpose: two transactions adding the same new word would otherwise
-- wait on each other (and could deadlock across the transformer's concurrent batches). A word
-- added twice by such a race is harmless: lookups group by word. Words are never removed; a word
-- no record uses any more only yields a correction that matches nothing.
CREATE TABLE canonical.search_words (
    word text NOT NULL
);
CREATE INDEX search_words_word_idx ON canonical.search_words (word);
CREATE INDEX search_words_trgm_idx ON canonical.search_words USING gin (word gin_trgm_ops);

-- Row-level, in PL/pgSQL so the insert's plan is cached per session (an SQL-language
-- function or a transition-table query would be planned again on every call, which cost
-- ~0.3 ms per created entity). Longer "words" are URLs, e-mail addresses and the like: nobody
-- misspells them into a search.
CREATE FUNCTION canonical.add_search_words_of_row() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO canonical.search_words (word)
    SELECT w FROM unnest(tsvector_to_array(NEW.search_document)) AS w
    WHERE length(w) <= 64
      AND NOT EXISTS (SELECT 1 FROM canonical.search_words s WHERE s.word = w);
    RETURN NULL;
END
$$;

-- On update only when the document changed: score updates never pay for it.
CREATE TRIGGER entities_search_words_insert AFTER INSERT ON canonical.entities
    FOR EACH ROW EXECUTE FUNCTION canonical.add_search_words_of_row();
CREATE TRIGGER entities_search_words_update AFTER UPDATE ON canonical.entities
    FOR EACH ROW WHEN (OLD.search_document IS DISTINCT FROM NEW.search_document)
    EXECUTE FUNCTION canonical.add_search_words_of_row();
CREATE TRIGGER listings_search_words_insert AFTER INSERT ON canonical.listings
    FOR EACH ROW EXECUTE FUNCTION canonical.add_search_words_of_row();
CREATE TRIGGER listings_search_words_update AFTER UPDATE ON canonical.listings
    FOR EACH ROW WHEN (OLD.search_document IS DISTINCT FROM NEW.search_document)
    EXECUTE FUNCTION canonical.add_search_words_of_row();
CREATE TRIGGER requests_search_words_insert AFTER INSERT ON canonical.requests
    FOR EACH ROW EXECUTE FUNCTION canonical.add_search_words_of_row();
CREATE TRIGGER requests_search_words_update AFTER UPDATE ON canonical.requests
    FOR EACH ROW WHEN (OLD.search_document IS DISTINCT FROM NEW.search_document)
    EXECUTE FUNCTION canonical.add_search_words_of_row();

INSERT INTO canonical.search_words (word)
SELECT word FROM ts_stat(
    'SELECT search_document FROM canonical.entities
     UNION ALL SELECT search_document FROM canonical.listings
     UNION ALL SELECT search_document FROM canonical.requests')
WHERE length(word) <= 64;

-- Search no longer scans names by trigram; these indexes only cost every insert.
DROP INDEX canonical.entities_display_name_trgm_idx;
DROP INDEX canonical.listings_title_trgm_idx;
DROP INDEX canonical.requests_title_trgm_idx;
