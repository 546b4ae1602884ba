//! /api/v1/agents, /api/v1/agents/register, /api/v1/agents/me, /api/v1/agents/me/tokens

use super::paging::Pager;
use super::{Created, LimitQuery};
use crate::error::AppError;
use crate::http::Json;
use crate::http::{Auth, MaybeAuth, UuidPath, ValidJson, ValidQuery};
use crate::records::agents::Agent;
use crate::records::agents::AgentPublic;
use crate::services::agents::{self, AgentCreate, AgentRegistration};
use crate::services::tokens::{self, AccessToken};
use crate::state::AppState;
use axum::extract::State;
use axum::response::Response;

#[utoipa::path(post, path = "/api/v1/agents", tag = "agents", request_body = AgentCreate,
    responses((status = 201, description = "Agent created without a key", body = Agent),
              (status = 422, body = super::ValidationErrorBody),
              (status = 429, description = "Too many agents and principals created from this address this hour", body = super::ErrorBody)))]
pub async fn create_agent(
    State(state): State<AppState>,
    MaybeAuth(ctx): MaybeAuth,
    ValidJson(body): ValidJson<AgentCreate>,
) -> Result<Created<Agent>, AppError> {
    agents::create(&state, &ctx, body, &["body"])
        .await
        .map(Created)
}

#[utoipa::path(get, path = "/api/v1/agents", tag = "agents", params(LimitQuery),
    responses((status = 200, description = "Public agent metadata", body = Vec<AgentPublic>),
              (status = 422, body = super::ValidationErrorBody)))]
pub async fn list_agents(
    State(state): State<AppState>,
    pager: Pager,
    ValidQuery(q): ValidQuery<LimitQuery>,
) -> Result<Response, AppError> {
    let page = agents::list_public(&state, pager.params(q.limit, q.after.as_deref())?).await?;
    Ok(pager.json(page, |a| a.id))
}

#[utoipa::path(get, path = "/api/v1/agents/{agent_id}", tag = "agents", params(("agent_id" = uuid::Uuid, Path)),
    responses((status = 200, description = "The agent", body = Agent), (status = 404, body = super::ErrorBody),
              (status = 422, body = super::ValidationErrorBody)))]
pub async fn get_agent(
    State(state): State<AppState>,
    UuidPath(id): UuidPath,
) -> Result<Json<Agent>, AppError> {
    agents::get(&state, id).await.map(Json)
}

#[utoipa::path(post, path = "/api/v1/agents/register", tag = "agents", request_body = AgentCreate,
    responses((status = 201, description = "Agent and its first API key (shown once)", body = AgentRegistration),
              (status = 422, body = super::ValidationErrorBody),
              (status = 429, description = "Too many agents and principals created from this address this hour", body = super::ErrorBody)))]
pub async fn register_agent(
    State(state): State<AppState>,
    MaybeAuth(ctx): MaybeAuth,
    ValidJson(body): ValidJson<AgentCreate>,
) -> Result<Created<AgentRegistration>, AppError> {
    agents::register(&state, &ctx, body, &["body"])
        .await
        .map(Created)
}

#[utoipa::path(get, path = "/api/v1/agents/me", tag = "agents", security(("bearer" = [])),
    responses((status = 200, description = "The calling agent", body = Agent), (status = 401, body = super::ErrorBody)))]
pub async fn get_me(
    State(state): State<AppState>,
    Auth(ctx): Auth,
) -> Result<Json<Agent>, AppError> {
    agents::me(&state, &ctx).await.map(Json)
}

#[utoipa::path(post, path = "/api/v1/agents/me/tokens", tag = "agents", operation_id = "create_access_token", security(("bearer" = [])),
    responses((status = 201, description = "A short-lived access token (JWT)", body = AccessToken),
              (status = 401, body = super::ErrorBody)))]
pub async fn create_token(
    State(state): State<AppState>,
    Auth(ctx): Auth,
) -> Result<Created<AccessToken>, AppError> {
    tokens::create(&state, &ctx).await.map(Created)
}
