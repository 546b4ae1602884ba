//! A search hit as every transport answers it (REST, GraphQL, MCP).

use super::canonical::CanonicalRecord;
use crate::domain::CanonicalTable;
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

/// The parts a result's score is made of (docs/search.md).
#[derive(Debug, Clone, Serialize, ToSchema, async_graphql::SimpleObject)]
pub struct ScoreParts {
    /// 0..1: share of the query's words found, share of the name's words in the query, full-text
    /// rank, trigram similarity of the name or title (docs/search.md).
    pub text: f64,
    /// 0..1: exp(−distance / scale); null without a point.
    pub distance: Option<f64>,
    /// The record's score_confidence.
    pub confidence: f64,
}

#[derive(Debug, Clone, Serialize, ToSchema, async_graphql::SimpleObject)]
pub struct SearchResult {
    pub canonical_table: CanonicalTable,
    /// entity, listing or request.
    pub canonical_type: String,
    pub id: Uuid,
    /// The display name or title.
    pub label: String,
    pub score: f64,
    pub score_parts: ScoreParts,
    /// Metres from the given point; null without a point.
    pub distance_meters: Option<f64>,
    /// Which of the searchable dimensions this record has.
    pub dimensions_present: Vec<String>,
    pub record: CanonicalRecord,
}
