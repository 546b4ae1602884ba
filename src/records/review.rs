//! The review queue: entries the transformer would not decide, with why and the candidates it
//! weighed, for operators to resolve.

use crate::domain::{CanonicalTable, EntryIntent, EntryType, ReviewResolution};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

/// A record the entry may be about, as the matching rules scored it.
#[derive(Debug, Clone, Serialize, ToSchema, async_graphql::SimpleObject)]
#[graphql(complex)]
pub struct ReviewCandidate {
    pub canonical_table: CanonicalTable,
    pub canonical_id: Uuid,
    /// The matching score (0 to 1), when the rules scored it.
    pub score: Option<f64>,
    /// The score's parts ("distance 42 m", "name 'acme plumbing'", "phone +44…").
    pub reasons: Vec<String>,
}

/// One entry waiting for an operator.
#[derive(Debug, Clone, Serialize, ToSchema, async_graphql::SimpleObject)]
#[graphql(complex)]
pub struct ReviewItem {
    pub space_time_entry_id: Uuid,
    pub entry_type: EntryType,
    pub entry_intent: EntryIntent,
    pub agent_id: Uuid,
    /// The transformer's reason, e.g. "ambiguous: several nearby records share this name …".
    pub reason: Option<String>,
    /// Which rule found the doubt, when one did.
    pub why: Option<String>,
    pub candidates: Vec<ReviewCandidate>,
    /// Identity fields the entry would have replaced on an established record (entries held
    /// under earlier rules: today such a value links and waits as a field proposal).
    pub fields: Vec<String>,
    pub created_at_tstamp_utc: DateTime<Utc>,
}

/// POST /api/v1/review-queue/{space_time_entry_id}/resolution
#[derive(Debug, Clone, Deserialize, ToSchema, async_graphql::InputObject)]
#[graphql(name = "ReviewResolutionInput")]
pub struct ReviewResolutionInput {
    pub resolution: ReviewResolution,
    /// The record the entry is about; required with `is_record`, refused otherwise.
    pub canonical_id: Option<Uuid>,
}
