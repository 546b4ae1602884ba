-- `canonical.cells_at` without STRICT, so that PostgreSQL inlines its body wherever it is used.
-- A STRICT SQL function is inlined only when the planner can prove its body is NULL for a NULL
-- argument, which an ARRAY[...] constructor never is; so each call went through the SQL-function
-- executor: about 20 µs a row, in the index's recheck of every candidate of a radius search (712
-- candidates of city+10km category at 1M: 17-29 ms, against 1.5 ms inlined) and on every write.
-- The two columns it reads are NOT NULL, so the values (and the index built on them) are
-- unchanged; index and queries are matched after the same inlining.
CREATE OR REPLACE FUNCTION canonical.cells_at(lat float8, lng float8)
RETURNS int8[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
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

-- The cover of a radius is computed by the server (src/search/cells.rs) and bound as a value: as
-- an SQL function of constant arguments PostgreSQL evaluated it while planning, once for each
-- table of a search, about 1 ms each time.
DROP FUNCTION canonical.box_cells(geometry);
