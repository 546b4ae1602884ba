-- Map tiles (GET /tiles/{z}/{x}/{y}.mvt) group every record in view when a tile is dense: at zoom
-- 0 that is the whole table. PostGIS's GiST cannot answer an index-only scan, so each canonical
-- table gets a covering btree that can: the position and the status, nothing that changes often
-- (scores are not in it, so a ranker update stays as cheap as before).
CREATE INDEX entities_tile_idx ON canonical.entities (location_lng, location_lat) INCLUDE (status);
CREATE INDEX listings_tile_idx ON canonical.listings (location_lng, location_lat) INCLUDE (status);
CREATE INDEX requests_tile_idx ON canonical.requests (location_lng, location_lat) INCLUDE (status);
