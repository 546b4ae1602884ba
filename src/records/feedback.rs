//! Notes, signals and the duplicate review queue they feed.

use crate::domain::{CanonicalTable, NoteVisibility, SignalType};
use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use serde::Serialize;
use serde_json::Value;
use sqlx::FromRow;
use utoipa::ToSchema;
use uuid::Uuid;

/// A note on a canonical record or an entry.
#[derive(Debug, Clone, FromRow, Serialize, ToSchema, async_graphql::SimpleObject)]
#[graphql(complex)]
pub struct Note {
    pub id: Uuid,
    pub created_by_agent_id: Option<Uuid>,
    pub parent_note_id: Option<Uuid>,
    pub target_schema: String,
    pub target_table: String,
    pub target_id: Uuid,
    pub body: String,
    pub visibility: NoteVisibility,
    #[schema(value_type = Object)]
    pub context: Value,
    pub created_at_tstamp_utc: DateTime<Utc>,
    pub updated_at_tstamp_utc: DateTime<Utc>,
}

/// Structured feedback about a record (docs/decisions/data-model.md).
#[derive(Debug, Clone, FromRow, Serialize, ToSchema, async_graphql::SimpleObject)]
pub struct Signal {
    pub id: Uuid,
    pub created_by_agent_id: Option<Uuid>,
    pub signal_type: SignalType,
    pub target_schema: String,
    pub target_table: String,
    pub target_id: Uuid,
    pub duplicate_of_id: Option<Uuid>,
    pub weight: Decimal,
    pub reason: Option<String>,
    #[schema(value_type = Object)]
    pub context: Value,
    pub created_at_tstamp_utc: DateTime<Utc>,
    pub updated_at_tstamp_utc: DateTime<Utc>,
}

/// A pair of records an agent reported as duplicates, waiting for review (never merged
/// automatically).
#[derive(Debug, Clone, FromRow, Serialize, ToSchema, async_graphql::SimpleObject)]
#[graphql(complex)]
pub struct DuplicateCandidate {
    pub id: Uuid,
    pub canonical_table: CanonicalTable,
    pub record_id: Uuid,
    pub duplicate_of_id: Uuid,
    pub first_signal_id: Uuid,
    pub signal_count: i32,
    /// open, confirmed or dismissed.
    pub status: String,
    pub created_at_tstamp_utc: DateTime<Utc>,
    pub updated_at_tstamp_utc: DateTime<Utc>,
}

#[derive(Debug, Clone, Default)]
pub struct NoteFilter {
    pub target_schema: Option<String>,
    pub target_table: Option<String>,
    pub target_id: Option<Uuid>,
}

#[derive(Debug, Clone, Default)]
pub struct SignalFilter {
    pub target_schema: Option<String>,
    pub target_table: Option<String>,
    pub target_id: Option<Uuid>,
}
