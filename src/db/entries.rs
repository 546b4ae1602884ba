//! space_time_entries and their attachments; the transformer's claim and outcome queries.

use crate::domain::{CanonicalTable, EntryIntent, EntryStatus, EntryType, LinkType, ListParams};
pub use crate::records::entries::{Attachment, SpaceTimeEntry};
use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use serde_json::Value;
use sqlx::PgConnection;
use uuid::Uuid;

pub struct NewEntry {
    pub id: Uuid,
    pub agent_id: Uuid,
    pub entry_type: EntryType,
    pub entry_subtype: Option<String>,
    pub entry_intent: EntryIntent,
    pub latitude: f64,
    pub longitude: f64,
    pub observed_at: Option<DateTime<Utc>>,
    pub source_type: Option<String>,
    pub source_ref: Option<String>,
    pub target_canonical_table: Option<CanonicalTable>,
    pub target_canonical_id: Option<Uuid>,
    pub geohash: String,
    pub location_text: Option<String>,
    pub valid_from: Option<DateTime<Utc>>,
    pub valid_to: Option<DateTime<Utc>>,
    pub idempotency_key: Option<String>,
    pub context: Value,
    pub score_confidence: Decimal,
}

pub const COLUMNS: &str = "e.id, e.agent_id, e.entry_type, e.entry_subtype, e.entry_intent, e.status, e.latitude, \
    e.longitude, e.observed_at_tstamp_utc, e.source_type, e.source_ref, e.target_canonical_table, \
    e.target_canonical_id, e.geohash, e.location_text, e.valid_from_tstamp_utc, e.valid_to_tstamp_utc, \
    e.idempotency_key, e.context, e.score_confidence, \
    coalesce((SELECT jsonb_agg(jsonb_build_object('uri', a.uri, 'download_url', '/api/v1/attachments/' || a.sha256, \
        'media_type', a.media_type, 'size_bytes', a.size_bytes, 'sha256', a.sha256, 'filename', a.filename) \
        ORDER BY a.position) FROM space_time_entry_attachments a WHERE a.space_time_entry_id = e.id), '[]') AS attachments, \
    e.canonical_table, e.canonical_id, e.link_type, e.processing_reason, e.processing_error, e.transformer_run_id, \
    e.processed_at_tstamp_utc, e.created_at_tstamp_utc, e.updated_at_tstamp_utc";

/// The columns of a row of space_time_entries as `RETURNING` gives them (no attachments: the
/// publisher knows them).
const RETURNED: &str = "e.id, e.agent_id, e.entry_type, e.entry_subtype, e.entry_intent, e.status, \
    e.latitude, e.longitude, e.observed_at_tstamp_utc, e.source_type, e.source_ref, \
    e.target_canonical_table, e.target_canonical_id, e.geohash, e.location_text, \
    e.valid_from_tstamp_utc, e.valid_to_tstamp_utc, e.idempotency_key, e.context, e.score_confidence, \
    '[]'::jsonb AS attachments, e.canonical_table, e.canonical_id, e.link_type, e.processing_reason, \
    e.processing_error, e.transformer_run_id, e.processed_at_tstamp_utc, e.created_at_tstamp_utc, \
    e.updated_at_tstamp_utc";

/// One statement publishes an entry: its row, its attachments' rows and the transformers' wake-up
/// (`pg_notify`), committed together, and the stored row comes back (`RETURNING`: no second
/// read). Nothing is stored, and no row comes back, when the agent already used the idempotency
/// key. Public so that the hot-paths bench gives pgbench exactly this statement.
pub const PUBLISH: &str = const_format::concatcp!(
    "WITH e AS (
        INSERT INTO space_time_entries (id, agent_id, entry_type, entry_subtype, entry_intent,
            latitude, longitude, observed_at_tstamp_utc, source_type, source_ref,
            target_canonical_table, target_canonical_id, geohash, location_text,
            valid_from_tstamp_utc, valid_to_tstamp_utc, idempotency_key, context, score_confidence)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)
        ON CONFLICT ON CONSTRAINT space_time_entries_agent_id_idempotency_key_key DO NOTHING
        RETURNING *),
    stored AS (
        INSERT INTO space_time_entry_attachments (id, space_time_entry_id, position, uri, media_type,
            size_bytes, sha256, filename)
        SELECT a.id, e.id, a.position - 1, a.uri, a.media_type, a.size_bytes, a.sha256, a.filename
        FROM e, unnest($20::uuid[], $21::text[], $22::text[], $23::int8[], $24::text[], $25::text[])
            WITH ORDINALITY AS a(id, uri, media_type, size_bytes, sha256, filename, position)),
    woken AS (SELECT pg_notify('space_time_entries_pending', '') FROM e)
    SELECT ",
    RETURNED,
    " FROM e WHERE (SELECT count(*) FROM woken) >= 0"
);

