//! Principals, agents and API key metadata.

use crate::domain::{
    AgentStatus, AgentType, ApiKeyStatus, DecimalInput, MembershipStatus, PrincipalType,
};
use crate::domain::{decimal, json};
use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::FromRow;
use utoipa::ToSchema;
use uuid::Uuid;

/// A principal: a person or organisation that owns agents.
#[derive(Debug, Clone, FromRow, Serialize, ToSchema, async_graphql::SimpleObject)]
#[graphql(complex)]
pub struct Principal {
    pub id: Uuid,
    /// person, company, public_body, internal, customer or supplier.
    pub principal_type: PrincipalType,
    pub display_name: String,
    pub legal_name: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub website_url: Option<String>,
    /// Free-form metadata object.
    #[schema(value_type = Object)]
    pub metadata: Value,
    pub created_at_tstamp_utc: DateTime<Utc>,
    pub updated_at_tstamp_utc: DateTime<Utc>,
}

/// An agent: a publisher of space-time entries (a scraper, an API client, a supplier or a
/// person), as its owner and the public read endpoint see it.
#[derive(Debug, Clone, FromRow, Serialize, ToSchema, async_graphql::SimpleObject)]
#[graphql(complex)]
pub struct Agent {
    pub id: Uuid,
    pub principal_id: Option<Uuid>,
    pub agent_type: AgentType,
    pub display_name: String,
    /// Unique public handle, `^[a-z][a-z0-9_]{2,31}$`.
    pub agent_handle: String,
    pub description: Option<String>,
    pub status: AgentStatus,
    /// 0 to 1.
    pub score_trust: Decimal,
    /// 0 to 1.
    pub score_reputation: Decimal,
    /// The sum of the agent's GBP committed trust certificates, kept by the service (other
    /// currencies are not converted and do not count).
    pub truth_certificate_amount_gbp: Decimal,
    /// Supported entry types, source types and the like.
    #[schema(value_type = Object)]
    pub capabilities: Value,
    #[schema(value_type = Object)]
    pub metadata: Value,
    pub created_at_tstamp_utc: DateTime<Utc>,
    pub updated_at_tstamp_utc: DateTime<Utc>,
}

/// API key metadata; the raw key is never part of it.
#[derive(Debug, Clone, FromRow, Serialize, ToSchema, async_graphql::SimpleObject)]
pub struct ApiKey {
    pub id: Uuid,
    pub agent_id: Uuid,
    /// The first characters of the raw key, to recognise it.
    pub key_prefix: String,
    pub status: ApiKeyStatus,
    pub scopes: Vec<String>,
    pub last_used_at_tstamp_utc: Option<DateTime<Utc>>,
    pub expires_at_tstamp_utc: Option<DateTime<Utc>>,
    pub created_at_tstamp_utc: DateTime<Utc>,
    pub updated_at_tstamp_utc: DateTime<Utc>,
}

/// Body of POST /api/v1/principals and the input of `createPrincipal`.
#[derive(Debug, Deserialize, ToSchema, async_graphql::InputObject)]
#[serde(deny_unknown_fields)]
#[graphql(name = "PrincipalCreateInput")]
pub struct PrincipalCreate {
    pub principal_type: PrincipalType,
    pub display_name: String,
    #[serde(default)]
    pub legal_name: Option<String>,
    #[serde(default)]
    pub email: Option<String>,
    #[serde(default)]
    pub phone: Option<String>,
    #[serde(default)]
    pub website_url: Option<String>,
    #[serde(default, deserialize_with = "json::deserialize_object_option")]
    #[schema(value_type = Option<Object>)]
    pub metadata: Option<Value>,
}

