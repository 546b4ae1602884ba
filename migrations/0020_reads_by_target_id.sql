-- Notes, signals and link contributions are read by their target's id alone: REST `target_id`
-- (`target_canonical_id` for contributions) without the schema and table, which are optional
-- there, and the GraphQL fields `notes`, `signals` and `contributions` of a record, whose batch
-- loader asks for a page of targets by id. Indexes led by the target's schema and table could not
-- serve those: each read scanned the whole table or index (0.7 ms a record at 20k contributions,
-- growing with every entry processed), once per record of a GraphQL page. Target ids are UUIDs, so
-- (target_id, id) is as selective as the triple and keeps each target's rows in id order (the
-- order of the lists and loaders); it replaces it.
CREATE INDEX notes_target_id_idx ON notes (target_id, id);
DROP INDEX notes_target_idx;
CREATE INDEX signals_target_id_idx ON signals (target_id, id);
DROP INDEX signals_target_idx;
CREATE INDEX canonical_link_contributions_target_id_idx
    ON canonical_link_contributions (target_canonical_id, id);
DROP INDEX canonical_link_contributions_target_idx;
