-- Records inside an area (entitiesWithin, the bbox of lists and OGC items) were found through the
-- GiST index and every one of their rows read to keep the newest page: 15,900 rows for a 2.7 km
-- box in Manchester at 10M records (about 30 ms of PostgreSQL). A btree led by the record's band
-- of latitude (1/256 degree, about 430 m: `db::bands`) and carrying the id lets a page's ids be
-- chosen from the index alone, one range of longitudes in each band the area crosses, and only
-- the page's rows read (4 ms for that box).
-- The covering index of the map tiles (migration 0016, on longitude then latitude) cannot do
-- this: a range of longitudes is read from pole to pole (59,000 entries for that box). It stays
-- for the tiles, whose low zooms would cross thousands of bands.
CREATE INDEX entities_band_idx ON canonical.entities
    ((floor(location_lat * 256)::int), location_lng, location_lat) INCLUDE (status, id);
CREATE INDEX listings_band_idx ON canonical.listings
    ((floor(location_lat * 256)::int), location_lng, location_lat) INCLUDE (status, id);
CREATE INDEX requests_band_idx ON canonical.requests
    ((floor(location_lat * 256)::int), location_lng, location_lat) INCLUDE (status, id);
