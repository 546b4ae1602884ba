//! principals: the legal or natural persons that own agents.

use crate::domain::{ListParams, PrincipalType};
pub use crate::records::agents::Principal;
use serde_json::Value;
use sqlx::PgPool;
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

pub async fn insert(pool: &PgPool, p: NewPrincipal) -> Result<Principal, sqlx::Error> {
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
    .fetch_one(pool)
    .await
}

pub async fn get(pool: &PgPool, id: Uuid) -> Result<Option<Principal>, sqlx::Error> {
    sqlx::query_as(&format!("SELECT {COLUMNS} FROM principals WHERE id = $1"))
        .bind(id)
        .fetch_optional(pool)
        .await
}

pub async fn get_many(pool: &PgPool, ids: &[Uuid]) -> Result<Vec<Principal>, sqlx::Error> {
    sqlx::query_as(&format!(
        "SELECT {COLUMNS} FROM principals WHERE id = ANY($1)"
    ))
    .bind(ids)
    .fetch_all(pool)
    .await
}

pub async fn list(pool: &PgPool, params: &ListParams) -> Result<Vec<Principal>, sqlx::Error> {
    sqlx::query_as(&format!(
        "SELECT {COLUMNS} FROM principals WHERE ($1::uuid IS NULL OR id < $1) ORDER BY id DESC LIMIT $2"
    ))
    .bind(params.after)
    .bind(params.fetch_limit())
    .fetch_all(pool)
    .await
}
