//! Notes, signals and the duplicate review queue.

use super::canonical::{load_agent, load_record};
use crate::domain::DecimalInput;
use crate::domain::{NoteVisibility, SignalType};
use crate::graphql::machinery::context::ctx_parts;
use crate::graphql::machinery::paging;
use crate::graphql::machinery::totals::{Counter, Total};
use crate::records::agents::Agent;
use crate::records::canonical::CanonicalRecord;
use crate::records::feedback::NoteFilter;
use crate::records::feedback::SignalFilter;
use crate::records::feedback::{DuplicateCandidate, Note, Signal};
use crate::services::{notes, signals};
use async_graphql::connection::Connection;
use async_graphql::{ComplexObject, Context, InputObject, Json, Object, Result};
use rust_decimal::Decimal;
use serde_json::{Map, Value};
use std::sync::Arc;
use uuid::Uuid;

/// Graph edges of a note.
#[ComplexObject]
impl Note {
    /// The author, when the note was written with a key.
    async fn author(&self, ctx: &Context<'_>) -> Result<Option<Arc<Agent>>> {
        load_agent(ctx, self.created_by_agent_id).await
    }
}

/// Graph edges of a duplicate review pair.
#[ComplexObject]
impl DuplicateCandidate {
    /// The reported record.
    async fn record(&self, ctx: &Context<'_>) -> Result<Option<CanonicalRecord>> {
        load_record(ctx, self.canonical_table, self.record_id).await
    }
    /// The record it reportedly duplicates.
    async fn duplicate_of(&self, ctx: &Context<'_>) -> Result<Option<CanonicalRecord>> {
        load_record(ctx, self.canonical_table, self.duplicate_of_id).await
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
    #[graphql(complexity = "crate::graphql::machinery::limits::page_cost(first, child_complexity)")]
    async fn notes(
        &self,
        ctx: &Context<'_>,
        target_schema: Option<String>,
        target_table: Option<String>,
        target_id: Option<Uuid>,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<Connection<String, Note, Total>> {
        let (state, rctx) = ctx_parts(ctx);
        let after_given = after.is_some();
        let filter = NoteFilter {
            target_schema,
            target_table,
            target_id,
        };
        let page = notes::list(state, rctx, filter.clone(), paging::params(first, after)?).await?;
        let counter = Counter::Notes(filter);
        Ok(paging::counted(page, |n| n.id, |n| n, after_given, counter))
    }

    /// Signals, newest first.
    #[graphql(complexity = "crate::graphql::machinery::limits::page_cost(first, child_complexity)")]
    async fn signals(
        &self,
        ctx: &Context<'_>,
        target_schema: Option<String>,
        target_table: Option<String>,
        target_id: Option<Uuid>,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<Connection<String, Signal, Total>> {
        let (state, _) = ctx_parts(ctx);
        let after_given = after.is_some();
        let filter = SignalFilter {
            target_schema,
            target_table,
            target_id,
        };
        let page = signals::list(state, filter.clone(), paging::params(first, after)?).await?;
        let counter = Counter::Signals(filter);
        Ok(paging::counted(page, |s| s.id, |s| s, after_given, counter))
    }

    /// Reported duplicate pairs waiting for review (status open, confirmed or dismissed).
    #[graphql(complexity = "crate::graphql::machinery::limits::page_cost(first, child_complexity)")]
    async fn duplicate_candidates(
        &self,
        ctx: &Context<'_>,
        status: Option<String>,
        record_id: Option<Uuid>,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<Connection<String, DuplicateCandidate>> {
        let (state, _) = ctx_parts(ctx);
        let after_given = after.is_some();
        let page = signals::duplicate_candidates(
            state,
            status.as_deref(),
            record_id,
            paging::params(first, after)?,
        )
        .await?;
        Ok(paging::connection(page, |d| d.id, |d| d, after_given))
    }
}

#[derive(Default)]
pub struct FeedbackMutation;

#[Object]
impl FeedbackMutation {
    /// Adds a note; authored by the bearer's agent when a key is sent.
    async fn create_note(&self, ctx: &Context<'_>, input: NoteInput) -> Result<Note> {
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
        Ok(notes::create(state, rctx, body, &["input"]).await?)
    }

    /// Sends a signal; it feeds the target's scores at once.
    async fn create_signal(&self, ctx: &Context<'_>, input: SignalInput) -> Result<Signal> {
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
        Ok(signals::create(state, rctx, body, &["input"]).await?)
    }
}
