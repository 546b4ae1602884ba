-- Why an entry waits for review and the candidates the transformer weighed (`why`, `candidates`
-- with score and reasons), and, once an operator resolved it, the resolution (who, when, what).
ALTER TABLE space_time_entries ADD COLUMN review jsonb;
CREATE INDEX space_time_entries_review_queue_idx ON space_time_entries (id)
    WHERE status = 'review_required';

-- Operators' resolutions run the transformer under their own trigger.
ALTER TABLE transformer_runs DROP CONSTRAINT transformer_runs_trigger_check;
ALTER TABLE transformer_runs ADD CONSTRAINT transformer_runs_trigger_check
    CHECK (trigger IN ('worker', 'api', 'cli', 'review'));
