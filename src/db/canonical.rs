//! Operations shared by the three canonical tables. Table names come from the closed
//! `CanonicalTable` enum, never from input text, so formatting them into SQL is safe.

use super::batched::ById;
use crate::domain::{CanonicalTable, ListParams};
use crate::records::canonical::{CanonicalKind, CanonicalRequest, Entity, Listing};
use sqlx::PgConnection;
use uuid::Uuid;

/// A canonical kind as stored: its columns and its batched lookup by id. The reads below are
/// written once for the three kinds.
pub trait CanonicalRow: CanonicalKind + ById {
    const COLUMNS: &'static str;
}

impl CanonicalRow for Entity {
    const COLUMNS: &'static str = super::entities::COLUMNS;
}

impl CanonicalRow for Listing {
    const COLUMNS: &'static str = super::listings::COLUMNS;
}

impl CanonicalRow for CanonicalRequest {
    const COLUMNS: &'static str = super::requests::COLUMNS;
}

/// The record an id answers with: itself, or the record it was merged into (following up to ten
/// merges); compare the returned id with the asked one. One primary-key lookup unless the record
/// is a redirect (rare): only then is the merge chain followed. The lookup is batched with the
/// concurrent reads by id of other requests (`db::batched`).
pub async fn get_following_merges<R: CanonicalRow>(
    pool: &super::lean::LeanPool,
    id: Uuid,
) -> Result<Option<R>, sqlx::Error> {
    match pool.by_id::<R>(id).await? {
        Some(redirect) if redirect.merged_into_id().is_some() => {
            sqlx::query_as(&following_merges_statement(R::TABLE, R::COLUMNS))
                .bind(id)
                .fetch_optional(pool)
                .await
        }
        found => Ok(found),
    }
}

/// Works on the pool or inside a transaction.
pub async fn get_many<'c, R: CanonicalRow>(
    executor: impl sqlx::PgExecutor<'c>,
    ids: &[Uuid],
) -> Result<Vec<R>, sqlx::Error> {
    sqlx::query_as(&format!(
        "SELECT {} FROM {} WHERE id = ANY($1)",
        R::COLUMNS,
        table_name(R::TABLE)
    ))
    .bind(ids)
    .fetch_all(executor)
    .await
}

fn list_statement(table: CanonicalTable, columns: &str) -> String {
    format!(
        "SELECT {columns} FROM {}
         WHERE ($1::text IS NULL OR status = $1) AND ($2::uuid IS NULL OR id < $2) ORDER BY id DESC LIMIT $3",
        table_name(table)
    )
}

/// Newest first, optionally by status.
pub async fn list<'c, R: CanonicalRow>(
    pool: impl super::Reads<'c>,
    status: Option<&str>,
    params: &ListParams,
) -> Result<Vec<R>, sqlx::Error> {
    sqlx::query_as(&list_statement(R::TABLE, R::COLUMNS))
        .bind(status)
        .bind(params.after)
        .bind(params.fetch_limit())
        .fetch_all(pool)
        .await
}

/// The rows `list` would page through, up to `COUNT_CAP + 1`.
pub async fn count<'c>(
    pool: impl super::Reads<'c>,
    table: CanonicalTable,
    status: Option<&str>,
) -> sqlx::Result<i64> {
    sqlx::query_scalar(&super::counted(&list_statement(table, "id")))
        .bind(status)
        .bind(None::<Uuid>)
        .bind(super::COUNT_CAP + 1)
        .fetch_one(pool)
        .await
}

pub fn table_name(table: CanonicalTable) -> &'static str {
    match table {
        CanonicalTable::Entities => "canonical.entities",
        CanonicalTable::Listings => "canonical.listings",
        CanonicalTable::Requests => "canonical.requests",
    }
}

/// True when the record exists (targets of entries, notes and signals).
pub async fn exists(
    conn: &mut PgConnection,
    table: CanonicalTable,
    id: Uuid,
) -> Result<bool, sqlx::Error> {
    sqlx::query_scalar(&format!(
        "SELECT EXISTS (SELECT 1 FROM {} WHERE id = $1)",
        table_name(table)
    ))
    .bind(id)
    .fetch_one(conn)
    .await
}

pub async fn set_status(
    conn: &mut PgConnection,
    table: CanonicalTable,
    id: Uuid,
    status: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query(&format!(
        "UPDATE {} SET status = $2 WHERE id = $1",
        table_name(table)
    ))
    .bind(id)
    .bind(status)
    .execute(conn)
    .await?;
    Ok(())
}

