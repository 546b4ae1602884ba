//! The review queue on the graph (`reviewQueue`, public), its resolution (`resolveReview`) and
//! operators' merges of entities, listings and requests and their undo (admin scope), over
//! `services::review` and `services::merge` like REST and the admin CLI.

use super::canonical::{load_agent, load_entry, load_record};
use crate::graphql::machinery::context::ctx_parts;
use crate::graphql::machinery::paging;
use crate::graphql::machinery::totals::{Counter, Total};
use crate::records::agents::Agent;
use crate::records::canonical::CanonicalRecord;
use crate::records::canonical::{CanonicalRequest, Entity, Listing};
use crate::records::entries::SpaceTimeEntry;
use crate::records::processing::ProcessResult;
use crate::records::review::{ReviewCandidate, ReviewItem, ReviewResolutionInput};
use crate::services::{merge, review};
use async_graphql::connection::Connection;
use async_graphql::{ComplexObject, Context, Object, Result};
use std::sync::Arc;
use uuid::Uuid;

#[ComplexObject]
impl ReviewItem {
    /// The entry waiting for review.
    async fn entry(&self, ctx: &Context<'_>) -> Result<Option<Arc<SpaceTimeEntry>>> {
        load_entry(ctx, self.space_time_entry_id).await
    }
    /// The agent that sent it.
    async fn agent(&self, ctx: &Context<'_>) -> Result<Option<Arc<Agent>>> {
        load_agent(ctx, Some(self.agent_id)).await
    }
}

#[ComplexObject]
impl ReviewCandidate {
    /// The candidate record itself.
    async fn record(&self, ctx: &Context<'_>) -> Result<Option<CanonicalRecord>> {
        load_record(ctx, self.canonical_table, self.canonical_id).await
    }
}

#[derive(Default)]
pub struct ReviewQuery;

#[Object]
impl ReviewQuery {
    /// Entries the transformer sent to review, newest first, each with why and the candidates
    /// it weighed (scores and their parts). Anyone may read it; `first` 1 to 500 (default 100).
    #[graphql(complexity = "crate::graphql::machinery::limits::page_cost(first, child_complexity)")]
    async fn review_queue(
        &self,
        ctx: &Context<'_>,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<Connection<String, ReviewItem, Total>> {
        let (state, _) = ctx_parts(ctx);
        let after_given = after.is_some();
        let page = review::queue(state, paging::params(first, after)?).await?;
        Ok(paging::counted(
            page,
            |item| item.space_time_entry_id,
            |item| item,
            after_given,
            Counter::ReviewQueue,
        ))
    }
}

#[derive(Default)]
pub struct ReviewMutation;

/// A merge's `mergedId` is a top-level argument: refusals of it are located there.
const MERGED_AT: &[&str] = &["mergedId"];

#[Object]
impl ReviewMutation {
    /// Resolves an entry in review (admin scope): `IS_RECORD` with `canonicalId` applies it to
    /// that record, `IS_NEW` creates a record from it, `REJECT` rejects it. Of two operators
    /// resolving one entry, one wins; the other gets CONFLICT.
    async fn resolve_review(
        &self,
        ctx: &Context<'_>,
        space_time_entry_id: Uuid,
        input: ReviewResolutionInput,
    ) -> Result<ProcessResult> {
        let (state, c) = ctx_parts(ctx);
        Ok(review::resolve(state, c, space_time_entry_id, &input, &["input"]).await?)
    }

    /// Merges the entity `mergedId` into `survivorId` (admin scope): the survivor is rebuilt
    /// from both records' evidence by the usual merge rules, the other becomes a redirect
    /// (status MERGED, `mergedIntoId`; `entity(id)` of it answers with the survivor; search
    /// leaves it out). Returns the survivor. An unknown `survivorId` is NOT_FOUND; an unknown
    /// `mergedId`, or the survivor's own, a VALIDATION_ERROR at `mergedId`; a record already
    /// merged a CONFLICT.
    async fn merge_entities(
        &self,
        ctx: &Context<'_>,
        survivor_id: Uuid,
        merged_id: Uuid,
    ) -> Result<Entity> {
        let (state, c) = ctx_parts(ctx);
        Ok(merge::merge(state, c, survivor_id, merged_id, MERGED_AT).await?)
    }

    /// Merges the listing `mergedId` into `survivorId` (admin scope), as `mergeEntities` merges
    /// entities: `listing(id)` of the redirect answers with the survivor.
    async fn merge_listings(
        &self,
        ctx: &Context<'_>,
        survivor_id: Uuid,
        merged_id: Uuid,
    ) -> Result<Listing> {
        let (state, c) = ctx_parts(ctx);
        Ok(merge::merge(state, c, survivor_id, merged_id, MERGED_AT).await?)
    }

    /// Merges the request `mergedId` into `survivorId` (admin scope), as `mergeEntities` merges
    /// entities: `request(id)` of the redirect answers with the survivor.
    async fn merge_requests(
        &self,
        ctx: &Context<'_>,
        survivor_id: Uuid,
        merged_id: Uuid,
    ) -> Result<CanonicalRequest> {
        let (state, c) = ctx_parts(ctx);
        Ok(merge::merge(state, c, survivor_id, merged_id, MERGED_AT).await?)
    }

    /// Dismisses a reported duplicate pair (admin scope): the records stay apart.
    async fn dismiss_duplicate_candidate(
        &self,
        ctx: &Context<'_>,
        id: Uuid,
    ) -> Result<crate::records::feedback::DuplicateCandidate> {
        let (state, c) = ctx_parts(ctx);
        Ok(review::dismiss_duplicate(state, c, id).await?)
    }

    /// Undoes the merge that made `entityId` a redirect (admin scope): both records are rebuilt
    /// from their own contributions. Returns the restored record.
    async fn undo_entity_merge(&self, ctx: &Context<'_>, entity_id: Uuid) -> Result<Entity> {
        let (state, c) = ctx_parts(ctx);
        Ok(merge::undo(state, c, entity_id).await?)
    }

    /// Undoes the merge that made `listingId` a redirect (admin scope), as `undoEntityMerge`.
    async fn undo_listing_merge(&self, ctx: &Context<'_>, listing_id: Uuid) -> Result<Listing> {
        let (state, c) = ctx_parts(ctx);
        Ok(merge::undo(state, c, listing_id).await?)
    }

    /// Undoes the merge that made `requestId` a redirect (admin scope), as `undoEntityMerge`.
    async fn undo_request_merge(
        &self,
        ctx: &Context<'_>,
        request_id: Uuid,
    ) -> Result<CanonicalRequest> {
        let (state, c) = ctx_parts(ctx);
        Ok(merge::undo(state, c, request_id).await?)
    }
}
