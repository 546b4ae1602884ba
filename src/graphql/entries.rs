//! Space-time entry type, queries and mutations.

use super::canonical::{CanonicalRecord, contributions_of_entry, load_record};
use super::loaders::AgentLoader;
use super::{ctx_parts, paging};
use crate::db::entries::SpaceTimeEntry;
use crate::domain::DecimalInput;
use crate::domain::{CanonicalTable, EntryIntent, EntryStatus, EntryType, LinkType};
use crate::records::agents::Agent;
use crate::records::canonical::LinkContribution;
use crate::services::entries;
use async_graphql::connection::Connection;
use async_graphql::dataloader::DataLoader;
use async_graphql::{Context, InputObject, Json, Object, Result, SimpleObject};
use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use serde_json::{Map, Value};
use uuid::Uuid;

/// A stored evidence file.
#[derive(SimpleObject)]
pub struct Attachment {
    /// Opaque resource URI of the stored bytes.
    pub uri: String,
    pub download_url: String,
    pub media_type: String,
    pub size_bytes: i64,
    pub sha256: String,
    pub filename: Option<String>,
}

impl From<&crate::db::entries::Attachment> for Attachment {
    fn from(a: &crate::db::entries::Attachment) -> Self {
        Attachment {
            uri: a.uri.clone(),
            download_url: a.download_url.clone(),
            media_type: a.media_type.clone(),
            size_bytes: a.size_bytes,
            sha256: a.sha256.clone(),
            filename: a.filename.clone(),
        }
    }
}

/// One real-world record as published by one agent, and what the service made of it.
pub struct EntryNode(pub SpaceTimeEntry);

#[Object(name = "SpaceTimeEntry")]
impl EntryNode {
    async fn id(&self) -> Uuid {
        self.0.id
    }
    /// The publishing agent (from its bearer key).
    async fn agent_id(&self) -> Uuid {
        self.0.agent_id
    }
    async fn entry_type(&self) -> EntryType {
        self.0.entry_type
    }
    async fn entry_subtype(&self) -> Option<&str> {
        self.0.entry_subtype.as_deref()
    }
    async fn entry_intent(&self) -> EntryIntent {
        self.0.entry_intent
    }
    async fn status(&self) -> EntryStatus {
        self.0.status
    }
    async fn latitude(&self) -> f64 {
        self.0.latitude
    }
    async fn longitude(&self) -> f64 {
        self.0.longitude
    }
    async fn observed_at_tstamp_utc(&self) -> Option<DateTime<Utc>> {
        self.0.observed_at_tstamp_utc
    }
    async fn source_type(&self) -> Option<&str> {
        self.0.source_type.as_deref()
    }
    async fn source_ref(&self) -> Option<&str> {
        self.0.source_ref.as_deref()
    }
    async fn target_canonical_table(&self) -> Option<CanonicalTable> {
        self.0.target_canonical_table
    }
    async fn target_canonical_id(&self) -> Option<Uuid> {
        self.0.target_canonical_id
    }
    async fn geohash(&self) -> Option<&str> {
        self.0.geohash.as_deref()
    }
    async fn location_text(&self) -> Option<&str> {
        self.0.location_text.as_deref()
    }
    async fn valid_from_tstamp_utc(&self) -> Option<DateTime<Utc>> {
        self.0.valid_from_tstamp_utc
    }
    async fn valid_to_tstamp_utc(&self) -> Option<DateTime<Utc>> {
        self.0.valid_to_tstamp_utc
    }
    async fn idempotency_key(&self) -> Option<&str> {
        self.0.idempotency_key.as_deref()
    }
    /// Structured facts as published.
    async fn context(&self) -> Json<&Value> {
        Json(&self.0.context)
    }
    async fn score_confidence(&self) -> Decimal {
        self.0.score_confidence
    }
    /// Where the transformer linked this entry.
    async fn canonical_table(&self) -> Option<CanonicalTable> {
        self.0.canonical_table
    }
    async fn canonical_id(&self) -> Option<Uuid> {
        self.0.canonical_id
    }
    async fn link_type(&self) -> Option<LinkType> {
        self.0.link_type
    }
    /// Why the transformer decided what it did.
    async fn processing_reason(&self) -> Option<&str> {
        self.0.processing_reason.as_deref()
    }
    async fn processing_error(&self) -> Option<&str> {
        self.0.processing_error.as_deref()
    }
    async fn transformer_run_id(&self) -> Option<Uuid> {
        self.0.transformer_run_id
    }
    async fn processed_at_tstamp_utc(&self) -> Option<DateTime<Utc>> {
        self.0.processed_at_tstamp_utc
    }
    async fn created_at_tstamp_utc(&self) -> DateTime<Utc> {
        self.0.created_at_tstamp_utc
    }
    async fn updated_at_tstamp_utc(&self) -> DateTime<Utc> {
        self.0.updated_at_tstamp_utc
    }
    /// The agent that published this entry.
    async fn agent(&self, ctx: &Context<'_>) -> Result<Option<Agent>> {
        let loader = ctx.data_unchecked::<DataLoader<AgentLoader>>();
        loader
            .load_one(self.0.agent_id)
            .await
            .map_err(|e| (*e).clone())
    }
    /// Evidence files (never read by the transformer).
    async fn attachments(&self) -> Vec<Attachment> {
        self.0.attachments.0.iter().map(Attachment::from).collect()
    }
    /// Every link this entry contributed, oldest first.
    async fn contributions(&self, ctx: &Context<'_>) -> Result<Vec<LinkContribution>> {
        contributions_of_entry(ctx, self.0.id).await
    }
    /// The canonical record this entry was linked to, if any.
    async fn canonical(&self, ctx: &Context<'_>) -> Result<Option<CanonicalRecord>> {
        match (self.0.canonical_table, self.0.canonical_id) {
            (Some(table), Some(id)) => load_record(ctx, table, id).await,
            _ => Ok(None),
        }
    }
}

