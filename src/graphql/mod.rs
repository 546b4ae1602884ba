//! The GraphQL schema: a navigable graph over the same service functions the REST routes call.

mod agents;
mod canonical;
mod certificates;
mod dealing_loaders;
mod docs;
mod entries;
mod errors;
mod feedback;
pub mod handler;
pub mod limits;
mod loaders;
mod messages;
mod paging;
mod principals;
mod processing;
mod search;
mod terms;

use crate::ctx::Ctx;
use crate::error::{AppError, AppResult};
use crate::state::AppState;
use async_graphql::{Context, EmptySubscription, MergedObject, Schema};

#[derive(MergedObject, Default)]
pub struct Query(
    principals::PrincipalQuery,
    agents::AgentQuery,
    entries::EntryQuery,
    canonical::CanonicalQuery,
    search::SearchQuery,
    feedback::FeedbackQuery,
    docs::DocsQuery,
    messages::MessageQuery,
    terms::TermsQuery,
    certificates::CertificateQuery,
);

#[derive(MergedObject, Default)]
pub struct Mutation(
    principals::PrincipalMutation,
    agents::AgentMutation,
    entries::EntryMutation,
    processing::ProcessingMutation,
    feedback::FeedbackMutation,
    messages::MessageMutation,
    terms::TermsMutation,
    certificates::CertificateMutation,
);

pub type AppSchema = Schema<Query, Mutation, EmptySubscription>;

pub fn build_schema(state: Option<AppState>) -> AppSchema {
    // Depth, root fields and aliases are checked by `limits::QueryLimits` (introspection exempt
    // from depth); complexity by async-graphql with each list's cost declared on its field.
    let mut builder = Schema::build(Query::default(), Mutation::default(), EmptySubscription)
        .extension(limits::QueryLimits)
        .limit_complexity(limits::MAX_COMPLEXITY);
    if let Some(state) = state {
        builder = builder.data(state);
    }
    builder.finish()
}

/// The SDL committed as `schema.graphql` (a test fails when the file is stale).
pub fn sdl() -> String {
    build_schema(None).sdl()
}

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
