-- Two ways for a search (src/search/sql.rs) to gather fewer candidates for the same answers
-- (docs/bench-log/search.md, "Candidates through small indexes").

-- 1. A radius as a longitude/latitude box. `ST_DWithin` on geography reads the GiST index of
-- `location` through a box in Earth-centred coordinates, axis-aligned to the Earth's axes rather
-- than to the place: at 52° N a 100 km radius read 40,245 index entries on 947 pages (25 to 39 ms).
-- The box of longitudes and latitudes that holds the same circle, through the `location::geometry`
-- index (migration 0011), reads 13,896 entries on 112 pages (3 ms); the sphere distance then keeps
-- the rows inside the circle. The box holds every point within `radius_m` on the sphere
-- `ST_DWithin(..., false)` measures on (mean radius 6,371,008.8 m), with 0.1 % to spare; it spans
-- every longitude when the circle reaches a pole or crosses the antimeridian.
CREATE FUNCTION dwithin_box(lng float8, lat float8, radius_m float8)
RETURNS geometry
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$
    SELECT CASE
        WHEN theta >= pi() / 2 OR phi + theta >= pi() / 2 OR phi - theta <= -pi() / 2 THEN
            ST_MakeEnvelope(-180, greatest(-90, degrees(phi - theta)),
                            180, least(90, degrees(phi + theta)), 4326)
        WHEN lng - dlng < -180 OR lng + dlng > 180 THEN
            ST_MakeEnvelope(-180, degrees(phi - theta), 180, degrees(phi + theta), 4326)
        ELSE
            ST_MakeEnvelope(lng - dlng, degrees(phi - theta), lng + dlng, degrees(phi + theta), 4326)
    END
    FROM (SELECT phi, theta,
                 CASE WHEN abs(phi) + theta < pi() / 2
                      THEN degrees(asin(least(1.0, sin(theta) / cos(phi)))) END AS dlng
          FROM (SELECT radians(lat) AS phi,
                       greatest(radius_m, 0) / 6371008.7714 * 1.001 + 1e-9 AS theta) AS angles)
         AS extent
$$;

-- 2. A record's name as the set of its words, for the fuzzy step that looks for records whose
-- whole name is among the query's words (`Hawksmoor` for `Hawksmoor Seven Dials`). It scored
-- every record having any one query word (1,499 rows within 10 km of Manchester for a
-- three-word name, 110 ms); through this index it reads the names made of the query's words
-- alone. The words are those the search compares a name with (the `simple` parser's, one-letter
-- words left out), distinct and in byte order, joined by spaces; NULL for a name without such words.
CREATE FUNCTION canonical.name_word_key(name text)
RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$
    SELECT string_agg(w, ' ' ORDER BY w COLLATE "C")
    FROM unnest(tsvector_to_array(to_tsvector('simple'::regconfig, name))) AS w
    WHERE length(w) > 1
$$;

CREATE INDEX entities_name_word_key_idx ON canonical.entities (canonical.name_word_key(display_name));
CREATE INDEX listings_name_word_key_idx ON canonical.listings (canonical.name_word_key(title));
CREATE INDEX requests_name_word_key_idx ON canonical.requests (canonical.name_word_key(title));
