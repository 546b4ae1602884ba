//! Space-time entries and their attachments.

use crate::domain::{CanonicalTable, DecimalInput, EntryIntent, EntryStatus, EntryType, LinkType};
use crate::domain::{decimal, json};
use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::FromRow;
use utoipa::ToSchema;
use uuid::Uuid;

/// A stored evidence file: evidence only, never read by the transformer.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, async_graphql::SimpleObject)]
pub struct Attachment {
    /// Opaque resource URI of the stored bytes.
    pub uri: String,
    /// Where the bytes can be downloaded.
    pub download_url: String,
    pub media_type: String,
    pub size_bytes: i64,
    /// Hex SHA-256 of the bytes (the storage is content-addressed).
    pub sha256: String,
    pub filename: Option<String>,
}

/// A space-time entry: one real-world record as published by one agent, and what the service made of it.
#[derive(Debug, Clone, FromRow, Serialize, ToSchema, async_graphql::SimpleObject)]
#[graphql(complex)]
pub struct SpaceTimeEntry {
    pub id: Uuid,
    /// The publishing agent (from its bearer key).
    pub agent_id: Uuid,
    pub entry_type: EntryType,
    pub entry_subtype: Option<String>,
    pub entry_intent: EntryIntent,
    pub status: EntryStatus,
    pub latitude: f64,
    pub longitude: f64,
    pub observed_at_tstamp_utc: Option<DateTime<Utc>>,
    pub source_type: Option<String>,
    pub source_ref: Option<String>,
    pub target_canonical_table: Option<CanonicalTable>,
    pub target_canonical_id: Option<Uuid>,
    pub geohash: Option<String>,
    pub location_text: Option<String>,
    pub valid_from_tstamp_utc: Option<DateTime<Utc>>,
    pub valid_to_tstamp_utc: Option<DateTime<Utc>>,
    pub idempotency_key: Option<String>,
    /// Structured facts as published.
    #[schema(value_type = Object)]
    pub context: Value,
    pub score_confidence: Decimal,
    /// Evidence files (never read by the transformer).
    #[sqlx(json)]
    pub attachments: Vec<Attachment>,
    /// Where the transformer linked this entry: the canonical record it created, updated,
    /// matched or supported.
    pub canonical_table: Option<CanonicalTable>,
    pub canonical_id: Option<Uuid>,
    pub link_type: Option<LinkType>,
    /// Why the transformer decided what it did.
    pub processing_reason: Option<String>,
    /// Set when processing failed.
    pub processing_error: Option<String>,
    pub transformer_run_id: Option<Uuid>,
    pub processed_at_tstamp_utc: Option<DateTime<Utc>>,
    pub created_at_tstamp_utc: DateTime<Utc>,
    pub updated_at_tstamp_utc: DateTime<Utc>,
}

/// Body of POST /api/v1/space-time-entries and input of `createSpaceTimeEntry`. The author is the
/// bearer's agent; attachments need REST multipart.
#[derive(Debug, Deserialize, ToSchema, async_graphql::InputObject)]
#[serde(deny_unknown_fields)]
#[graphql(name = "SpaceTimeEntryInput")]
pub struct EntryCreate {
    pub entry_type: EntryType,
    /// -90 to 90; a number or a decimal string.
    #[serde(deserialize_with = "decimal::deserialize")]
    #[schema(value_type = DecimalInput)]
    pub latitude: Decimal,
    /// -180 to 180; a number or a decimal string.
    #[serde(deserialize_with = "decimal::deserialize")]
    #[schema(value_type = DecimalInput)]
    pub longitude: Decimal,
    #[serde(default)]
    pub observed_at_tstamp_utc: Option<DateTime<Utc>>,
    #[serde(default)]
    pub source_type: Option<String>,
    #[serde(default)]
    pub source_ref: Option<String>,
    #[serde(default)]
    pub entry_subtype: Option<String>,
    #[serde(default)]
    pub entry_intent: Option<EntryIntent>,
    #[serde(default)]
    pub target_canonical_table: Option<CanonicalTable>,
    #[serde(default)]
    pub target_canonical_id: Option<Uuid>,
    /// Computed from the point when absent.
    #[serde(default)]
    pub geohash: Option<String>,
    #[serde(default)]
    pub location_text: Option<String>,
    #[serde(default)]
    pub valid_from_tstamp_utc: Option<DateTime<Utc>>,
    #[serde(default)]
    pub valid_to_tstamp_utc: Option<DateTime<Utc>>,
    /// Unique per agent; a repeat is a conflict (409; CONFLICT in GraphQL) naming the existing entry.
    #[serde(default)]
    pub idempotency_key: Option<String>,
    /// A JSON object, at most 256 KiB.
    #[serde(default, deserialize_with = "json::deserialize_object_option")]
    #[schema(value_type = Option<Object>)]
    pub context: Option<Value>,
    /// 0 to 1, default 0.5; a number or a decimal string.
    #[serde(default, deserialize_with = "decimal::deserialize_option")]
    #[schema(value_type = Option<DecimalInput>)]
    pub score_confidence: Option<Decimal>,
}
