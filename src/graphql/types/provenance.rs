//! Provenance on the graph: a record's field sources (which entry and agent set each field) next
//! to its contributions, and an agent's influence. Batched per request like every other edge.

use super::canonical::{contributions_to, load_agent, load_entry, load_record};
use crate::domain::CanonicalTable;
use crate::domain::Page;
use crate::graphql::machinery::batching::DataLoader;
use crate::graphql::machinery::provenance_loaders::{
    FieldSourcesByRecord, InfluenceByAgent, TouchedByAgent,
};
use crate::records::agents::Agent;
use crate::records::canonical::CanonicalRecord;
use crate::records::canonical::LinkContribution;
use crate::records::entries::SpaceTimeEntry;
use crate::records::provenance::{AgentInfluence, FieldSource, TouchedCoverage, TouchedRecord};
use crate::services::touched;
use async_graphql::connection::{Connection, Edge};
use async_graphql::{ComplexObject, Context, Object, Result};
use std::sync::Arc;
use uuid::Uuid;

/// A canonical record's provenance.
pub struct Provenance {
    pub table: CanonicalTable,
    pub id: Uuid,
}

#[Object]
impl Provenance {
    /// Which entry and agent set each field's current value, by field name.
    async fn fields(&self, ctx: &Context<'_>) -> Result<Vec<FieldSource>> {
        let loader = crate::graphql::machinery::request_loaders::loader::<
            DataLoader<FieldSourcesByRecord>,
        >(ctx);
        Ok(loader
            .load_one((self.table, self.id))
            .await
            .map_err(|e| (*e).clone())?
            .unwrap_or_default())
    }

    /// The contributions in time order (the oldest `first`, 1 to 100, default 100), each with
    /// its entry (evidence: source, observed time, confidence) and that entry's agent.
    #[graphql(complexity = "crate::graphql::machinery::limits::edge_cost(first, child_complexity)")]
    async fn contributions(
        &self,
        ctx: &Context<'_>,
        first: Option<i32>,
    ) -> Result<Vec<Arc<LinkContribution>>> {
        crate::graphql::machinery::limits::first_of(contributions_to(ctx, self.id).await?, first)
    }
}

#[ComplexObject]
impl FieldSource {
    /// The entry whose value the field holds.
    async fn entry(&self, ctx: &Context<'_>) -> Result<Option<Arc<SpaceTimeEntry>>> {
        load_entry(ctx, self.space_time_entry_id).await
    }
    /// The agent that published it.
    async fn agent(&self, ctx: &Context<'_>) -> Result<Option<Arc<Agent>>> {
        load_agent(ctx, Some(self.agent_id)).await
    }
}

/// An agent's influence through the request's loader.
pub async fn influence_of(ctx: &Context<'_>, agent_id: Uuid) -> Result<AgentInfluence> {
    let loader =
        crate::graphql::machinery::request_loaders::loader::<DataLoader<InfluenceByAgent>>(ctx);
    Ok(loader
        .load_one(agent_id)
        .await
        .map_err(|e| (*e).clone())?
        .unwrap_or_default())
}

/// An agent's touched records through the request's loader, as a connection.
pub async fn touched_by(
    ctx: &Context<'_>,
    agent_id: Uuid,
    args: touched::TouchedArgs,
) -> Result<Connection<String, TouchedRecord, TouchedCoverage>> {
    let after_given = args.after.is_some();
    let window = touched::window(&args)?;
    let found =
        crate::graphql::machinery::request_loaders::loader::<DataLoader<TouchedByAgent>>(ctx)
            .load_one((agent_id, window))
            .await
            .map_err(|e| (*e).clone())?
            .unwrap_or(touched::TouchedPage {
                page: Page {
                    items: Vec::new(),
                    has_next_page: false,
                },
                complete: true,
            });
    let coverage = TouchedCoverage {
        complete: found.complete,
    };
    let mut connection =
        Connection::with_additional_fields(after_given, found.page.has_next_page, coverage);
    connection.edges.extend(
        found
            .page
            .items
            .into_iter()
            .map(|record| Edge::new(touched::cursor(&record), record)),
    );
    Ok(connection)
}

#[ComplexObject]
impl TouchedRecord {
    /// The record itself (null if it has since been deleted).
    async fn record(&self, ctx: &Context<'_>) -> Result<Option<CanonicalRecord>> {
        load_record(ctx, self.canonical_table, self.canonical_id).await
    }
}
