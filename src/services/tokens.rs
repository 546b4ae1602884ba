//! Short-lived access tokens minted from an API key.

use crate::ctx::Ctx;
use crate::error::{AppError, AppResult};
use crate::state::AppState;
use serde::Serialize;

/// Response of POST /api/v1/agents/me/tokens.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct AccessToken {
    /// A signed JWT; send it as `Authorization: Bearer <access_token>`.
    pub access_token: String,
    /// Always `bearer`.
    pub token_type: String,
    /// Seconds until the token expires.
    pub expires_in: u64,
}

#[tracing::instrument(name = "tokens::create", level = "debug", skip_all)]
pub async fn create(state: &AppState, ctx: &Ctx) -> AppResult<AccessToken> {
    let actor = ctx.require_actor()?;
    let token = state
        .jwt
        .issue(actor.agent_id, actor.key_id, actor.scopes.clone())
        .map_err(AppError::Internal)?;
    Ok(AccessToken {
        access_token: token,
        token_type: "bearer".into(),
        expires_in: state.jwt.ttl_secs,
    })
}
