-- The box of longitudes and latitudes holding every point within a radius of a point: the same
-- rule as `domain::geo::circle_box` (a test compares the two), for statements whose radius is
-- only known inside PostgreSQL. The transformer's candidate search reads the `location::geometry`
-- GiST index with it: at 10M records the `geography` index's walk for the nearest 20 records of
-- an entry read 176 pages, the geometry index's 30 (docs/bench-log/growth.md).
CREATE FUNCTION canonical.circle_box(lat float8, lng float8, radius_m float8) RETURNS geometry
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
    -- The sphere of PostGIS's `ST_Distance(geography, geography, false)`, slightly enlarged so
    -- that rounding never leaves a point of the circle outside.
    phi float8 := radians(lat);
    theta float8 := greatest(radius_m, 0) / 6371008.7714 * 1.001 + 1e-9;
    south float8 := degrees(phi - theta);
    north float8 := degrees(phi + theta);
    dlng float8;
BEGIN
    IF theta >= pi() / 2 OR phi + theta >= pi() / 2 OR phi - theta <= -pi() / 2 THEN
        -- The circle holds a pole: every longitude.
        RETURN ST_MakeEnvelope(-180, greatest(south, -90), 180, least(north, 90), 4326);
    END IF;
    dlng := degrees(asin(least(sin(theta) / cos(phi), 1)));
    IF lng - dlng < -180 OR lng + dlng > 180 THEN
        -- Across the antimeridian: every longitude of its latitudes.
        RETURN ST_MakeEnvelope(-180, south, 180, north, 4326);
    END IF;
    RETURN ST_MakeEnvelope(lng - dlng, south, lng + dlng, north, 4326);
END
$$;
