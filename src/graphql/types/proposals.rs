//! Field proposals on the graph: `fieldProposals` (public, like `reviewQueue`), `Agent.fieldProposals`,
//! and their decisions `acceptFieldProposal` / `dismissFieldProposal` (admin scope), over
//! `services::proposals` like REST and the admin CLI.

use super::canonical::{load_agent, load_entry, load_record};
use crate::graphql::machinery::context::ctx_parts;
use crate::graphql::machinery::paging;
use crate::records::agents::Agent;
use crate::records::canonical::CanonicalRecord;
use crate::records::entries::SpaceTimeEntry;
use crate::records::proposals::FieldProposal;
use crate::records::proposals::ProposalFilter;
use crate::services::proposals;
use async_graphql::connection::Connection;
use async_graphql::{ComplexObject, Context, Object, Result};
use std::sync::Arc;
use uuid::Uuid;

/// Graph edges of a field proposal.
#[ComplexObject]
impl FieldProposal {
    /// The record whose field is contested.
    async fn record(&self, ctx: &Context<'_>) -> Result<Option<CanonicalRecord>> {
        load_record(ctx, self.canonical_table, self.record_id).await
    }
    /// The entry that proposed the value first (linked to the record like any other).
    async fn entry(&self, ctx: &Context<'_>) -> Result<Option<Arc<SpaceTimeEntry>>> {
        load_entry(ctx, self.space_time_entry_id).await
    }
    /// The agent that proposed it.
    async fn agent(&self, ctx: &Context<'_>) -> Result<Option<Arc<Agent>>> {
        load_agent(ctx, Some(self.agent_id)).await
    }
    /// The operator who accepted or dismissed it.
    async fn decided_by(&self, ctx: &Context<'_>) -> Result<Option<Arc<Agent>>> {
        load_agent(ctx, self.decided_by_agent_id).await
    }
}

#[derive(Default)]
pub struct ProposalQuery;

#[Object]
impl ProposalQuery {
    /// Values agents proposed for established identity fields that the records kept, newest
    /// first: each with the record's value and the proposed one, both with their evidence, and
    /// why it is contested. `status` open (the queue), accepted, dismissed or superseded; all
    /// when absent. Anyone may read it, like `reviewQueue`; `first` 1 to 500 (default 100).
    // `Agent.fieldProposals` answers with this very list for its agent.
    #[graphql(complexity = "crate::graphql::machinery::limits::page_cost(first, child_complexity)")]
    pub async fn field_proposals(
        &self,
        ctx: &Context<'_>,
        status: Option<String>,
        agent_id: Option<Uuid>,
        record_id: Option<Uuid>,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<Connection<String, FieldProposal>> {
        let (state, _) = ctx_parts(ctx);
        let after_given = after.is_some();
        let filter = ProposalFilter {
            status: proposals::status_filter(status.as_deref(), &["status"])?,
            agent_id,
            record_id,
        };
        let page = proposals::list(state, filter, paging::params(first, after)?).await?;
        Ok(paging::connection(page, |p| p.id, |p| p, after_given))
    }
}

#[derive(Default)]
pub struct ProposalMutation;

#[Object]
impl ProposalMutation {
    /// Accepts an open field proposal (admin scope): the record takes the proposed value, and a
    /// contribution of the proposing entry names the operator. CONFLICT when the proposal is not
    /// open any more (another operator decided it, or the record's field changed since).
    async fn accept_field_proposal(&self, ctx: &Context<'_>, id: Uuid) -> Result<FieldProposal> {
        let (state, c) = ctx_parts(ctx);
        Ok(proposals::accept(state, c, id).await?)
    }

    /// Dismisses an open field proposal (admin scope): the record keeps its value. CONFLICT
    /// when the proposal is not open any more.
    async fn dismiss_field_proposal(&self, ctx: &Context<'_>, id: Uuid) -> Result<FieldProposal> {
        let (state, c) = ctx_parts(ctx);
        Ok(proposals::dismiss(state, c, id).await?)
    }
}
