//! Principal type, queries and mutations.

use crate::graphql::machinery::context::ctx_parts;
use crate::graphql::machinery::paging;
use crate::graphql::machinery::totals::{Counter, Total};
use crate::records::agents::{Agent, Principal, PrincipalCreate, PrincipalMembership};
use crate::services::{agents, principals};
use async_graphql::connection::Connection;
use async_graphql::{ComplexObject, Context, Object, Result};
use uuid::Uuid;

/// Graph edges of a principal.
#[ComplexObject]
impl Principal {
    /// Agents owned by this principal, newest first.
    #[graphql(complexity = "crate::graphql::machinery::limits::page_cost(first, child_complexity)")]
    async fn agents(
        &self,
        ctx: &Context<'_>,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<Connection<String, std::sync::Arc<Agent>, Total>> {
        let (state, _) = ctx_parts(ctx);
        let after_given = after.is_some();
        let page = agents::list_by_principal(state, self.id, paging::params(first, after)?).await?;
        let counter = Counter::AgentsOf(self.id);
        Ok(paging::counted(
            page,
            |a| a.id,
            std::sync::Arc::new,
            after_given,
            counter,
        ))
    }
    /// Memberships of this principal, granted and pending, newest agent first; only its granted
    /// members may read them (same as GET /api/v1/principals/{principal_id}/members).
    #[graphql(complexity = "crate::graphql::machinery::limits::page_cost(first, child_complexity)")]
    async fn memberships(
        &self,
        ctx: &Context<'_>,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<Connection<String, PrincipalMembership>> {
        let (state, rctx) = ctx_parts(ctx);
        let after_given = after.is_some();
        let page =
            principals::memberships(state, rctx, self.id, paging::params(first, after)?).await?;
        Ok(paging::connection(page, |m| m.agent_id, |m| m, after_given))
    }
}

#[derive(Default)]
pub struct PrincipalQuery;

#[Object]
impl PrincipalQuery {
    /// One principal by id; null when it does not exist.
    async fn principal(&self, ctx: &Context<'_>, id: Uuid) -> Result<Option<Principal>> {
        let (state, _) = ctx_parts(ctx);
        crate::graphql::machinery::context::found(principals::get(state, id).await)
            .map_err(Into::into)
    }

    /// Principals, newest first.
    #[graphql(complexity = "crate::graphql::machinery::limits::page_cost(first, child_complexity)")]
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
        input: PrincipalCreate,
    ) -> Result<Principal> {
        let (state, rctx) = ctx_parts(ctx);
        Ok(principals::create(state, rctx, input, &["input"]).await?)
    }

    /// Grants an agent's pending membership of a principal (a granted member only; same as
    /// POST /api/v1/principals/{principal_id}/members/{agent_id}/grant).
    async fn grant_principal_membership(
        &self,
        ctx: &Context<'_>,
        principal_id: Uuid,
        agent_id: Uuid,
    ) -> Result<PrincipalMembership> {
        let (state, rctx) = ctx_parts(ctx);
        Ok(principals::grant(state, rctx, principal_id, agent_id).await?)
    }
}