/// Publishes `e` with `attachments` (already stored as files); `None` when the agent already used
/// its idempotency key.
pub async fn publish<'c>(
    executor: impl sqlx::PgExecutor<'c>,
    e: &NewEntry,
    attachments: &[Attachment],
) -> Result<Option<SpaceTimeEntry>, sqlx::Error> {
    let texts =
        |pick: fn(&Attachment) -> &str| -> Vec<&str> { attachments.iter().map(pick).collect() };
    let published: Option<SpaceTimeEntry> = sqlx::query_as(PUBLISH)
        .bind(e.id)
        .bind(e.agent_id)
        .bind(e.entry_type)
        .bind(&e.entry_subtype)
        .bind(e.entry_intent)
        .bind(e.latitude)
        .bind(e.longitude)
        .bind(e.observed_at)
        .bind(&e.source_type)
        .bind(&e.source_ref)
        .bind(e.target_canonical_table)
        .bind(e.target_canonical_id)
        .bind(&e.geohash)
        .bind(&e.location_text)
        .bind(e.valid_from)
        .bind(e.valid_to)
        .bind(&e.idempotency_key)
        .bind(&e.context)
        .bind(e.score_confidence)
        .bind(
            attachments
                .iter()
                .map(|_| Uuid::now_v7())
                .collect::<Vec<_>>(),
        )
        .bind(texts(|a| &a.uri))
        .bind(texts(|a| &a.media_type))
        .bind(attachments.iter().map(|a| a.size_bytes).collect::<Vec<_>>())
        .bind(texts(|a| &a.sha256))
        .bind(
            attachments
                .iter()
                .map(|a| a.filename.as_deref())
                .collect::<Vec<_>>(),
        )
        .fetch_optional(executor)
        .await?;
    Ok(published.map(|mut entry| {
        entry.attachments = attachments.to_vec();
        entry
    }))
}

pub async fn existing_id_for_key<'c>(
    pool: impl super::Reads<'c>,
    agent_id: Uuid,
    idempotency_key: &str,
) -> Result<Option<Uuid>, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT id FROM space_time_entries WHERE agent_id = $1 AND idempotency_key = $2",
    )
    .bind(agent_id)
    .bind(idempotency_key)
    .fetch_optional(pool)
    .await
}

pub async fn get<'c>(
    pool: impl super::Reads<'c>,
    id: Uuid,
) -> Result<Option<SpaceTimeEntry>, sqlx::Error> {
    sqlx::query_as(&format!(
        "SELECT {COLUMNS} FROM space_time_entries e WHERE e.id = $1"
    ))
    .bind(id)
    .fetch_optional(pool)
    .await
}

pub async fn get_many<'c>(
    pool: impl super::Reads<'c>,
    ids: &[Uuid],
) -> Result<Vec<SpaceTimeEntry>, sqlx::Error> {
    sqlx::query_as(&format!(
        "SELECT {COLUMNS} FROM space_time_entries e WHERE e.id = ANY($1)"
    ))
    .bind(ids)
    .fetch_all(pool)
    .await
}

/// A clause the status filter implies, written out so that any plan (a cached generic one
/// included) may read an agent's entries of a status other than `processed` through
/// `space_time_entries_agent_unsettled_idx` (migration 0021) instead of its whole history.
fn unsettled(status: Option<EntryStatus>) -> &'static str {
    match status {
        Some(EntryStatus::Processed) | None => "",
        Some(_) => "AND e.status <> 'processed'",
    }
}

/// The statement `list` runs (and `count` counts); public so tests can read its plan.
pub fn list_statement(columns: &str, status: Option<EntryStatus>) -> String {
    format!(
        "SELECT {columns} FROM space_time_entries e
         WHERE ($1::text IS NULL OR e.status = $1) AND ($2::uuid IS NULL OR e.agent_id = $2)
           AND ($3::uuid IS NULL OR e.id < $3) {unsettled}
         ORDER BY e.id DESC LIMIT $4",
        unsettled = unsettled(status)
    )
}

pub async fn list<'c>(
    pool: impl super::Reads<'c>,
    status: Option<EntryStatus>,
    agent_id: Option<Uuid>,
    params: &ListParams,
) -> Result<Vec<SpaceTimeEntry>, sqlx::Error> {
    sqlx::query_as(&list_statement(COLUMNS, status))
        .bind(status)
        .bind(agent_id)
        .bind(params.after)
        .bind(params.fetch_limit())
        .fetch_all(pool)
        .await
}

