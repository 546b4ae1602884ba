//! The review queue (anyone may read it) and its resolutions (operators, admin scope): one
//! service for REST, GraphQL and the admin CLI.

use super::transformer::{self, Resolution};
use crate::ctx::Ctx;
use crate::db;
use crate::domain::{CanonicalTable, EntryType, ListParams, Page, ReviewResolution};
use crate::error::{AppError, AppResult};
use crate::records::processing::ProcessResult;
use crate::records::review::{ReviewCandidate, ReviewItem, ReviewResolutionInput};
use crate::state::AppState;
use serde_json::Value;
use uuid::Uuid;

fn table_of(entry_type: EntryType) -> CanonicalTable {
    match entry_type {
        EntryType::Entity | EntryType::Observation => CanonicalTable::Entities,
        EntryType::Listing => CanonicalTable::Listings,
        EntryType::Request => CanonicalTable::Requests,
    }
}

/// The candidates as the transformer recorded them: scored objects (entities) or bare ids
/// (offers), or the best candidate of a no-match.
fn candidates(table: CanonicalTable, review: &Value) -> Vec<ReviewCandidate> {
    let listed = review["candidates"].as_array().cloned().unwrap_or_default();
    let best = review
        .get("best_candidate")
        .filter(|b| b.is_object())
        .cloned();
    listed
        .into_iter()
        .chain(best)
        .filter_map(|c| {
            let id = match &c {
                Value::String(id) => id.parse().ok()?,
                other => other["id"].as_str()?.parse().ok()?,
            };
            Some(ReviewCandidate {
                canonical_table: table,
                canonical_id: id,
                score: c["score"].as_f64(),
                reasons: c["reasons"]
                    .as_array()
                    .map(|r| {
                        r.iter()
                            .filter_map(|x| x.as_str().map(str::to_owned))
                            .collect()
                    })
                    .unwrap_or_default(),
            })
        })
        .collect()
}

fn item(waiting: db::review::Waiting) -> ReviewItem {
    let review = waiting.review.unwrap_or(Value::Null);
    let entry = waiting.entry;
    ReviewItem {
        space_time_entry_id: entry.id,
        entry_type: entry.entry_type,
        entry_intent: entry.entry_intent,
        agent_id: entry.agent_id,
        reason: entry.processing_reason,
        why: review["why"].as_str().map(str::to_owned),
        candidates: candidates(table_of(entry.entry_type), &review),
        fields: review["fields"]
            .as_array()
            .map(|f| {
                f.iter()
                    .filter_map(|x| x.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default(),
        created_at_tstamp_utc: entry.created_at_tstamp_utc,
    }
}

/// Entries waiting for review, newest first.
#[tracing::instrument(name = "review::queue", level = "debug", skip_all)]
pub async fn queue(state: &AppState, params: ListParams) -> AppResult<Page<ReviewItem>> {
    let rows = db::review::waiting(crate::services::read_route::reads(state), &params).await?;
    Ok(Page::from_rows(
        rows.into_iter().map(item).collect(),
        &params,
    ))
}

/// Resolves one entry; `root` is where the input lives (`["body"]`, `["input"]`).
#[tracing::instrument(
    name = "review::resolve", level = "debug", skip_all,
    fields(entry_id = %entry_id)
)]
pub async fn resolve(
    state: &AppState,
    ctx: &Ctx,
    entry_id: Uuid,
    input: &ReviewResolutionInput,
    root: &[&str],
) -> AppResult<ProcessResult> {
    let at = |field: &'static str| -> Vec<&str> { root.iter().copied().chain([field]).collect() };
    let resolution = match (input.resolution, input.canonical_id) {
        (ReviewResolution::IsRecord, Some(id)) => Resolution::IsRecord(id),
        (ReviewResolution::IsRecord, None) => {
            return Err(AppError::invalid(
                &at("canonical_id"),
                "is_record needs the record's id",
                "missing",
            ));
        }
        (_, Some(_)) => {
            return Err(AppError::invalid(
                &at("canonical_id"),
                "only is_record names a record",
                "value_error",
            ));
        }
        (ReviewResolution::IsNew, None) => Resolution::IsNew,
        (ReviewResolution::Reject, None) => Resolution::Reject,
    };
    transformer::resolve(state, ctx, entry_id, resolution)
        .await
        .map_err(|e| e.under(root))
}

/// Dismisses a reported duplicate pair (admin scope): the records stay apart. A pair no longer
/// open (dismissed, or confirmed by a merge) is a conflict.
#[tracing::instrument(
    name = "review::dismiss_duplicate", level = "debug", skip_all,
    fields(id = %id)
)]
pub async fn dismiss_duplicate(
    state: &AppState,
    ctx: &Ctx,
    id: Uuid,
) -> AppResult<crate::records::feedback::DuplicateCandidate> {
    ctx.require_scope(crate::domain::scopes::ADMIN)?;
    let mut conn = state.pool.acquire().await?;
    if let Some(dismissed) = db::signals::dismiss_duplicate(&mut conn, id).await? {
        return Ok(dismissed);
    }
    Err(match db::signals::duplicate_status(&mut conn, id).await? {
        Some(status) => AppError::Conflict {
            message: format!("this pair is not open any more (it is {status})"),
            existing_id: Some(id),
        },
        None => AppError::NotFound("duplicate candidate"),
    })
}
