//! Canonical entities, listings, requests and their provenance, as a graph.

use crate::domain::CanonicalTable;
use crate::graphql::machinery::batching::DataLoader;
use crate::graphql::machinery::context::ctx_parts;
use crate::graphql::machinery::loaders::{
    AgentLoader, ContributionsByEntry, ContributionsByTarget, EntityLoader, EntryLoader,
    ListingLoader, RequestLoader,
};
use crate::graphql::machinery::paging;
use crate::graphql::machinery::totals::{Counter, Total};
use crate::records::agents::Agent;
use crate::records::canonical::ContributionFilter;
use crate::records::canonical::{
    CanonicalKind, CanonicalRecord, CanonicalRequest, Entity, LinkContribution, Listing,
};
use crate::records::entries::SpaceTimeEntry;
use crate::records::geojson::Located;
use crate::services::canonical::CanonicalRow;
use crate::services::{canonical, history};
use async_graphql::connection::Connection;
use async_graphql::{ComplexObject, Context, Object, Result};
use chrono::{DateTime, Utc};
use std::sync::Arc;
use uuid::Uuid;

pub async fn load_record(
    ctx: &Context<'_>,
    table: CanonicalTable,
    id: Uuid,
) -> Result<Option<CanonicalRecord>> {
    Ok(match table {
        CanonicalTable::Entities => load_entity(ctx, Some(id))
            .await?
            .map(|e| CanonicalRecord::Entity(Arc::unwrap_or_clone(e))),
        CanonicalTable::Listings => {
            let loader = crate::graphql::machinery::request_loaders::loader::<
                crate::graphql::machinery::loaders::Cached<ListingLoader>,
            >(ctx);
            loader
                .load_one(id)
                .await
                .map_err(|e| (*e).clone())?
                .map(|l| CanonicalRecord::Listing(Arc::unwrap_or_clone(l)))
        }
        CanonicalTable::Requests => {
            let loader = crate::graphql::machinery::request_loaders::loader::<
                crate::graphql::machinery::loaders::Cached<RequestLoader>,
            >(ctx);
            loader
                .load_one(id)
                .await
                .map_err(|e| (*e).clone())?
                .map(|r| CanonicalRecord::Request(Arc::unwrap_or_clone(r)))
        }
    })
}

pub async fn load_entity(ctx: &Context<'_>, id: Option<Uuid>) -> Result<Option<Arc<Entity>>> {
    let Some(id) = id else { return Ok(None) };
    let loader = crate::graphql::machinery::request_loaders::loader::<
        crate::graphql::machinery::loaders::Cached<EntityLoader>,
    >(ctx);
    loader.load_one(id).await.map_err(|e| (*e).clone())
}

/// One entry through the request's loader (every edge to an entry goes through here).
pub async fn load_entry(ctx: &Context<'_>, id: Uuid) -> Result<Option<Arc<SpaceTimeEntry>>> {
    let loader = crate::graphql::machinery::request_loaders::loader::<
        crate::graphql::machinery::loaders::Cached<EntryLoader>,
    >(ctx);
    loader.load_one(id).await.map_err(|e| (*e).clone())
}

pub async fn load_agent(ctx: &Context<'_>, id: Option<Uuid>) -> Result<Option<Arc<Agent>>> {
    let Some(id) = id else { return Ok(None) };
    let loader = crate::graphql::machinery::request_loaders::loader::<
        crate::graphql::machinery::loaders::Cached<AgentLoader>,
    >(ctx);
    loader.load_one(id).await.map_err(|e| (*e).clone())
}

pub async fn contributions_to(
    ctx: &Context<'_>,
    target: Uuid,
) -> Result<Vec<Arc<LinkContribution>>> {
    let loader = crate::graphql::machinery::request_loaders::loader::<
        DataLoader<ContributionsByTarget>,
    >(ctx);
    let found = loader.load_one(target).await.map_err(|e| (*e).clone())?;
    Ok(found.unwrap_or_default())
}

