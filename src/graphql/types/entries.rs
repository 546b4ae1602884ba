//! Space-time entry type, queries and mutations.

use super::canonical::{contributions_of_entry, load_agent, load_record};
use crate::domain::EntryStatus;
use crate::graphql::machinery::context::ctx_parts;
use crate::graphql::machinery::paging;
use crate::graphql::machinery::totals::{Counter, Total};
use crate::records::agents::Agent;
use crate::records::canonical::CanonicalRecord;
use crate::records::canonical::LinkContribution;
use crate::records::entries::{EntryCreate, SpaceTimeEntry};
use crate::services::entries;
use async_graphql::connection::Connection;
use async_graphql::{ComplexObject, Context, Object, Result};
use std::sync::Arc;
use uuid::Uuid;

/// Graph edges of an entry.
#[ComplexObject]
impl SpaceTimeEntry {
    /// The agent that published this entry.
    async fn agent(&self, ctx: &Context<'_>) -> Result<Option<Arc<Agent>>> {
        load_agent(ctx, Some(self.agent_id)).await
    }
    /// Every link this entry contributed, oldest first.
    #[graphql(complexity = "crate::graphql::machinery::limits::edge_cost(first, child_complexity)")]
    async fn contributions(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The oldest `first` (1 to 100, default 100).")] first: Option<i32>,
    ) -> Result<Vec<Arc<LinkContribution>>> {
        crate::graphql::machinery::limits::first_of(
            contributions_of_entry(ctx, self.id).await?,
            first,
        )
    }
    /// The canonical record this entry was linked to, if any.
    async fn canonical(&self, ctx: &Context<'_>) -> Result<Option<CanonicalRecord>> {
        match (self.canonical_table, self.canonical_id) {
            (Some(table), Some(id)) => load_record(ctx, table, id).await,
            _ => Ok(None),
        }
    }
}

#[derive(Default)]
pub struct EntryQuery;

#[Object]
impl EntryQuery {
    /// One entry by id; null when it does not exist.
    async fn entry(&self, ctx: &Context<'_>, id: Uuid) -> Result<Option<SpaceTimeEntry>> {
        let (state, _) = ctx_parts(ctx);
        crate::graphql::machinery::context::found(entries::get(state, id).await).map_err(Into::into)
    }

    /// Entries, newest first, optionally by status.
    #[graphql(complexity = "crate::graphql::machinery::limits::page_cost(first, child_complexity)")]
    async fn entries(
        &self,
        ctx: &Context<'_>,
        status: Option<EntryStatus>,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<Connection<String, Arc<SpaceTimeEntry>, Total>> {
        let (state, _) = ctx_parts(ctx);
        let after_given = after.is_some();
        let page = entries::list(state, status, None, paging::params(first, after)?).await?;
        let counter = Counter::Entries(status);
        Ok(paging::counted(
            page,
            |e| e.id,
            Arc::new,
            after_given,
            counter,
        ))
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
        input: EntryCreate,
    ) -> Result<SpaceTimeEntry> {
        let (state, rctx) = ctx_parts(ctx);
        Ok(entries::create(state, rctx, input, Vec::new(), &["input"]).await?)
    }
}
