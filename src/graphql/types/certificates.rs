//! The committed trust certificate ledger on the graph.

use super::canonical::load_agent;
use crate::graphql::machinery::context::ctx_parts;
use crate::graphql::machinery::dealing_loaders::{SignatureLoader, load_one};
use crate::graphql::machinery::paging;
use crate::records::agents::Agent;
use crate::records::certificates::CertificateFilter;
use crate::records::certificates::{
    CertificateProof, CommittedTrustCertificate, CommittedTrustCertificateCreate, LedgerHead,
};
use crate::records::terms::TransactionTermsSignature;
use crate::services::certificates;
use async_graphql::connection::Connection;
use async_graphql::{ComplexObject, Context, Object, Result};
use std::sync::Arc;
use uuid::Uuid;

#[ComplexObject]
impl CommittedTrustCertificate {
    /// The signature the certificate commits on (null when its terms are private to others).
    async fn signature(&self, ctx: &Context<'_>) -> Result<Option<TransactionTermsSignature>> {
        load_one::<SignatureLoader>(ctx, self.transaction_terms_signature_id).await
    }
    async fn agent(&self, ctx: &Context<'_>) -> Result<Option<Arc<Agent>>> {
        load_agent(ctx, Some(self.agent_id)).await
    }
    /// This certificate and its successors towards the head (`limit` 1 to 500, default 100).
    async fn proof(&self, ctx: &Context<'_>, limit: Option<i64>) -> Result<CertificateProof> {
        let (state, _) = ctx_parts(ctx);
        Ok(certificates::proof(state, self.id, limit, &["limit"]).await?)
    }
}

#[derive(Default)]
pub struct CertificateQuery;

#[Object]
impl CertificateQuery {
    async fn committed_trust_certificate(
        &self,
        ctx: &Context<'_>,
        id: Uuid,
    ) -> Result<Option<CommittedTrustCertificate>> {
        let (state, _) = ctx_parts(ctx);
        crate::graphql::machinery::context::found(certificates::get(state, id).await)
            .map_err(Into::into)
    }

    /// The public ledger, newest first.
    #[graphql(complexity = "crate::graphql::machinery::limits::page_cost(first, child_complexity)")]
    async fn committed_trust_certificates(
        &self,
        ctx: &Context<'_>,
        agent_id: Option<Uuid>,
        currency_code: Option<String>,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<Connection<String, CommittedTrustCertificate>> {
        let (state, _) = ctx_parts(ctx);
        let after_given = after.is_some();
        let params = paging::params(first, after)?;
        let filter = CertificateFilter {
            agent_id,
            currency_code,
        };
        let page = certificates::list(state, filter, params, &["currencyCode"]).await?;
        Ok(paging::connection(page, |c| c.id, |c| c, after_given))
    }

    /// The newest certificate's sequence number and hash.
    async fn certificate_ledger_head(&self, ctx: &Context<'_>) -> Result<LedgerHead> {
        let (state, _) = ctx_parts(ctx);
        Ok(certificates::head(state).await?)
    }
}

#[derive(Default)]
pub struct CertificateMutation;

#[Object]
impl CertificateMutation {
    /// Appends a certificate for a signature the caller made (same rules as the REST route).
    async fn create_committed_trust_certificate(
        &self,
        ctx: &Context<'_>,
        input: CommittedTrustCertificateCreate,
    ) -> Result<CommittedTrustCertificate> {
        let (state, rctx) = ctx_parts(ctx);
        Ok(certificates::create(state, rctx, input, &["input"]).await?)
    }
}
