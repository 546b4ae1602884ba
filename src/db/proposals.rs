//! field_proposals: contested values of established identity fields, waiting for an operator.

use crate::domain::{CanonicalTable, ListParams};
pub use crate::records::proposals::ProposalFilter;
use crate::records::proposals::{ContestedValue, FieldProposal, ValueEvidence};
use chrono::{DateTime, Utc};
use sqlx::PgConnection;
use uuid::Uuid;

/// A proposal as the guard makes it (`services::transformer::entity`).
pub struct NewProposal<'a> {
    pub table: CanonicalTable,
    pub record_id: Uuid,
    pub field: &'a str,
    pub current: &'a ContestedValue,
    pub proposed: &'a ContestedValue,
    pub proposed_key: &'a str,
    pub reason: &'a str,
}

#[derive(sqlx::FromRow)]
struct Row {
    id: Uuid,
    canonical_table: CanonicalTable,
    record_id: Uuid,
    field: String,
    current_value: String,
    current_entry_id: Option<Uuid>,
    current_agent_id: Option<Uuid>,
    current_observed_at_tstamp_utc: Option<DateTime<Utc>>,
    current_confidence: Option<f64>,
    proposed_value: String,
    space_time_entry_id: Uuid,
    agent_id: Uuid,
    proposed_observed_at_tstamp_utc: Option<DateTime<Utc>>,
    proposed_confidence: f64,
    reason: String,
    proposal_count: i32,
    status: String,
    decided_by_agent_id: Option<Uuid>,
    decided_at_tstamp_utc: Option<DateTime<Utc>>,
    created_at_tstamp_utc: DateTime<Utc>,
    updated_at_tstamp_utc: DateTime<Utc>,
}

impl From<Row> for FieldProposal {
    fn from(r: Row) -> Self {
        let current_evidence = match (r.current_entry_id, r.current_agent_id) {
            (Some(entry), Some(agent)) => Some(ValueEvidence {
                space_time_entry_id: entry,
                agent_id: agent,
                observed_at_tstamp_utc: r.current_observed_at_tstamp_utc,
                confidence: r.current_confidence.unwrap_or_default(),
            }),
            _ => None,
        };
        FieldProposal {
            id: r.id,
            canonical_table: r.canonical_table,
            record_id: r.record_id,
            field: r.field,
            current: ContestedValue {
                value: r.current_value,
                evidence: current_evidence,
            },
            proposed: ContestedValue {
                value: r.proposed_value,
                evidence: Some(ValueEvidence {
                    space_time_entry_id: r.space_time_entry_id,
                    agent_id: r.agent_id,
                    observed_at_tstamp_utc: r.proposed_observed_at_tstamp_utc,
                    confidence: r.proposed_confidence,
                }),
            },
            space_time_entry_id: r.space_time_entry_id,
            agent_id: r.agent_id,
            reason: r.reason,
            proposal_count: r.proposal_count,
            status: r.status,
            decided_by_agent_id: r.decided_by_agent_id,
            decided_at_tstamp_utc: r.decided_at_tstamp_utc,
            created_at_tstamp_utc: r.created_at_tstamp_utc,
            updated_at_tstamp_utc: r.updated_at_tstamp_utc,
        }
    }
}

const COLUMNS: &str = "id, canonical_table, record_id, field, current_value, current_entry_id, current_agent_id, \
    current_observed_at_tstamp_utc, current_confidence, proposed_value, space_time_entry_id, agent_id, \
    proposed_observed_at_tstamp_utc, proposed_confidence, reason, proposal_count, status, \
    decided_by_agent_id, decided_at_tstamp_utc, created_at_tstamp_utc, updated_at_tstamp_utc";

