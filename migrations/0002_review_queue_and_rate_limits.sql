-- Duplicate signals never merge anything: they queue the pair for human review.
CREATE TABLE duplicate_candidates (
    id uuid PRIMARY KEY,
    canonical_table text NOT NULL
        CONSTRAINT duplicate_candidates_canonical_table_check
        CHECK (canonical_table IN ('canonical.entities', 'canonical.listings', 'canonical.requests')),
    record_id uuid NOT NULL,
    duplicate_of_id uuid NOT NULL,
    first_signal_id uuid NOT NULL CONSTRAINT duplicate_candidates_first_signal_id_fkey REFERENCES signals (id),
    signal_count integer NOT NULL DEFAULT 1,
    status text NOT NULL DEFAULT 'open'
        CONSTRAINT duplicate_candidates_status_check CHECK (status IN ('open', 'confirmed', 'dismissed')),
    created_at_tstamp_utc timestamptz NOT NULL DEFAULT now(),
    updated_at_tstamp_utc timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT duplicate_candidates_distinct_check CHECK (record_id <> duplicate_of_id)
);
-- One queue row per unordered pair, whichever way round agents report it.
CREATE UNIQUE INDEX duplicate_candidates_pair_key ON duplicate_candidates
    (canonical_table, least(record_id, duplicate_of_id), greatest(record_id, duplicate_of_id));
CREATE INDEX duplicate_candidates_record_idx ON duplicate_candidates (record_id);
CREATE INDEX duplicate_candidates_duplicate_of_idx ON duplicate_candidates (duplicate_of_id);
CREATE TRIGGER duplicate_candidates_updated_at BEFORE UPDATE ON duplicate_candidates
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();

-- Fixed-window counters shared by every server process (no limiter state lives in one process).
CREATE TABLE rate_limit_windows (
    bucket text NOT NULL,
    window_start timestamptz NOT NULL,
    hits integer NOT NULL DEFAULT 0,
    PRIMARY KEY (bucket, window_start)
);

CREATE INDEX notes_parent_note_id_idx ON notes (parent_note_id);
CREATE INDEX signals_author_idx ON signals (created_by_agent_id, signal_type, target_id);
