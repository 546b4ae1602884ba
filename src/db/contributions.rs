//! canonical_link_contributions: which entry created, updated, matched or supported which record.

use crate::domain::{CanonicalTable, LinkType, ListParams};
pub use crate::records::canonical::ContributionFilter;
pub use crate::records::canonical::LinkContribution;
use rust_decimal::Decimal;
use serde_json::Value;
use sqlx::PgConnection;
use uuid::Uuid;

pub struct NewContribution<'a> {
    pub entry_id: Uuid,
    pub table: CanonicalTable,
    pub target_id: Uuid,
    pub link_type: LinkType,
    pub weight: Decimal,
    pub information_power: Decimal,
    pub confidence: Decimal,
    pub transformer_name: &'a str,
    pub transformer_version: &'a str,
    pub run_id: Uuid,
    pub reason: &'a str,
    /// Borrowed from the decision when it outlives the insert (the transformer's batches).
    pub metadata: std::borrow::Cow<'a, Value>,
}

const COLUMNS: &str = "id, source_space_time_entry_id, target_canonical_table, target_canonical_id, link_type, \
    contribution_weight, information_power, score_confidence, transformer_name, transformer_version, \
    transformer_run_id, reason, metadata, created_at_tstamp_utc";

/// All contributions of a transformer batch in one statement.
pub async fn insert_many(
    conn: &mut PgConnection,
    rows: &[NewContribution<'_>],
) -> Result<(), sqlx::Error> {
    if rows.is_empty() {
        return Ok(());
    }
    let ids: Vec<Uuid> = rows.iter().map(|_| Uuid::now_v7()).collect();
    sqlx::query(
        "INSERT INTO canonical_link_contributions (id, source_space_time_entry_id, target_canonical_table,
             target_canonical_id, link_type, contribution_weight, information_power, score_confidence,
             transformer_name, transformer_version, transformer_run_id, reason, metadata)
         SELECT * FROM UNNEST($1::uuid[], $2::uuid[], $3::text[], $4::uuid[], $5::text[], $6::numeric[],
             $7::numeric[], $8::numeric[], $9::text[], $10::text[], $11::uuid[], $12::text[], $13::jsonb[])",
    )
    .bind(ids)
    .bind(rows.iter().map(|c| c.entry_id).collect::<Vec<_>>())
    .bind(rows.iter().map(|c| c.table.as_str()).collect::<Vec<_>>())
    .bind(rows.iter().map(|c| c.target_id).collect::<Vec<_>>())
    .bind(rows.iter().map(|c| c.link_type.as_str()).collect::<Vec<_>>())
    .bind(rows.iter().map(|c| c.weight).collect::<Vec<_>>())
    .bind(rows.iter().map(|c| c.information_power).collect::<Vec<_>>())
    .bind(rows.iter().map(|c| c.confidence).collect::<Vec<_>>())
    .bind(rows.iter().map(|c| c.transformer_name).collect::<Vec<_>>())
    .bind(rows.iter().map(|c| c.transformer_version).collect::<Vec<_>>())
    .bind(rows.iter().map(|c| c.run_id).collect::<Vec<_>>())
    .bind(rows.iter().map(|c| c.reason).collect::<Vec<_>>())
    .bind(rows.iter().map(|c| c.metadata.as_ref()).collect::<Vec<_>>())
    .execute(conn)
    .await?;
    Ok(())
}

/// The statement `list` runs (and `count` counts); public so tests can read its plan.
pub fn list_statement(columns: &str) -> String {
    format!(
        "SELECT {columns} FROM canonical_link_contributions
         WHERE ($1::text IS NULL OR target_canonical_table = $1) AND ($2::uuid IS NULL OR target_canonical_id = $2)
           AND ($3::uuid IS NULL OR source_space_time_entry_id = $3) AND ($4::uuid IS NULL OR id < $4)
         ORDER BY id DESC LIMIT $5"
    )
}

pub async fn list<'c>(
    pool: impl super::Reads<'c>,
    f: &ContributionFilter,
    params: &ListParams,
) -> Result<Vec<LinkContribution>, sqlx::Error> {
    sqlx::query_as(&list_statement(COLUMNS))
        .bind(f.target_canonical_table)
        .bind(f.target_canonical_id)
        .bind(f.space_time_entry_id)
        .bind(params.after)
        .bind(params.fetch_limit())
        .fetch_all(pool)
        .await
}

