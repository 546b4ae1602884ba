//! Context rubrics and agent documentation, the same as the public REST documentation routes.

use crate::services::docs;
use async_graphql::{Json, Object, Result};

#[derive(Default)]
pub struct DocsQuery;

#[Object]
impl DocsQuery {
    /// The context rubric of an entry type (entity, listing or request): what a useful `context` is.
    async fn context_rubric(&self, entry_type: String) -> Result<Json<serde_json::Value>> {
        let rubric = docs::rubric(&entry_type, &["entry_type"])?;
        Ok(Json(serde_json::to_value(rubric).unwrap_or_default()))
    }

    /// The index of context rubrics.
    async fn context_rubrics(&self) -> Json<serde_json::Value> {
        Json(serde_json::to_value(docs::rubric_index()).unwrap_or_default())
    }

    /// An agent documentation page (Markdown), by slug; null for an unknown slug.
    async fn agent_doc(&self, slug: String) -> Result<Option<String>> {
        super::found(docs::agent_doc(&slug)).map_err(Into::into)
    }
}
