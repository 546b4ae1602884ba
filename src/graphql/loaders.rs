//! Per-request DataLoaders: every edge of a page is fetched with one `= ANY($1)` per kind, never a
//! query per row.

use crate::db::agents::Agent;
use crate::db::contributions::LinkContribution;
use crate::db::entities::Entity;
use crate::db::entries::SpaceTimeEntry;
use crate::db::listings::Listing;
use crate::db::principals::Principal;
use crate::db::requests::CanonicalRequest;
use crate::services;
use crate::state::AppState;
use async_graphql::dataloader::{DataLoader, Loader};
use std::collections::HashMap;
use std::sync::Arc;
use uuid::Uuid;

type LoadError = Arc<async_graphql::Error>;

/// A loader of records by id, over a batch service function.
macro_rules! id_loader {
    ($loader:ident, $record:ty, $batch:path) => {
        pub struct $loader(pub AppState);

        impl Loader<Uuid> for $loader {
            type Value = $record;
            type Error = LoadError;
            async fn load(&self, keys: &[Uuid]) -> Result<HashMap<Uuid, $record>, LoadError> {
                let rows = $batch(&self.0, keys)
                    .await
                    .map_err(|e| Arc::new(e.into()))?;
                Ok(rows.into_iter().map(|r| (r.id, r)).collect())
            }
        }
    };
}

id_loader!(PrincipalLoader, Principal, services::principals::get_many);
id_loader!(AgentLoader, Agent, services::agents::get_many);
id_loader!(EntryLoader, SpaceTimeEntry, services::entries::get_many);
id_loader!(EntityLoader, Entity, services::canonical::entities_by_ids);
id_loader!(ListingLoader, Listing, services::canonical::listings_by_ids);
id_loader!(
    RequestLoader,
    CanonicalRequest,
    services::canonical::requests_by_ids
);

/// Contributions grouped by the record they point at.
pub struct ContributionsByTarget(pub AppState);
/// Contributions grouped by the entry that made them.
pub struct ContributionsByEntry(pub AppState);

impl Loader<Uuid> for ContributionsByTarget {
    type Value = Vec<LinkContribution>;
    type Error = LoadError;
    async fn load(&self, keys: &[Uuid]) -> Result<HashMap<Uuid, Vec<LinkContribution>>, LoadError> {
        let rows = services::canonical::contributions_to(&self.0, keys)
            .await
            .map_err(|e| Arc::new(e.into()))?;
        Ok(group(rows, |c| c.target_canonical_id))
    }
}

impl Loader<Uuid> for ContributionsByEntry {
    type Value = Vec<LinkContribution>;
    type Error = LoadError;
    async fn load(&self, keys: &[Uuid]) -> Result<HashMap<Uuid, Vec<LinkContribution>>, LoadError> {
        let rows = services::canonical::contributions_from(&self.0, keys)
            .await
            .map_err(|e| Arc::new(e.into()))?;
        Ok(group(rows, |c| c.source_space_time_entry_id))
    }
}

fn group(
    rows: Vec<LinkContribution>,
    key: impl Fn(&LinkContribution) -> Uuid,
) -> HashMap<Uuid, Vec<LinkContribution>> {
    let mut grouped: HashMap<Uuid, Vec<LinkContribution>> = HashMap::new();
    for row in rows {
        grouped.entry(key(&row)).or_default().push(row);
    }
    grouped
}

/// Fresh loaders for one request (their caches must not outlive it).
pub fn attach(request: async_graphql::Request, state: &AppState) -> async_graphql::Request {
    request
        .data(DataLoader::new(
            PrincipalLoader(state.clone()),
            tokio::spawn,
        ))
        .data(DataLoader::new(AgentLoader(state.clone()), tokio::spawn))
        .data(DataLoader::new(EntryLoader(state.clone()), tokio::spawn))
        .data(DataLoader::new(EntityLoader(state.clone()), tokio::spawn))
        .data(DataLoader::new(ListingLoader(state.clone()), tokio::spawn))
        .data(DataLoader::new(RequestLoader(state.clone()), tokio::spawn))
        .data(DataLoader::new(
            ContributionsByTarget(state.clone()),
            tokio::spawn,
        ))
        .data(DataLoader::new(
            ContributionsByEntry(state.clone()),
            tokio::spawn,
        ))
}
