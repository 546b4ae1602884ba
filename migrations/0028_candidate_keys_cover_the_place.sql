-- The transformer's candidate search (db::entities::candidates_many) takes, besides the nearest
-- records, the nearest 20 records sharing one of the entry's identity keys. It read every holder
-- of the key from the table to sort them by distance: at 10M generated records a phone had 1,106
-- holders and a name 787, so one entry read 1,894 table pages to keep 20 (41 ms cold; processing
-- fell from 4,086 entries/s at 100k to 127; docs/bench-log/growth.md). The key indexes now carry
-- each holder's id, place and status, so the holders are sorted from the index alone (an
-- index-only scan: 55 pages for the 1,106 holders of that phone) and only the 20 kept are read.
DROP INDEX canonical.entities_name_key_idx;
DROP INDEX canonical.entities_website_key_idx;
DROP INDEX canonical.entities_phone_key_idx;
DROP INDEX canonical.entities_source_ref_idx;
CREATE INDEX entities_name_key_idx ON canonical.entities (name_key)
    INCLUDE (id, location, status);
CREATE INDEX entities_website_key_idx ON canonical.entities (website_key)
    INCLUDE (id, location, status) WHERE website_key IS NOT NULL;
CREATE INDEX entities_phone_key_idx ON canonical.entities (phone_key)
    INCLUDE (id, location, status) WHERE phone_key IS NOT NULL;
CREATE INDEX entities_source_ref_idx ON canonical.entities (source_ref)
    INCLUDE (id, location, status) WHERE source_ref IS NOT NULL;
