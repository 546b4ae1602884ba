-- Read-your-writes with read replicas: when an agent last wrote, so that its reads for a short
-- window go to the primary whichever server process answers them (the credential lookup, which
-- runs on the primary anyway, reads this row). Written only when replicas are configured, at most
-- once a second per agent. UNLOGGED: a hint, not a record; it need not survive a crash nor reach
-- the replicas, and it costs no WAL.
CREATE UNLOGGED TABLE agent_recent_writes (
    agent_id uuid PRIMARY KEY,
    wrote_at_tstamp_utc timestamptz NOT NULL
);
