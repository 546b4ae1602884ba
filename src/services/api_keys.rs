//! API keys of the calling agent: list, create, revoke; and operator keys for the CLI.

use crate::auth::api_key;
use crate::ctx::Ctx;
use crate::db::api_keys::{self as db, ApiKey, NewApiKey};
use crate::domain::{AgentType, ListParams, Page, Violations, scopes};
use crate::error::{AppError, AppResult};
pub use crate::records::agents::ApiKeyCreate;
pub use crate::records::agents::ApiKeyCreated;
use crate::state::AppState;
use chrono::{DateTime, Utc};
use sqlx::PgConnection;
use uuid::Uuid;

/// The caller's keys, newest first, a page at a time.
#[tracing::instrument(name = "api_keys::list_mine", level = "debug", skip_all)]
pub async fn list_mine(state: &AppState, ctx: &Ctx, params: ListParams) -> AppResult<Page<ApiKey>> {
    let actor = ctx.require_actor()?;
    let rows = db::list_for_agent(&state.pool, actor.agent_id, &params).await?;
    Ok(Page::from_rows(rows, &params))
}

#[tracing::instrument(name = "api_keys::create_mine", level = "debug", skip_all)]
pub async fn create_mine(
    state: &AppState,
    ctx: &Ctx,
    input: ApiKeyCreate,
    loc: &[&str],
) -> AppResult<ApiKeyCreated> {
    let actor = ctx.require_actor()?;
    let requested = input.scopes.unwrap_or_else(scopes::default_scopes);
    let mut v = Violations::at(loc);
    v.check(
        !requested.is_empty(),
        "scopes",
        "must name at least one scope",
        "too_short",
    );
    for (i, scope) in requested.iter().enumerate() {
        if !scopes::ALL.contains(&scope.as_str()) {
            v.push(
                &format!("scopes.{i}"),
                format!("unknown scope; known: {}", scopes::ALL.join(", ")),
                "enum",
            );
        }
    }
    if let Some(expiry) = input.expires_at_tstamp_utc {
        v.check(
            expiry > Utc::now(),
            "expires_at_tstamp_utc",
            "must be in the future",
            "value_error",
        );
    }
    v.into_result()?;
    // A key can never carry more power than the key that created it.
    if requested.iter().any(|s| s == scopes::ADMIN) {
        ctx.require_scope(scopes::ADMIN)?;
    }
    let mut scopes = requested;
    scopes.sort();
    scopes.dedup();
    let mut conn = state.pool.acquire().await?;
    insert_key(
        &mut conn,
        actor.agent_id,
        scopes,
        input.expires_at_tstamp_utc,
    )
    .await
}

/// Revokes one of the caller's keys. Another agent's key answers 404, exactly like a missing one.
#[tracing::instrument(
    name = "api_keys::revoke_mine", level = "debug", skip_all,
    fields(key_id = %key_id)
)]
pub async fn revoke_mine(state: &AppState, ctx: &Ctx, key_id: Uuid) -> AppResult<()> {
    let actor = ctx.require_actor()?;
    if db::revoke(&state.pool, actor.agent_id, key_id).await? {
        Ok(())
    } else {
        Err(AppError::NotFound("api key"))
    }
}

pub(crate) async fn insert_key(
    conn: &mut PgConnection,
    agent_id: Uuid,
    scopes: Vec<String>,
    expires_at: Option<DateTime<Utc>>,
) -> AppResult<ApiKeyCreated> {
    let generated = api_key::generate();
    let key = db::insert(
        conn,
        NewApiKey {
            agent_id,
            key_hash: &generated.hash,
            key_prefix: &generated.display_prefix,
            scopes,
            expires_at,
        },
    )
    .await?;
    Ok(ApiKeyCreated {
        api_key: generated.raw,
        key,
    })
}

/// Operator access (CLI `admin create-key`): a new `api_agent` holding a key with the admin scope.
#[tracing::instrument(name = "api_keys::issue_operator_key", level = "debug", skip_all)]
pub async fn issue_operator_key(
    state: &AppState,
    display_name: &str,
) -> AppResult<super::agents::AgentRegistration> {
    let input = super::agents::AgentCreate {
        principal_id: None,
        agent_type: AgentType::ApiAgent,
        display_name: display_name.to_string(),
        agent_handle: None,
        description: Some("operator agent created by `admin create-key`".into()),
        status: None,
        score_trust: None,
        score_reputation: None,
        truth_certificate_amount_gbp: None,
        capabilities: None,
        metadata: None,
    };
    let mut registration =
        super::agents::register(state, &Ctx::anonymous(), input, &["body"]).await?;
    let mut conn = state.pool.acquire().await?;
    let admin_scopes = vec![scopes::ADMIN.to_string(), scopes::ENTRIES_WRITE.to_string()];
    let created = insert_key(&mut conn, registration.agent.id, admin_scopes, None).await?;
    db::revoke(&state.pool, registration.agent.id, registration.key.id).await?;
    registration.api_key = created.api_key;
    registration.key = created.key;
    Ok(registration)
}
