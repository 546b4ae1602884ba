-- Search ranks a query word's close spellings by edit distance before trigram similarity, so the
-- word one typo away is always among the spellings kept (docs/search.md, "Close spellings").
-- fuzzystrmatch ships with PostgreSQL (contrib), like pg_trgm; only levenshtein_less_equal is used.
CREATE EXTENSION IF NOT EXISTS fuzzystrmatch;
