-- Operators merge duplicate listings and requests as they merge entities (0013): the other record
-- becomes a redirect to the survivor (status 'merged', merged_into_id), kept so that its id still
-- answers and a merge can be undone.
ALTER TABLE canonical.listings DROP CONSTRAINT listings_status_check;
ALTER TABLE canonical.listings ADD CONSTRAINT listings_status_check
    CHECK (status IN ('active', 'review_required', 'archived', 'withdrawn', 'merged'));
ALTER TABLE canonical.listings ADD COLUMN merged_into_id uuid
    CONSTRAINT listings_merged_into_id_fkey REFERENCES canonical.listings (id);
ALTER TABLE canonical.listings ADD CONSTRAINT listings_merged_check
    CHECK ((status = 'merged') = (merged_into_id IS NOT NULL));

ALTER TABLE canonical.requests DROP CONSTRAINT requests_status_check;
ALTER TABLE canonical.requests ADD CONSTRAINT requests_status_check
    CHECK (status IN ('active', 'fulfilled', 'review_required', 'archived', 'withdrawn', 'merged'));
ALTER TABLE canonical.requests ADD COLUMN merged_into_id uuid
    CONSTRAINT requests_merged_into_id_fkey REFERENCES canonical.requests (id);
ALTER TABLE canonical.requests ADD CONSTRAINT requests_merged_check
    CHECK ((status = 'merged') = (merged_into_id IS NOT NULL));
