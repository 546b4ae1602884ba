//! Per-request DataLoaders: every `agent { principal }` of a page is fetched with one `= ANY($1)`.

use crate::db::agents::Agent;
use crate::db::principals::Principal;
use crate::services;
use crate::state::AppState;
use async_graphql::dataloader::Loader;
use std::collections::HashMap;
use std::sync::Arc;
use uuid::Uuid;

pub struct PrincipalLoader(pub AppState);
pub struct AgentLoader(pub AppState);

type LoadError = Arc<async_graphql::Error>;

impl Loader<Uuid> for PrincipalLoader {
    type Value = Principal;
    type Error = LoadError;
    async fn load(&self, keys: &[Uuid]) -> Result<HashMap<Uuid, Principal>, LoadError> {
        let rows = services::principals::get_many(&self.0, keys)
            .await
            .map_err(|e| Arc::new(e.into()))?;
        Ok(rows.into_iter().map(|p| (p.id, p)).collect())
    }
}

impl Loader<Uuid> for AgentLoader {
    type Value = Agent;
    type Error = LoadError;
    async fn load(&self, keys: &[Uuid]) -> Result<HashMap<Uuid, Agent>, LoadError> {
        let rows = services::agents::get_many(&self.0, keys)
            .await
            .map_err(|e| Arc::new(e.into()))?;
        Ok(rows.into_iter().map(|a| (a.id, a)).collect())
    }
}
