//! Per-request DataLoaders: every edge of a page is fetched with one `= ANY($1)` per kind, never a
//! query per row.
//!
//! Loaders hand out records behind `Arc`: async-graphql's DataLoader clones a value into its cache
//! and once more for every resolver that asked for it, and cloning whole records (their JSON
//! maps included) was a tenth of a nested query's time (docs/bench-log/api.md).

use crate::ctx::Ctx;
use crate::records::agents::Agent;
use crate::records::agents::Principal;
use crate::records::canonical::CanonicalRequest;
use crate::records::canonical::Entity;
use crate::records::canonical::LinkContribution;
use crate::records::canonical::Listing;
use crate::records::entries::SpaceTimeEntry;
use crate::records::feedback::DuplicateCandidate;
use crate::records::feedback::Note;
use crate::records::feedback::Signal;
use crate::services;
use crate::state::AppState;
use async_graphql::dataloader::Loader;
use std::collections::HashMap;
use std::sync::Arc;
use uuid::Uuid;

pub type LoadError = Arc<async_graphql::Error>;

/// A loader of records by id, over a batch service function.
macro_rules! id_loader {
    ($loader:ident, $record:ty, $batch:path) => {
        pub struct $loader(pub AppState);

        impl Loader<Uuid> for $loader {
            type Value = Arc<$record>;
            type Error = LoadError;
            async fn load(&self, keys: &[Uuid]) -> Result<HashMap<Uuid, Arc<$record>>, LoadError> {
                let rows = $batch(&self.0, keys)
                    .await
                    .map_err(|e| Arc::new(e.into()))?;
                Ok(rows.into_iter().map(|r| (r.id, Arc::new(r))).collect())
            }
        }
    };
}

id_loader!(PrincipalLoader, Principal, services::principals::get_many);
id_loader!(AgentLoader, Agent, services::agents::get_many);
id_loader!(EntryLoader, SpaceTimeEntry, services::entries::get_many);
id_loader!(EntityLoader, Entity, services::canonical::by_ids::<Entity>);
id_loader!(
    ListingLoader,
    Listing,
    services::canonical::by_ids::<Listing>
);
id_loader!(
    RequestLoader,
    CanonicalRequest,
    services::canonical::by_ids::<CanonicalRequest>
);

