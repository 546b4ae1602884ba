-- The map tiles' counts per cell (migrations 0031, 0032) were rebuilt whole every few minutes:
-- at 10M records a rebuild grouped every record (57-118 s of a core) and rewrote 8.1 million
-- rows of counts (1.4 GB with their index, and as much WAL for every replica), whatever had
-- changed. Each write of a record now notes where its record was and is; a refresh recounts
-- only the cells those places fall in, at every level (`db::tile_density`), so its cost follows
-- the changes, not the table.
--
-- A change notes the record's place before and after (a move leaves one cell and enters
-- another) rather than a cell: the cell's size is the Rust side's (`FINEST_LEVEL`). A refresh
-- takes the notes visible to its snapshot and counts from the same snapshot, so a note whose
-- write commits later stays for the next refresh. The notes carry no key: concurrent writers of
-- one city never wait on each other here.
CREATE TABLE canonical.tile_density_changes (
    canonical_table text NOT NULL,
    location_lat float8 NOT NULL,
    location_lng float8 NOT NULL
);

-- New records, one statement's rows at once (the transformer inserts a batch per statement).
CREATE FUNCTION canonical.note_tile_density_inserts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO canonical.tile_density_changes (canonical_table, location_lat, location_lng)
    SELECT DISTINCT TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, location_lat, location_lng FROM new_rows;
    RETURN NULL;
END $$;

-- A record that moved, changed status (shown or hidden) or went away: both of its places. Row
-- triggers, each behind a condition, so an update that leaves place and status alone (most
-- merges) costs nothing and a statement updating many rows keeps no copy of them.
CREATE FUNCTION canonical.note_tile_density_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        INSERT INTO canonical.tile_density_changes (canonical_table, location_lat, location_lng)
        VALUES (TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, OLD.location_lat, OLD.location_lng);
    END IF;
    IF TG_OP = 'UPDATE' AND (NEW.location_lat, NEW.location_lng) IS DISTINCT FROM (OLD.location_lat, OLD.location_lng) THEN
        INSERT INTO canonical.tile_density_changes (canonical_table, location_lat, location_lng)
        VALUES (TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, NEW.location_lat, NEW.location_lng);
    END IF;
    RETURN NULL;
END $$;

-- The same three triggers on each kind of canonical record.
DO $$
DECLARE
    kind text;
BEGIN
    FOREACH kind IN ARRAY ARRAY['entities', 'listings', 'requests'] LOOP
        EXECUTE format(
            'CREATE TRIGGER %1$s_tile_density_inserts AFTER INSERT ON canonical.%1$s
                 REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT
                 EXECUTE FUNCTION canonical.note_tile_density_inserts()', kind);
        EXECUTE format(
            'CREATE TRIGGER %1$s_tile_density_changes AFTER UPDATE ON canonical.%1$s FOR EACH ROW
                 WHEN ((NEW.location_lat, NEW.location_lng, NEW.status)
                       IS DISTINCT FROM (OLD.location_lat, OLD.location_lng, OLD.status))
                 EXECUTE FUNCTION canonical.note_tile_density_change()', kind);
        EXECUTE format(
            'CREATE TRIGGER %1$s_tile_density_deletes AFTER DELETE ON canonical.%1$s FOR EACH ROW
                 EXECUTE FUNCTION canonical.note_tile_density_change()', kind);
    END LOOP;
END $$;

-- Whether the notes since the last refresh are complete: true once a whole rebuild has run under
-- this migration. Counts built before it lack the changes made since: they are kept for the
-- tiles meanwhile, and the next refresh, due at once, rebuilds them whole.
-- And how many cells the last whole build stored: the refresh weighs the notes against it
-- (PostgreSQL's own estimate is stale until the rebuilt table is analysed).
ALTER TABLE canonical.tile_density_state ADD COLUMN changes_noted boolean NOT NULL DEFAULT false,
    ADD COLUMN cells bigint NOT NULL DEFAULT 0;
UPDATE canonical.tile_density_state SET refreshed_at = '-infinity' WHERE refreshed_at IS NOT NULL;
