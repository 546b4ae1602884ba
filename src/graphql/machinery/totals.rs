//! `totalCount` on the lists dashboards count: canonical records (plain, by area, a provider's
//! listings), entries (all, an agent's), agents (all, a principal's), the caller's messages, the
//! review queue, link contributions, notes (those the caller may see) and signals. Counted only when the field is asked for, exactly up to 10,000
//! (`db::COUNT_CAP`), null beyond; counts of lists under many parents (an agent's entries on a
//! page of agents) are batched like every edge.

use super::batching::DataLoader;
use super::loaders::LoadError;
use super::request_loaders;
use crate::domain::area::BoundingBox;
use crate::domain::{CanonicalTable, EntryStatus, ListParams};
use crate::graphql::machinery::context::ctx_parts;
use crate::records::canonical::ContributionFilter;
use crate::records::feedback::NoteFilter;
use crate::records::feedback::SignalFilter;
use crate::services::counts::{self, Count};
use crate::services::messages::MessageSelection;
use crate::services::within::{AreaInput, WithinArgs};
use crate::state::AppState;
use async_graphql::dataloader::Loader;
use async_graphql::{Context, Object, Result};
use futures::FutureExt;
use futures::future::BoxFuture;
use std::collections::HashMap;
use std::sync::Arc;
use uuid::Uuid;

/// The connection fields a counted list adds.
pub struct Total(Counter);

impl Total {
    pub fn of(counter: Counter) -> Total {
        Total(counter)
    }
}

#[Object]
impl Total {
    /// How many items the whole list holds (every page, not only this one), counted exactly up
    /// to 10,000; null when it holds more.
    async fn total_count(&self, ctx: &Context<'_>) -> Result<Option<i32>> {
        let count = self.0.count(ctx).await?;
        Ok(count.map(|n| n as i32))
    }
}

/// What a list counts: its filter, as its resolver received it.
pub enum Counter {
    Canonical {
        table: CanonicalTable,
        status: Option<String>,
    },
    Within {
        table: CanonicalTable,
        bbox: Option<BoundingBox>,
        polygon: Option<serde_json::Value>,
        status: Option<String>,
    },
    ListingsOf(Uuid),
    Entries(Option<EntryStatus>),
    EntriesOf(Uuid, Option<EntryStatus>),
    Agents,
    AgentsOf(Uuid),
    Messages(MessageSelection),
    ReviewQueue,
    Contributions(ContributionFilter),
    Notes(NoteFilter),
    Signals(SignalFilter),
}

impl Counter {
    fn count<'a>(&'a self, ctx: &'a Context<'_>) -> BoxFuture<'a, Result<Count>> {
        async move {
            let (state, rctx) = ctx_parts(ctx);
            let count = match self {
                Counter::Canonical { table, status } => {
                    counts::canonical(state, *table, status.as_deref(), &["status"]).await?
                }
                Counter::Within {
                    table,
                    bbox,
                    polygon,
                    status,
                } => {
                    let args = WithinArgs {
                        area: AreaInput::Graph {
                            bbox: *bbox,
                            polygon: polygon.as_ref(),
                        },
                        status: status.as_deref(),
                        params: ListParams::default(),
                        root: &[],
                    };
                    counts::within(state, *table, &args).await?
                }
                Counter::ListingsOf(entity) => {
                    loaded::<ListingCountsByProvider, _>(ctx, *entity).await?
                }
                Counter::Entries(status) => counts::entries(state, *status, None).await?,
                Counter::EntriesOf(agent, status) => {
                    loaded::<EntryCountsByAgent, _>(ctx, (*agent, *status)).await?
                }
                Counter::Agents => counts::agents(state).await?,
                Counter::AgentsOf(principal) => {
                    loaded::<AgentCountsByPrincipal, _>(ctx, *principal).await?
                }
                Counter::Messages(selection) => counts::messages(state, rctx, *selection).await?,
                Counter::ReviewQueue => counts::review_queue(state).await?,
                Counter::Contributions(filter) => counts::contributions(state, filter).await?,
                Counter::Notes(filter) => counts::notes(state, rctx, filter).await?,
                Counter::Signals(filter) => counts::signals(state, filter).await?,
            };
            Ok(count)
        }
        .boxed()
    }
}

async fn loaded<L, K>(ctx: &Context<'_>, key: K) -> Result<Count>
where
    L: Loader<K, Value = Count, Error = LoadError>,
    K: Send + Sync + std::hash::Hash + Eq + Clone + 'static,
    DataLoader<L>: request_loaders::PerRequest,
{
    let found = request_loaders::loader::<DataLoader<L>>(ctx)
        .load_one(key)
        .await
        .map_err(|e| (*e).clone())?;
    Ok(found.flatten())
}

/// `Entity.listings { totalCount }` for a page of entities.
pub struct ListingCountsByProvider(pub AppState);
/// `Agent.entries { totalCount }` for a page of agents, per status asked for.
pub struct EntryCountsByAgent(pub AppState);
/// `Principal.agents { totalCount }` for a page of principals.
pub struct AgentCountsByPrincipal(pub AppState);

fn load_error(error: crate::error::AppError) -> LoadError {
    Arc::new(error.into())
}

impl Loader<Uuid> for ListingCountsByProvider {
    type Value = Count;
    type Error = LoadError;
    async fn load(&self, keys: &[Uuid]) -> Result<HashMap<Uuid, Count>, LoadError> {
        counts::listings_of_providers(&self.0, keys)
            .await
            .map_err(load_error)
    }
}

impl Loader<Uuid> for AgentCountsByPrincipal {
    type Value = Count;
    type Error = LoadError;
    async fn load(&self, keys: &[Uuid]) -> Result<HashMap<Uuid, Count>, LoadError> {
        counts::agents_of_principals(&self.0, keys)
            .await
            .map_err(load_error)
    }
}

impl Loader<(Uuid, Option<EntryStatus>)> for EntryCountsByAgent {
    type Value = Count;
    type Error = LoadError;
    async fn load(
        &self,
        keys: &[(Uuid, Option<EntryStatus>)],
    ) -> Result<HashMap<(Uuid, Option<EntryStatus>), Count>, LoadError> {
        let mut statuses: Vec<Option<EntryStatus>> = keys.iter().map(|(_, s)| *s).collect();
        statuses.sort_by_key(|s| s.map(EntryStatus::as_str));
        statuses.dedup();
        let mut found = HashMap::with_capacity(keys.len());
        for status in statuses {
            let agents: Vec<Uuid> = keys
                .iter()
                .filter(|(_, s)| *s == status)
                .map(|(a, _)| *a)
                .collect();
            let counts = counts::entries_of_agents(&self.0, &agents, status)
                .await
                .map_err(load_error)?;
            found.extend(counts.into_iter().map(|(agent, n)| ((agent, status), n)));
        }
        Ok(found)
    }
}
