-- Areas (entitiesWithin, REST `bbox`, map tiles) are boxes and polygons in longitude/latitude,
-- which PostGIS reads as `geometry`; the `geography` GiST index cannot answer them. Index the
-- cast the area queries use, `location::geometry`, on the three canonical tables.
CREATE INDEX entities_location_geometry_idx ON canonical.entities USING gist ((location::geometry));
CREATE INDEX listings_location_geometry_idx ON canonical.listings USING gist ((location::geometry));
CREATE INDEX requests_location_geometry_idx ON canonical.requests USING gist ((location::geometry));
