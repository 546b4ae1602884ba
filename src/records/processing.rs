//! What the transformer and the ranker report back to their callers.

use crate::domain::{CanonicalTable, EntryStatus, LinkType};
use rust_decimal::Decimal;
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

/// The outcome of processing one entry.
#[derive(Debug, Clone, Serialize, ToSchema, async_graphql::SimpleObject)]
pub struct ProcessResult {
    pub space_time_entry_id: Uuid,
    pub status: EntryStatus,
    pub canonical_table: Option<CanonicalTable>,
    pub canonical_id: Option<Uuid>,
    pub link_type: Option<LinkType>,
    pub reason: Option<String>,
    pub error: Option<String>,
}

/// The outcome of one process-pending call.
#[derive(Debug, Clone, Serialize, ToSchema, async_graphql::SimpleObject)]
pub struct ProcessPendingResult {
    pub processed: i64,
    pub results: Vec<ProcessResult>,
}

/// An entity's scores after a ranker run.
#[derive(Debug, Clone, Serialize, ToSchema, async_graphql::SimpleObject)]
pub struct RankerResult {
    pub entity_id: Uuid,
    pub score_confidence: Decimal,
    pub score_data_richness: Decimal,
    pub score_signal: Option<Decimal>,
}
