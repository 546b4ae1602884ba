//! Agent and API key types, queries and mutations.

use super::loaders::PrincipalLoader;
use super::principals::PrincipalNode;
use super::{ctx_parts, paging};
use crate::db::agents::Agent;
use crate::db::api_keys::ApiKey;
use crate::domain::{AgentStatus, AgentType, ApiKeyStatus};
use crate::services::{agents, api_keys, tokens};
use async_graphql::connection::Connection;
use async_graphql::dataloader::DataLoader;
use async_graphql::{Context, InputObject, Json, Object, Result, SimpleObject};
use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use serde_json::{Map, Value};
use uuid::Uuid;

/// A publisher of space-time entries: a scraper, an API client, a supplier or a person.
pub struct AgentNode(pub Agent);

#[Object(name = "Agent")]
impl AgentNode {
    async fn id(&self) -> Uuid {
        self.0.id
    }
    async fn principal_id(&self) -> Option<Uuid> {
        self.0.principal_id
    }
    /// The owning principal, when there is one.
    async fn principal(&self, ctx: &Context<'_>) -> Result<Option<PrincipalNode>> {
        let Some(id) = self.0.principal_id else {
            return Ok(None);
        };
        let loader = ctx.data_unchecked::<DataLoader<PrincipalLoader>>();
        Ok(loader
            .load_one(id)
            .await
            .map_err(|e| (*e).clone())?
            .map(PrincipalNode))
    }
    async fn agent_type(&self) -> AgentType {
        self.0.agent_type
    }
    async fn display_name(&self) -> &str {
        &self.0.display_name
    }
    /// Unique public handle, `^[a-z][a-z0-9_]{2,31}$`.
    async fn agent_handle(&self) -> &str {
        &self.0.agent_handle
    }
    async fn description(&self) -> Option<&str> {
        self.0.description.as_deref()
    }
    async fn status(&self) -> AgentStatus {
        self.0.status
    }
    /// 0 to 1.
    async fn score_trust(&self) -> Decimal {
        self.0.score_trust
    }
    /// 0 to 1.
    async fn score_reputation(&self) -> Decimal {
        self.0.score_reputation
    }
    async fn truth_certificate_amount_gbp(&self) -> Decimal {
        self.0.truth_certificate_amount_gbp
    }
    /// Supported entry types, source types and the like.
    async fn capabilities(&self) -> Json<&Value> {
        Json(&self.0.capabilities)
    }
    async fn metadata(&self) -> Json<&Value> {
        Json(&self.0.metadata)
    }
    async fn created_at_tstamp_utc(&self) -> DateTime<Utc> {
        self.0.created_at_tstamp_utc
    }
    async fn updated_at_tstamp_utc(&self) -> DateTime<Utc> {
        self.0.updated_at_tstamp_utc
    }
    /// Entries this agent published, newest first.
    async fn entries(
        &self,
        ctx: &Context<'_>,
        status: Option<crate::domain::EntryStatus>,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<Connection<String, super::entries::EntryNode>> {
        let (state, _) = ctx_parts(ctx);
        let after_given = after.is_some();
        let params = paging::params(first, after)?;
        let page = crate::services::entries::list(state, status, Some(self.0.id), params).await?;
        Ok(paging::connection(
            page,
            |e| e.id,
            super::entries::EntryNode,
            after_given,
        ))
    }
}

/// API key metadata; the raw key is never part of it.
pub struct ApiKeyNode(pub ApiKey);

#[Object(name = "ApiKey")]
impl ApiKeyNode {
    async fn id(&self) -> Uuid {
        self.0.id
    }
    async fn agent_id(&self) -> Uuid {
        self.0.agent_id
    }
    /// First characters of the raw key, to recognise it.
    async fn key_prefix(&self) -> &str {
        &self.0.key_prefix
    }
    async fn status(&self) -> ApiKeyStatus {
        self.0.status
    }
    async fn scopes(&self) -> &[String] {
        &self.0.scopes
    }
    async fn last_used_at_tstamp_utc(&self) -> Option<DateTime<Utc>> {
        self.0.last_used_at_tstamp_utc
    }
    async fn expires_at_tstamp_utc(&self) -> Option<DateTime<Utc>> {
        self.0.expires_at_tstamp_utc
    }
    async fn created_at_tstamp_utc(&self) -> DateTime<Utc> {
        self.0.created_at_tstamp_utc
    }
    async fn updated_at_tstamp_utc(&self) -> DateTime<Utc> {
        self.0.updated_at_tstamp_utc
    }
}

/// A new agent and its first API key. `apiKey` is shown once and never again.
#[derive(SimpleObject)]
pub struct AgentRegistration {
    pub agent: AgentNode,
    pub api_key: String,
    pub key: ApiKeyNode,
}

/// A new API key. `apiKey` is shown once and never again.
#[derive(SimpleObject)]
pub struct ApiKeyCreated {
    pub api_key: String,
    pub key: ApiKeyNode,
}

/// A short-lived access token (JWT) usable wherever an API key is.
#[derive(SimpleObject)]
pub struct AccessToken {
    pub access_token: String,
    pub token_type: String,
    pub expires_in: u64,
}

/// Fields of a new agent (the same as the REST registration body).
#[derive(InputObject)]
pub struct AgentCreateInput {
    pub principal_id: Option<Uuid>,
    pub agent_type: AgentType,
    pub display_name: String,
    pub agent_handle: Option<String>,
    pub description: Option<String>,
    pub status: Option<AgentStatus>,
    pub score_trust: Option<Decimal>,
    pub score_reputation: Option<Decimal>,
    pub truth_certificate_amount_gbp: Option<Decimal>,
    pub capabilities: Option<Json<Map<String, Value>>>,
    pub metadata: Option<Json<Map<String, Value>>>,
}

impl From<AgentCreateInput> for agents::AgentCreate {
    fn from(i: AgentCreateInput) -> Self {
        use crate::domain::DecimalInput;
        agents::AgentCreate {
            principal_id: i.principal_id,
            agent_type: i.agent_type,
            display_name: i.display_name,
            agent_handle: i.agent_handle,
            description: i.description,
            status: i.status,
            score_trust: i.score_trust.map(DecimalInput),
            score_reputation: i.score_reputation.map(DecimalInput),
            truth_certificate_amount_gbp: i.truth_certificate_amount_gbp.map(DecimalInput),
            capabilities: i.capabilities.map(|m| m.0),
            metadata: i.metadata.map(|m| m.0),
        }
    }
}

/// Options of a new API key.
#[derive(InputObject, Default)]
pub struct ApiKeyCreateInput {
    /// Defaults to ["space_time_entries:write"].
    pub scopes: Option<Vec<String>>,
    pub expires_at_tstamp_utc: Option<DateTime<Utc>>,
}

#[derive(Default)]
pub struct AgentQuery;

#[Object]
impl AgentQuery {
    /// One agent by id; null when it does not exist.
    async fn agent(&self, ctx: &Context<'_>, id: Uuid) -> Result<Option<AgentNode>> {
        let (state, _) = ctx_parts(ctx);
        super::found(agents::get(state, id).await)
            .map(|a| a.map(AgentNode))
            .map_err(Into::into)
    }