pub async fn set_contact_agent(
    conn: &mut PgConnection,
    table: CanonicalTable,
    id: Uuid,
    agent_id: Uuid,
) -> Result<(), sqlx::Error> {
    sqlx::query(&format!(
        "UPDATE {} SET contact_agent_id = $2 WHERE id = $1",
        table_name(table)
    ))
    .bind(id)
    .bind(agent_id)
    .execute(conn)
    .await?;
    Ok(())
}

/// Who may claim and withdraw: the record's contact agent and its creating agent.
pub async fn ownership(
    conn: &mut PgConnection,
    table: CanonicalTable,
    id: Uuid,
) -> Result<Option<(Option<Uuid>, Option<Uuid>)>, sqlx::Error> {
    sqlx::query_as(&format!(
        "SELECT contact_agent_id, created_by_agent_id FROM {} WHERE id = $1 FOR UPDATE",
        table_name(table)
    ))
    .bind(id)
    .fetch_optional(conn)
    .await
}

/// Notes and signals may target exactly these records (docs/decisions/data-model.md); `None` for
/// any other (schema, table) pair.
pub async fn target_exists(
    conn: &mut PgConnection,
    schema: &str,
    table: &str,
    id: Uuid,
) -> Result<Option<bool>, sqlx::Error> {
    if (schema, table) == ("public", "space_time_entries") {
        let found: bool =
            sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM space_time_entries WHERE id = $1)")
                .bind(id)
                .fetch_one(&mut *conn)
                .await?;
        return Ok(Some(found));
    }
    match (schema == "canonical")
        .then(|| format!("canonical.{table}").parse::<CanonicalTable>().ok())
        .flatten()
    {
        Some(canonical_table) => Ok(Some(exists(conn, canonical_table, id).await?)),
        None => Ok(None),
    }
}

/// A record's status and the record it was merged into, locked for the rest of the transaction;
/// `None` when it does not exist.
pub async fn lock_merge_state(
    conn: &mut PgConnection,
    table: CanonicalTable,
    id: Uuid,
) -> Result<Option<(String, Option<Uuid>)>, sqlx::Error> {
    sqlx::query_as(&format!(
        "SELECT status, merged_into_id FROM {} WHERE id = $1 FOR UPDATE",
        table_name(table)
    ))
    .bind(id)
    .fetch_optional(conn)
    .await
}

/// The record a record was merged into: `None` when it does not exist, `Some(None)` when it is
/// not merged.
pub async fn merged_into(
    conn: &mut PgConnection,
    table: CanonicalTable,
    id: Uuid,
) -> Result<Option<Option<Uuid>>, sqlx::Error> {
    sqlx::query_scalar(&format!(
        "SELECT merged_into_id FROM {} WHERE id = $1",
        table_name(table)
    ))
    .bind(id)
    .fetch_optional(conn)
    .await
}

/// Marks a record as merged into another (or, with `None`, restores it to `status`).
pub async fn set_merged_into(
    conn: &mut PgConnection,
    table: CanonicalTable,
    id: Uuid,
    into: Option<Uuid>,
    status: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query(&format!(
        "UPDATE {} SET status = $2, merged_into_id = $3 WHERE id = $1",
        table_name(table)
    ))
    .bind(id)
    .bind(status)
    .bind(into)
    .execute(conn)
    .await?;
    Ok(())
}

/// Most redirects a read follows (a survivor merged in turn into another record, and so on).
pub const MAX_MERGE_HOPS: i32 = 10;

/// `SELECT {columns}` of the record id $1 answers with: itself, or the record it was merged into,
/// following up to `MAX_MERGE_HOPS` merges. One statement, so a read by id stays one round trip.
pub fn following_merges_statement(table: CanonicalTable, columns: &str) -> String {
    format!(
        "WITH RECURSIVE chain(id, merged_into_id, hops) AS (
             SELECT id, merged_into_id, 0 FROM {table} WHERE id = $1
             UNION ALL
             SELECT r.id, r.merged_into_id, chain.hops + 1
             FROM chain JOIN {table} r ON r.id = chain.merged_into_id
             WHERE chain.hops < {MAX_MERGE_HOPS})
         SELECT {columns} FROM {table}
         WHERE id = (SELECT id FROM chain ORDER BY hops DESC LIMIT 1)",
        table = table_name(table)
    )
}

/// The id a target names once merges are followed: itself, or the record it was merged into
/// (up to `MAX_MERGE_HOPS` merges); `None` when it does not exist.
pub async fn follow_merges(
    conn: &mut PgConnection,
    table: CanonicalTable,
    id: Uuid,
) -> Result<Option<Uuid>, sqlx::Error> {
    sqlx::query_scalar(&following_merges_statement(table, "id"))
        .bind(id)
        .fetch_optional(conn)
        .await
}
