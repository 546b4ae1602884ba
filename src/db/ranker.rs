//! Inputs and outputs of the ranker: per-agent evidence, distinct signals, score updates.

use super::canonical::table_name;
use crate::domain::CanonicalTable;
use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use sqlx::PgConnection;
use uuid::Uuid;

#[derive(Debug, sqlx::FromRow)]
pub struct AgentEvidenceRow {
    pub target_id: Uuid,
    pub agent_id: Uuid,
    pub confidence: Decimal,
    pub latest: DateTime<Utc>,
}

/// What an agent's latest contributions show about it (`transform::ranker::earned_reputation`).
#[derive(Debug, Clone, Copy, sqlx::FromRow)]
pub struct TrackRecordRow {
    pub agent_id: Uuid,
    /// Distinct records among its latest contributions.
    pub contributed: i64,
    /// Of those, records other agents contributed to as well.
    pub corroborated: i64,
    /// Confirming and disputing signals by others on records it created.
    pub confirmed: i64,
    pub disputed: i64,
}

/// How many of an agent's latest contributions its track record reads (bounded work per agent).
const TRACK_RECORD_WINDOW: i64 = 500;

/// The track record of each of `agents`, from what the service observed, never from what the
/// agent declared about itself. Every lookup names the target's table as well as its id, so the
/// contributions' and signals' target indexes answer it (by id alone they could not: the table
/// leads both indexes).
pub async fn compute_track_records(
    conn: &mut PgConnection,
    agents: &[Uuid],
) -> Result<Vec<TrackRecordRow>, sqlx::Error> {
    sqlx::query_as(
        "SELECT a.id AS agent_id,
                count(DISTINCT t.target)::int8 AS contributed,
                count(DISTINCT t.target) FILTER (WHERE EXISTS (
                    SELECT 1 FROM canonical_link_contributions c2
                    JOIN space_time_entries e2 ON e2.id = c2.source_space_time_entry_id
                    WHERE c2.target_canonical_table = t.target_table
                      AND c2.target_canonical_id = t.target AND e2.agent_id <> a.id
                      AND c2.link_type <> 'duplicate_of'))::int8 AS corroborated,
                coalesce(sum(sig.positive), 0)::int8 AS confirmed,
                coalesce(sum(sig.negative), 0)::int8 AS disputed
         FROM unnest($1::uuid[]) AS a(id)
         LEFT JOIN LATERAL (
            SELECT c.target_canonical_table AS target_table, c.target_canonical_id AS target,
                   c.link_type
            FROM space_time_entries e
            JOIN canonical_link_contributions c ON c.source_space_time_entry_id = e.id
            WHERE e.agent_id = a.id AND c.link_type <> 'duplicate_of'
            ORDER BY e.id DESC LIMIT $2) t ON true
         LEFT JOIN LATERAL (
            SELECT count(*) FILTER (WHERE s.signal_type IN ('confirm', 'boost_confidence')) AS positive,
                   count(*) FILTER (WHERE s.signal_type IN ('reject', 'flag', 'reduce_confidence', 'stale')) AS negative
            FROM signals s
            WHERE t.link_type = 'created'
              AND s.target_schema = split_part(t.target_table, '.', 1)
              AND s.target_table = split_part(t.target_table, '.', 2) AND s.target_id = t.target
              AND s.created_by_agent_id IS NOT NULL AND s.created_by_agent_id <> a.id) sig ON true
         GROUP BY a.id",
    )
    .bind(agents)
    .bind(TRACK_RECORD_WINDOW)
    .fetch_all(conn)
    .await
}

/// The stored track records of `agents` computed at most `max_age_secs` ago.
pub async fn stored_track_records(
    conn: &mut PgConnection,
    agents: &[Uuid],
    max_age_secs: f64,
) -> Result<Vec<TrackRecordRow>, sqlx::Error> {
    sqlx::query_as(
        "SELECT agent_id, contributed, corroborated, confirmed, disputed FROM agent_track_records
         WHERE agent_id = ANY($1)
           AND computed_at_tstamp_utc > clock_timestamp() - make_interval(secs => $2)",
    )
    .bind(agents)
    .bind(max_age_secs)
    .fetch_all(conn)
    .await
}

/// Stores freshly computed track records. Never waits: an agent's row that another open
/// transaction is writing (it holds the row's advisory lock until it ends) is left to that one,
/// so two transformer batches cannot queue on each other here.
pub async fn store_track_records(
    conn: &mut PgConnection,
    rows: &[TrackRecordRow],
) -> Result<(), sqlx::Error> {
    if rows.is_empty() {
        return Ok(());
    }
    let mut rows = rows.to_vec();
    rows.sort_unstable_by_key(|r| r.agent_id);
    let column = |pick: fn(&TrackRecordRow) -> i64| rows.iter().map(pick).collect::<Vec<_>>();
    sqlx::query(
        "INSERT INTO agent_track_records AS t
             (agent_id, contributed, corroborated, confirmed, disputed, computed_at_tstamp_utc)
         SELECT r.agent_id, r.contributed, r.corroborated, r.confirmed, r.disputed, clock_timestamp()
         FROM unnest($1::uuid[], $2::int8[], $3::int8[], $4::int8[], $5::int8[])
             AS r(agent_id, contributed, corroborated, confirmed, disputed)
         WHERE pg_try_advisory_xact_lock($6, hashtext(r.agent_id::text))
         ON CONFLICT (agent_id) DO UPDATE SET contributed = EXCLUDED.contributed,
             corroborated = EXCLUDED.corroborated, confirmed = EXCLUDED.confirmed,
             disputed = EXCLUDED.disputed, computed_at_tstamp_utc = EXCLUDED.computed_at_tstamp_utc",
    )
    .bind(rows.iter().map(|r| r.agent_id).collect::<Vec<_>>())
    .bind(column(|r| r.contributed))
    .bind(column(|r| r.corroborated))
    .bind(column(|r| r.confirmed))
    .bind(column(|r| r.disputed))
    .bind(TRACK_RECORD_LOCK_CLASS)
    .execute(conn)
    .await?;
    Ok(())
}

