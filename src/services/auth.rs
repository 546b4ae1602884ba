//! Authentication: a bearer credential (API key or access token) → the acting agent.
//! Every failure is the same `Unauthorized`, so a caller learns nothing about which check failed.

use crate::auth::{api_key, jwt};
use crate::ctx::Actor;
use crate::db::api_keys::{self as db, Credential};
use crate::domain::{AgentStatus, ApiKeyStatus};
use crate::error::{AppError, AppResult};
use crate::state::AppState;
use chrono::{Duration, Utc};

#[tracing::instrument(name = "auth::authenticate", level = "debug", skip_all)]
pub async fn authenticate(state: &AppState, credential: &str) -> AppResult<Actor> {
    if jwt::looks_like_jwt(credential) {
        let claims = state.jwt.verify(credential).ok_or(AppError::Unauthorized)?;
        let found = db::credential_by_key_id(&state.lean.general, claims.kid).await?;
        let credential = usable(found)
            .filter(|c| c.agent_id == claims.sub)
            .ok_or(AppError::Unauthorized)?;
        return Ok(Actor {
            agent_id: credential.agent_id,
            key_id: credential.key_id,
            principal_id: credential.principal_id,
            scopes: claims.scopes,
            agent_status: credential.agent_status,
            wrote_recently: wrote_recently(state, &credential),
        });
    }
    if !api_key::is_well_formed(credential) {
        return Err(AppError::Unauthorized);
    }
    let found = db::credential_by_hash(&state.lean.general, &api_key::hash(credential)).await?;
    let credential = usable(found).ok_or(AppError::Unauthorized)?;
    let stale = credential
        .last_used_at_tstamp_utc
        .is_none_or(|t| t < Utc::now() - Duration::minutes(1));
    if stale {
        db::touch_last_used(&state.lean.general, credential.key_id).await?;
    }
    Ok(Actor {
        agent_id: credential.agent_id,
        key_id: credential.key_id,
        principal_id: credential.principal_id,
        wrote_recently: wrote_recently(state, &credential),
        scopes: credential.scopes,
        agent_status: credential.agent_status,
    })
}

fn wrote_recently(state: &AppState, credential: &Credential) -> bool {
    credential
        .seconds_since_write
        .is_some_and(|s| s < state.config.read_your_writes_secs as f64)
}

/// Remembers that the agent has just written, so its next reads, whichever process answers
/// them, go to the primary (only needed, and only done, when read replicas are configured).
#[tracing::instrument(
    name = "auth::note_write", level = "debug", skip_all,
    fields(agent_id = %agent_id)
)]
pub async fn note_write(state: &AppState, agent_id: uuid::Uuid) -> AppResult<()> {
    if state.replicas.is_empty() {
        return Ok(());
    }
    Ok(db::mark_recent_write(&state.lean.general, agent_id).await?)
}

fn usable(found: Option<Credential>) -> Option<Credential> {
    found
        .filter(|c| c.key_status == ApiKeyStatus::Active && c.agent_status != AgentStatus::Disabled)
}
