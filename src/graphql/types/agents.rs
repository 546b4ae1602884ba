//! Agent and API key types, queries and mutations.

use crate::graphql::machinery::batching::DataLoader;
use crate::graphql::machinery::context::ctx_parts;
use crate::graphql::machinery::dealing_loaders::{
    CertificatesByAgent, SignaturesBySigner, TermsByCreator, load_group,
};
use crate::graphql::machinery::loaders::{AgentEntriesKey, EntriesByAgent, PrincipalLoader};
use crate::graphql::machinery::paging;
use crate::graphql::machinery::totals::{Counter, Total};
use crate::records::agents::{AccessToken, AgentRegistration, ApiKeyCreated};
use crate::records::agents::{Agent, AgentCreate, ApiKey, ApiKeyCreate, Principal};
use crate::records::certificates::CommittedTrustCertificate;
use crate::records::entries::SpaceTimeEntry;
use crate::records::messages::Message;
use crate::records::terms::{TransactionTerm, TransactionTermsSignature};
use crate::services::messages::{Direction, MessageSelection};
use crate::services::{agents, api_keys, tokens};
use async_graphql::connection::Connection;
use async_graphql::{ComplexObject, Context, Object, Result};
use std::sync::Arc;
use uuid::Uuid;

/// Graph edges of an agent.
#[ComplexObject]
impl Agent {
    /// The values this agent's entries proposed for established identity fields that the
    /// records kept (field proposals), newest first; `status` as in `fieldProposals`. Public,
    /// like the review queue they sit in.
    #[graphql(complexity = "crate::graphql::machinery::limits::page_cost(first, child_complexity)")]
    async fn field_proposals(
        &self,
        ctx: &Context<'_>,
        status: Option<String>,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<Connection<String, crate::records::proposals::FieldProposal>> {
        super::proposals::ProposalQuery
            .field_proposals(ctx, status, Some(self.id), None, first, after)
            .await
    }
    /// How this agent's newest 10,000 entries shaped canonical records: contributions per link
    /// type, the number of distinct records touched, and whether those were all its entries
    /// (batched for a whole page of agents).
    async fn influence(
        &self,
        ctx: &Context<'_>,
    ) -> Result<crate::records::provenance::AgentInfluence> {
        super::provenance::influence_of(ctx, self.id).await
    }
    /// The canonical records this agent's entries contributed to within `radiusMeters` (1 to
    /// 100,000) of a point and between `since` and `until` (contribution times; default the last
    /// 30 days, at most 366), most recently touched first, with the link types and counts.
    /// `first` 1 to 500 (default 100). Only the contributions of the agent's newest 10,000
    /// entries are looked at (`complete` says whether that was all). Batched for a whole page of
    /// agents.
    #[expect(clippy::too_many_arguments, reason = "one per GraphQL argument")]
    #[graphql(complexity = "crate::graphql::machinery::limits::page_cost(first, child_complexity)")]
    async fn touched(
        &self,
        ctx: &Context<'_>,
        latitude: f64,
        longitude: f64,
        radius_meters: i64,
        since: Option<chrono::DateTime<chrono::Utc>>,
        until: Option<chrono::DateTime<chrono::Utc>>,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<
        Connection<
            String,
            crate::records::provenance::TouchedRecord,
            crate::records::provenance::TouchedCoverage,
        >,
    > {
        let args = crate::services::touched::TouchedArgs {
            latitude,
            longitude,
            radius_meters,
            since,
            until,
            first,
            after,
        };
        super::provenance::touched_by(ctx, self.id, args).await
    }
    /// The owning principal, when there is one.
    async fn principal(&self, ctx: &Context<'_>) -> Result<Option<Arc<Principal>>> {
        let Some(id) = self.principal_id else {
            return Ok(None);
        };
        let loader = crate::graphql::machinery::request_loaders::loader::<
            crate::graphql::machinery::loaders::Cached<PrincipalLoader>,
        >(ctx);
        loader.load_one(id).await.map_err(|e| (*e).clone())
    }
    /// Entries this agent published, newest first.
    #[graphql(complexity = "crate::graphql::machinery::limits::page_cost(first, child_complexity)")]
    async fn entries(
        &self,
        ctx: &Context<'_>,
        status: Option<crate::domain::EntryStatus>,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<Connection<String, Arc<SpaceTimeEntry>, Total>> {
        let after_given = after.is_some();
        let params = paging::params(first, after)?;
        let key = AgentEntriesKey {
            agent_id: self.id,
            status,
            limit: params.limit,
            after: params.after,
        };
        let page =
            crate::graphql::machinery::request_loaders::loader::<DataLoader<EntriesByAgent>>(ctx)
                .load_one(key)
                .await
                .map_err(|e| (*e).clone())?
                .unwrap_or(crate::domain::Page {
                    items: Vec::new(),
                    has_next_page: false,
                });
        crate::graphql::machinery::loaders::remember(ctx, &page.items).await;
        let counter = Counter::EntriesOf(self.id, status);
        Ok(paging::counted(page, |e| e.id, |e| e, after_given, counter))
    }
    /// This agent's newest `first` API keys (1 to 500, default 100; revoked keys included;
    /// metadata only: a raw key is shown once, when it is created): only for the agent itself
    /// (null for others).
    #[graphql(complexity = "crate::graphql::machinery::limits::page_cost(first, child_complexity)")]
    async fn api_keys(&self, ctx: &Context<'_>, first: Option<i32>) -> Result<Option<Vec<ApiKey>>> {
        let (state, rctx) = ctx_parts(ctx);
        if rctx.actor.as_ref().map(|a| a.agent_id) != Some(self.id) {
            return Ok(None);
        }
        let params = paging::params(first, None)?;
        Ok(Some(api_keys::list_mine(state, rctx, params).await?.items))
    }
    /// Messages this agent sent, newest first: only for the agent itself (null for others).
    #[graphql(complexity = "crate::graphql::machinery::limits::page_cost(first, child_complexity)")]
    async fn sent_messages(
        &self,
        ctx: &Context<'_>,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<Option<Connection<String, Message, Total>>> {
        let selection = MessageSelection {
            direction: Direction::Sent,
            ..Default::default()
        };
        super::messages::own_messages(ctx, self, selection, first, after).await
    }
    /// Messages this agent received, newest first: only for the agent itself (null for others).
    #[graphql(complexity = "crate::graphql::machinery::limits::page_cost(first, child_complexity)")]
    async fn received_messages(
        &self,
        ctx: &Context<'_>,
        #[graphql(default = false)] unread_only: bool,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<Option<Connection<String, Message, Total>>> {
        let selection = MessageSelection {
            direction: Direction::Received,
            unread_only,
            ..Default::default()
        };
        super::messages::own_messages(ctx, self, selection, first, after).await
    }
    /// Transaction terms this agent published that the caller may read, newest first (at most 100).
    #[graphql(complexity = "crate::graphql::machinery::limits::page_cost(first, child_complexity)")]
    async fn transaction_terms(
        &self,
        ctx: &Context<'_>,
        first: Option<i32>,
    ) -> Result<Vec<TransactionTerm>> {
        load_group::<TermsByCreator, _>(ctx, self.id, first).await
    }
    /// Signatures this agent made on terms the caller may read, newest first (at most 100).
    #[graphql(complexity = "crate::graphql::machinery::limits::page_cost(first, child_complexity)")]
    async fn signatures(
        &self,
        ctx: &Context<'_>,
        first: Option<i32>,
    ) -> Result<Vec<TransactionTermsSignature>> {
        load_group::<SignaturesBySigner, _>(ctx, self.id, first).await
    }
    /// Certificates this agent committed, newest first (at most 100).
    #[graphql(complexity = "crate::graphql::machinery::limits::page_cost(first, child_complexity)")]
    async fn certificates(
        &self,
        ctx: &Context<'_>,
        first: Option<i32>,
    ) -> Result<Vec<CommittedTrustCertificate>> {
        load_group::<CertificatesByAgent, _>(ctx, self.id, first).await
    }
}

#[derive(Default)]
pub struct AgentQuery;

#[Object]
impl AgentQuery {
    /// One agent by id; null when it does not exist.
    async fn agent(&self, ctx: &Context<'_>, id: Uuid) -> Result<Option<Agent>> {
        let (state, _) = ctx_parts(ctx);
        crate::graphql::machinery::context::found(agents::get(state, id).await).map_err(Into::into)
    }

    /// Agents, newest first.
    #[graphql(complexity = "crate::graphql::machinery::limits::page_cost(first, child_complexity)")]
    async fn agents(
        &self,
        ctx: &Context<'_>,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<Connection<String, Arc<Agent>, Total>> {
        let (state, _) = ctx_parts(ctx);
        let after_given = after.is_some();
        let page = agents::list(state, paging::params(first, after)?)
            .await?
            .map(Arc::new);
        crate::graphql::machinery::loaders::remember(ctx, &page.items).await;
        Ok(paging::counted(
            page,
            |a| a.id,
            |a| a,
            after_given,
            Counter::Agents,
        ))
    }

    /// The agent behind the bearer credential.
    async fn me(&self, ctx: &Context<'_>) -> Result<Agent> {
        let (state, rctx) = ctx_parts(ctx);
        Ok(agents::me(state, rctx).await?)
    }

    /// The calling agent's newest `first` API keys (1 to 500, default 100; revoked keys
    /// included; metadata only).
    #[graphql(complexity = "crate::graphql::machinery::limits::page_cost(first, child_complexity)")]
    async fn my_api_keys(&self, ctx: &Context<'_>, first: Option<i32>) -> Result<Vec<ApiKey>> {
        let (state, rctx) = ctx_parts(ctx);
        let params = paging::params(first, None)?;
        Ok(api_keys::list_mine(state, rctx, params).await?.items)
    }
}

#[derive(Default)]
pub struct AgentMutation;

#[Object]
impl AgentMutation {
    /// Creates an agent without issuing a key (same as POST /api/v1/agents).
    async fn create_agent(&self, ctx: &Context<'_>, input: AgentCreate) -> Result<Agent> {
        let (state, rctx) = ctx_parts(ctx);
        Ok(agents::create(state, rctx, input, &["input"]).await?)
    }

    /// Registers an agent and issues its first API key (same as POST /api/v1/agents/register).
    async fn register_agent(
        &self,
        ctx: &Context<'_>,
        input: AgentCreate,
    ) -> Result<AgentRegistration> {
        let (state, rctx) = ctx_parts(ctx);
        Ok(agents::register(state, rctx, input, &["input"]).await?)
    }

    /// Issues another API key to the calling agent.
    async fn create_api_key(
        &self,
        ctx: &Context<'_>,
        input: Option<ApiKeyCreate>,
    ) -> Result<ApiKeyCreated> {
        let (state, rctx) = ctx_parts(ctx);
        let body = input.unwrap_or_default();
        Ok(api_keys::create_mine(state, rctx, body, &["input"]).await?)
    }

    /// Revokes one of the calling agent's keys; it stops working on the next request.
    async fn revoke_api_key(&self, ctx: &Context<'_>, id: Uuid) -> Result<bool> {
        let (state, rctx) = ctx_parts(ctx);
        api_keys::revoke_mine(state, rctx, id).await?;
        Ok(true)
    }

    /// Mints a short-lived access token from the calling API key.
    async fn create_access_token(&self, ctx: &Context<'_>) -> Result<AccessToken> {
        let (state, rctx) = ctx_parts(ctx);
        Ok(tokens::create(state, rctx).await?)
    }
}
