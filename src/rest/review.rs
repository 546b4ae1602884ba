//! /api/v1/review-queue: entries waiting for an operator (public) and their resolution (admin).

use super::LimitQuery;
use super::paging::Pager;
use crate::error::AppError;
use crate::http::Json;
use crate::http::{Auth, UuidPath, ValidJson, ValidQuery};
use crate::http::{ErrorBody, ValidationErrorBody};
use crate::records::feedback::DuplicateCandidate;
use crate::records::processing::ProcessResult;
use crate::records::review::{ReviewItem, ReviewResolutionInput};
use crate::services::review;
use crate::state::AppState;
use axum::extract::State;
use axum::response::Response;

#[utoipa::path(get, path = "/api/v1/review-queue", tag = "review", operation_id = "list_review_queue", params(LimitQuery),
    responses((status = 200, description = "Entries waiting for review, newest first, with why and the candidates weighed",
               body = Vec<ReviewItem>),
              (status = 422, body = ValidationErrorBody)))]
pub async fn queue(
    State(state): State<AppState>,
    pager: Pager,
    ValidQuery(q): ValidQuery<LimitQuery>,
) -> Result<Response, AppError> {
    let page = review::queue(&state, pager.params(q.limit, q.after.as_deref())?).await?;
    Ok(pager.json(page, |item| item.space_time_entry_id))
}

#[utoipa::path(post, path = "/api/v1/review-queue/{space_time_entry_id}/resolution", tag = "review", operation_id = "resolve_review_item",
    security(("bearer" = [])), params(("space_time_entry_id" = uuid::Uuid, Path)),
    request_body = ReviewResolutionInput,
    responses((status = 200, description = "The entry's new outcome", body = ProcessResult),
              (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody),
              (status = 409, description = "The entry is not (or no longer) waiting for review", body = ErrorBody),
              (status = 415, body = ErrorBody), (status = 422, body = ValidationErrorBody)))]
pub async fn resolve(
    State(state): State<AppState>,
    Auth(ctx): Auth,
    UuidPath(id): UuidPath,
    ValidJson(input): ValidJson<ReviewResolutionInput>,
) -> Result<Json<ProcessResult>, AppError> {
    review::resolve(&state, &ctx, id, &input, &["body"])
        .await
        .map(Json)
}

#[derive(Debug, serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct DuplicatesQuery {
    /// open (the queue), confirmed (merged) or dismissed; all when absent.
    pub status: Option<String>,
    /// Only pairs involving this record.
    pub record_id: Option<uuid::Uuid>,
    /// 1 to 500, default 100.
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<i64>,
    /// Where the page starts: the `X-Next-Cursor` of the page before.
    pub after: Option<String>,
}

#[utoipa::path(get, path = "/api/v1/review-queue/duplicates", tag = "review", operation_id = "list_duplicate_candidates", params(DuplicatesQuery),
    responses((status = 200, description = "Duplicate pairs agents reported, newest first", body = Vec<DuplicateCandidate>),
              (status = 422, body = ValidationErrorBody)))]
pub async fn duplicates(
    State(state): State<AppState>,
    pager: Pager,
    ValidQuery(q): ValidQuery<DuplicatesQuery>,
) -> Result<Response, AppError> {
    let params = pager.params(q.limit, q.after.as_deref())?;
    let page = crate::services::signals::duplicate_candidates(
        &state,
        q.status.as_deref(),
        q.record_id,
        params,
    )
    .await?;
    Ok(pager.json(page, |pair| pair.id))
}

#[utoipa::path(post, path = "/api/v1/review-queue/duplicates/{duplicate_candidate_id}/dismiss", tag = "review",
    security(("bearer" = [])), params(("duplicate_candidate_id" = uuid::Uuid, Path)),
    responses((status = 200, description = "The pair, now dismissed: the records stay apart", body = DuplicateCandidate),
              (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody),
              (status = 409, description = "The pair is not open any more", body = ErrorBody),
              (status = 422, body = ValidationErrorBody)))]
pub async fn dismiss_duplicate(
    State(state): State<AppState>,
    Auth(ctx): Auth,
    UuidPath(id): UuidPath,
) -> Result<Json<DuplicateCandidate>, AppError> {
    review::dismiss_duplicate(&state, &ctx, id).await.map(Json)
}
