//! What every resolver takes from the request: the state and the caller, and the GraphQL reading
//! of a missing record (`null` where REST answers 404).

use crate::ctx::Ctx;
use crate::error::{AppError, AppResult};
use crate::state::AppState;
use async_graphql::Context;

pub(crate) fn ctx_parts<'a>(ctx: &Context<'a>) -> (&'a AppState, &'a Ctx) {
    (
        ctx.data_unchecked::<AppState>(),
        ctx.data_unchecked::<Ctx>(),
    )
}

/// GraphQL answers `null` for a missing record where REST answers 404.
pub(crate) fn found<T>(result: AppResult<T>) -> AppResult<Option<T>> {
    match result {
        Ok(value) => Ok(Some(value)),
        Err(AppError::NotFound(_)) => Ok(None),
        Err(other) => Err(other),
    }
}
