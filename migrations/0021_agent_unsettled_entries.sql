-- An agent's entries by a status other than `processed` ("my entries in review", "my rejected
-- entries": GraphQL `agent { entries(status:) }` and its totalCount, REST `status` with an agent)
-- walked the agent's whole history through (agent_id, id), reading each row to test its status:
-- for an agent with millions of processed entries and a handful rejected, a scan of millions.
-- This partial index holds only the entries that are not `processed` (pending ones while they
-- wait, then the few that end rejected, in review or archived), so those reads find their rows
-- directly. A post adds one small index entry; processing adds none (a processed row leaves it).
-- The statements name `status <> 'processed'` when they filter by another status, so even a
-- cached generic plan can use it (db::entries).
CREATE INDEX space_time_entries_agent_unsettled_idx ON space_time_entries (agent_id, id)
    WHERE status <> 'processed';
