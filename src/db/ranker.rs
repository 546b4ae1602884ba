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
    pub confidence: Decimal,
    pub reputation: Decimal,
    pub latest: DateTime<Utc>,
}

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
        "SELECT c.target_canonical_id AS target_id, max(e.score_confidence) AS confidence,
                a.score_reputation AS reputation,
                max(coalesce(e.observed_at_tstamp_utc, e.created_at_tstamp_utc)) AS latest
         FROM canonical_link_contributions c
         JOIN space_time_entries e ON e.id = c.source_space_time_entry_id
         JOIN agents a ON a.id = e.agent_id
         WHERE c.target_canonical_table = $1 AND c.target_canonical_id = ANY($2) AND c.link_type <> 'duplicate_of'
         GROUP BY c.target_canonical_id, e.agent_id, a.score_reputation",
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
