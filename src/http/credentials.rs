//! The caller's credentials → `Ctx`: a bearer API key or access token, checked once per request
//! at the edge and kept in the request's extensions for every transport.

use crate::ctx::Ctx;
use crate::error::AppError;
use crate::services;
use crate::state::AppState;
use axum::extract::{FromRequestParts, Request};
use axum::http::{Method, header, request::Parts};

/// An authenticated caller: 401 without valid credentials.
pub struct Auth(pub Ctx);

/// An optional caller: anonymous without an Authorization header, 401 with an invalid one.
pub struct MaybeAuth(pub Ctx);

impl FromRequestParts<AppState> for Auth {
    type Rejection = AppError;
    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, AppError> {
        let ctx = context(parts, state).await?;
        ctx.require_actor()?;
        Ok(Auth(ctx))
    }
}

impl FromRequestParts<AppState> for MaybeAuth {
    type Rejection = AppError;
    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, AppError> {
        context(parts, state).await.map(MaybeAuth)
    }
}

/// Authenticates every request once, whatever its route: a bearer that is sent must be valid
/// (401 otherwise, also on routes that need none), and the caller's `Ctx` is kept in the
/// request's extensions for the extractors, the GraphQL handler and the MCP layer.
pub async fn authenticate(
    state: &AppState,
    req: Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let (mut parts, body) = req.into_parts();
    let ctx = match context(&parts, state).await {
        Ok(ctx) => ctx,
        Err(error) => return error.into_response(),
    };
    if state.replicas.is_empty() {
        parts.extensions.insert(ctx);
        return next.run(Request::from_parts(parts, body)).await;
    }
    let reads_only = matches!(parts.method, Method::GET | Method::HEAD);
    let is_graphql = parts.uri.path() == "/graphql";
    let writer = ctx.actor.as_ref().map(|a| a.agent_id);
    let replica_allowed = (reads_only || (is_graphql && parts.method == Method::POST))
        && !ctx.actor.as_ref().is_some_and(|a| a.wrote_recently);
    parts.extensions.insert(ctx);
    let (response, graphql_mutated) =
        services::read_route::scoped(replica_allowed, next.run(Request::from_parts(parts, body)))
            .await;
    let wrote = if is_graphql {
        graphql_mutated
    } else {
        !reads_only
    };
    if let Some(agent_id) = writer.filter(|_| wrote && response.status().is_success())
        && let Err(error) = services::auth::note_write(state, agent_id).await
    {
        // The write itself succeeded; only read-your-writes is weakened.
        tracing::warn!(
            error = error.public_message(),
            "marking a recent write failed"
        );
    }
    response
}

/// The request's `Ctx`: the one `authenticate` stored, or built from the headers.
pub async fn context(parts: &Parts, state: &AppState) -> Result<Ctx, AppError> {
    if let Some(ctx) = parts.extensions.get::<Ctx>() {
        return Ok(ctx.clone());
    }
    let request_id = parts
        .headers
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let client = parts
        .extensions
        .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
        .map(|info| info.0.ip().to_string());
    let Some(header) = parts.headers.get(header::AUTHORIZATION) else {
        return Ok(Ctx {
            actor: None,
            request_id,
            client,
        });
    };
    let value = header.to_str().map_err(|_| AppError::Unauthorized)?;
    Ok(Ctx {
        actor: Some(bearer(state, value).await?),
        request_id,
        client,
    })
}

/// The agent an `Authorization` value (`Bearer <api key or access token>`) names.
pub async fn bearer(state: &AppState, authorization: &str) -> Result<crate::ctx::Actor, AppError> {
    let (scheme, credential) = authorization
        .split_once(' ')
        .ok_or(AppError::Unauthorized)?;
    if !scheme.eq_ignore_ascii_case("bearer") || credential.trim().is_empty() {
        return Err(AppError::Unauthorized);
    }
    services::auth::authenticate(state, credential.trim()).await
}