/// The advisory lock class of track-record rows (two-key advisory locks: apart from the
/// transformer's one-key identity locks).
const TRACK_RECORD_LOCK_CLASS: i32 = 0x7472_6b72;

#[derive(Debug, sqlx::FromRow)]
pub struct SignalRow {
    pub target_id: Uuid,
    pub signal_type: String,
    pub weight: Decimal,
}

/// For each record, one row per distinct contributing agent: its strongest confidence and
/// freshest observation.
pub async fn agent_evidence(
    conn: &mut PgConnection,
    table: CanonicalTable,
    ids: &[Uuid],
) -> Result<Vec<AgentEvidenceRow>, sqlx::Error> {
    sqlx::query_as(
        "SELECT c.target_canonical_id AS target_id, e.agent_id, max(e.score_confidence) AS confidence,
                max(coalesce(e.observed_at_tstamp_utc, e.created_at_tstamp_utc)) AS latest
         FROM canonical_link_contributions c
         JOIN space_time_entries e ON e.id = c.source_space_time_entry_id
         WHERE c.target_canonical_table = $1 AND c.target_canonical_id = ANY($2) AND c.link_type <> 'duplicate_of'
         GROUP BY c.target_canonical_id, e.agent_id",
    )
    .bind(table)
    .bind(ids)
    .fetch_all(conn)
    .await
}

/// Repeated identical signals from one author count once (anonymous signals count one each).
pub async fn distinct_signals(
    conn: &mut PgConnection,
    table: CanonicalTable,
    ids: &[Uuid],
) -> Result<Vec<SignalRow>, sqlx::Error> {
    let (schema, name) = table_name(table)
        .split_once('.')
        .unwrap_or(("canonical", "entities"));
    sqlx::query_as(
        "SELECT target_id, signal_type, max(weight) AS weight FROM signals
         WHERE target_schema = $1 AND target_table = $2 AND target_id = ANY($3)
         GROUP BY target_id, coalesce(created_by_agent_id::text, id::text), signal_type",
    )
    .bind(schema)
    .bind(name)
    .bind(ids)
    .fetch_all(conn)
    .await
}

pub struct ScoreUpdate {
    pub data_richness: Decimal,
    pub agent_reputation: Option<Decimal>,
    pub signal: Option<Decimal>,
    pub confidence: Decimal,
}

pub async fn update_scores(
    conn: &mut PgConnection,
    table: CanonicalTable,
    rows: &[(Uuid, ScoreUpdate)],
) -> Result<(), sqlx::Error> {
    if rows.is_empty() {
        return Ok(());
    }
    sqlx::query(&format!(
        "UPDATE {} t SET score_data_richness = s.richness, score_agent_reputation = s.reputation,
             score_signal = s.signal, score_confidence = s.confidence
         FROM UNNEST($1::uuid[], $2::numeric[], $3::numeric[], $4::numeric[], $5::numeric[])
             AS s(id, richness, reputation, signal, confidence)
         WHERE t.id = s.id",
        table_name(table)
    ))
    .bind(rows.iter().map(|(id, _)| *id).collect::<Vec<_>>())
    .bind(
        rows.iter()
            .map(|(_, s)| s.data_richness)
            .collect::<Vec<_>>(),
    )
    .bind(
        rows.iter()
            .map(|(_, s)| s.agent_reputation)
            .collect::<Vec<_>>(),
    )
    .bind(rows.iter().map(|(_, s)| s.signal).collect::<Vec<_>>())
    .bind(rows.iter().map(|(_, s)| s.confidence).collect::<Vec<_>>())
    .execute(conn)
    .await?;
    Ok(())
}

/// Ids of every entity, in pages, for `run-all`.
pub async fn entity_ids_after(
    conn: &mut PgConnection,
    after: Option<Uuid>,
    limit: i64,
) -> Result<Vec<Uuid>, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT id FROM canonical.entities WHERE ($1::uuid IS NULL OR id > $1) ORDER BY id LIMIT $2",
    )
    .bind(after)
    .bind(limit)
    .fetch_all(conn)
    .await
}

pub async fn lock_entity(conn: &mut PgConnection, id: Uuid) -> Result<bool, sqlx::Error> {
    let found: Option<Uuid> =
        sqlx::query_scalar("SELECT id FROM canonical.entities WHERE id = $1 FOR UPDATE")
            .bind(id)
            .fetch_optional(conn)
            .await?;
    Ok(found.is_some())
}
