//! /api/v1/review-queue: entries waiting for an operator (public) and their resolution (admin).

use super::extract::{Auth, UuidPath, ValidJson, ValidQuery};
use super::{ErrorBody, LimitQuery, ValidationErrorBody};
use crate::error::AppError;
use crate::records::processing::ProcessResult;
use crate::records::review::{ReviewItem, ReviewResolutionInput};
use crate::services::review;
use crate::state::AppState;
use axum::Json;
use axum::extract::State;

#[utoipa::path(get, path = "/api/v1/review-queue", tag = "review", params(LimitQuery),
    responses((status = 200, description = "Entries waiting for review, newest first, with why and the candidates weighed",
               body = Vec<ReviewItem>),
              (status = 422, body = ValidationErrorBody)))]
pub async fn queue(
    State(state): State<AppState>,
    ValidQuery(q): ValidQuery<LimitQuery>,
) -> Result<Json<Vec<ReviewItem>>, AppError> {
    Ok(Json(review::queue(&state, q.params()?).await?.items))
}

#[utoipa::path(post, path = "/api/v1/review-queue/{space_time_entry_id}/resolution", tag = "review",
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