/// The contributions `list` would page through, up to `COUNT_CAP + 1`.
pub async fn count<'c>(pool: impl super::Reads<'c>, f: &ContributionFilter) -> sqlx::Result<i64> {
    sqlx::query_scalar(&super::counted(&list_statement("id")))
        .bind(f.target_canonical_table)
        .bind(f.target_canonical_id)
        .bind(f.space_time_entry_id)
        .bind(None::<Uuid>)
        .bind(super::COUNT_CAP + 1)
        .fetch_one(pool)
        .await
}

/// The statement `for_targets` runs; public so tests can read its plan.
pub fn for_targets_statement() -> String {
    format!(
        "SELECT c.* FROM unnest($1::uuid[]) AS parent(id)
         CROSS JOIN LATERAL (
            SELECT {COLUMNS} FROM canonical_link_contributions
            WHERE target_canonical_id = parent.id ORDER BY id LIMIT $2) c"
    )
}

/// The first `per_parent` contributions to each of `targets` (loader batch), oldest first.
pub async fn for_targets<'c>(
    pool: impl super::Reads<'c>,
    targets: &[Uuid],
    per_parent: i64,
) -> Result<Vec<LinkContribution>, sqlx::Error> {
    sqlx::query_as(&for_targets_statement())
        .bind(targets)
        .bind(per_parent)
        .fetch_all(pool)
        .await
}

/// The first `per_parent` contributions made by each of `entries` (loader batch), oldest first.
pub async fn for_entries<'c>(
    pool: impl super::Reads<'c>,
    entries: &[Uuid],
    per_parent: i64,
) -> Result<Vec<LinkContribution>, sqlx::Error> {
    sqlx::query_as(&format!(
        "SELECT c.* FROM unnest($1::uuid[]) AS parent(id)
         CROSS JOIN LATERAL (
            SELECT {COLUMNS} FROM canonical_link_contributions
            WHERE source_space_time_entry_id = parent.id ORDER BY id LIMIT $2) c"
    ))
    .bind(entries)
    .bind(per_parent)
    .fetch_all(pool)
    .await
}

/// How many distinct agents' entries have contributed to a record (its corroboration).
pub async fn contributing_agents(
    conn: &mut PgConnection,
    table: CanonicalTable,
    id: Uuid,
) -> Result<i64, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT count(DISTINCT e.agent_id) FROM canonical_link_contributions c
         JOIN space_time_entries e ON e.id = c.source_space_time_entry_id
         WHERE c.target_canonical_table = $1 AND c.target_canonical_id = $2",
    )
    .bind(table.as_str())
    .bind(id)
    .fetch_one(conn)
    .await
}

/// Every contribution to one record, oldest first, at most `limit` (a merge re-points them).
pub async fn of_record(
    conn: &mut PgConnection,
    table: CanonicalTable,
    id: Uuid,
    limit: i64,
) -> Result<Vec<LinkContribution>, sqlx::Error> {
    sqlx::query_as(&format!(
        "SELECT {COLUMNS} FROM canonical_link_contributions
         WHERE target_canonical_table = $1 AND target_canonical_id = $2 ORDER BY id LIMIT $3"
    ))
    .bind(table.as_str())
    .bind(id)
    .bind(limit)
    .fetch_all(conn)
    .await
}

/// The merge that made a record a redirect and has not been undone: its `duplicate_of`
/// contribution's metadata (`merge_id`, `previous_status`, …). An undo's `duplicate_of`
/// contribution sits on the same record, so both lookups use the target index.
pub async fn open_merge(
    conn: &mut PgConnection,
    table: CanonicalTable,
    merged_id: Uuid,
) -> Result<Option<Value>, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT c.metadata FROM canonical_link_contributions c
         WHERE c.target_canonical_table = $2 AND c.target_canonical_id = $1
           AND c.link_type = 'duplicate_of'
           AND c.metadata ? 'merge_id'
           AND NOT EXISTS (SELECT 1 FROM canonical_link_contributions u
                           WHERE u.target_canonical_table = c.target_canonical_table
                             AND u.target_canonical_id = c.target_canonical_id
                             AND u.link_type = 'duplicate_of' AND u.metadata ->> 'undo_of' = c.metadata ->> 'merge_id')
         ORDER BY c.id DESC LIMIT 1",
    )
    .bind(merged_id)
    .bind(table.as_str())
    .fetch_optional(conn)
    .await
}
