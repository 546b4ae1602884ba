//! The request's DataLoaders, each built the first time a resolver asks for it. A read by id
//! uses none of them, and building all two dozen for every request (each with its own state
//! handle, cache and allocation) was a measurable share of a small query's time
//! (docs/bench-log/api.md). Loaders, their caches and what they may show live for one request only.

use super::batching::DataLoader;
use super::dealing_loaders::*;
use super::loaders::*;
use super::provenance_loaders::{FieldSourcesByRecord, InfluenceByAgent, TouchedByAgent};
use super::totals::{AgentCountsByPrincipal, EntryCountsByAgent, ListingCountsByProvider};
use crate::ctx::Ctx;
use crate::state::AppState;
use async_graphql::Context;
use async_graphql::dataloader::Loader;
use std::sync::OnceLock;
use uuid::Uuid;

/// A loader type kept in `RequestLoaders`.
pub trait PerRequest: Sized + Send + Sync + 'static {
    fn cell(loaders: &RequestLoaders) -> &OnceLock<Self>;
    fn build(state: &AppState, ctx: &Ctx) -> Self;
}

/// The request's loader of type `T`, built on first use.
pub fn loader<'a, T: PerRequest>(ctx: &Context<'a>) -> &'a T {
    let all = ctx.data_unchecked::<RequestLoaders>();
    T::cell(all).get_or_init(|| T::build(&all.state, &all.ctx))
}

fn plain<T: Send + Sync + 'static>(loader: T) -> DataLoader<T> {
    DataLoader::forgetting(loader)
}

fn remembering<T: Loader<Uuid>>(loader: T) -> Cached<T> {
    DataLoader::remembering(loader)
}

macro_rules! request_loaders {
    ($($field:ident: $ty:ty = |$s:ident, $c:ident| $build:expr;)+) => {
        pub struct RequestLoaders {
            state: AppState,
            ctx: Ctx,
            $($field: OnceLock<$ty>,)+
        }

        impl RequestLoaders {
            pub fn new(state: AppState, ctx: Ctx) -> Self {
                RequestLoaders { state, ctx, $($field: OnceLock::new(),)+ }
            }
        }

        $(impl PerRequest for $ty {
            fn cell(loaders: &RequestLoaders) -> &OnceLock<Self> {
                &loaders.$field
            }
            fn build($s: &AppState, $c: &Ctx) -> Self {
                let _ = ($s, $c); // most loaders need only one of the two
                $build
            }
        })+
    };
}

request_loaders! {
    notes: DataLoader<NotesByTarget> = |s, c| plain(NotesByTarget(s.clone(), c.clone()));
    signals: DataLoader<SignalsByTarget> = |s, c| plain(SignalsByTarget(s.clone()));
    duplicates: DataLoader<DuplicatesByRecord> = |s, c| plain(DuplicatesByRecord(s.clone()));
    principals: Cached<PrincipalLoader> = |s, c| remembering(PrincipalLoader(s.clone()));
    agents: Cached<AgentLoader> = |s, c| remembering(AgentLoader(s.clone()));
    entries: Cached<EntryLoader> = |s, c| remembering(EntryLoader(s.clone()));
    entities: Cached<EntityLoader> = |s, c| remembering(EntityLoader(s.clone()));
    listings: Cached<ListingLoader> = |s, c| remembering(ListingLoader(s.clone()));
    requests: Cached<RequestLoader> = |s, c| remembering(RequestLoader(s.clone()));
    contributions_by_target: DataLoader<ContributionsByTarget> =
        |s, c| plain(ContributionsByTarget(s.clone()));
    contributions_by_entry: DataLoader<ContributionsByEntry> =
        |s, c| plain(ContributionsByEntry(s.clone()));
    entries_by_agent: DataLoader<EntriesByAgent> = |s, c| plain(EntriesByAgent(s.clone()));
    messages: DataLoader<MessageLoader> = |s, c| plain(MessageLoader(s.clone(), c.clone()));
    terms: DataLoader<TermLoader> = |s, c| plain(TermLoader(s.clone(), c.clone()));
    signatures: DataLoader<SignatureLoader> = |s, c| plain(SignatureLoader(s.clone(), c.clone()));
    certificates: DataLoader<CertificateLoader> =
        |s, c| plain(CertificateLoader(s.clone(), c.clone()));
    terms_by_creator: DataLoader<TermsByCreator> =
        |s, c| plain(TermsByCreator(s.clone(), c.clone()));
    signatures_by_term: DataLoader<SignaturesByTerm> =
        |s, c| plain(SignaturesByTerm(s.clone(), c.clone()));
    signatures_by_signer: DataLoader<SignaturesBySigner> =
        |s, c| plain(SignaturesBySigner(s.clone(), c.clone()));
    certificates_by_signature: DataLoader<CertificatesBySignature> =
        |s, c| plain(CertificatesBySignature(s.clone(), c.clone()));
    certificates_by_agent: DataLoader<CertificatesByAgent> =
        |s, c| plain(CertificatesByAgent(s.clone(), c.clone()));
    field_sources: DataLoader<FieldSourcesByRecord> = |s, c| plain(FieldSourcesByRecord(s.clone()));
    influence: DataLoader<InfluenceByAgent> = |s, c| plain(InfluenceByAgent(s.clone()));
    touched: DataLoader<TouchedByAgent> = |s, c| plain(TouchedByAgent(s.clone()));
    listing_counts: DataLoader<ListingCountsByProvider> =
        |s, c| plain(ListingCountsByProvider(s.clone()));
    entry_counts: DataLoader<EntryCountsByAgent> = |s, c| plain(EntryCountsByAgent(s.clone()));
    agent_counts: DataLoader<AgentCountsByPrincipal> =
        |s, c| plain(AgentCountsByPrincipal(s.clone()));
}

/// Empties the id loaders' caches that were built: a subscription delivers each event with
/// fresh reads, not with what the connection loaded for an earlier one.
pub fn forget(ctx: &Context<'_>) {
    fn clear<T: Loader<Uuid, Error = LoadError>>(cell: &OnceLock<Cached<T>>) {
        if let Some(loader) = cell.get() {
            loader.clear::<Uuid>();
        }
    }
    let Some(all) = ctx.data_opt::<RequestLoaders>() else {
        return;
    };
    clear(&all.principals);
    clear(&all.agents);
    clear(&all.entries);
    clear(&all.entities);
    clear(&all.listings);
    clear(&all.requests);
}
