//! Principals: create, read, list.

use super::validate;
use crate::ctx::Ctx;
use crate::db::principals::{self as db, NewPrincipal, Principal};
use crate::domain::json::{check_object, object_or_empty};
use crate::domain::{ListParams, Page, Violations};
use crate::error::{AppError, AppResult};
pub use crate::records::agents::PrincipalCreate;
use crate::state::AppState;
use uuid::Uuid;

pub async fn create(
    state: &AppState,
    _ctx: &Ctx,
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
    let principal = db::insert(
        &state.pool,
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
    Ok(principal)
}

pub async fn get(state: &AppState, id: Uuid) -> AppResult<Principal> {
    db::get(&state.pool, id)
        .await?
        .ok_or(AppError::NotFound("principal"))
}

pub async fn list(state: &AppState, params: ListParams) -> AppResult<Page<Principal>> {
    Ok(Page::from_rows(
        db::list(&state.pool, &params).await?,
        &params,
    ))
}

/// Batch read for loaders: one query for many ids.
pub async fn get_many(state: &AppState, ids: &[Uuid]) -> AppResult<Vec<Principal>> {
    Ok(db::get_many(&state.pool, ids).await?)
}
