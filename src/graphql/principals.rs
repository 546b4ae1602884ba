//! Principal type, queries and mutations.

use super::{ctx_parts, paging};
use crate::domain::PrincipalType;
use crate::records::agents::{Agent, Principal};
use crate::services::{agents, principals};
use async_graphql::connection::Connection;
use async_graphql::{ComplexObject, Context, InputObject, Json, Object, Result};
use serde_json::{Map, Value};
use uuid::Uuid;

/// Graph edges of a principal.
#[ComplexObject]
impl Principal {
    /// Agents owned by this principal, newest first.
    async fn agents(
        &self,
        ctx: &Context<'_>,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<Connection<String, Agent>> {
        let (state, _) = ctx_parts(ctx);
        let after_given = after.is_some();
        let page = agents::list_by_principal(state, self.id, paging::params(first, after)?).await?;
        Ok(paging::connection(page, |a| a.id, |a| a, after_given))
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
    async fn principal(&self, ctx: &Context<'_>, id: Uuid) -> Result<Option<Principal>> {
        let (state, _) = ctx_parts(ctx);
        super::found(principals::get(state, id).await).map_err(Into::into)
    }

    /// Principals, newest first.
    async fn principals(
        &self,
        ctx: &Context<'_>,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<Connection<String, Principal>> {
        let (state, _) = ctx_parts(ctx);
        let after_given = after.is_some();
        let page = principals::list(state, paging::params(first, after)?).await?;
        Ok(paging::connection(page, |p| p.id, |p| p, after_given))
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
    ) -> Result<Principal> {
        let (state, rctx) = ctx_parts(ctx);
        Ok(principals::create(state, rctx, input.into(), &["input"]).await?)
    }
}