/// Fields of a new entry (the JSON body of POST /api/v1/space-time-entries; attachments need REST multipart).
#[derive(InputObject)]
pub struct SpaceTimeEntryInput {
    pub entry_type: EntryType,
    /// -90 to 90.
    pub latitude: Decimal,
    /// -180 to 180.
    pub longitude: Decimal,
    pub observed_at_tstamp_utc: Option<DateTime<Utc>>,
    pub source_type: Option<String>,
    pub source_ref: Option<String>,
    pub entry_subtype: Option<String>,
    pub entry_intent: Option<EntryIntent>,
    pub target_canonical_table: Option<CanonicalTable>,
    pub target_canonical_id: Option<Uuid>,
    pub geohash: Option<String>,
    pub location_text: Option<String>,
    pub valid_from_tstamp_utc: Option<DateTime<Utc>>,
    pub valid_to_tstamp_utc: Option<DateTime<Utc>>,
    pub idempotency_key: Option<String>,
    pub context: Option<Json<Map<String, Value>>>,
    pub score_confidence: Option<Decimal>,
}

impl From<SpaceTimeEntryInput> for entries::EntryCreate {
    fn from(i: SpaceTimeEntryInput) -> Self {
        entries::EntryCreate {
            entry_type: i.entry_type,
            latitude: DecimalInput(i.latitude),
            longitude: DecimalInput(i.longitude),
            observed_at_tstamp_utc: i.observed_at_tstamp_utc,
            source_type: i.source_type,
            source_ref: i.source_ref,
            entry_subtype: i.entry_subtype,
            entry_intent: i.entry_intent,
            target_canonical_table: i.target_canonical_table,
            target_canonical_id: i.target_canonical_id,
            geohash: i.geohash,
            location_text: i.location_text,
            valid_from_tstamp_utc: i.valid_from_tstamp_utc,
            valid_to_tstamp_utc: i.valid_to_tstamp_utc,
            idempotency_key: i.idempotency_key,
            context: i.context.map(|c| c.0),
            score_confidence: i.score_confidence.map(DecimalInput),
        }
    }
}

#[derive(Default)]
pub struct EntryQuery;

#[Object]
impl EntryQuery {
    /// One entry by id; null when it does not exist.
    async fn entry(&self, ctx: &Context<'_>, id: Uuid) -> Result<Option<EntryNode>> {
        let (state, _) = ctx_parts(ctx);
        super::found(entries::get(state, id).await)
            .map(|e| e.map(EntryNode))
            .map_err(Into::into)
    }

    /// Entries, newest first, optionally by status.
    async fn entries(
        &self,
        ctx: &Context<'_>,
        status: Option<EntryStatus>,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<Connection<String, EntryNode>> {
        let (state, _) = ctx_parts(ctx);
        let after_given = after.is_some();
        let page = entries::list(state, status, None, paging::params(first, after)?).await?;
        Ok(paging::connection(page, |e| e.id, EntryNode, after_given))
    }
}

#[derive(Default)]
pub struct EntryMutation;

#[Object]
impl EntryMutation {
    /// Publishes one entry as the bearer's agent (same as POST /api/v1/space-time-entries with JSON).
    async fn create_space_time_entry(
        &self,
        ctx: &Context<'_>,
        input: SpaceTimeEntryInput,
    ) -> Result<EntryNode> {
        let (state, rctx) = ctx_parts(ctx);
        Ok(EntryNode(
            entries::create(state, rctx, input.into(), Vec::new(), &["input"]).await?,
        ))
    }
}