    /// Agents, newest first.
    async fn agents(
        &self,
        ctx: &Context<'_>,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<Connection<String, AgentNode>> {
        let (state, _) = ctx_parts(ctx);
        let after_given = after.is_some();
        let page = agents::list(state, paging::params(first, after)?).await?;
        Ok(paging::connection(page, |a| a.id, AgentNode, after_given))
    }

    /// The agent behind the bearer credential.
    async fn me(&self, ctx: &Context<'_>) -> Result<AgentNode> {
        let (state, rctx) = ctx_parts(ctx);
        Ok(AgentNode(agents::me(state, rctx).await?))
    }

    /// The calling agent's API keys (metadata only).
    async fn my_api_keys(&self, ctx: &Context<'_>) -> Result<Vec<ApiKeyNode>> {
        let (state, rctx) = ctx_parts(ctx);
        Ok(api_keys::list_mine(state, rctx)
            .await?
            .into_iter()
            .map(ApiKeyNode)
            .collect())
    }
}

#[derive(Default)]
pub struct AgentMutation;

#[Object]
impl AgentMutation {
    /// Creates an agent without issuing a key (same as POST /api/v1/agents).
    async fn create_agent(&self, ctx: &Context<'_>, input: AgentCreateInput) -> Result<AgentNode> {
        let (state, rctx) = ctx_parts(ctx);
        Ok(AgentNode(
            agents::create(state, rctx, input.into(), &["input"]).await?,
        ))
    }

    /// Registers an agent and issues its first API key (same as POST /api/v1/agents/register).
    async fn register_agent(
        &self,
        ctx: &Context<'_>,
        input: AgentCreateInput,
    ) -> Result<AgentRegistration> {
        let (state, rctx) = ctx_parts(ctx);
        let r = agents::register(state, rctx, input.into(), &["input"]).await?;
        Ok(AgentRegistration {
            agent: AgentNode(r.agent),
            api_key: r.api_key,
            key: ApiKeyNode(r.key),
        })
    }

    /// Issues another API key to the calling agent.
    async fn create_api_key(
        &self,
        ctx: &Context<'_>,
        input: Option<ApiKeyCreateInput>,
    ) -> Result<ApiKeyCreated> {
        let (state, rctx) = ctx_parts(ctx);
        let input = input.unwrap_or_default();
        let body = api_keys::ApiKeyCreate {
            scopes: input.scopes,
            expires_at_tstamp_utc: input.expires_at_tstamp_utc,
        };
        let created = api_keys::create_mine(state, rctx, body, &["input"]).await?;
        Ok(ApiKeyCreated {
            api_key: created.api_key,
            key: ApiKeyNode(created.key),
        })
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
        let t = tokens::create(state, rctx).await?;
        Ok(AccessToken {
            access_token: t.access_token,
            token_type: t.token_type,
            expires_in: t.expires_in,
        })
    }
}
