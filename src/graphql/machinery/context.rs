//! What a request carries (the caller and fresh loaders), what every resolver takes from it (the
//! state and the caller), and the GraphQL reading of a missing record (`null` where REST answers
//! 404).

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

/// What one request (or one WebSocket connection) carries: the caller and fresh loaders.
pub(crate) fn request_data(state: &AppState, ctx: Ctx) -> async_graphql::Data {
    let mut data = async_graphql::Data::default();
    data.insert(super::request_loaders::RequestLoaders::new(
        state.clone(),
        ctx.clone(),
    ));
    data.insert(ctx);
    data
}
