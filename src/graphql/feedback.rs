//! Notes, signals and the duplicate review queue.

use super::canonical::{CanonicalRecord, load_agent, load_record};
use super::{ctx_parts, paging};
use crate::db::notes::{Note, NoteFilter};
use crate::db::signals::{DuplicateCandidate, Signal, SignalFilter};
use crate::domain::DecimalInput;
use crate::domain::{CanonicalTable, NoteVisibility, SignalType};
use crate::records::agents::Agent;
use crate::services::{notes, signals};
use async_graphql::connection::Connection;
use async_graphql::{Context, InputObject, Json, Object, Result};
use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use serde_json::{Map, Value};
use uuid::Uuid;

/// A note on a canonical record or an entry.
pub struct NoteNode(pub Note);

#[Object(name = "Note")]
impl NoteNode {
    /// The author, when the note was written with a key.
    async fn author(&self, ctx: &Context<'_>) -> Result<Option<Agent>> {
        load_agent(ctx, self.0.created_by_agent_id).await
    }
    async fn id(&self) -> Uuid {
        self.0.id
    }
    async fn created_by_agent_id(&self) -> Option<Uuid> {
        self.0.created_by_agent_id
    }
    async fn parent_note_id(&self) -> Option<Uuid> {
        self.0.parent_note_id
    }
    async fn target_schema(&self) -> &str {
        &self.0.target_schema
    }
    async fn target_table(&self) -> &str {
        &self.0.target_table
    }
    async fn target_id(&self) -> Uuid {
        self.0.target_id
    }
    async fn body(&self) -> &str {
        &self.0.body
    }
    async fn visibility(&self) -> NoteVisibility {
        self.0.visibility
    }
    async fn context(&self) -> Json<&Value> {
        Json(&self.0.context)
    }
    async fn created_at_tstamp_utc(&self) -> DateTime<Utc> {
        self.0.created_at_tstamp_utc
    }
    async fn updated_at_tstamp_utc(&self) -> DateTime<Utc> {
        self.0.updated_at_tstamp_utc
    }
}

/// Structured feedback about a record.
pub struct SignalNode(pub Signal);

#[Object(name = "Signal")]
impl SignalNode {
    async fn id(&self) -> Uuid {
        self.0.id
    }
    async fn created_by_agent_id(&self) -> Option<Uuid> {
        self.0.created_by_agent_id
    }
    async fn signal_type(&self) -> SignalType {
        self.0.signal_type
    }
    async fn target_schema(&self) -> &str {
        &self.0.target_schema
    }
    async fn target_table(&self) -> &str {
        &self.0.target_table
    }
    async fn target_id(&self) -> Uuid {
        self.0.target_id
    }
    async fn duplicate_of_id(&self) -> Option<Uuid> {
        self.0.duplicate_of_id
    }
    async fn weight(&self) -> Decimal {
        self.0.weight
    }
    async fn reason(&self) -> Option<&str> {
        self.0.reason.as_deref()
    }
    async fn context(&self) -> Json<&Value> {
        Json(&self.0.context)
    }
    async fn created_at_tstamp_utc(&self) -> DateTime<Utc> {
        self.0.created_at_tstamp_utc
    }
    async fn updated_at_tstamp_utc(&self) -> DateTime<Utc> {
        self.0.updated_at_tstamp_utc
    }
}

/// A reported duplicate pair waiting for review (never merged automatically).
pub struct DuplicateCandidateNode(pub DuplicateCandidate);

#[Object(name = "DuplicateCandidate")]
impl DuplicateCandidateNode {
    /// The reported record.
    async fn record(&self, ctx: &Context<'_>) -> Result<Option<CanonicalRecord>> {
        load_record(ctx, self.0.canonical_table, self.0.record_id).await
    }
    /// The record it reportedly duplicates.
    async fn duplicate_of(&self, ctx: &Context<'_>) -> Result<Option<CanonicalRecord>> {
        load_record(ctx, self.0.canonical_table, self.0.duplicate_of_id).await
    }
    async fn id(&self) -> Uuid {
        self.0.id
    }
    async fn canonical_table(&self) -> CanonicalTable {
        self.0.canonical_table
    }
    async fn record_id(&self) -> Uuid {
        self.0.record_id
    }
    async fn duplicate_of_id(&self) -> Uuid {
        self.0.duplicate_of_id
    }
    async fn first_signal_id(&self) -> Uuid {
        self.0.first_signal_id
    }
    async fn signal_count(&self) -> i32 {
        self.0.signal_count
    }
    /// open, confirmed or dismissed.
    async fn status(&self) -> &str {
        &self.0.status
    }
    async fn created_at_tstamp_utc(&self) -> DateTime<Utc> {
        self.0.created_at_tstamp_utc
    }
    async fn updated_at_tstamp_utc(&self) -> DateTime<Utc> {
        self.0.updated_at_tstamp_utc
    }
}

