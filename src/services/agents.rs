//! Agents: create (without a key), register (with a key), read, list, me, and operator status changes.

use super::api_keys::{self, ApiKeyCreated};
use crate::ctx::Ctx;
use crate::db::agents::{self as db, Agent, AgentPublic, NewAgent};
use crate::domain::handle::{generate_handle, is_valid_handle};
use crate::domain::json::{check_object, object_or_empty};
use crate::domain::validation::is_unit_interval;
use crate::domain::{AgentStatus, ListParams, Page, Violations, scopes};
use crate::error::{AppError, AppResult};
pub use crate::records::agents::AgentCreate;
pub use crate::records::agents::AgentRegistration;
use crate::state::AppState;
use rust_decimal::Decimal;
use uuid::Uuid;

fn validated(input: AgentCreate, loc: &[&str]) -> AppResult<NewAgent> {
    let mut v = Violations::at(loc);
    v.check_len(Some(&input.display_name), "display_name", 1, 200);
    v.check_len(input.description.as_deref(), "description", 0, 4000);
    if let Some(handle) = &input.agent_handle {
        v.check(
            is_valid_handle(handle),
            "agent_handle",
            "must match ^[a-z][a-z0-9_]{2,31}$",
            "string_pattern_mismatch",
        );
    }
    for (field, value) in [
        ("score_trust", input.score_trust),
        ("score_reputation", input.score_reputation),
    ] {
        if let Some(d) = value {
            v.check(
                is_unit_interval(&d),
                field,
                "must be between 0 and 1",
                "range",
            );
        }
    }
    if let Some(amount) = input.truth_certificate_amount_gbp {
        v.check(
            amount == Decimal::ZERO,
            "truth_certificate_amount_gbp",
            "is the sum of the agent's GBP committed trust certificates, kept by the service: omit it or send 0",
            "value_error",
        );
    }
    check_object(&mut v, "capabilities", &input.capabilities);
    check_object(&mut v, "metadata", &input.metadata);
    v.into_result()?;
    let half = Decimal::new(5, 1);
    Ok(NewAgent {
        principal_id: input.principal_id,
        agent_type: input.agent_type,
        agent_handle: input
            .agent_handle
            .unwrap_or_else(|| generate_handle(&input.display_name)),
        display_name: input.display_name.trim().to_string(),
        description: input.description,
        status: input.status.unwrap_or(AgentStatus::Active),
        score_trust: input.score_trust.unwrap_or(half),
        score_reputation: input.score_reputation.unwrap_or(half),
        truth_certificate_amount_gbp: Decimal::ZERO,
        capabilities: object_or_empty(input.capabilities),
        metadata: object_or_empty(input.metadata),
    })
}

#[tracing::instrument(name = "agents::create", level = "debug", skip_all)]
pub async fn create(
    state: &AppState,
    ctx: &Ctx,
    input: AgentCreate,
    loc: &[&str],
) -> AppResult<Agent> {
    let agent = admitted(state, ctx, input, loc).await?;
    let mut tx = state.pool.begin().await?;
    let agent = store(&mut tx, agent, loc).await?;
    tx.commit().await?;
    Ok(agent)
}

/// The checked agent, once the caller's registration limit allows one more.
async fn admitted(
    state: &AppState,
    ctx: &Ctx,
    input: AgentCreate,
    loc: &[&str],
) -> AppResult<NewAgent> {
    let agent = validated(input, loc)?;
    super::rate_limit::registration(state, ctx).await?;
    Ok(agent)
}

/// Stores the agent and, when it names a principal, asks to join it: granted if the principal
/// has no member yet, pending otherwise.
async fn store(tx: &mut sqlx::PgConnection, agent: NewAgent, loc: &[&str]) -> AppResult<Agent> {
    let agent = db::insert(&mut *tx, agent)
        .await
        .map_err(|e| AppError::from(e).under(loc))?;
    if let Some(principal) = agent.principal_id {
        crate::db::principals::join(tx, principal, agent.id).await?;
    }
    Ok(agent)
}

/// Creates the agent and its first key in one transaction: no agent without a usable key.
#[tracing::instrument(name = "agents::register", level = "debug", skip_all)]
pub async fn register(
    state: &AppState,
    ctx: &Ctx,
    input: AgentCreate,
    loc: &[&str],
) -> AppResult<AgentRegistration> {
    let agent = admitted(state, ctx, input, loc).await?;
    let mut tx = state.pool.begin().await?;
    let agent = store(&mut tx, agent, loc).await?;
    let ApiKeyCreated { api_key, key } =
        api_keys::insert_key(&mut tx, agent.id, scopes::default_scopes(), None).await?;
    tx.commit().await?;
    Ok(AgentRegistration {
        agent,
        api_key,
        key,
    })
}

#[tracing::instrument(name = "agents::get", level = "debug", skip_all, fields(id = %id))]
pub async fn get(state: &AppState, id: Uuid) -> AppResult<Agent> {
    crate::services::read_route::read_one!(state, |pool| db::get(pool, id))?
        .ok_or(AppError::NotFound("agent"))
}

#[tracing::instrument(name = "agents::me", level = "debug", skip_all)]
pub async fn me(state: &AppState, ctx: &Ctx) -> AppResult<Agent> {
    let actor = ctx.require_actor()?;
    get(state, actor.agent_id).await
}

/// Agents, newest first, as the GraphQL graph navigates them (every field is public via GET by id).
#[tracing::instrument(name = "agents::list", level = "debug", skip_all)]
pub async fn list(state: &AppState, params: ListParams) -> AppResult<Page<Agent>> {
    Ok(Page::from_rows(
        db::list(crate::services::read_route::reads(state), &params).await?,
        &params,
    ))
}

/// The REST list: public metadata only (no free-form metadata, no certificate totals).
#[tracing::instrument(name = "agents::list_public", level = "debug", skip_all)]
pub async fn list_public(state: &AppState, params: ListParams) -> AppResult<Page<AgentPublic>> {
    Ok(list(state, params).await?.map(AgentPublic::from))
}

#[tracing::instrument(
    name = "agents::list_by_principal", level = "debug", skip_all,
    fields(principal_id = %principal_id)
)]
pub async fn list_by_principal(
    state: &AppState,
    principal_id: Uuid,
    params: ListParams,
) -> AppResult<Page<Agent>> {
    Ok(Page::from_rows(
        db::list_by_principal(
            crate::services::read_route::reads(state),
            principal_id,
            &params,
        )
        .await?,
        &params,
    ))
}

/// Operator action (CLI `admin set-agent-status`): a disabled agent's keys and tokens stop working
/// on the very next request, because every authentication reads the agent's current status.
#[tracing::instrument(name = "agents::set_status", level = "debug", skip_all, fields(id = %id))]
pub async fn set_status(state: &AppState, id: Uuid, status: AgentStatus) -> AppResult<Agent> {
    db::set_status(&state.pool, id, status)
        .await?
        .ok_or(AppError::NotFound("agent"))
}

/// Batch read for loaders: one query for many ids.
#[tracing::instrument(
    name = "agents::get_many", level = "debug", skip_all,
    fields(count = ids.len())
)]
pub async fn get_many(state: &AppState, ids: &[Uuid]) -> AppResult<Vec<Agent>> {
    Ok(crate::services::read_route::read_many!(
        state,
        ids,
        |a| a.id,
        |pool, ids| db::get_many(pool, ids)
    )?)
}
