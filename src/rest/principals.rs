//! /api/v1/principals

use super::extract::{MaybeAuth, UuidPath, ValidJson, ValidQuery};
use super::{Created, LimitQuery};
use crate::db::principals::Principal;
use crate::error::AppError;
use crate::services::principals::{self, PrincipalCreate};
use crate::state::AppState;
use axum::Json;
use axum::extract::State;

#[utoipa::path(post, path = "/api/v1/principals", tag = "principals", request_body = PrincipalCreate,
    responses((status = 201, body = Principal), (status = 422, body = super::ValidationErrorBody)))]
pub async fn create_principal(
    State(state): State<AppState>,
    MaybeAuth(ctx): MaybeAuth,
    ValidJson(body): ValidJson<PrincipalCreate>,
) -> Result<Created<Principal>, AppError> {
    principals::create(&state, &ctx, body, &["body"])
        .await
        .map(Created)
}

#[utoipa::path(get, path = "/api/v1/principals", tag = "principals", params(LimitQuery),
    responses((status = 200, body = Vec<Principal>), (status = 422, body = super::ValidationErrorBody)))]
pub async fn list_principals(
    State(state): State<AppState>,
    ValidQuery(query): ValidQuery<LimitQuery>,
) -> Result<Json<Vec<Principal>>, AppError> {
    Ok(Json(principals::list(&state, query.params()?).await?.items))
}

#[utoipa::path(get, path = "/api/v1/principals/{principal_id}", tag = "principals",
    params(("principal_id" = uuid::Uuid, Path)),
    responses((status = 200, body = Principal), (status = 404, body = super::ErrorBody), (status = 422, body = super::ValidationErrorBody)))]
pub async fn get_principal(
    State(state): State<AppState>,
    UuidPath(id): UuidPath,
) -> Result<Json<Principal>, AppError> {
    principals::get(&state, id).await.map(Json)
}
