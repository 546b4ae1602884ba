//! The schema built from every type's queries, mutations and subscriptions, and the executor every
//! transport runs it through.

use super::machinery::limits;
use super::types::*;
use crate::state::AppState;
use async_graphql::{MergedObject, Schema};

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
    node::NodeQuery,
    nearby::NearbyQuery,
    within::WithinQuery,
    review::ReviewQuery,
    proposals::ProposalQuery,
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
    review::ReviewMutation,
    proposals::ProposalMutation,
);

pub type AppSchema = Schema<Query, Mutation, subscriptions::Subscription>;

pub fn build_schema(state: Option<AppState>) -> AppSchema {
    // Depth, root fields and aliases are checked by `limits::LimitedSchema` (introspection exempt
    // from depth); complexity by async-graphql with each list's cost declared on its field.
    let mut builder = Schema::build(
        Query::default(),
        Mutation::default(),
        subscriptions::Subscription,
    )
    .limit_complexity(limits::MAX_COMPLEXITY);
    if let Some(state) = state {
        builder = builder.data(state);
    }
    builder.finish()
}

/// The schema without its complexity limit, stopping every request after validation with the
/// document's cost (`limits::Measure`): how a document refused as too complex learns its cost.
pub fn measuring_schema() -> AppSchema {
    Schema::build(
        Query::default(),
        Mutation::default(),
        subscriptions::Subscription,
    )
    .extension(limits::Measure)
    .finish()
}

/// The executor every transport runs GraphQL through: the schema behind its limits.
pub fn service(state: AppState) -> limits::LimitedSchema {
    let disk = state.disk.clone();
    limits::LimitedSchema::new(build_schema(Some(state)), Some(disk))
}

/// The SDL committed as `schema.graphql` (a test fails when the file is stale).
pub fn sdl() -> String {
    build_schema(None).sdl()
}
