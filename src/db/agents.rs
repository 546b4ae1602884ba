//! agents: the publishers (scrapers, API clients, suppliers, people) that send entries.

use crate::domain::{AgentStatus, AgentType, ListParams};
pub use crate::records::agents::Agent;
pub use crate::records::agents::AgentPublic;
use rust_decimal::Decimal;
use serde_json::Value;
use sqlx::PgConnection;
use uuid::Uuid;

pub struct NewAgent {
    pub principal_id: Option<Uuid>,
    pub agent_type: AgentType,
    pub display_name: String,
    pub agent_handle: String,
    pub description: Option<String>,
    pub status: AgentStatus,
    pub score_trust: Decimal,
    pub score_reputation: Decimal,
    pub truth_certificate_amount_gbp: Decimal,
    pub capabilities: Value,
    pub metadata: Value,
}

const COLUMNS: &str = "id, principal_id, agent_type, display_name, agent_handle, description, status, score_trust, \
    score_reputation, truth_certificate_amount_gbp, capabilities, metadata, created_at_tstamp_utc, updated_at_tstamp_utc";

pub async fn insert(conn: &mut PgConnection, a: NewAgent) -> Result<Agent, sqlx::Error> {
    sqlx::query_as(&format!(
        "INSERT INTO agents (id, principal_id, agent_type, display_name, agent_handle, description, status,
             score_trust, score_reputation, truth_certificate_amount_gbp, capabilities, metadata)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING {COLUMNS}"
    ))
    .bind(Uuid::now_v7())
    .bind(a.principal_id)
    .bind(a.agent_type)
    .bind(a.display_name)
    .bind(a.agent_handle)
    .bind(a.description)
    .bind(a.status)
    .bind(a.score_trust)
    .bind(a.score_reputation)
    .bind(a.truth_certificate_amount_gbp)
    .bind(a.capabilities)
    .bind(a.metadata)
    .fetch_one(conn)
    .await
}

pub async fn get<'c>(pool: impl super::Reads<'c>, id: Uuid) -> Result<Option<Agent>, sqlx::Error> {
    sqlx::query_as(&format!("SELECT {COLUMNS} FROM agents WHERE id = $1"))
        .bind(id)
        .fetch_optional(pool)
        .await
}

pub async fn get_many<'c>(
    pool: impl super::Reads<'c>,
    ids: &[Uuid],
) -> Result<Vec<Agent>, sqlx::Error> {
    sqlx::query_as(&format!("SELECT {COLUMNS} FROM agents WHERE id = ANY($1)"))
        .bind(ids)
        .fetch_all(pool)
        .await
}

fn list_statement(columns: &str) -> String {
    format!(
        "SELECT {columns} FROM agents WHERE ($1::uuid IS NULL OR id < $1) ORDER BY id DESC LIMIT $2"
    )
}

pub async fn list<'c>(
    pool: impl super::Reads<'c>,
    params: &ListParams,
) -> Result<Vec<Agent>, sqlx::Error> {
    sqlx::query_as(&list_statement(COLUMNS))
        .bind(params.after)
        .bind(params.fetch_limit())
        .fetch_all(pool)
        .await
}

/// The rows `list` would page through, up to `COUNT_CAP + 1`.
pub async fn count<'c>(pool: impl super::Reads<'c>) -> sqlx::Result<i64> {
    sqlx::query_scalar(&super::counted(&list_statement("id")))
        .bind(None::<Uuid>)
        .bind(super::COUNT_CAP + 1)
        .fetch_one(pool)
        .await
}

/// How many agents each of `principals` has, each counted up to `COUNT_CAP + 1`, in one
/// statement.
pub async fn count_by_principals<'c>(
    pool: impl super::Reads<'c>,
    principals: &[Uuid],
) -> sqlx::Result<Vec<(Uuid, i64)>> {
    sqlx::query_as(
        "SELECT principal.id, (SELECT count(*) FROM (
             SELECT 1 FROM agents WHERE principal_id = principal.id LIMIT $2) AS counted)
         FROM unnest($1::uuid[]) AS principal(id)",
    )
    .bind(principals)
    .bind(super::COUNT_CAP + 1)
    .fetch_all(pool)
    .await
}

pub async fn list_by_principal<'c>(
    pool: impl super::Reads<'c>,
    principal_id: Uuid,
    params: &ListParams,
) -> Result<Vec<Agent>, sqlx::Error> {
    sqlx::query_as(&format!(
        "SELECT {COLUMNS} FROM agents WHERE principal_id = $1 AND ($2::uuid IS NULL OR id < $2)
         ORDER BY id DESC LIMIT $3"
    ))
    .bind(principal_id)
    .bind(params.after)
    .bind(params.fetch_limit())
    .fetch_all(pool)
    .await
}

pub async fn set_status<'c>(
    pool: impl super::Reads<'c>,
    id: Uuid,
    status: AgentStatus,
) -> Result<Option<Agent>, sqlx::Error> {
    sqlx::query_as(&format!(
        "UPDATE agents SET status = $2 WHERE id = $1 RETURNING {COLUMNS}"
    ))
    .bind(id)
    .bind(status)
    .fetch_optional(pool)
    .await
}

/// Which of `ids` name existing agents (references in messages, terms and signatures).
pub async fn existing_ids(conn: &mut PgConnection, ids: &[Uuid]) -> Result<Vec<Uuid>, sqlx::Error> {
    sqlx::query_scalar("SELECT id FROM agents WHERE id = ANY($1)")
        .bind(ids)
        .fetch_all(conn)
        .await
}

/// Links an agent that has no principal yet to `principal` (the agent created it).
pub async fn set_principal_if_none(
    conn: &mut PgConnection,
    agent: Uuid,
    principal: Uuid,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE agents SET principal_id = $2, updated_at_tstamp_utc = now()
         WHERE id = $1 AND principal_id IS NULL",
    )
    .bind(agent)
    .bind(principal)
    .execute(conn)
    .await?;
    Ok(())
}
