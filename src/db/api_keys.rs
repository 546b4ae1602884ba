//! agent_api_keys: hashed API keys. `expired` is derived from the expiry time at read time, so a
//! key expires exactly on time without any background job.

use crate::domain::{AgentStatus, ApiKeyStatus, ListParams};
pub use crate::records::agents::ApiKey;
use chrono::{DateTime, Utc};
use sqlx::PgConnection;
use uuid::Uuid;

/// What authentication needs to know about a key and its agent, in one lookup.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Credential {
    pub key_id: Uuid,
    pub agent_id: Uuid,
    pub principal_id: Option<Uuid>,
    pub scopes: Vec<String>,
    pub key_status: ApiKeyStatus,
    pub agent_status: AgentStatus,
    pub last_used_at_tstamp_utc: Option<DateTime<Utc>>,
    /// Seconds since the agent's last write was marked (`agent_recent_writes`), by the
    /// database's clock; `None` when none is recorded.
    pub seconds_since_write: Option<f64>,
}

const COLUMNS: &str = "id, agent_id, key_prefix, \
    CASE WHEN status = 'active' AND expires_at_tstamp_utc <= now() THEN 'expired' ELSE status END AS status, \
    scopes, last_used_at_tstamp_utc, expires_at_tstamp_utc, created_at_tstamp_utc, updated_at_tstamp_utc";

/// The caller's principal is the one that granted it membership, never merely the one it named.
const CREDENTIAL_QUERY: &str = "SELECT k.id AS key_id, k.agent_id, m.principal_id, k.scopes,
        CASE WHEN k.status = 'active' AND k.expires_at_tstamp_utc <= now() THEN 'expired' ELSE k.status END
            AS key_status,
        a.status AS agent_status, k.last_used_at_tstamp_utc,
        extract(epoch FROM now() - w.wrote_at_tstamp_utc)::float8 AS seconds_since_write
    FROM agent_api_keys k JOIN agents a ON a.id = k.agent_id
    LEFT JOIN agent_recent_writes w ON w.agent_id = a.id
    LEFT JOIN principal_memberships m
        ON m.principal_id = a.principal_id AND m.agent_id = a.id AND m.status = 'granted'";

pub struct NewApiKey<'a> {
    pub agent_id: Uuid,
    pub key_hash: &'a [u8],
    pub key_prefix: &'a str,
    pub scopes: Vec<String>,
    pub expires_at: Option<DateTime<Utc>>,
}

pub async fn insert(conn: &mut PgConnection, k: NewApiKey<'_>) -> Result<ApiKey, sqlx::Error> {
    sqlx::query_as(&format!(
        "INSERT INTO agent_api_keys (id, agent_id, key_hash, key_prefix, scopes, expires_at_tstamp_utc)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING {COLUMNS}"
    ))
    .bind(Uuid::now_v7())
    .bind(k.agent_id)
    .bind(k.key_hash)
    .bind(k.key_prefix)
    .bind(k.scopes)
    .bind(k.expires_at)
    .fetch_one(conn)
    .await
}

/// A page of an agent's keys, newest first (revoked ones stay listed, so the page is bounded by
/// the caller).
pub async fn list_for_agent<'c>(
    pool: impl super::Reads<'c>,
    agent_id: Uuid,
    params: &ListParams,
) -> Result<Vec<ApiKey>, sqlx::Error> {
    sqlx::query_as(&format!(
        "SELECT {COLUMNS} FROM agent_api_keys WHERE agent_id = $1 AND ($2::uuid IS NULL OR id < $2) \
         ORDER BY id DESC LIMIT $3"
    ))
    .bind(agent_id)
    .bind(params.after)
    .bind(params.fetch_limit())
    .fetch_all(pool)
    .await
}

/// Revokes the key when it belongs to `agent_id`; true when such a key exists (revoking twice is fine).
pub async fn revoke<'c>(
    pool: impl super::Reads<'c>,
    agent_id: Uuid,
    key_id: Uuid,
) -> Result<bool, sqlx::Error> {
    let row = sqlx::query(
        "UPDATE agent_api_keys SET status = 'revoked', revoked_at_tstamp_utc = coalesce(revoked_at_tstamp_utc, now())
         WHERE id = $1 AND agent_id = $2 RETURNING id",
    )
    .bind(key_id)
    .bind(agent_id)
    .fetch_optional(pool)
    .await?;
    Ok(row.is_some())
}

pub async fn credential_by_hash<'c>(
    pool: impl super::Reads<'c>,
    hash: &[u8],
) -> Result<Option<Credential>, sqlx::Error> {
    sqlx::query_as(&format!("{CREDENTIAL_QUERY} WHERE k.key_hash = $1"))
        .bind(hash)
        .fetch_optional(pool)
        .await
}

pub async fn credential_by_key_id<'c>(
    pool: impl super::Reads<'c>,
    key_id: Uuid,
) -> Result<Option<Credential>, sqlx::Error> {
    sqlx::query_as(&format!("{CREDENTIAL_QUERY} WHERE k.id = $1"))
        .bind(key_id)
        .fetch_optional(pool)
        .await
}

/// Records use without a write per request: the row changes at most once a minute per key.
pub async fn touch_last_used<'c>(
    pool: impl super::Reads<'c>,
    key_id: Uuid,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE agent_api_keys SET last_used_at_tstamp_utc = now()
         WHERE id = $1 AND (last_used_at_tstamp_utc IS NULL OR last_used_at_tstamp_utc < now() - interval '1 minute')",
    )
    .bind(key_id)
    .execute(pool)
    .await?;
    Ok(())
}

/// Marks that `agent_id` has just written, for read-your-writes (at most once a second per agent,
/// so a busy writer does not queue on its own row).
pub async fn mark_recent_write<'c>(
    pool: impl super::Reads<'c>,
    agent_id: Uuid,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO agent_recent_writes (agent_id, wrote_at_tstamp_utc) VALUES ($1, now())
         ON CONFLICT (agent_id) DO UPDATE SET wrote_at_tstamp_utc = now()
         WHERE agent_recent_writes.wrote_at_tstamp_utc < now() - interval '1 second'",
    )
    .bind(agent_id)
    .execute(pool)
    .await?;
    Ok(())
}
