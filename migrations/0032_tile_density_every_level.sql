-- The counts per cell are kept at every level from 10 down to -1 (cells of 2 degrees), and a
-- tile of zoom z reads level z - 1 (db::tile_density): a tile then reads at most 180 cells
-- across at any zoom, where the levels 10, 8, 6 and 4 of migration 0031 left a zoom-10 tile over
-- a city 4 times as many and a zoom-0 tile every cell of level 4 in the world. Counts built
-- before this have none of the new levels: they are dropped, and tiles are drawn from the
-- records until the next rebuild (the first tile of low zoom starts it).
DELETE FROM canonical.tile_density;
UPDATE canonical.tile_density_state SET refreshed_at = NULL;
