-- The transformer's candidate search takes the nearest 20 records sharing an identity key of the
-- entry. No record farther than 25 km can win (docs/matching-rules.md, "Distance gate"), yet the
-- search ranked every holder of the key in the world: a chain's or a namesake's name has holders
-- in every city, and their number grows with the data (the 100 sampled records of the 10M bench
-- base share their names with 27,741 records, 1,789 of them within 25 km). The key indexes now
-- order each key's holders by latitude, so the search reads only the band of latitudes within
-- reach of the entry (db::entities::candidates_many) and ranks those from the index alone, as
-- before (they still carry id, place and status: migration 0028).
DROP INDEX canonical.entities_name_key_idx;
DROP INDEX canonical.entities_website_key_idx;
DROP INDEX canonical.entities_phone_key_idx;
DROP INDEX canonical.entities_source_ref_idx;
CREATE INDEX entities_name_key_idx ON canonical.entities (name_key, location_lat)
    INCLUDE (id, location, status);
CREATE INDEX entities_website_key_idx ON canonical.entities (website_key, location_lat)
    INCLUDE (id, location, status) WHERE website_key IS NOT NULL;
CREATE INDEX entities_phone_key_idx ON canonical.entities (phone_key, location_lat)
    INCLUDE (id, location, status) WHERE phone_key IS NOT NULL;
CREATE INDEX entities_source_ref_idx ON canonical.entities (source_ref, location_lat)
    INCLUDE (id, location, status) WHERE source_ref IS NOT NULL;
