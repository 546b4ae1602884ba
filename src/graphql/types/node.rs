//! `node(id)` and `canonicalRecord(id)`: answers for an id whatever it names, each record read
//! through its own getter (a message or a term the caller may not see is `null`).

use crate::error::{AppError, AppResult};
use crate::graphql::machinery::context::ctx_parts;
use crate::graphql::machinery::context::found;
use crate::records::agents::{Agent, Principal};
use crate::records::canonical::CanonicalRecord;
use crate::records::canonical::{CanonicalRequest, Entity, Listing};
use crate::records::certificates::CommittedTrustCertificate;
use crate::records::entries::SpaceTimeEntry;
use crate::records::messages::Message;
use crate::records::terms::{TransactionTerm, TransactionTermsSignature};
use crate::services::lookup::{self, RecordKind};
use crate::services::{agents, canonical, certificates, entries, messages, principals, terms};
use async_graphql::{Context, Object, Result, Union};
use uuid::Uuid;

/// Any record the service keeps, by its id.
#[derive(Union)]
pub enum Node {
    Principal(Principal),
    Agent(Agent),
    SpaceTimeEntry(SpaceTimeEntry),
    Entity(Entity),
    Listing(Listing),
    Request(CanonicalRequest),
    Message(Message),
    TransactionTerm(TransactionTerm),
    TransactionTermsSignature(TransactionTermsSignature),
    CommittedTrustCertificate(CommittedTrustCertificate),
}

#[derive(Default)]
pub struct NodeQuery;

#[Object]
impl NodeQuery {
    /// The record an id names, whatever its kind (ids are unique across kinds); `null` when
    /// there is none or the caller may not see it. Select fields with `... on Entity { … }`.
    async fn node(&self, ctx: &Context<'_>, id: Uuid) -> Result<Option<Node>> {
        let (state, rctx) = ctx_parts(ctx);
        let Some(kind) = lookup::kind_of(state, id).await? else {
            return Ok(None);
        };
        let node = match kind {
            RecordKind::Principal => found(principals::get(state, id).await)?.map(Node::Principal),
            RecordKind::Agent => found(agents::get(state, id).await)?.map(Node::Agent),
            RecordKind::SpaceTimeEntry => {
                found(entries::get(state, id).await)?.map(Node::SpaceTimeEntry)
            }
            RecordKind::Entity => {
                found(canonical::record::<Entity>(state, id).await)?.map(Node::Entity)
            }
            RecordKind::Listing => {
                found(canonical::record::<Listing>(state, id).await)?.map(Node::Listing)
            }
            RecordKind::Request => {
                found(canonical::record::<CanonicalRequest>(state, id).await)?.map(Node::Request)
            }
            RecordKind::Message => {
                visible(messages::get(state, rctx, id).await)?.map(Node::Message)
            }
            RecordKind::TransactionTerm => {
                visible(terms::get_term(state, rctx, id).await)?.map(Node::TransactionTerm)
            }
            RecordKind::TransactionTermsSignature => {
                visible(terms::get_signature(state, rctx, id).await)?
                    .map(Node::TransactionTermsSignature)
            }
            RecordKind::CommittedTrustCertificate => {
                found(certificates::get(state, id).await)?.map(Node::CommittedTrustCertificate)
            }
        };
        Ok(node)
    }

    /// The canonical entity, listing or request an id names; `null` for any other id.
    async fn canonical_record(
        &self,
        ctx: &Context<'_>,
        id: Uuid,
    ) -> Result<Option<CanonicalRecord>> {
        let (state, _) = ctx_parts(ctx);
        Ok(match lookup::kind_of(state, id).await? {
            Some(RecordKind::Entity) => {
                found(canonical::record::<Entity>(state, id).await)?.map(CanonicalRecord::Entity)
            }
            Some(RecordKind::Listing) => {
                found(canonical::record::<Listing>(state, id).await)?.map(CanonicalRecord::Listing)
            }
            Some(RecordKind::Request) => {
                found(canonical::record::<CanonicalRequest>(state, id).await)?
                    .map(CanonicalRecord::Request)
            }
            _ => None,
        })
    }
}

/// A private record the caller may not see is `null`, as if it did not exist: `node` must not
/// tell an anonymous caller that a message id is real.
fn visible<T>(result: AppResult<T>) -> AppResult<Option<T>> {
    match result {
        Err(AppError::Unauthorized | AppError::Forbidden(_)) => Ok(None),
        other => found(other),
    }
}
