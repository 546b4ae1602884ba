//! Transaction terms and signatures on the graph, as visible to the caller.

use super::canonical::load_agent;
use crate::graphql::machinery::context::ctx_parts;
use crate::graphql::machinery::dealing_loaders::{
    CertificatesBySignature, SignaturesByTerm, TermLoader, load_group, load_one,
};
use crate::graphql::machinery::paging;
use crate::records::agents::Agent;
use crate::records::certificates::CommittedTrustCertificate;
use crate::records::terms::SignatureFilter;
use crate::records::terms::{
    TransactionTerm, TransactionTermCreate, TransactionTermsSignature,
    TransactionTermsSignatureCreate,
};
use crate::services::terms;
use async_graphql::connection::Connection;
use async_graphql::{ComplexObject, Context, Object, Result};
use std::sync::Arc;
use uuid::Uuid;

#[ComplexObject]
impl TransactionTerm {
    async fn created_by(&self, ctx: &Context<'_>) -> Result<Option<Arc<Agent>>> {
        load_agent(ctx, Some(self.created_by_agent_id)).await
    }
    /// Signatures on these terms, newest first (at most 100).
    #[graphql(complexity = "crate::graphql::machinery::limits::page_cost(first, child_complexity)")]
    async fn signatures(
        &self,
        ctx: &Context<'_>,
        first: Option<i32>,
    ) -> Result<Vec<TransactionTermsSignature>> {
        load_group::<SignaturesByTerm, _>(ctx, self.id, first).await
    }
}

#[ComplexObject]
impl TransactionTermsSignature {
    /// The signed terms (null only if the caller may not read them, which never happens for a
    /// signature the caller can see).
    async fn term(&self, ctx: &Context<'_>) -> Result<Option<TransactionTerm>> {
        load_one::<TermLoader>(ctx, self.transaction_term_id).await
    }
    async fn signed_by(&self, ctx: &Context<'_>) -> Result<Option<Arc<Agent>>> {
        load_agent(ctx, Some(self.signed_by_agent_id)).await
    }
    async fn counterparty(&self, ctx: &Context<'_>) -> Result<Option<Arc<Agent>>> {
        load_agent(ctx, self.counterparty_agent_id).await
    }
    /// Certificates committed on this signature, newest first (at most 100).
    #[graphql(complexity = "crate::graphql::machinery::limits::page_cost(first, child_complexity)")]
    async fn certificates(
        &self,
        ctx: &Context<'_>,
        first: Option<i32>,
    ) -> Result<Vec<CommittedTrustCertificate>> {
        load_group::<CertificatesBySignature, _>(ctx, self.id, first).await
    }
}

#[derive(Default)]
pub struct TermsQuery;

#[Object]
impl TermsQuery {
    /// A term the caller may read; null otherwise.
    async fn transaction_term(
        &self,
        ctx: &Context<'_>,
        id: Uuid,
    ) -> Result<Option<TransactionTerm>> {
        let (state, rctx) = ctx_parts(ctx);
        crate::graphql::machinery::context::found(terms::get_term(state, rctx, id).await)
            .map_err(Into::into)
    }

    /// Public terms, plus the caller's own and those offered to it; newest first.
    #[graphql(complexity = "crate::graphql::machinery::limits::page_cost(first, child_complexity)")]
    async fn transaction_terms(
        &self,
        ctx: &Context<'_>,
        created_by_agent_id: Option<Uuid>,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<Connection<String, TransactionTerm>> {
        let (state, rctx) = ctx_parts(ctx);
        let after_given = after.is_some();
        let params = paging::params(first, after)?;
        let page = terms::list_terms(state, rctx, created_by_agent_id, params).await?;
        Ok(paging::connection(page, |t| t.id, |t| t, after_given))
    }

    /// A signature whose terms the caller may read; null otherwise.
    async fn transaction_terms_signature(
        &self,
        ctx: &Context<'_>,
        id: Uuid,
    ) -> Result<Option<TransactionTermsSignature>> {
        let (state, rctx) = ctx_parts(ctx);
        crate::graphql::machinery::context::found(terms::get_signature(state, rctx, id).await)
            .map_err(Into::into)
    }

    /// Signatures on terms the caller may read, newest first.
    #[graphql(complexity = "crate::graphql::machinery::limits::page_cost(first, child_complexity)")]
    async fn transaction_terms_signatures(
        &self,
        ctx: &Context<'_>,
        transaction_term_id: Option<Uuid>,
        signed_by_agent_id: Option<Uuid>,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<Connection<String, TransactionTermsSignature>> {
        let (state, rctx) = ctx_parts(ctx);
        let after_given = after.is_some();
        let params = paging::params(first, after)?;
        let filter = SignatureFilter {
            transaction_term_id,
            signed_by_agent_id,
        };
        let page = terms::list_signatures(state, rctx, filter, params).await?;
        Ok(paging::connection(page, |s| s.id, |s| s, after_given))
    }
}

#[derive(Default)]
pub struct TermsMutation;

#[Object]
impl TermsMutation {
    /// Publishes transaction terms (same rules as POST /api/v1/transaction-terms).
    async fn create_transaction_term(
        &self,
        ctx: &Context<'_>,
        input: TransactionTermCreate,
    ) -> Result<TransactionTerm> {
        let (state, rctx) = ctx_parts(ctx);
        Ok(terms::create_term(state, rctx, input, &["input"]).await?)
    }

    /// Signs terms the caller may read, once (a repeat is a CONFLICT carrying `existing_id`).
    async fn sign_transaction_term(
        &self,
        ctx: &Context<'_>,
        input: TransactionTermsSignatureCreate,
    ) -> Result<TransactionTermsSignature> {
        let (state, rctx) = ctx_parts(ctx);
        Ok(terms::sign(state, rctx, input, &["input"]).await?)
    }
}