/// Body of POST /api/v1/agents and POST /api/v1/agents/register (`AgentRegistrationCreate`), and
/// the input of `createAgent` and `registerAgent`.
#[derive(Debug, Deserialize, ToSchema, async_graphql::InputObject)]
#[serde(deny_unknown_fields)]
#[graphql(name = "AgentCreateInput")]
pub struct AgentCreate {
    #[serde(default)]
    pub principal_id: Option<Uuid>,
    pub agent_type: AgentType,
    pub display_name: String,
    /// `^[a-z][a-z0-9_]{2,31}$`; generated from display_name when absent.
    #[serde(default)]
    pub agent_handle: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub status: Option<AgentStatus>,
    #[serde(default, deserialize_with = "decimal::deserialize_option")]
    #[schema(value_type = Option<DecimalInput>)]
    pub score_trust: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal::deserialize_option")]
    #[schema(value_type = Option<DecimalInput>)]
    pub score_reputation: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal::deserialize_option")]
    /// Kept by the service as the sum of the agent's GBP certificates: omit it or send 0.
    #[schema(value_type = Option<DecimalInput>)]
    pub truth_certificate_amount_gbp: Option<Decimal>,
    #[serde(default, deserialize_with = "json::deserialize_object_option")]
    #[schema(value_type = Option<Object>)]
    pub capabilities: Option<Value>,
    #[serde(default, deserialize_with = "json::deserialize_object_option")]
    #[schema(value_type = Option<Object>)]
    pub metadata: Option<Value>,
}

/// Body of POST /api/v1/agents/me/api-keys and the input of `createApiKey`.
#[derive(Debug, Default, Deserialize, ToSchema, async_graphql::InputObject)]
#[serde(deny_unknown_fields)]
#[graphql(name = "ApiKeyCreateInput")]
pub struct ApiKeyCreate {
    /// Defaults to `["space_time_entries:write"]`. Known scopes: `space_time_entries:write`, `admin`.
    #[serde(default)]
    pub scopes: Option<Vec<String>>,
    #[serde(default)]
    pub expires_at_tstamp_utc: Option<DateTime<Utc>>,
}

/// An agent's membership of a principal. Only a granted membership lets the agent read the
/// principal's `principal_only` notes; an agent naming a principal is pending until a granted
/// member grants it (docs/agent-docs/principals.md).
#[derive(Debug, Clone, FromRow, Serialize, ToSchema, async_graphql::SimpleObject)]
pub struct PrincipalMembership {
    pub principal_id: Uuid,
    pub agent_id: Uuid,
    pub status: MembershipStatus,
    /// The member that granted it; null for the principal's first member and for pending ones.
    pub granted_by_agent_id: Option<Uuid>,
    pub created_at_tstamp_utc: DateTime<Utc>,
    pub updated_at_tstamp_utc: DateTime<Utc>,
}

/// The public metadata of an agent shown in lists: no free-form metadata, no certificate totals.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct AgentPublic {
    pub id: Uuid,
    pub principal_id: Option<Uuid>,
    pub agent_type: AgentType,
    pub display_name: String,
    pub agent_handle: String,
    pub description: Option<String>,
    pub status: AgentStatus,
    pub score_trust: Decimal,
    pub score_reputation: Decimal,
    #[schema(value_type = Object)]
    pub capabilities: Value,
    pub created_at_tstamp_utc: DateTime<Utc>,
}

impl From<Agent> for AgentPublic {
    fn from(a: Agent) -> Self {
        AgentPublic {
            id: a.id,
            principal_id: a.principal_id,
            agent_type: a.agent_type,
            display_name: a.display_name,
            agent_handle: a.agent_handle,
            description: a.description,
            status: a.status,
            score_trust: a.score_trust,
            score_reputation: a.score_reputation,
            capabilities: a.capabilities,
            created_at_tstamp_utc: a.created_at_tstamp_utc,
        }
    }
}

/// A new agent and its first API key; the raw key appears here once and never again.
#[derive(Debug, Serialize, ToSchema, async_graphql::SimpleObject)]
pub struct AgentRegistration {
    pub agent: Agent,
    /// The raw bearer key. Store it now: it cannot be shown again.
    pub api_key: String,
    pub key: ApiKey,
}

/// A new API key; the raw key appears here once and never again.
#[derive(Debug, Serialize, ToSchema, async_graphql::SimpleObject)]
pub struct ApiKeyCreated {
    /// The raw bearer key. Store it now: it cannot be shown again.
    pub api_key: String,
    pub key: ApiKey,
}

/// A short-lived access token (JWT) usable wherever an API key is.
#[derive(Debug, Serialize, ToSchema, async_graphql::SimpleObject)]
pub struct AccessToken {
    /// A signed JWT; send it as `Authorization: Bearer <access_token>`.
    pub access_token: String,
    /// Always `bearer`.
    pub token_type: String,
    /// Seconds until the token expires.
    pub expires_in: u64,
}
