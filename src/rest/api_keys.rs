//! /api/v1/agents/me/api-keys

use super::Created;
use super::paging::Pager;
use crate::error::AppError;
use crate::http::{Auth, OptionalJson, UuidPath, ValidQuery};
use crate::records::agents::ApiKey;
use crate::services::api_keys::{self, ApiKeyCreate, ApiKeyCreated};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct KeyListQuery {
    /// 1 to 500, default 100.
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<i64>,
    /// Where the page starts: the `X-Next-Cursor` of the page before.
    pub after: Option<String>,
}

#[utoipa::path(get, path = "/api/v1/agents/me/api-keys", tag = "agents", operation_id = "list_api_keys", security(("bearer" = [])),
    params(KeyListQuery),
    responses((status = 200, description = "Key metadata, newest first (revoked keys included); never the raw key", body = Vec<ApiKey>),
              (status = 401, body = super::ErrorBody), (status = 422, body = super::ValidationErrorBody)))]
pub async fn list_keys(
    State(state): State<AppState>,
    Auth(ctx): Auth,
    pager: Pager,
    ValidQuery(q): ValidQuery<KeyListQuery>,
) -> Result<Response, AppError> {
    let params = pager.params(q.limit, q.after.as_deref())?;
    let page = api_keys::list_mine(&state, &ctx, params).await?;
    Ok(pager.json(page, |k| k.id))
}

// `Option<_>`: the body is not required; an empty one means every default.
#[utoipa::path(post, path = "/api/v1/agents/me/api-keys", tag = "agents", operation_id = "create_api_key", security(("bearer" = [])),
    request_body(content = Option<ApiKeyCreate>, description = "Optional: no body (or `{}`) means scopes `[\"space_time_entries:write\"]` and no expiry"),
    responses((status = 201, description = "The new key, shown once, and its metadata", body = ApiKeyCreated), (status = 401, body = super::ErrorBody),
              (status = 403, body = super::ErrorBody), (status = 422, body = super::ValidationErrorBody)))]
pub async fn create_key(
    State(state): State<AppState>,
    Auth(ctx): Auth,
    OptionalJson(body): OptionalJson<ApiKeyCreate>,
) -> Result<Created<ApiKeyCreated>, AppError> {
    api_keys::create_mine(&state, &ctx, body, &["body"])
        .await
        .map(Created)
}

#[utoipa::path(delete, path = "/api/v1/agents/me/api-keys/{key_id}", tag = "agents", operation_id = "revoke_api_key", security(("bearer" = [])),
    params(("key_id" = uuid::Uuid, Path)),
    responses((status = 204, description = "Revoked; the key stops working on the next request"),
              (status = 401, body = super::ErrorBody),
              (status = 404, description = "No such key of the caller's", body = super::ErrorBody)))]
pub async fn revoke_key(
    State(state): State<AppState>,
    Auth(ctx): Auth,
    UuidPath(key_id): UuidPath,
) -> Result<StatusCode, AppError> {
    api_keys::revoke_mine(&state, &ctx, key_id)
        .await
        .map(|()| StatusCode::NO_CONTENT)
}
