//! Principal type, queries and mutations.

use super::{AgentNode, ctx_parts, paging};
use crate::db::principals::Principal;
use crate::domain::PrincipalType;
use crate::services::{agents, principals};
use async_graphql::connection::Connection;
use async_graphql::{Context, InputObject, Json, Object, Result};
use chrono::{DateTime, Utc};
use serde_json::{Map, Value};
use uuid::Uuid;

/// A person or organisation that owns agents.
pub struct PrincipalNode(pub Principal);

#[Object(name = "Principal")]
impl PrincipalNode {
    async fn id(&self) -> Uuid {
        self.0.id
    }
    /// person, company, public_body, internal, customer or supplier.
    async fn principal_type(&self) -> PrincipalType {
        self.0.principal_type
    }
    async fn display_name(&self) -> &str {
        &self.0.display_name
    }
    async fn legal_name(&self) -> Option<&str> {
        self.0.legal_name.as_deref()
    }
    async fn email(&self) -> Option<&str> {
        self.0.email.as_deref()
    }
    async fn phone(&self) -> Option<&str> {
        self.0.phone.as_deref()
    }
    async fn website_url(&self) -> Option<&str> {
        self.0.website_url.as_deref()
    }
    /// Free-form metadata object.
    async fn metadata(&self) -> Json<&Value> {
        Json(&self.0.metadata)
    }
    async fn created_at_tstamp_utc(&self) -> DateTime<Utc> {
        self.0.created_at_tstamp_utc
    }
    async fn updated_at_tstamp_utc(&self) -> DateTime<Utc> {
        self.0.updated_at_tstamp_utc
    }
    /// Agents owned by this principal, newest first.
    async fn agents(
        &self,
        ctx: &Context<'_>,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<Connection<String, AgentNode>> {
        let (state, _) = ctx_parts(ctx);
        let after_given = after.is_some();
        let page =
            agents::list_by_principal(state, self.0.id, paging::params(first, after)?).await?;
        Ok(paging::connection(page, |a| a.id, AgentNode, after_given))
    }
}

/// Fields of a new principal.
#[derive(InputObject)]
pub struct PrincipalCreateInput {
    pub principal_type: PrincipalType,
    pub display_name: String,
    pub legal_name: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub website_url: Option<String>,
    pub metadata: Option<Json<Map<String, Value>>>,
}

impl From<PrincipalCreateInput> for principals::PrincipalCreate {
    fn from(i: PrincipalCreateInput) -> Self {
        principals::PrincipalCreate {
            principal_type: i.principal_type,
            display_name: i.display_name,
            legal_name: i.legal_name,
            email: i.email,
            phone: i.phone,
            website_url: i.website_url,
            metadata: i.metadata.map(|m| m.0),
        }
    }
}

#[derive(Default)]
pub struct PrincipalQuery;

#[Object]
impl PrincipalQuery {
    /// One principal by id; null when it does not exist.
    async fn principal(&self, ctx: &Context<'_>, id: Uuid) -> Result<Option<PrincipalNode>> {
        let (state, _) = ctx_parts(ctx);
        super::found(principals::get(state, id).await)
            .map(|p| p.map(PrincipalNode))
            .map_err(Into::into)
    }

    /// Principals, newest first.
    async fn principals(
        &self,
        ctx: &Context<'_>,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<Connection<String, PrincipalNode>> {
        let (state, _) = ctx_parts(ctx);
        let after_given = after.is_some();
        let page = principals::list(state, paging::params(first, after)?).await?;
        Ok(paging::connection(
            page,
            |p| p.id,
            PrincipalNode,
            after_given,
        ))
    }
}

#[derive(Default)]
pub struct PrincipalMutation;

#[Object]
impl PrincipalMutation {
    /// Creates a principal (same as POST /api/v1/principals).
    async fn create_principal(
        &self,
        ctx: &Context<'_>,
        input: PrincipalCreateInput,
    ) -> Result<PrincipalNode> {
        let (state, rctx) = ctx_parts(ctx);
        Ok(PrincipalNode(
            principals::create(state, rctx, input.into(), &["input"]).await?,
        ))
    }
}
