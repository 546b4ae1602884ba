-- A place key for each canonical table, in geohash order (Z-order of longitude and latitude,
-- 8 characters: cells of about 38 × 19 m). Nothing reads it to answer a request: it is the order
-- `spacetime-records admin order-by-place` rewrites the tables in (`CLUSTER ... USING`), so that
-- records near each other share pages. With the rows in place order a radius's grid cells hold
-- a few runs of the table's row addresses, and the search index skips the posting lists of its
-- words outside them: at 1M records, a name of three common words within 100 km scanned in 0.5
-- ms against 3.0 (docs/bench-log/growth.md). `IF NOT EXISTS`: a bench base may have it already.
CREATE INDEX IF NOT EXISTS entities_place_order_idx ON canonical.entities
    (ST_GeoHash(location::geometry, 8));
CREATE INDEX IF NOT EXISTS listings_place_order_idx ON canonical.listings
    (ST_GeoHash(location::geometry, 8));
CREATE INDEX IF NOT EXISTS requests_place_order_idx ON canonical.requests
    (ST_GeoHash(location::geometry, 8));
