//! signals: structured feedback on records, and the duplicate review queue they feed.

use crate::domain::{CanonicalTable, ListParams, SignalType};
pub use crate::records::feedback::SignalFilter;
pub use crate::records::feedback::{DuplicateCandidate, Signal};
use rust_decimal::Decimal;
use serde_json::Value;
use sqlx::PgConnection;
use uuid::Uuid;

pub struct NewSignal {
    pub created_by_agent_id: Option<Uuid>,
    pub signal_type: SignalType,
    pub target_schema: String,
    pub target_table: String,
    pub target_id: Uuid,
    pub duplicate_of_id: Option<Uuid>,
    pub weight: Decimal,
    pub reason: Option<String>,
    pub context: Value,
}

const COLUMNS: &str = "id, created_by_agent_id, signal_type, target_schema, target_table, target_id, duplicate_of_id, \
    weight, reason, context, created_at_tstamp_utc, updated_at_tstamp_utc";

const CANDIDATE_COLUMNS: &str = "id, canonical_table, record_id, duplicate_of_id, first_signal_id, signal_count, status, \
    created_at_tstamp_utc, updated_at_tstamp_utc";

pub async fn insert(conn: &mut PgConnection, s: &NewSignal) -> Result<Signal, sqlx::Error> {
    sqlx::query_as(&format!(
        "INSERT INTO signals (id, created_by_agent_id, signal_type, target_schema, target_table, target_id,
             duplicate_of_id, weight, reason, context)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING {COLUMNS}"
    ))
    .bind(Uuid::now_v7())
    .bind(s.created_by_agent_id)
    .bind(s.signal_type)
    .bind(&s.target_schema)
    .bind(&s.target_table)
    .bind(s.target_id)
    .bind(s.duplicate_of_id)
    .bind(s.weight)
    .bind(&s.reason)
    .bind(&s.context)
    .fetch_one(conn)
    .await
}

/// The statement `list` runs (and `count` counts); public so tests can read its plan.
pub fn list_statement(columns: &str) -> String {
    format!(
        "SELECT {columns} FROM signals
         WHERE ($1::text IS NULL OR target_schema = $1) AND ($2::text IS NULL OR target_table = $2)
           AND ($3::uuid IS NULL OR target_id = $3) AND ($4::uuid IS NULL OR id < $4)
         ORDER BY id DESC LIMIT $5"
    )
}

pub async fn list<'c>(
    pool: impl super::Reads<'c>,
    f: &SignalFilter,
    params: &ListParams,
) -> Result<Vec<Signal>, sqlx::Error> {
    sqlx::query_as(&list_statement(COLUMNS))
        .bind(&f.target_schema)
        .bind(&f.target_table)
        .bind(f.target_id)
        .bind(params.after)
        .bind(params.fetch_limit())
        .fetch_all(pool)
        .await
}

/// The signals `list` would page through, up to `COUNT_CAP + 1`.
pub async fn count<'c>(pool: impl super::Reads<'c>, f: &SignalFilter) -> sqlx::Result<i64> {
    sqlx::query_scalar(&super::counted(&list_statement("id")))
        .bind(&f.target_schema)
        .bind(&f.target_table)
        .bind(f.target_id)
        .bind(None::<Uuid>)
        .bind(super::COUNT_CAP + 1)
        .fetch_one(pool)
        .await
}

/// Queues the pair once, whichever way round it is reported; later reports count up.
pub async fn queue_duplicate(
    conn: &mut PgConnection,
    table: CanonicalTable,
    record_id: Uuid,
    duplicate_of_id: Uuid,
    signal_id: Uuid,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO duplicate_candidates (id, canonical_table, record_id, duplicate_of_id, first_signal_id)
         VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (canonical_table, least(record_id, duplicate_of_id), greatest(record_id, duplicate_of_id))
         DO UPDATE SET signal_count = duplicate_candidates.signal_count + 1",
    )
    .bind(Uuid::now_v7())
    .bind(table)
    .bind(record_id)
    .bind(duplicate_of_id)
    .bind(signal_id)
    .execute(conn)
    .await?;
    Ok(())
}

