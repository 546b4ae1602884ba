//! /api/v1/principals

use super::paging::Pager;
use super::{Created, LimitQuery};
use crate::error::AppError;
use crate::http::Json;
use crate::http::{Auth, MaybeAuth, UuidPath, UuidPathPair, ValidJson, ValidQuery};
use crate::records::agents::Principal;
use crate::records::agents::PrincipalMembership;
use crate::services::principals::{self, PrincipalCreate};
use crate::state::AppState;
use axum::extract::State;
use axum::response::Response;

#[utoipa::path(post, path = "/api/v1/principals", tag = "principals", request_body = PrincipalCreate,
    responses((status = 201, description = "The principal created", body = Principal), (status = 422, body = super::ValidationErrorBody),
              (status = 429, description = "Too many agents and principals created from this address this hour", body = super::ErrorBody)))]
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
    responses((status = 200, description = "Principals, newest first", body = Vec<Principal>), (status = 422, body = super::ValidationErrorBody)))]
pub async fn list_principals(
    State(state): State<AppState>,
    pager: Pager,
    ValidQuery(q): ValidQuery<LimitQuery>,
) -> Result<Response, AppError> {
    let page = principals::list(&state, pager.params(q.limit, q.after.as_deref())?).await?;
    Ok(pager.json(page, |p| p.id))
}

#[utoipa::path(get, path = "/api/v1/principals/{principal_id}", tag = "principals",
    params(("principal_id" = uuid::Uuid, Path)),
    responses((status = 200, description = "The principal", body = Principal), (status = 404, body = super::ErrorBody), (status = 422, body = super::ValidationErrorBody)))]
pub async fn get_principal(
    State(state): State<AppState>,
    UuidPath(id): UuidPath,
) -> Result<Json<Principal>, AppError> {
    principals::get(&state, id).await.map(Json)
}

/// Grant an agent membership of a principal
///
/// Bearer: a granted member of the principal. The agent named the principal (at creation or
/// registration) and waits, pending, until a member grants it; only granted members read the
/// principal's `principal_only` notes. 403 for a caller that is not a granted member, 404 when
/// the agent never asked to join.
#[utoipa::path(post, path = "/api/v1/principals/{principal_id}/members/{agent_id}/grant", tag = "principals",
    security(("bearer" = [])),
    params(("principal_id" = uuid::Uuid, Path), ("agent_id" = uuid::Uuid, Path)),
    responses((status = 200, description = "The membership, now active", body = PrincipalMembership), (status = 403, body = super::ErrorBody),
              (status = 404, body = super::ErrorBody), (status = 422, body = super::ValidationErrorBody)))]
pub async fn grant_membership(
    State(state): State<AppState>,
    Auth(ctx): Auth,
    UuidPathPair(principal, agent): UuidPathPair,
) -> Result<Json<PrincipalMembership>, AppError> {
    principals::grant(&state, &ctx, principal, agent)
        .await
        .map(Json)
}

/// List a principal's memberships
///
/// Bearer: a granted member of the principal (403 otherwise). Granted and pending memberships,
/// newest agent first.
#[utoipa::path(get, path = "/api/v1/principals/{principal_id}/members", tag = "principals",
    security(("bearer" = [])),
    params(("principal_id" = uuid::Uuid, Path), LimitQuery),
    responses((status = 200, description = "The principal's memberships", body = Vec<PrincipalMembership>), (status = 403, body = super::ErrorBody),
              (status = 422, body = super::ValidationErrorBody)))]
pub async fn list_memberships(
    State(state): State<AppState>,
    Auth(ctx): Auth,
    UuidPath(principal): UuidPath,
    pager: Pager,
    ValidQuery(q): ValidQuery<LimitQuery>,
) -> Result<Response, AppError> {
    let params = pager.params(q.limit, q.after.as_deref())?;
    let page = principals::memberships(&state, &ctx, principal, params).await?;
    Ok(pager.json(page, |m| m.agent_id))
}
