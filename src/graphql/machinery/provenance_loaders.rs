//! Loaders of provenance: a record's field sources, an agent's influence and the records it
//! touched, each one statement per request (per table, or per distinct question).

use super::loaders::LoadError;
use crate::domain::CanonicalTable;
use crate::records::provenance::{AgentInfluence, FieldSource};
use crate::services::{provenance, touched};
use crate::state::AppState;
use async_graphql::dataloader::Loader;
use std::collections::HashMap;
use std::sync::Arc;
use uuid::Uuid;

/// Field sources per record, one statement per table for the whole request.
pub struct FieldSourcesByRecord(pub AppState);

impl Loader<(CanonicalTable, Uuid)> for FieldSourcesByRecord {
    type Value = Vec<FieldSource>;
    type Error = LoadError;
    async fn load(
        &self,
        keys: &[(CanonicalTable, Uuid)],
    ) -> Result<HashMap<(CanonicalTable, Uuid), Vec<FieldSource>>, LoadError> {
        let mut found = HashMap::new();
        for table in CanonicalTable::ALL {
            let ids: Vec<Uuid> = keys
                .iter()
                .filter(|(t, _)| t == table)
                .map(|(_, id)| *id)
                .collect();
            if ids.is_empty() {
                continue;
            }
            let sources = provenance::field_sources(&self.0, *table, &ids)
                .await
                .map_err(|e| Arc::new(e.into()))?;
            found.extend(sources.into_iter().map(|(id, s)| ((*table, id), s)));
        }
        Ok(found)
    }
}

/// Influence per agent, one statement for the whole request.
pub struct InfluenceByAgent(pub AppState);

impl Loader<Uuid> for InfluenceByAgent {
    type Value = AgentInfluence;
    type Error = LoadError;
    async fn load(&self, keys: &[Uuid]) -> Result<HashMap<Uuid, AgentInfluence>, LoadError> {
        provenance::influence(&self.0, keys)
            .await
            .map_err(|e| Arc::new(e.into()))
    }
}

/// One agent's page of touched records for one question.
pub type TouchedKey = (Uuid, touched::TouchedWindow);

/// Touched records per agent, one statement per distinct question in the request.
pub struct TouchedByAgent(pub AppState);

impl Loader<TouchedKey> for TouchedByAgent {
    type Value = touched::TouchedPage;
    type Error = LoadError;
    async fn load(
        &self,
        keys: &[TouchedKey],
    ) -> Result<HashMap<TouchedKey, touched::TouchedPage>, LoadError> {
        let mut windows: Vec<touched::TouchedWindow> = Vec::new();
        for (_, window) in keys {
            if !windows.contains(window) {
                windows.push(*window);
            }
        }
        let mut found = HashMap::new();
        for window in windows {
            let agents: Vec<Uuid> = keys
                .iter()
                .filter(|(_, w)| *w == window)
                .map(|(a, _)| *a)
                .collect();
            let pages = touched::for_agents(&self.0, &agents, &window)
                .await
                .map_err(|e| Arc::new(e.into()))?;
            found.extend(
                pages
                    .into_iter()
                    .map(|(agent, page)| ((agent, window), page)),
            );
        }
        Ok(found)
    }
}