/// The rows `list` would page through, up to `COUNT_CAP + 1`.
pub async fn count<'c>(
    pool: impl super::Reads<'c>,
    status: Option<EntryStatus>,
    agent_id: Option<Uuid>,
) -> sqlx::Result<i64> {
    sqlx::query_scalar(&super::counted(&list_statement("e.id", status)))
        .bind(status)
        .bind(agent_id)
        .bind(None::<Uuid>)
        .bind(super::COUNT_CAP + 1)
        .fetch_one(pool)
        .await
}

/// How many entries each of `agents` has (with the status, when given), each counted up to
/// `COUNT_CAP + 1`, in one statement.
pub async fn count_for_agents<'c>(
    pool: impl super::Reads<'c>,
    agents: &[Uuid],
    status: Option<EntryStatus>,
) -> sqlx::Result<Vec<(Uuid, i64)>> {
    sqlx::query_as(&format!(
        "SELECT agent.id, (SELECT count(*) FROM (
             SELECT 1 FROM space_time_entries e
             WHERE e.agent_id = agent.id AND ($2::text IS NULL OR e.status = $2) {unsettled}
             LIMIT $3) AS counted)
         FROM unnest($1::uuid[]) AS agent(id)",
        unsettled = unsettled(status)
    ))
    .bind(agents)
    .bind(status)
    .bind(super::COUNT_CAP + 1)
    .fetch_all(pool)
    .await
}

/// The statement `list_for_agents` runs; public so tests can read its plan.
pub fn for_agents_statement(status: Option<EntryStatus>) -> String {
    format!(
        "SELECT page.* FROM unnest($1::uuid[]) AS agent(id)
         CROSS JOIN LATERAL (
            SELECT {COLUMNS} FROM space_time_entries e
            WHERE e.agent_id = agent.id AND ($2::text IS NULL OR e.status = $2)
              AND ($3::uuid IS NULL OR e.id < $3) {unsettled}
            ORDER BY e.id DESC LIMIT $4) page",
        unsettled = unsettled(status)
    )
}

/// One page of entries for each of `agents` (a loader batch), newest first, in one statement.
pub async fn list_for_agents<'c>(
    pool: impl super::Reads<'c>,
    agents: &[Uuid],
    status: Option<EntryStatus>,
    params: &ListParams,
) -> Result<Vec<SpaceTimeEntry>, sqlx::Error> {
    sqlx::query_as(&for_agents_statement(status))
        .bind(agents)
        .bind(status)
        .bind(params.after)
        .bind(params.fetch_limit())
        .fetch_all(pool)
        .await
}

/// The claim's order: half-degree grid cells in a hashed order, arrival order within a cell. Must
/// match `space_time_entries_pending_area_idx`.
const AREA_ORDER: &str = "hashint4((floor(e.latitude * 2) * 1000 + floor(e.longitude * 2))::int)";

/// Claims up to `limit` pending entries, starting at the area `start` (a point on the hashed area
/// order) and wrapping around; rows another transaction holds are skipped.
///
/// A limit equal to `full` (a full batch, nearly every claim) is written into the statement
/// rather than bound: with `LIMIT $1` PostgreSQL planned the claim anew on every call (its generic
/// plan, costed for an unknown limit, never looked cheaper than a plan for the exact one), 0.44 ms
/// of planning per claim; with the number in the text it keeps one generic plan after five calls,
/// which walks the same pending-area index (docs/bench-log/hot-paths.md). Other limits (the end of a
/// bounded drain) keep the parameter, so the statements stay two.
pub async fn claim_pending(
    conn: &mut PgConnection,
    limit: i64,
    full: i64,
    start: i32,
) -> Result<Vec<SpaceTimeEntry>, sqlx::Error> {
    let written_out = limit == full;
    let limit_sql = if written_out {
        full.to_string()
    } else {
        "$2".to_owned()
    };
    let statement = format!(
        "WITH from_start AS (
             SELECT e.id FROM space_time_entries e WHERE e.status = 'pending' AND {AREA_ORDER} >= $1
             ORDER BY {AREA_ORDER}, e.id LIMIT {limit_sql} FOR UPDATE OF e SKIP LOCKED),
         wrapped AS (
             SELECT e.id FROM space_time_entries e WHERE e.status = 'pending' AND {AREA_ORDER} < $1
             ORDER BY {AREA_ORDER}, e.id LIMIT {limit_sql} - (SELECT count(*) FROM from_start)
             FOR UPDATE OF e SKIP LOCKED)
         SELECT {COLUMNS} FROM space_time_entries e
         WHERE e.id IN (SELECT id FROM from_start UNION ALL SELECT id FROM wrapped)
         ORDER BY {AREA_ORDER} < $1, {AREA_ORDER}, e.id"
    );
    let query = sqlx::query_as(&statement).bind(start);
    let query = if written_out {
        query
    } else {
        query.bind(limit)
    };
    query.fetch_all(conn).await
}

