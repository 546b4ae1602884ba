-- A radius through the full-text index itself (src/search/sql.rs; docs/bench-log/search.md,
-- "Cells in the full-text index").
--
-- The box of a radius went through the GiST index of `location::geometry` (migration 0025), and
-- PostgreSQL estimated its rows from PostGIS's 2-D histogram: at most 20,000 cells over the data's
-- extent, which for records all over the world are a few degrees wide, so a whole city is one
-- cell and every box inside it is guessed at the city's average density. Around Manchester the
-- guesses were 46 rows for 1,240 (1 km) and 4,826 for 22,768 (10 km) at 1M records, 25,470 for
-- 229,099 at 10M. Trusting them, the planner read the box next to the words even for a name
-- whose words alone held 54 records, and built a bitmap of every record in the box (73 ms at
-- 10M). And a broad query read two large bitmaps (the box's and the words') only to AND them.
--
-- So each record's location is also a handful of grid cells, indexed in the same GIN index as its
-- search document; a radius becomes the cells covering its box. ANALYZE keeps the frequencies of
-- the common cells (every dense city's), so the rows of a box are estimated from the data; and the
-- words and the cells of one statement are intersected inside one index scan.

-- The cells of a point: square cells of 16°, 4°, 1°, 1/4°, 1/16°, 1/64° and 1/256° (about 430 m
-- of latitude), one per size, each an int8: (8 + level) << 40 | (row + 2^19) << 20 | (column + 2^19),
-- where a level-k cell is 2^-k degrees wide (k = -4, -2, ..., 8), row = floor(lat × 2^k) and
-- column = floor(lng × 2^k). Indexed on the plain `location_lat`/`location_lng` columns that
-- `location` is made of: plain arithmetic, so the index's recheck of each candidate row stays cheap
-- (through `location` each of the 14 coordinates was a geography-to-geometry cast: 20 µs a row).
CREATE FUNCTION canonical.cells_at(lat float8, lng float8)
RETURNS int8[]
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$
    SELECT ARRAY[
        (4::int8 << 40) | ((floor(lat / 16)::int8 + 524288) << 20) | (floor(lng / 16)::int8 + 524288),
        (6::int8 << 40) | ((floor(lat / 4)::int8 + 524288) << 20) | (floor(lng / 4)::int8 + 524288),
        (8::int8 << 40) | ((floor(lat)::int8 + 524288) << 20) | (floor(lng)::int8 + 524288),
        (10::int8 << 40) | ((floor(lat * 4)::int8 + 524288) << 20) | (floor(lng * 4)::int8 + 524288),
        (12::int8 << 40) | ((floor(lat * 16)::int8 + 524288) << 20) | (floor(lng * 16)::int8 + 524288),
        (14::int8 << 40) | ((floor(lat * 64)::int8 + 524288) << 20) | (floor(lng * 64)::int8 + 524288),
        (16::int8 << 40) | ((floor(lat * 256)::int8 + 524288) << 20) | (floor(lng * 256)::int8 + 524288)]
$$;

-- The cells covering a box, of the finest size that needs at most 128 of them (the coarsest size
-- when none does: a box spanning every longitude near a pole). Fewer, larger cells cover more
-- than the box, and each row of the surplus is read and rechecked: 100 km in rural Wales at 1M
-- records found 1,801 candidates in 12 cells of 1° (50 ms), 568 in 104 cells of 1/4° (27 ms). Each point of the box is in one of
-- them: rows and columns are floors of the same scaled coordinates.
CREATE FUNCTION canonical.box_cells(box geometry)
RETURNS int8[]
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$
    SELECT array_agg(((level.k + 8)::int8 << 40) | ((r + 524288) << 20) | (c + 524288))
    FROM (SELECT k, r0, r1, c0, c1
          FROM (SELECT k,
                       floor(ST_YMin(box) * 2.0 ^ k)::int8 AS r0, floor(ST_YMax(box) * 2.0 ^ k)::int8 AS r1,
                       floor(ST_XMin(box) * 2.0 ^ k)::int8 AS c0, floor(ST_XMax(box) * 2.0 ^ k)::int8 AS c1
                FROM generate_series(8, -4, -2) AS k) AS sizes
          ORDER BY (r1 - r0 + 1) * (c1 - c0 + 1) <= 128 DESC,
                   CASE WHEN (r1 - r0 + 1) * (c1 - c0 + 1) <= 128 THEN k ELSE -k END DESC
          LIMIT 1) AS level,
         generate_series(level.r0, level.r1) AS r,
         generate_series(level.c0, level.c1) AS c
$$;

CREATE INDEX entities_search_cells_idx ON canonical.entities
    USING gin (search_document, canonical.cells_at(location_lat, location_lng));
CREATE INDEX listings_search_cells_idx ON canonical.listings
    USING gin (search_document, canonical.cells_at(location_lat, location_lng));
CREATE INDEX requests_search_cells_idx ON canonical.requests
    USING gin (search_document, canonical.cells_at(location_lat, location_lng));
-- The words alone read the same index (a GIN index answers any of its columns).
DROP INDEX IF EXISTS canonical.entities_search_document_idx;
DROP INDEX IF EXISTS canonical.listings_search_document_idx;
DROP INDEX IF EXISTS canonical.requests_search_document_idx;