/// A new note (same as the body of POST /api/v1/notes).
#[derive(InputObject)]
pub struct NoteInput {
    pub parent_note_id: Option<Uuid>,
    /// canonical or public.
    pub target_schema: String,
    /// entities, listings, requests (canonical) or space_time_entries (public).
    pub target_table: String,
    pub target_id: Uuid,
    pub body: String,
    pub visibility: Option<NoteVisibility>,
    pub context: Option<Json<Map<String, Value>>>,
}

/// A new signal (same as the body of POST /api/v1/signals).
#[derive(InputObject)]
pub struct SignalInput {
    pub signal_type: SignalType,
    pub target_schema: String,
    pub target_table: String,
    pub target_id: Uuid,
    pub duplicate_of_id: Option<Uuid>,
    pub weight: Option<Decimal>,
    pub reason: Option<String>,
    pub context: Option<Json<Map<String, Value>>>,
}

#[derive(Default)]
pub struct FeedbackQuery;

#[Object]
impl FeedbackQuery {
    /// Notes visible to the caller, newest first.
    async fn notes(
        &self,
        ctx: &Context<'_>,
        target_schema: Option<String>,
        target_table: Option<String>,
        target_id: Option<Uuid>,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<Connection<String, NoteNode>> {
        let (state, rctx) = ctx_parts(ctx);
        let after_given = after.is_some();
        let filter = NoteFilter {
            target_schema,
            target_table,
            target_id,
        };
        let page = notes::list(state, rctx, filter, paging::params(first, after)?).await?;
        Ok(paging::connection(page, |n| n.id, NoteNode, after_given))
    }

    /// Signals, newest first.
    async fn signals(
        &self,
        ctx: &Context<'_>,
        target_schema: Option<String>,
        target_table: Option<String>,
        target_id: Option<Uuid>,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<Connection<String, SignalNode>> {
        let (state, _) = ctx_parts(ctx);
        let after_given = after.is_some();
        let filter = SignalFilter {
            target_schema,
            target_table,
            target_id,
        };
        let page = signals::list(state, filter, paging::params(first, after)?).await?;
        Ok(paging::connection(page, |s| s.id, SignalNode, after_given))
    }

    /// Reported duplicate pairs waiting for review (status open, confirmed or dismissed).
    async fn duplicate_candidates(
        &self,
        ctx: &Context<'_>,
        status: Option<String>,
        record_id: Option<Uuid>,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<Connection<String, DuplicateCandidateNode>> {
        let (state, _) = ctx_parts(ctx);
        let after_given = after.is_some();
        let page = signals::duplicate_candidates(
            state,
            status.as_deref(),
            record_id,
            paging::params(first, after)?,
        )
        .await?;
        Ok(paging::connection(
            page,
            |d| d.id,
            DuplicateCandidateNode,
            after_given,
        ))
    }
}

#[derive(Default)]
pub struct FeedbackMutation;

#[Object]
impl FeedbackMutation {
    /// Adds a note; authored by the bearer's agent when a key is sent.
    async fn create_note(&self, ctx: &Context<'_>, input: NoteInput) -> Result<NoteNode> {
        let (state, rctx) = ctx_parts(ctx);
        let body = notes::NoteCreate {
            created_by_agent_id: None,
            parent_note_id: input.parent_note_id,
            target_schema: input.target_schema,
            target_table: input.target_table,
            target_id: input.target_id,
            body: input.body,
            visibility: input.visibility,
            context: input.context.map(|c| c.0),
        };
        Ok(NoteNode(
            notes::create(state, rctx, body, &["input"]).await?,
        ))
    }

    /// Sends a signal; it feeds the target's scores at once.
    async fn create_signal(&self, ctx: &Context<'_>, input: SignalInput) -> Result<SignalNode> {
        let (state, rctx) = ctx_parts(ctx);
        let body = signals::SignalCreate {
            signal_type: input.signal_type,
            target_schema: input.target_schema,
            target_table: input.target_table,
            target_id: input.target_id,
            duplicate_of_id: input.duplicate_of_id,
            weight: input.weight.map(DecimalInput),
            reason: input.reason,
            context: input.context.map(|c| c.0),
            created_by_agent_id: None,
        };
        Ok(SignalNode(
            signals::create(state, rctx, body, &["input"]).await?,
        ))
    }
}