/// Locks one entry for processing, waiting for a worker that holds it (so the outcome is final).
pub async fn lock_one(
    conn: &mut PgConnection,
    id: Uuid,
) -> Result<Option<SpaceTimeEntry>, sqlx::Error> {
    sqlx::query_as(&format!(
        "SELECT {COLUMNS} FROM space_time_entries e WHERE e.id = $1 FOR UPDATE OF e"
    ))
    .bind(id)
    .fetch_optional(conn)
    .await
}

pub struct Outcome<'a> {
    pub status: EntryStatus,
    pub canonical_table: Option<CanonicalTable>,
    pub canonical_id: Option<Uuid>,
    pub link_type: Option<LinkType>,
    pub reason: Option<&'a str>,
    pub error: Option<&'a str>,
    pub run_id: Uuid,
    /// What a reviewer needs (only for entries sent to review).
    pub review: Option<&'a Value>,
}

/// The outcomes of a whole transformer batch in one statement.
pub async fn record_outcomes(
    conn: &mut PgConnection,
    outcomes: &[(Uuid, Outcome<'_>)],
) -> Result<(), sqlx::Error> {
    if outcomes.is_empty() {
        return Ok(());
    }
    sqlx::query(
        "UPDATE space_time_entries e SET status = o.status, canonical_table = o.canonical_table,
             canonical_id = o.canonical_id, link_type = o.link_type, processing_reason = o.reason,
             processing_error = o.error, transformer_run_id = o.run_id, processed_at_tstamp_utc = now(),
             review = o.review
         FROM UNNEST($1::uuid[], $2::text[], $3::text[], $4::uuid[], $5::text[], $6::text[], $7::text[], $8::uuid[], $9::jsonb[])
             AS o(id, status, canonical_table, canonical_id, link_type, reason, error, run_id, review)
         WHERE e.id = o.id",
    )
    .bind(outcomes.iter().map(|(id, _)| *id).collect::<Vec<_>>())
    .bind(outcomes.iter().map(|(_, o)| o.status.as_str()).collect::<Vec<_>>())
    .bind(outcomes.iter().map(|(_, o)| o.canonical_table.map(CanonicalTable::as_str)).collect::<Vec<_>>())
    .bind(outcomes.iter().map(|(_, o)| o.canonical_id).collect::<Vec<_>>())
    .bind(outcomes.iter().map(|(_, o)| o.link_type.map(LinkType::as_str)).collect::<Vec<_>>())
    .bind(outcomes.iter().map(|(_, o)| o.reason).collect::<Vec<_>>())
    .bind(outcomes.iter().map(|(_, o)| o.error).collect::<Vec<_>>())
    .bind(outcomes.iter().map(|(_, o)| o.run_id).collect::<Vec<_>>())
    .bind(outcomes.iter().map(|(_, o)| o.review).collect::<Vec<_>>())
    .execute(conn)
    .await?;
    Ok(())
}

pub async fn attachment_media_type<'c>(
    pool: impl super::Reads<'c>,
    sha256: &str,
) -> Result<Option<String>, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT media_type FROM space_time_entry_attachments WHERE sha256 = $1 LIMIT 1",
    )
    .bind(sha256)
    .fetch_optional(pool)
    .await
}

/// An entry's review details (why, candidates, resolution), if it was ever sent to review.
pub async fn review_of(conn: &mut PgConnection, id: Uuid) -> Result<Option<Value>, sqlx::Error> {
    sqlx::query_scalar("SELECT review FROM space_time_entries WHERE id = $1")
        .bind(id)
        .fetch_one(conn)
        .await
}

/// Keeps the review details (with the resolution) after the outcome was recorded.
pub async fn set_review(
    conn: &mut PgConnection,
    id: Uuid,
    review: &Value,
) -> Result<(), sqlx::Error> {
    sqlx::query("UPDATE space_time_entries SET review = $2 WHERE id = $1")
        .bind(id)
        .bind(review)
        .execute(conn)
        .await?;
    Ok(())
}
