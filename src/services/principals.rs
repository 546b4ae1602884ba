//! Principals: create, read, list.

use super::validate;
use crate::ctx::Ctx;
use crate::db::principals::{self as db, NewPrincipal, Principal, PrincipalMembership};
use crate::domain::json::{check_object, object_or_empty};
use crate::domain::{ListParams, Page, Violations};
use crate::error::{AppError, AppResult};
pub use crate::records::agents::PrincipalCreate;
use crate::state::AppState;
use uuid::Uuid;

/// Creates a principal. With a bearer, the caller becomes its first, granted member (and the
/// principal of an agent that had none); anonymously created principals are owned by the first
/// agent that names one.
#[tracing::instrument(name = "principals::create", level = "debug", skip_all)]
pub async fn create(
    state: &AppState,
    ctx: &Ctx,
    input: PrincipalCreate,
    loc: &[&str],
) -> AppResult<Principal> {
    let mut v = Violations::at(loc);
    v.check_len(Some(&input.display_name), "display_name", 1, 200);
    v.check_len(input.legal_name.as_deref(), "legal_name", 1, 300);
    validate::email(&mut v, "email", input.email.as_deref());
    validate::phone(&mut v, "phone", input.phone.as_deref());
    validate::http_url(&mut v, "website_url", input.website_url.as_deref());
    check_object(&mut v, "metadata", &input.metadata);
    v.into_result()?;
    super::rate_limit::registration(state, ctx).await?;
    let mut tx = state.pool.begin().await?;
    let principal = db::insert(
        &mut tx,
        NewPrincipal {
            principal_type: input.principal_type,
            display_name: input.display_name.trim().to_string(),
            legal_name: input.legal_name,
            email: input.email,
            phone: input.phone,
            website_url: input.website_url,
            metadata: object_or_empty(input.metadata),
        },
    )
    .await?;
    if let Some(actor) = &ctx.actor {
        db::own(&mut tx, principal.id, actor.agent_id).await?;
        crate::db::agents::set_principal_if_none(&mut tx, actor.agent_id, principal.id).await?;
    }
    tx.commit().await?;
    Ok(principal)
}

/// A granted member of `principal` grants `agent`'s pending membership.
#[tracing::instrument(
    name = "principals::grant", level = "debug", skip_all,
    fields(principal = %principal, agent = %agent)
)]
pub async fn grant(
    state: &AppState,
    ctx: &Ctx,
    principal: Uuid,
    agent: Uuid,
) -> AppResult<PrincipalMembership> {
    let actor = ctx.require_active_agent()?;
    let mut tx = state.pool.begin().await?;
    if !db::is_granted(&mut tx, principal, actor.agent_id).await? {
        return Err(AppError::Forbidden(
            "only a granted member of this principal can grant its memberships".into(),
        ));
    }
    let membership = db::grant(&mut tx, principal, agent, actor.agent_id)
        .await?
        .ok_or(AppError::NotFound("membership"))?;
    tx.commit().await?;
    Ok(membership)
}

/// A principal's memberships (granted and pending), for its granted members only.
#[tracing::instrument(
    name = "principals::memberships", level = "debug", skip_all,
    fields(principal = %principal)
)]
pub async fn memberships(
    state: &AppState,
    ctx: &Ctx,
    principal: Uuid,
    params: ListParams,
) -> AppResult<Page<PrincipalMembership>> {
    let actor = ctx.require_actor()?;
    let mut conn = state.pool.acquire().await?;
    if !db::is_granted(&mut conn, principal, actor.agent_id).await? {
        return Err(AppError::Forbidden(
            "only a granted member of this principal can see its memberships".into(),
        ));
    }
    Ok(Page::from_rows(
        db::memberships(&state.pool, principal, &params).await?,
        &params,
    ))
}

#[tracing::instrument(name = "principals::get", level = "debug", skip_all, fields(id = %id))]
pub async fn get(state: &AppState, id: Uuid) -> AppResult<Principal> {
    crate::services::read_route::read_one!(state, |pool| db::get(pool, id))?
        .ok_or(AppError::NotFound("principal"))
}

#[tracing::instrument(name = "principals::list", level = "debug", skip_all)]
pub async fn list(state: &AppState, params: ListParams) -> AppResult<Page<Principal>> {
    Ok(Page::from_rows(
        db::list(crate::services::read_route::reads(state), &params).await?,
        &params,
    ))
}

/// Batch read for loaders: one query for many ids.
#[tracing::instrument(
    name = "principals::get_many", level = "debug", skip_all,
    fields(count = ids.len())
)]
pub async fn get_many(state: &AppState, ids: &[Uuid]) -> AppResult<Vec<Principal>> {
    Ok(crate::services::read_route::read_many!(
        state,
        ids,
        |p| p.id,
        |pool, ids| db::get_many(pool, ids)
    )?)
}
