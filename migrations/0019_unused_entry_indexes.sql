-- No statement of the service reads space_time_entries by location or by the record an entry was
-- decided into (provenance goes through canonical_link_contributions, searches and maps through the
-- canonical tables), yet every post inserted into both indexes and every outcome UPDATE (never HOT:
-- `status` is indexed) inserted into them again, one of them GiST. Measured in psql on 5,000
-- pending entries of the hot-paths backlog: the outcome UPDATE costs 37.8 µs a row with them and
-- 28.9 µs without (docs/benchmarks.md). An operator who wants to query entries this way can create
-- them again.
DROP INDEX IF EXISTS space_time_entries_location_idx;
DROP INDEX IF EXISTS space_time_entries_canonical_idx;
