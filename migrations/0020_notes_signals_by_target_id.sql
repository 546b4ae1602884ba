-- Notes and signals are read by their target's id alone: REST `GET /api/v1/notes?target_id=` and
-- `/signals?target_id=` (the schema and table are optional there), and the GraphQL fields `notes`
-- and `signals` of a record, whose batch loader asks for a page of targets by id. An index led by
-- (target_schema, target_table) cannot serve those, so each read scanned the whole table, once per
-- record of a GraphQL page. Target ids are UUIDs, so (target_id, id) is as selective as the triple
-- and keeps each target's rows in id order (the lists' and loaders' order); it replaces it.
CREATE INDEX notes_target_id_idx ON notes (target_id, id);
DROP INDEX notes_target_idx;
CREATE INDEX signals_target_id_idx ON signals (target_id, id);
DROP INDEX signals_target_idx;
