//! Evaluates a draft entry against the context rubric of its type, storing nothing: the same
//! validation as a real post (so a draft that would get a 422 gets the same 422 here), then the
//! rubric's rules (`transform::usefulness`).

use super::docs;
use super::entries;
use crate::db::canonical;
use crate::domain::CanonicalTable;
use crate::error::{AppError, AppResult};
use crate::records::entries::EntryCreate;
use crate::records::evaluation::RubricEvaluation;
use crate::state::AppState;
use crate::transform::usefulness::{self, Draft, RubricView};
use chrono::Utc;
use serde_json::Value;
use uuid::Uuid;

/// `entry_type` is the rubric asked for (a path parameter in REST); the draft's own `entry_type`
/// must name the same type. `loc` roots field errors (`["body"]` in REST, `["draft"]` elsewhere).
#[tracing::instrument(
    name = "evaluation::evaluate_draft",
    level = "debug",
    skip_all,
    fields(%entry_type)
)]
pub async fn evaluate_draft(
    state: &AppState,
    entry_type: &str,
    draft: EntryCreate,
    type_loc: &[&str],
    loc: &[&str],
) -> AppResult<RubricEvaluation> {
    let rubric = docs::rubric(entry_type, type_loc)?;
    if draft.entry_type.as_str() != rubric.entry_type {
        let at: Vec<&str> = loc.iter().copied().chain(["entry_type"]).collect();
        return Err(AppError::invalid(
            &at,
            format!("must be '{}', the rubric's entry type", rubric.entry_type),
            "value_error",
        ));
    }
    // The author is irrelevant to the rules; validation needs some id.
    let entry = entries::validated(draft, Uuid::nil(), loc)?;
    let Value::Object(context) = &entry.context else {
        return Err(AppError::internal(anyhow::anyhow!(
            "validated context is an object"
        )));
    };
    let view = RubricView {
        entry_type: &rubric.entry_type,
        schema_ref: &rubric.schema_ref,
        version: rubric.version,
        criteria: rubric.criteria.keys().map(String::as_str).collect(),
        minimum_viable_context: &rubric.minimum_viable_context,
    };
    let draft = Draft {
        entry_type: entry.entry_type,
        latitude: entry.latitude,
        longitude: entry.longitude,
        observed_at: entry.observed_at,
        source_ref: entry.source_ref.as_deref(),
        idempotency_key: entry.idempotency_key.as_deref(),
        context,
        loc,
    };
    let missing_reference = match usefulness::referenced_entity(&draft) {
        Some((key, id)) => {
            let mut conn = state.pool.acquire().await?;
            let known = canonical::exists(&mut conn, CanonicalTable::Entities, id).await?;
            (!known).then_some(key)
        }
        None => None,
    };
    Ok(usefulness::evaluate(
        &view,
        &draft,
        missing_reference,
        Utc::now(),
    ))
}
