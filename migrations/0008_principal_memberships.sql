-- An agent belongs to a principal only when the principal grants it: the first agent to name an
-- unowned principal (or the agent that creates it with its key) owns it; any later agent that
-- names it waits, pending, until a granted member grants it. Only granted membership counts for
-- principal_only visibility.
CREATE TABLE principal_memberships (
    principal_id uuid NOT NULL
        CONSTRAINT principal_memberships_principal_id_fkey REFERENCES principals (id) ON DELETE CASCADE,
    agent_id uuid NOT NULL
        CONSTRAINT principal_memberships_agent_id_fkey REFERENCES agents (id) ON DELETE CASCADE,
    status text NOT NULL
        CONSTRAINT principal_memberships_status_check CHECK (status IN ('granted', 'pending')),
    granted_by_agent_id uuid
        CONSTRAINT principal_memberships_granted_by_agent_id_fkey REFERENCES agents (id),
    created_at_tstamp_utc timestamptz NOT NULL DEFAULT now(),
    updated_at_tstamp_utc timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT principal_memberships_pkey PRIMARY KEY (principal_id, agent_id)
);

CREATE INDEX principal_memberships_agent_id_idx ON principal_memberships (agent_id);

-- Existing links: the earliest agent of each principal (ids are time-ordered) owns it; the others
-- declared the link themselves and wait for its grant.
INSERT INTO principal_memberships (principal_id, agent_id, status)
SELECT principal_id, id,
       CASE WHEN row_number() OVER (PARTITION BY principal_id ORDER BY id) = 1 THEN 'granted' ELSE 'pending' END
FROM agents
WHERE principal_id IS NOT NULL;
