//! Short-lived access tokens minted from an API key.

use crate::ctx::Ctx;
use crate::error::{AppError, AppResult};
pub use crate::records::agents::AccessToken;
use crate::state::AppState;

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
