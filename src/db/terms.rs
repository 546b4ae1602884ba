//! transaction_terms: reusable transaction texts. A private term is read only by its creator and
//! the agents it is offered to; the rule is in the SQL, so a hidden term never leaves the database.

use crate::domain::{ListParams, TermVisibility};
use crate::records::terms::TransactionTerm;
use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use serde_json::Value;
use sqlx::PgConnection;
use uuid::Uuid;

pub(crate) const COLUMNS: &str = "id, created_by_agent_id, title, terms_text, terms_version, content_sha256, \
    visibility, offered_to_agent_ids, currency_code, value_amount, valid_from_tstamp_utc, valid_to_tstamp_utc, \
    metadata, created_at_tstamp_utc, updated_at_tstamp_utc";

/// `$1` is the reading agent (or null for an anonymous reader).
pub(crate) const VISIBLE: &str =
    "(visibility = 'public' OR created_by_agent_id = $1 OR $1 = ANY(offered_to_agent_ids))";

pub struct NewTerm {
    pub created_by_agent_id: Uuid,
    pub title: String,
    pub terms_text: String,
    pub terms_version: String,
    pub content_sha256: String,
    pub visibility: TermVisibility,
    pub offered_to_agent_ids: Vec<Uuid>,
    pub currency_code: Option<String>,
    pub value_amount: Option<Decimal>,
    pub valid_from_tstamp_utc: Option<DateTime<Utc>>,
    pub valid_to_tstamp_utc: Option<DateTime<Utc>>,
    pub metadata: Value,
}

pub async fn insert(conn: &mut PgConnection, t: &NewTerm) -> Result<TransactionTerm, sqlx::Error> {
    sqlx::query_as(&format!(
        "INSERT INTO transaction_terms (id, created_by_agent_id, title, terms_text, terms_version, content_sha256,
             visibility, offered_to_agent_ids, currency_code, value_amount, valid_from_tstamp_utc,
             valid_to_tstamp_utc, metadata)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING {COLUMNS}"
    ))
    .bind(Uuid::now_v7())
    .bind(t.created_by_agent_id)
    .bind(&t.title)
    .bind(&t.terms_text)
    .bind(&t.terms_version)
    .bind(&t.content_sha256)
    .bind(t.visibility)
    .bind(&t.offered_to_agent_ids)
    .bind(&t.currency_code)
    .bind(t.value_amount)
    .bind(t.valid_from_tstamp_utc)
    .bind(t.valid_to_tstamp_utc)
    .bind(&t.metadata)
    .fetch_one(conn)
    .await
}

/// Terms among `ids` that `viewer` may read.
pub async fn get_many_visible<'c>(
    executor: impl sqlx::PgExecutor<'c>,
    ids: &[Uuid],
    viewer: Option<Uuid>,
) -> Result<Vec<TransactionTerm>, sqlx::Error> {
    sqlx::query_as(&format!(
        "SELECT {COLUMNS} FROM transaction_terms WHERE {VISIBLE} AND id = ANY($2)"
    ))
    .bind(viewer)
    .bind(ids)
    .fetch_all(executor)
    .await
}

/// Newest first, visible to `viewer`, optionally by one creator.
pub async fn list<'c>(
    pool: impl super::Reads<'c>,
    viewer: Option<Uuid>,
    created_by: Option<Uuid>,
    params: &ListParams,
) -> Result<Vec<TransactionTerm>, sqlx::Error> {
    sqlx::query_as(&format!(
        "SELECT {COLUMNS} FROM transaction_terms
         WHERE {VISIBLE} AND ($2::uuid IS NULL OR created_by_agent_id = $2) AND ($3::uuid IS NULL OR id < $3)
         ORDER BY id DESC LIMIT $4"
    ))
    .bind(viewer)
    .bind(created_by)
    .bind(params.after)
    .bind(params.fetch_limit())
    .fetch_all(pool)
    .await
}

/// The newest `per_creator` visible terms of each creator (one statement for a page of agents).
pub async fn for_creators<'c>(
    pool: impl super::Reads<'c>,
    viewer: Option<Uuid>,
    creators: &[Uuid],
    per_creator: i64,
) -> Result<Vec<TransactionTerm>, sqlx::Error> {
    sqlx::query_as(&format!(
        "SELECT t.* FROM unnest($2::uuid[]) AS creator(id)
         CROSS JOIN LATERAL (
            SELECT {COLUMNS} FROM transaction_terms
            WHERE created_by_agent_id = creator.id AND {VISIBLE}
            ORDER BY id DESC LIMIT $3) t"
    ))
    .bind(viewer)
    .bind(creators)
    .bind(per_creator)
    .fetch_all(pool)
    .await
}