pub async fn contributions_of_entry(
    ctx: &Context<'_>,
    entry: Uuid,
) -> Result<Vec<Arc<LinkContribution>>> {
    let loader =
        crate::graphql::machinery::request_loaders::loader::<DataLoader<ContributionsByEntry>>(ctx);
    let found = loader.load_one(entry).await.map_err(|e| (*e).clone())?;
    Ok(found.unwrap_or_default())
}

/// The first `first` items an edge loader holds for `parent`.
async fn edge<L>(ctx: &Context<'_>, parent: Uuid, first: Option<i32>) -> Result<L::Value>
where
    L: async_graphql::dataloader::Loader<
            Uuid,
            Error = crate::graphql::machinery::loaders::LoadError,
        >,
    L::Value: IntoIterator + FromIterator<<L::Value as IntoIterator>::Item> + Default,
    DataLoader<L>: crate::graphql::machinery::request_loaders::PerRequest,
{
    let found = crate::graphql::machinery::request_loaders::loader::<DataLoader<L>>(ctx)
        .load_one(parent)
        .await
        .map_err(|e| (*e).clone())?;
    let items: Vec<_> = found.unwrap_or_default().into_iter().collect();
    Ok(crate::graphql::machinery::limits::first_of(items, first)?
        .into_iter()
        .collect())
}

/// A canonical record as a GeoJSON Feature with what a map layer labels and colours by.
fn map_feature<K: CanonicalKind>(record: &K) -> async_graphql::Json<serde_json::Value> {
    let [longitude, latitude] = record.lng_lat();
    async_graphql::Json(crate::domain::geo::point_feature(
        latitude,
        longitude,
        &record.feature_id().to_string(),
        serde_json::json!({"kind": K::TABLE.record_name(), "name": record.label(),
                           "status": record.status(),
                           "scoreConfidence": record.score_confidence().to_string()}),
    ))
}

/// The edges every canonical kind has, written once; each kind adds its own after them. An
/// entity's notes, signals, duplicates and listings are written here too (`notes` switches them
/// on): their complexity expressions name `child_complexity`, which the `ComplexObject` macro
/// binds with this macro's hygiene, so they cannot be handed in by the caller.
macro_rules! canonical_edges {
    ($record:ty $(, entity_edges: $notes:ident)? { $($own:tt)* }) => {
        #[ComplexObject]
        impl $record {
            /// The record's location as a GeoJSON Feature (RFC 7946: a Point, longitude first), with
            /// `kind`, `name`, `status` and `scoreConfidence` as properties, ready for a map layer.
            async fn geojson(&self) -> async_graphql::Json<serde_json::Value> {
                map_feature(self)
            }
            /// Where this record's data came from: each field's source and the contributions in time
            /// order.
            async fn provenance(&self) -> super::provenance::Provenance {
                super::provenance::Provenance {
                    table: <$record as CanonicalKind>::TABLE,
                    id: self.id,
                }
            }
            /// Provenance: every entry that created, updated, matched or supported this record.
            #[graphql(complexity = "crate::graphql::machinery::limits::edge_cost(first, child_complexity)")]
            async fn contributions(
                &self,
                ctx: &Context<'_>,
                #[graphql(desc = "The oldest `first` (1 to 100, default 100).")] first: Option<i32>,
            ) -> Result<Vec<Arc<LinkContribution>>> {
                crate::graphql::machinery::limits::first_of(contributions_to(ctx, self.id).await?, first)
            }
            /// The agent that claimed this record as its contact.
            async fn contact_agent(&self, ctx: &Context<'_>) -> Result<Option<Arc<Agent>>> {
                load_agent(ctx, CanonicalKind::contact_agent_id(self)).await
            }
            $(
            /// Notes on this entity that the caller may see, oldest first.
            #[graphql(complexity = "crate::graphql::machinery::limits::edge_cost(first, child_complexity)")]
            async fn $notes(
                &self,
                ctx: &Context<'_>,
                #[graphql(desc = "The oldest `first` (1 to 100, default 100).")] first: Option<i32>,
            ) -> Result<Vec<crate::records::feedback::Note>> {
                edge::<crate::graphql::machinery::loaders::NotesByTarget>(ctx, self.id, first).await
            }
            /// Signals on this entity, oldest first.
            #[graphql(complexity = "crate::graphql::machinery::limits::edge_cost(first, child_complexity)")]
            async fn signals(
                &self,
                ctx: &Context<'_>,
                #[graphql(desc = "The oldest `first` (1 to 100, default 100).")] first: Option<i32>,
            ) -> Result<Vec<crate::records::feedback::Signal>> {
                edge::<crate::graphql::machinery::loaders::SignalsByTarget>(ctx, self.id, first).await
            }
            /// Reported duplicate pairs involving this entity (never merged automatically).
            #[graphql(complexity = "crate::graphql::machinery::limits::edge_cost(first, child_complexity)")]
            async fn duplicate_candidates(
                &self,
                ctx: &Context<'_>,
                #[graphql(desc = "The oldest `first` (1 to 100, default 100).")] first: Option<i32>,
            ) -> Result<Vec<crate::records::feedback::DuplicateCandidate>> {
                edge::<crate::graphql::machinery::loaders::DuplicatesByRecord>(ctx, self.id, first).await
            }
            /// Listings offered by this entity, newest first.
            #[graphql(complexity = "crate::graphql::machinery::limits::page_cost(first, child_complexity)")]
            async fn listings(
                &self,
                ctx: &Context<'_>,
                first: Option<i32>,
                after: Option<String>,
            ) -> Result<Connection<String, Listing, Total>> {
                let (state, _) = ctx_parts(ctx);
                let after_given = after.is_some();
                let page =
                    canonical::listings_of_provider(state, self.id, paging::params(first, after)?).await?;
                let counter = Counter::ListingsOf(self.id);
                Ok(paging::counted(page, |l| l.id, |l| l, after_given, counter))
            }
            )?
            $($own)*
        }
    };
}

canonical_edges!(Entity, entity_edges: notes {});

canonical_edges!(Listing {
    /// The entity offering this listing.
    async fn provider(&self, ctx: &Context<'_>) -> Result<Option<Arc<Entity>>> {
        load_entity(ctx, self.provider_entity_id).await
    }
});

canonical_edges!(CanonicalRequest {
    /// The entity asking, when known.
    async fn requester(&self, ctx: &Context<'_>) -> Result<Option<Arc<Entity>>> {
        load_entity(ctx, self.requester_entity_id).await
    }
});

/// Graph edges of a provenance link.
#[ComplexObject]
impl LinkContribution {
    /// The entry that made this contribution.
    async fn entry(&self, ctx: &Context<'_>) -> Result<Option<Arc<SpaceTimeEntry>>> {
        load_entry(ctx, self.source_space_time_entry_id).await
    }
    /// The canonical record it contributed to.
    async fn target(&self, ctx: &Context<'_>) -> Result<Option<CanonicalRecord>> {
        load_record(ctx, self.target_canonical_table, self.target_canonical_id).await
    }
    /// The target when it is an entity (a shortcut for `target { ... on Entity }`).
    async fn entity(&self, ctx: &Context<'_>) -> Result<Option<Arc<Entity>>> {
        match self.target_canonical_table {
            CanonicalTable::Entities => load_entity(ctx, Some(self.target_canonical_id)).await,
            _ => Ok(None),
        }
    }
}

/// One record of kind `K` by id; null when it does not exist. A merged record's id answers with
/// the record it was merged into (compare `id`).
async fn one<K: CanonicalRow>(ctx: &Context<'_>, id: Uuid) -> Result<Option<K>> {
    let (state, _) = ctx_parts(ctx);
    crate::graphql::machinery::context::found(canonical::record::<K>(state, id).await)
        .map_err(Into::into)
}

/// A page of records of kind `K`, newest first, optionally by status.
async fn page<K: CanonicalRow + async_graphql::OutputType>(
    ctx: &Context<'_>,
    status: Option<String>,
    first: Option<i32>,
    after: Option<String>,
) -> Result<Connection<String, K, Total>> {
    let (state, _) = ctx_parts(ctx);
    let after_given = after.is_some();
    let params = paging::params(first, after)?;
    let page = canonical::list::<K>(state, status.as_deref(), params, &["status"]).await?;
    let counter = Counter::Canonical {
        table: K::TABLE,
        status,
    };
    Ok(paging::counted(
        page,
        Located::feature_id,
        |r| r,
        after_given,
        counter,
    ))
}

#[derive(Default)]
pub struct CanonicalQuery;

#[Object]
impl CanonicalQuery {
    /// One canonical entity by id; null when it does not exist. With `asOf`, the entity as it
    /// stood then, rebuilt from its `created` and `updated` contributions up to that instant
    /// through the transformer's merge rules (null if it did not exist yet); `status`,
    /// `contactAgentId` and the scores are today's, and nested edges are today's too.
    async fn entity(
        &self,
        ctx: &Context<'_>,
        id: Uuid,
        as_of: Option<DateTime<Utc>>,
    ) -> Result<Option<Entity>> {
        match as_of {
            Some(instant) => Ok(history::entity_as_of(ctx_parts(ctx).0, id, instant).await?),
            None => one(ctx, id).await,
        }
    }

    /// Canonical entities, newest first, optionally by status.
    #[graphql(complexity = "crate::graphql::machinery::limits::page_cost(first, child_complexity)")]
    async fn entities(
        &self,
        ctx: &Context<'_>,
        status: Option<String>,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<Connection<String, Entity, Total>> {
        page(ctx, status, first, after).await
    }

    /// One canonical listing by id; null when it does not exist. A merged listing's id answers
    /// with the listing it was merged into (compare `id`).
    async fn listing(&self, ctx: &Context<'_>, id: Uuid) -> Result<Option<Listing>> {
        one(ctx, id).await
    }

    /// Canonical listings, newest first.
    #[graphql(complexity = "crate::graphql::machinery::limits::page_cost(first, child_complexity)")]
    async fn listings(
        &self,
        ctx: &Context<'_>,
        status: Option<String>,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<Connection<String, Listing, Total>> {
        page(ctx, status, first, after).await
    }

    /// One canonical request by id; null when it does not exist. A merged request's id answers
    /// with the request it was merged into (compare `id`).
    async fn request(&self, ctx: &Context<'_>, id: Uuid) -> Result<Option<CanonicalRequest>> {
        one(ctx, id).await
    }

    /// Canonical requests, newest first.
    #[graphql(complexity = "crate::graphql::machinery::limits::page_cost(first, child_complexity)")]
    async fn requests(
        &self,
        ctx: &Context<'_>,
        status: Option<String>,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<Connection<String, CanonicalRequest, Total>> {
        page(ctx, status, first, after).await
    }

    /// Link contributions, newest first, by target and/or entry.
    #[graphql(complexity = "crate::graphql::machinery::limits::page_cost(first, child_complexity)")]
    async fn link_contributions(
        &self,
        ctx: &Context<'_>,
        target_canonical_table: Option<CanonicalTable>,
        target_canonical_id: Option<Uuid>,
        space_time_entry_id: Option<Uuid>,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<Connection<String, LinkContribution, Total>> {
        let (state, _) = ctx_parts(ctx);
        let after_given = after.is_some();
        let filter = ContributionFilter {
            target_canonical_table,
            target_canonical_id,
            space_time_entry_id,
        };
        let page =
            canonical::contributions(state, filter.clone(), paging::params(first, after)?).await?;
        let counter = Counter::Contributions(filter);
        Ok(paging::counted(page, |c| c.id, |c| c, after_given, counter))
    }
}
