//! /api/v1/transformer and /api/v1/ranker: internal operations, `admin` scope.

use super::LimitQuery;
use crate::error::AppError;
use crate::http::Json;
use crate::http::{Auth, UuidPath, ValidQuery};
use crate::http::{ErrorBody, ValidationErrorBody};
use crate::services::ranker::{self, RankerResult};
use crate::services::transformer::{self, ProcessPendingResult, ProcessResult};
use crate::state::AppState;
use axum::extract::State;

#[utoipa::path(post, path = "/api/v1/transformer/process-pending", tag = "processing", security(("bearer" = [])),
    params(LimitQuery),
    responses((status = 200, description = "How many pending entries were processed, and each outcome", body = ProcessPendingResult), (status = 401, body = ErrorBody),
              (status = 403, body = ErrorBody), (status = 422, body = ValidationErrorBody)))]
pub async fn process_pending(
    State(state): State<AppState>,
    Auth(ctx): Auth,
    ValidQuery(q): ValidQuery<LimitQuery>,
) -> Result<Json<ProcessPendingResult>, AppError> {
    transformer::process_pending(&state, &ctx, q.limit)
        .await
        .map(Json)
}

#[utoipa::path(post, path = "/api/v1/transformer/process/{space_time_entry_id}", tag = "processing",
    security(("bearer" = [])), params(("space_time_entry_id" = uuid::Uuid, Path)),
    responses((status = 200, description = "The entry's outcome", body = ProcessResult), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
              (status = 404, body = ErrorBody), (status = 422, body = ValidationErrorBody)))]
pub async fn process_entry(
    State(state): State<AppState>,
    Auth(ctx): Auth,
    UuidPath(id): UuidPath,
) -> Result<Json<ProcessResult>, AppError> {
    transformer::process_entry(&state, &ctx, id).await.map(Json)
}

#[utoipa::path(post, path = "/api/v1/ranker/run/entity/{entity_id}", tag = "processing", security(("bearer" = [])),
    params(("entity_id" = uuid::Uuid, Path)),
    responses((status = 200, description = "The entity's new scores", body = RankerResult), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
              (status = 404, body = ErrorBody), (status = 422, body = ValidationErrorBody)))]
pub async fn rank_entity(
    State(state): State<AppState>,
    Auth(ctx): Auth,
    UuidPath(id): UuidPath,
) -> Result<Json<RankerResult>, AppError> {
    ranker::run_entity(&state, &ctx, id).await.map(Json)
}

#[utoipa::path(post, path = "/api/v1/ranker/run-all", tag = "processing", security(("bearer" = [])),
    responses((status = 200, description = "Every entity's new scores", body = Vec<RankerResult>), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody)))]
pub async fn rank_all(
    State(state): State<AppState>,
    Auth(ctx): Auth,
) -> Result<Json<Vec<RankerResult>>, AppError> {
    ranker::run_all(&state, &ctx).await.map(Json)
}
