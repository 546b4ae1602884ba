-- Field proposals (issue 28): an entry whose identity is settled always links to its record, but
-- when it would replace an established identity field another agent set (the name, website or
-- phone by another key, the location by more than 100 m), the record keeps its value and the
-- contested value waits here for an operator, with the evidence of both values. Accepting applies
-- it (with a contribution naming the operator); dismissing keeps the record. A proposal is moot
-- (`superseded`) once the record's field changes otherwise.
CREATE TABLE field_proposals (
    id uuid PRIMARY KEY,
    canonical_table text NOT NULL
        CONSTRAINT field_proposals_canonical_table_check
        CHECK (canonical_table IN ('canonical.entities', 'canonical.listings', 'canonical.requests')),
    record_id uuid NOT NULL,
    field text NOT NULL
        CONSTRAINT field_proposals_field_check
        CHECK (field IN ('display_name', 'website_url', 'phone', 'location')),
    -- The record's value when the proposal was made, and the evidence that set it (none when the
    -- record's field evidence did not name it).
    current_value text NOT NULL,
    current_entry_id uuid,
    current_agent_id uuid,
    current_observed_at_tstamp_utc timestamptz,
    current_confidence double precision,
    -- The contested value and its evidence: the entry that proposed it first.
    proposed_value text NOT NULL,
    -- What makes two proposals the same value (a name, website or phone key; a rounded point).
    proposed_key text NOT NULL,
    space_time_entry_id uuid NOT NULL
        CONSTRAINT field_proposals_space_time_entry_id_fkey REFERENCES space_time_entries (id),
    agent_id uuid NOT NULL
        CONSTRAINT field_proposals_agent_id_fkey REFERENCES agents (id),
    proposed_observed_at_tstamp_utc timestamptz,
    proposed_confidence double precision NOT NULL,
    reason text NOT NULL,
    -- Entries that proposed the same value while it was open (the first included).
    proposal_count integer NOT NULL DEFAULT 1
        CONSTRAINT field_proposals_proposal_count_check CHECK (proposal_count >= 1),
    status text NOT NULL DEFAULT 'open'
        CONSTRAINT field_proposals_status_check
        CHECK (status IN ('open', 'accepted', 'dismissed', 'superseded')),
    decided_by_agent_id uuid
        CONSTRAINT field_proposals_decided_by_agent_id_fkey REFERENCES agents (id),
    decided_at_tstamp_utc timestamptz,
    created_at_tstamp_utc timestamptz NOT NULL DEFAULT now(),
    updated_at_tstamp_utc timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT field_proposals_decided_check
        CHECK ((status IN ('accepted', 'dismissed')) = (decided_by_agent_id IS NOT NULL))
);
-- One open proposal per record, field and value: later entries proposing it count up.
CREATE UNIQUE INDEX field_proposals_open_value_key ON field_proposals
    (canonical_table, record_id, field, proposed_key) WHERE status = 'open';
-- The queue by status, newest first; an agent's proposals; a record's (superseding, edges).
CREATE INDEX field_proposals_status_idx ON field_proposals (status, id);
CREATE INDEX field_proposals_agent_idx ON field_proposals (agent_id, id);
CREATE INDEX field_proposals_record_idx ON field_proposals (record_id, field) WHERE status = 'open';
CREATE TRIGGER field_proposals_updated_at BEFORE UPDATE ON field_proposals
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();