/// A loader of rows grouped by the record(s) each row belongs to, over a batch service function.
macro_rules! grouped_loader {
    ($(#[$doc:meta])* $loader:ident, $value:ty, $batch:path, |$row:ident| $keys:expr) => {
        $(#[$doc])*
        pub struct $loader(pub AppState);

        impl Loader<Uuid> for $loader {
            type Value = Vec<$value>;
            type Error = LoadError;
            async fn load(&self, keys: &[Uuid]) -> Result<HashMap<Uuid, Vec<$value>>, LoadError> {
                let rows = $batch(&self.0, keys)
                    .await
                    .map_err(|e| Arc::new(e.into()))?;
                Ok(group_by(rows.into_iter().map(Into::into), |$row: &$value| $keys))
            }
        }
    };
}

grouped_loader!(
    /// Contributions grouped by the record they point at.
    ContributionsByTarget,
    Arc<LinkContribution>,
    services::canonical::contributions_to,
    |c| vec![c.target_canonical_id]
);
grouped_loader!(
    /// Contributions grouped by the entry that made them.
    ContributionsByEntry,
    Arc<LinkContribution>,
    services::canonical::contributions_from,
    |c| vec![c.source_space_time_entry_id]
);
grouped_loader!(
    /// Signals per target.
    SignalsByTarget,
    Signal,
    services::signals::for_targets,
    |s| vec![s.target_id]
);
grouped_loader!(
    /// Duplicate review pairs per record (either side of the pair).
    DuplicatesByRecord,
    DuplicateCandidate,
    services::signals::candidates_for,
    |d| vec![d.record_id, d.duplicate_of_id]
);

/// Notes per target, as visible to the request's caller.
pub struct NotesByTarget(pub AppState, pub Ctx);

impl Loader<Uuid> for NotesByTarget {
    type Value = Vec<Note>;
    type Error = LoadError;
    async fn load(&self, keys: &[Uuid]) -> Result<HashMap<Uuid, Vec<Note>>, LoadError> {
        let rows = services::notes::for_targets(&self.0, &self.1, keys)
            .await
            .map_err(|e| Arc::new(e.into()))?;
        Ok(group_by(rows, |n| vec![n.target_id]))
    }
}

fn group_by<T: Clone>(
    rows: impl IntoIterator<Item = T>,
    keys: impl Fn(&T) -> Vec<Uuid>,
) -> HashMap<Uuid, Vec<T>> {
    let mut grouped: HashMap<Uuid, Vec<T>> = HashMap::new();
    for row in rows {
        for key in keys(&row) {
            grouped.entry(key).or_default().push(row.clone());
        }
    }
    grouped
}

/// One page of an agent's entries: the agent and the page asked for (parents of one field share
/// the page, so a batch is one statement).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AgentEntriesKey {
    pub agent_id: Uuid,
    pub status: Option<crate::domain::EntryStatus>,
    pub limit: i64,
    pub after: Option<Uuid>,
}

/// Entries per agent, one page each.
pub struct EntriesByAgent(pub AppState);

impl Loader<AgentEntriesKey> for EntriesByAgent {
    type Value = crate::domain::Page<Arc<SpaceTimeEntry>>;
    type Error = LoadError;
    async fn load(
        &self,
        keys: &[AgentEntriesKey],
    ) -> Result<HashMap<AgentEntriesKey, Self::Value>, LoadError> {
        let mut pages = HashMap::with_capacity(keys.len());
        let mut shapes: Vec<(Option<crate::domain::EntryStatus>, i64, Option<Uuid>)> =
            keys.iter().map(|k| (k.status, k.limit, k.after)).collect();
        shapes.sort_by_key(|(status, limit, after)| {
            (
                status.map(crate::domain::enums::EntryStatus::as_str),
                *limit,
                *after,
            )
        });
        shapes.dedup();
        for (status, limit, after) in shapes {
            let agents: Vec<Uuid> = keys
                .iter()
                .filter(|k| (k.status, k.limit, k.after) == (status, limit, after))
                .map(|k| k.agent_id)
                .collect();
            let params = crate::domain::ListParams { limit, after };
            let by_agent = services::entries::list_for_agents(&self.0, &agents, status, params)
                .await
                .map_err(|e| Arc::new(e.into()))?;
            for (agent_id, page) in by_agent {
                pages.insert(
                    AgentEntriesKey {
                        agent_id,
                        status,
                        limit,
                        after,
                    },
                    page.map(Arc::new),
                );
            }
        }
        Ok(pages)
    }
}

/// An id loader that remembers, for one request, what it loaded and what resolvers fed it: the
/// records a list already fetched are not fetched again one level down.
pub use super::batching::Cached;

/// A record whose id loader can be fed with what a list resolver already fetched.
pub trait Remembered: Send + Sync + 'static {
    type By: Loader<Uuid, Value = Arc<Self>, Error = LoadError>;
    fn key(&self) -> Uuid;
}

impl Remembered for Agent {
    type By = AgentLoader;
    fn key(&self) -> Uuid {
        self.id
    }
}

impl Remembered for SpaceTimeEntry {
    type By = EntryLoader;
    fn key(&self) -> Uuid {
        self.id
    }
}

/// Feeds records a list resolver fetched to the id loader of their type, so that edges pointing
/// back at them (an entry's agent, a contribution's entry) cost no statement.
pub async fn remember<T: Remembered>(ctx: &async_graphql::Context<'_>, records: &[Arc<T>])
where
    Cached<T::By>: super::request_loaders::PerRequest,
{
    super::request_loaders::loader::<Cached<T::By>>(ctx)
        .feed_many(records.iter().map(|r| (r.key(), Arc::clone(r))))
        .await;
}
