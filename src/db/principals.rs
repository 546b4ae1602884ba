//! principals: the legal or natural persons that own agents.

use crate::domain::{ListParams, PrincipalType};
pub use crate::records::agents::{Principal, PrincipalMembership};
use serde_json::Value;
use sqlx::PgConnection;
use uuid::Uuid;

pub struct NewPrincipal {
    pub principal_type: PrincipalType,
    pub display_name: String,
    pub legal_name: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub website_url: Option<String>,
    pub metadata: Value,
}

const COLUMNS: &str = "id, principal_type, display_name, legal_name, email, phone, website_url, metadata, \
                       created_at_tstamp_utc, updated_at_tstamp_utc";

pub async fn insert(conn: &mut PgConnection, p: NewPrincipal) -> Result<Principal, sqlx::Error> {
    sqlx::query_as(&format!(
        "INSERT INTO principals (id, principal_type, display_name, legal_name, email, phone, website_url, metadata)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING {COLUMNS}"
    ))
    .bind(Uuid::now_v7())
    .bind(p.principal_type)
    .bind(p.display_name)
    .bind(p.legal_name)
    .bind(p.email)
    .bind(p.phone)
    .bind(p.website_url)
    .bind(p.metadata)
    .fetch_one(conn)
    .await
}

pub async fn get<'c>(
    pool: impl super::Reads<'c>,
    id: Uuid,
) -> Result<Option<Principal>, sqlx::Error> {
    sqlx::query_as(&format!("SELECT {COLUMNS} FROM principals WHERE id = $1"))
        .bind(id)
        .fetch_optional(pool)
        .await
}

pub async fn get_many<'c>(
    pool: impl super::Reads<'c>,
    ids: &[Uuid],
) -> Result<Vec<Principal>, sqlx::Error> {
    sqlx::query_as(&format!(
        "SELECT {COLUMNS} FROM principals WHERE id = ANY($1)"
    ))
    .bind(ids)
    .fetch_all(pool)
    .await
}

pub async fn list<'c>(
    pool: impl super::Reads<'c>,
    params: &ListParams,
) -> Result<Vec<Principal>, sqlx::Error> {
    sqlx::query_as(&format!(
        "SELECT {COLUMNS} FROM principals WHERE ($1::uuid IS NULL OR id < $1) ORDER BY id DESC LIMIT $2"
    ))
    .bind(params.after)
    .bind(params.fetch_limit())
    .fetch_all(pool)
    .await
}

const MEMBERSHIP_COLUMNS: &str = "principal_id, agent_id, status, granted_by_agent_id, \
    created_at_tstamp_utc, updated_at_tstamp_utc";

/// Records that `agent` names `principal`: granted when the principal has no granted member yet
/// (its first agent owns it), pending otherwise. The principal's row is locked so two agents
/// racing for an unowned principal cannot both own it.
pub async fn join(
    conn: &mut PgConnection,
    principal: Uuid,
    agent: Uuid,
) -> Result<PrincipalMembership, sqlx::Error> {
    sqlx::query("SELECT 1 FROM principals WHERE id = $1 FOR UPDATE")
        .bind(principal)
        .execute(&mut *conn)
        .await?;
    sqlx::query_as(&format!(
        "INSERT INTO principal_memberships (principal_id, agent_id, status)
         VALUES ($1, $2, CASE WHEN EXISTS (SELECT 1 FROM principal_memberships
                              WHERE principal_id = $1 AND status = 'granted')
                         THEN 'pending' ELSE 'granted' END)
         ON CONFLICT (principal_id, agent_id) DO UPDATE SET updated_at_tstamp_utc = now()
         RETURNING {MEMBERSHIP_COLUMNS}"
    ))
    .bind(principal)
    .bind(agent)
    .fetch_one(conn)
    .await
}

/// Makes the creator of a principal its first, granted member.
pub async fn own(
    conn: &mut PgConnection,
    principal: Uuid,
    agent: Uuid,
) -> Result<PrincipalMembership, sqlx::Error> {
    sqlx::query_as(&format!(
        "INSERT INTO principal_memberships (principal_id, agent_id, status)
         VALUES ($1, $2, 'granted') RETURNING {MEMBERSHIP_COLUMNS}"
    ))
    .bind(principal)
    .bind(agent)
    .fetch_one(conn)
    .await
}

pub async fn is_granted(
    conn: &mut PgConnection,
    principal: Uuid,
    agent: Uuid,
) -> Result<bool, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM principal_memberships
         WHERE principal_id = $1 AND agent_id = $2 AND status = 'granted')",
    )
    .bind(principal)
    .bind(agent)
    .fetch_one(conn)
    .await
}

/// Grants a pending membership; None when `agent` has no membership of `principal`.
pub async fn grant(
    conn: &mut PgConnection,
    principal: Uuid,
    agent: Uuid,
    by: Uuid,
) -> Result<Option<PrincipalMembership>, sqlx::Error> {
    sqlx::query_as(&format!(
        "UPDATE principal_memberships
         SET status = 'granted',
             granted_by_agent_id = CASE WHEN status = 'granted' THEN granted_by_agent_id ELSE $3 END,
             updated_at_tstamp_utc = now()
         WHERE principal_id = $1 AND agent_id = $2
         RETURNING {MEMBERSHIP_COLUMNS}"
    ))
    .bind(principal)
    .bind(agent)
    .bind(by)
    .fetch_optional(conn)
    .await
}

/// A principal's memberships, newest agent first.
pub async fn memberships<'c>(
    pool: impl super::Reads<'c>,
    principal: Uuid,
    params: &ListParams,
) -> Result<Vec<PrincipalMembership>, sqlx::Error> {
    sqlx::query_as(&format!(
        "SELECT {MEMBERSHIP_COLUMNS} FROM principal_memberships
         WHERE principal_id = $1 AND ($2::uuid IS NULL OR agent_id < $2)
         ORDER BY agent_id DESC LIMIT $3"
    ))
    .bind(principal)
    .bind(params.after)
    .bind(params.fetch_limit())
    .fetch_all(pool)
    .await
}
