-- Map tiles of low zoom drawn from counts per grid cell instead of every record in view
-- (docs/explorer.md, "Density"). A dense tile groups the records in view on a 16 × 16 grid; at
-- zoom 4 over England that read 3 to 4 million index entries at 10M records (about 3 s). The
-- same grid is drawn from this table: the visible records (not archived, withdrawn or merged) of
-- each kind counted per square cell of 2^-level degrees, with the sums of their positions, at
-- levels 10, 8, 6 and 4 (a tile of zoom z reads the level whose cells are about a twelfth of its
-- grid's, so a cell's records fall in the grid cell of their mean position). It is rebuilt
-- whole, at most every few minutes, by the server that finds it due
-- (`db::tile_density::refresh`): a table of counts changed by every write would serialise the
-- writers of one city on its rows.
CREATE TABLE canonical.tile_density (
    canonical_table text NOT NULL,
    level smallint NOT NULL,
    cell_y int NOT NULL,
    cell_x int NOT NULL,
    records int NOT NULL,
    sum_lng float8 NOT NULL,
    sum_lat float8 NOT NULL,
    PRIMARY KEY (canonical_table, level, cell_y, cell_x) INCLUDE (records, sum_lng, sum_lat)
);

-- When the counts were last rebuilt (NULL: never; tiles are then drawn from the records). The
-- rebuild holds this row (FOR UPDATE SKIP LOCKED), so one server rebuilds at a time.
CREATE TABLE canonical.tile_density_state (
    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    refreshed_at timestamptz
);
INSERT INTO canonical.tile_density_state (refreshed_at) VALUES (NULL);