/// Queues the proposal, or counts one more entry behind the same open value of the same field.
/// Returns the proposal's id.
pub async fn propose(conn: &mut PgConnection, p: &NewProposal<'_>) -> sqlx::Result<Uuid> {
    let current = p.current.evidence.as_ref();
    let Some(proposed) = p.proposed.evidence.as_ref() else {
        return Err(sqlx::Error::Protocol(
            "a proposal needs its evidence".into(),
        ));
    };
    sqlx::query_scalar(
        "INSERT INTO field_proposals (id, canonical_table, record_id, field, current_value, current_entry_id,
             current_agent_id, current_observed_at_tstamp_utc, current_confidence, proposed_value, proposed_key,
             space_time_entry_id, agent_id, proposed_observed_at_tstamp_utc, proposed_confidence, reason)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
         ON CONFLICT (canonical_table, record_id, field, proposed_key) WHERE status = 'open'
         DO UPDATE SET proposal_count = field_proposals.proposal_count + 1
         RETURNING id",
    )
    .bind(Uuid::now_v7())
    .bind(p.table)
    .bind(p.record_id)
    .bind(p.field)
    .bind(&p.current.value)
    .bind(current.map(|e| e.space_time_entry_id))
    .bind(current.map(|e| e.agent_id))
    .bind(current.and_then(|e| e.observed_at_tstamp_utc))
    .bind(current.map(|e| e.confidence))
    .bind(&p.proposed.value)
    .bind(p.proposed_key)
    .bind(proposed.space_time_entry_id)
    .bind(proposed.agent_id)
    .bind(proposed.observed_at_tstamp_utc)
    .bind(proposed.confidence)
    .bind(p.reason)
    .fetch_one(conn)
    .await
}

/// Open proposals of `fields` on a record become `superseded`: the record's field changed
/// otherwise, so what they contest is gone.
pub async fn supersede(
    conn: &mut PgConnection,
    record_id: Uuid,
    fields: &[&str],
) -> sqlx::Result<u64> {
    Ok(sqlx::query(
        "UPDATE field_proposals SET status = 'superseded'
         WHERE record_id = $1 AND field = ANY($2) AND status = 'open'",
    )
    .bind(record_id)
    .bind(fields)
    .execute(conn)
    .await?
    .rows_affected())
}

/// The statement `list` runs; public so tests can read its plan.
pub fn list_statement(columns: &str) -> String {
    format!(
        "SELECT {columns} FROM field_proposals
         WHERE ($1::text IS NULL OR status = $1) AND ($2::uuid IS NULL OR agent_id = $2)
           AND ($3::uuid IS NULL OR record_id = $3) AND ($4::uuid IS NULL OR id < $4)
         ORDER BY id DESC LIMIT $5"
    )
}

pub async fn list<'c>(
    pool: impl super::Reads<'c>,
    f: &ProposalFilter,
    params: &ListParams,
) -> sqlx::Result<Vec<FieldProposal>> {
    let rows: Vec<Row> = sqlx::query_as(&list_statement(COLUMNS))
        .bind(&f.status)
        .bind(f.agent_id)
        .bind(f.record_id)
        .bind(params.after)
        .bind(params.fetch_limit())
        .fetch_all(pool)
        .await?;
    Ok(rows.into_iter().map(FieldProposal::from).collect())
}

pub async fn get(conn: &mut PgConnection, id: Uuid) -> sqlx::Result<Option<FieldProposal>> {
    let row: Option<Row> = sqlx::query_as(&format!(
        "SELECT {COLUMNS} FROM field_proposals WHERE id = $1"
    ))
    .bind(id)
    .fetch_optional(conn)
    .await?;
    Ok(row.map(FieldProposal::from))
}

/// Decides an open proposal (`accepted`, `dismissed` or `superseded`); `None` when it is not open
/// (any more). Of two concurrent deciders the second waits on the row and then finds it decided.
pub async fn decide(
    conn: &mut PgConnection,
    id: Uuid,
    status: &str,
    decided_by: Option<Uuid>,
) -> sqlx::Result<Option<FieldProposal>> {
    let row: Option<Row> = sqlx::query_as(&format!(
        "UPDATE field_proposals
         SET status = $2, decided_by_agent_id = $3, decided_at_tstamp_utc = CASE WHEN $3::uuid IS NULL THEN NULL ELSE now() END
         WHERE id = $1 AND status = 'open' RETURNING {COLUMNS}"
    ))
    .bind(id)
    .bind(status)
    .bind(decided_by)
    .fetch_optional(conn)
    .await?;
    Ok(row.map(FieldProposal::from))
}
