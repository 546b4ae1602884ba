//! Provenance for analysts: which entry and agent set each field of a canonical record, the
//! record's contributions with their evidence, and an agent's influence on the canonical data.

use crate::domain::{CanonicalTable, LinkType};
use crate::records::canonical::LinkContribution;
use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

/// Where one field's current value came from (the transformer's per-field evidence).
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema, async_graphql::SimpleObject)]
#[graphql(complex)]
pub struct FieldSource {
    /// The record's field, as named in its REST body (`phone`, `display_name`, `location`, …).
    pub field: String,
    /// The entry whose value the field holds.
    pub space_time_entry_id: Uuid,
    /// The agent that published that entry.
    pub agent_id: Uuid,
    /// When the entry's evidence was observed (null when the entry did not say).
    pub observed_at_tstamp_utc: Option<DateTime<Utc>>,
    /// The entry's confidence (0 to 1) when it set the field.
    pub score_confidence: f64,
}

/// One contribution with the evidence of its entry.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ContributionEvidence {
    #[serde(flatten)]
    pub contribution: LinkContribution,
    pub agent_id: Uuid,
    pub agent_display_name: String,
    pub observed_at_tstamp_utc: Option<DateTime<Utc>>,
    pub source_type: Option<String>,
    /// Where the evidence came from (a URL, a file name, a reference).
    pub source_ref: Option<String>,
    /// The entry's own confidence in its evidence (0 to 1; 1 minus its uncertainty).
    #[schema(value_type = String)]
    pub entry_score_confidence: rust_decimal::Decimal,
}

/// A canonical record's provenance: its fields' sources and its contributions in time order.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RecordProvenance {
    pub canonical_table: CanonicalTable,
    pub canonical_id: Uuid,
    /// One item per field with known evidence, by field name.
    pub fields: Vec<FieldSource>,
    /// The oldest 500 contributions, oldest first.
    pub contributions: Vec<ContributionEvidence>,
}

/// How an agent's entries shaped canonical records: the contributions of its newest 10,000 entries
/// per link type (a bounded cost per agent); `complete` says whether those were all its entries.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema, async_graphql::SimpleObject)]
pub struct AgentInfluence {
    pub created: i64,
    pub updated: i64,
    pub matched: i64,
    pub merged: i64,
    pub supporting_evidence: i64,
    pub duplicate_of: i64,
    /// Distinct canonical records the agent's entries contributed to.
    pub records: i64,
    /// False when the agent has more than 10,000 entries: the counts then cover its newest 10,000.
    pub complete: bool,
}

impl Default for AgentInfluence {
    /// An agent without entries: nothing counted, nothing left out.
    fn default() -> Self {
        AgentInfluence {
            created: 0,
            updated: 0,
            matched: 0,
            merged: 0,
            supporting_evidence: 0,
            duplicate_of: 0,
            records: 0,
            complete: true,
        }
    }
}

/// What an agent's `touched` connection looked at: the contributions of its newest 10,000
/// entries.
#[derive(Debug, Clone, PartialEq, Serialize, async_graphql::SimpleObject)]
pub struct TouchedCoverage {
    /// False when the agent has more than 10,000 entries: the contributions of older entries
    /// were not looked at, so records only they touched are missing.
    pub complete: bool,
}

/// A canonical record an agent's entries contributed to, inside the asked circle and window.
#[derive(Debug, Clone, Serialize, ToSchema, async_graphql::SimpleObject)]
#[graphql(complex)]
pub struct TouchedRecord {
    pub canonical_table: CanonicalTable,
    pub canonical_id: Uuid,
    /// The link types of the agent's contributions to it in the window.
    pub link_types: Vec<LinkType>,
    /// How many contributions the agent's entries made to it in the window.
    pub contributions: i64,
    pub first_contributed_at_tstamp_utc: DateTime<Utc>,
    pub last_contributed_at_tstamp_utc: DateTime<Utc>,
    /// Metres from the asked point to the record, on PostGIS's sphere.
    pub distance_meters: f64,
}
