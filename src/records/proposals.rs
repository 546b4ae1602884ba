//! Field proposals: a value another agent sent for an established identity field of a record,
//! held for an operator while the record keeps its own (docs/matching-rules.md, section 4).

use crate::domain::CanonicalTable;
use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

/// Who stands behind a value: the entry that set (or proposes) it, its agent, when it was
/// observed and how confident the agent said it was.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema, async_graphql::SimpleObject)]
pub struct ValueEvidence {
    pub space_time_entry_id: Uuid,
    pub agent_id: Uuid,
    pub observed_at_tstamp_utc: Option<DateTime<Utc>>,
    pub confidence: f64,
}

/// One side of a contest: a value as the record shows it (or as proposed) and its evidence.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema, async_graphql::SimpleObject)]
pub struct ContestedValue {
    /// The value as written; for `location`, `latitude,longitude` in degrees.
    pub value: String,
    /// The evidence behind it; null for a record value whose evidence was never recorded.
    pub evidence: Option<ValueEvidence>,
}

/// A contested value waiting for an operator (or decided): the record kept `current`, an agent
/// proposed `proposed`.
#[derive(Debug, Clone, Serialize, ToSchema, async_graphql::SimpleObject)]
#[graphql(complex)]
pub struct FieldProposal {
    pub id: Uuid,
    pub canonical_table: CanonicalTable,
    pub record_id: Uuid,
    /// display_name, website_url, phone or location.
    pub field: String,
    /// The record's value when the proposal was made.
    pub current: ContestedValue,
    /// The contested value and the evidence of the entry that proposed it first.
    pub proposed: ContestedValue,
    /// The entry that proposed the value first.
    pub space_time_entry_id: Uuid,
    /// Its agent.
    pub agent_id: Uuid,
    /// Why it is contested, e.g. "would replace the website_url another agent set on a record 2
    /// agents corroborate".
    pub reason: String,
    /// Entries that proposed this value while it was open (the first included).
    pub proposal_count: i32,
    /// open, accepted, dismissed or superseded (the record's field changed otherwise).
    pub status: String,
    /// The operator who accepted or dismissed it.
    pub decided_by_agent_id: Option<Uuid>,
    pub decided_at_tstamp_utc: Option<DateTime<Utc>>,
    pub created_at_tstamp_utc: DateTime<Utc>,
    pub updated_at_tstamp_utc: DateTime<Utc>,
}

#[derive(Debug, Default, Clone)]
pub struct ProposalFilter {
    pub status: Option<String>,
    pub agent_id: Option<Uuid>,
    pub record_id: Option<Uuid>,
}
