-- The service's reading of each agent's track record (docs/ranking.md), kept for a minute so that
-- the transformer does not recount an agent's latest 500 contributions in every batch that
-- touches one of its records (with agents posting steadily, that count was most of the primary's
-- CPU; docs/scale-out.md). A cache: UNLOGGED (no WAL, empty after a crash, never on replicas),
-- recomputed whenever a row is missing or older than the bound; ranker runs always recompute.
CREATE UNLOGGED TABLE agent_track_records (
    agent_id uuid PRIMARY KEY,
    contributed int8 NOT NULL,
    corroborated int8 NOT NULL,
    confirmed int8 NOT NULL,
    disputed int8 NOT NULL,
    computed_at_tstamp_utc timestamptz NOT NULL
);
