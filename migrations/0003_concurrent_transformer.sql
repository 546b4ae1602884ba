-- Transformer claims take pending entries area by area (a grid of half-degree cells, visited in a
-- hashed order from a random start), so concurrent workers take different areas and rarely need
-- the same identity locks. See docs/transformer.md, "Concurrency".
DROP INDEX space_time_entries_pending_idx;
CREATE INDEX space_time_entries_pending_area_idx
    ON space_time_entries (hashint4((floor(latitude * 2) * 1000 + floor(longitude * 2))::int), id)
    WHERE status = 'pending';

-- Room on every page for the next version of a row: the ranker's score updates and merges that
-- change no indexed column then stay on the page (HOT) instead of adding an entry to each of the
-- table's nine indexes. Applies to pages written from now on.
ALTER TABLE canonical.entities SET (fillfactor = 80);
ALTER TABLE canonical.listings SET (fillfactor = 80);
ALTER TABLE canonical.requests SET (fillfactor = 80);
