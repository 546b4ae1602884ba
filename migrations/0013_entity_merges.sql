-- Operators merge duplicate entities: the other record becomes a redirect to the survivor
-- (status 'merged', merged_into_id), kept so that its id still answers and a merge can be undone.
ALTER TABLE canonical.entities DROP CONSTRAINT entities_status_check;
ALTER TABLE canonical.entities ADD CONSTRAINT entities_status_check
    CHECK (status IN ('active', 'review_required', 'archived', 'withdrawn', 'merged'));
ALTER TABLE canonical.entities ADD COLUMN merged_into_id uuid
    CONSTRAINT entities_merged_into_id_fkey REFERENCES canonical.entities (id);
ALTER TABLE canonical.entities ADD CONSTRAINT entities_merged_check
    CHECK ((status = 'merged') = (merged_into_id IS NOT NULL));