pub async fn duplicate_candidates<'c>(
    pool: impl super::Reads<'c>,
    status: Option<&str>,
    record_id: Option<Uuid>,
    params: &ListParams,
) -> Result<Vec<DuplicateCandidate>, sqlx::Error> {
    sqlx::query_as(&format!(
        "SELECT {CANDIDATE_COLUMNS} FROM duplicate_candidates
         WHERE ($1::text IS NULL OR status = $1) AND ($2::uuid IS NULL OR record_id = $2 OR duplicate_of_id = $2)
           AND ($3::uuid IS NULL OR id < $3)
         ORDER BY id DESC LIMIT $4"
    ))
    .bind(status)
    .bind(record_id)
    .bind(params.after)
    .bind(params.fetch_limit())
    .fetch_all(pool)
    .await
}

/// The statement `for_targets` runs; public so tests can read its plan.
pub fn for_targets_statement() -> String {
    format!(
        "SELECT s.* FROM unnest($1::uuid[]) AS parent(id)
         CROSS JOIN LATERAL (
            SELECT {COLUMNS} FROM signals WHERE target_id = parent.id ORDER BY id LIMIT $2) s"
    )
}

/// Signals on any of `targets` (loader batch), oldest first.
pub async fn for_targets<'c>(
    pool: impl super::Reads<'c>,
    targets: &[Uuid],
    per_parent: i64,
) -> Result<Vec<Signal>, sqlx::Error> {
    sqlx::query_as(&for_targets_statement())
        .bind(targets)
        .bind(per_parent)
        .fetch_all(pool)
        .await
}

/// Open or decided pairs involving any of `records` (loader batch), oldest first.
pub async fn candidates_for<'c>(
    pool: impl super::Reads<'c>,
    records: &[Uuid],
    per_record: i64,
) -> Result<Vec<DuplicateCandidate>, sqlx::Error> {
    // A pair whose two records are both in the batch is found from each side: once is enough.
    sqlx::query_as(&format!(
        "SELECT DISTINCT ON (d.id) d.* FROM unnest($1::uuid[]) AS rec(id)
         CROSS JOIN LATERAL (
            SELECT {CANDIDATE_COLUMNS} FROM duplicate_candidates
            WHERE record_id = rec.id OR duplicate_of_id = rec.id ORDER BY id LIMIT $2) d
         ORDER BY d.id"
    ))
    .bind(records)
    .bind(per_record)
    .fetch_all(pool)
    .await
}

/// Closes the queued duplicate pair of two records, whichever way round it was reported.
pub async fn settle_duplicate_pair(
    conn: &mut PgConnection,
    table: CanonicalTable,
    a: Uuid,
    b: Uuid,
    status: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE duplicate_candidates SET status = $4
         WHERE canonical_table = $1 AND least(record_id, duplicate_of_id) = least($2, $3)
           AND greatest(record_id, duplicate_of_id) = greatest($2, $3)",
    )
    .bind(table.as_str())
    .bind(a)
    .bind(b)
    .bind(status)
    .execute(conn)
    .await?;
    Ok(())
}

/// Closes an open duplicate pair as `dismissed`; `None` when no open pair has that id.
pub async fn dismiss_duplicate(
    conn: &mut PgConnection,
    id: Uuid,
) -> Result<Option<DuplicateCandidate>, sqlx::Error> {
    sqlx::query_as(&format!(
        "UPDATE duplicate_candidates SET status = 'dismissed' WHERE id = $1 AND status = 'open'
         RETURNING {CANDIDATE_COLUMNS}"
    ))
    .bind(id)
    .fetch_optional(conn)
    .await
}

/// A duplicate pair's status, if the pair exists.
pub async fn duplicate_status(
    conn: &mut PgConnection,
    id: Uuid,
) -> Result<Option<String>, sqlx::Error> {
    sqlx::query_scalar("SELECT status FROM duplicate_candidates WHERE id = $1")
        .bind(id)
        .fetch_optional(conn)
        .await
}
