//! Context rubrics and agent documentation, the same as the public REST documentation routes.

use crate::records::entries::EntryCreate;
use crate::records::evaluation::RubricEvaluation;
use crate::services::{docs, evaluation};
use crate::state::AppState;
use async_graphql::{Context, Json, Object, Result};

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
        crate::graphql::machinery::context::found(docs::agent_doc(&slug)).map_err(Into::into)
    }

    /// Judges a draft entry against the context rubric of its type (entity, listing or request)
    /// without storing anything: criteria met, missing minimum context, anti-patterns with fixes.
    async fn evaluate_entry_draft(
        &self,
        ctx: &Context<'_>,
        draft: EntryCreate,
    ) -> Result<RubricEvaluation> {
        let state = ctx.data_unchecked::<AppState>();
        let entry_type = draft.entry_type.as_str();
        Ok(evaluation::evaluate_draft(
            state,
            entry_type,
            draft,
            &["draft", "entryType"],
            &["draft"],
        )
        .await?)
    }
}
