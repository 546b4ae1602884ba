//! Private messages on the graph: only the caller's own are ever shown.

use super::canonical::load_agent;
use crate::graphql::machinery::context::ctx_parts;
use crate::graphql::machinery::dealing_loaders::{MessageLoader, load_one};
use crate::graphql::machinery::paging;
use crate::graphql::machinery::totals::{Counter, Total};
use crate::records::agents::Agent;
use crate::records::messages::{Message, MessageCreate};
use crate::services::messages::{self, Direction, MessageSelection};
use async_graphql::connection::Connection;
use async_graphql::{ComplexObject, Context, Object, Result};
use std::sync::Arc;
use uuid::Uuid;

#[ComplexObject]
impl Message {
    async fn sender(&self, ctx: &Context<'_>) -> Result<Option<Arc<Agent>>> {
        load_agent(ctx, Some(self.sender_agent_id)).await
    }
    async fn recipient(&self, ctx: &Context<'_>) -> Result<Option<Arc<Agent>>> {
        load_agent(ctx, Some(self.recipient_agent_id)).await
    }
    /// The message this one answers (null when there is none).
    async fn reply_to(&self, ctx: &Context<'_>) -> Result<Option<Message>> {
        match self.reply_to_message_id {
            Some(id) => load_one::<MessageLoader>(ctx, id).await,
            None => Ok(None),
        }
    }
}

/// The caller's messages as a connection (shared by the root fields and the agent edges).
pub(super) async fn connection(
    ctx: &Context<'_>,
    selection: MessageSelection,
    first: Option<i32>,
    after: Option<String>,
) -> Result<Connection<String, Message, Total>> {
    let (state, rctx) = ctx_parts(ctx);
    let after_given = after.is_some();
    let params = paging::params(first, after)?;
    let page = messages::list(state, rctx, selection, params).await?;
    let counter = Counter::Messages(selection);
    Ok(paging::counted(page, |m| m.id, |m| m, after_given, counter))
}

/// An agent's messages, for the agent itself only (null for anyone else).
pub(super) async fn own_messages(
    ctx: &Context<'_>,
    agent: &Agent,
    selection: MessageSelection,
    first: Option<i32>,
    after: Option<String>,
) -> Result<Option<Connection<String, Message, Total>>> {
    let (_, rctx) = ctx_parts(ctx);
    if rctx.actor.as_ref().map(|a| a.agent_id) != Some(agent.id) {
        return Ok(None);
    }
    connection(ctx, selection, first, after).await.map(Some)
}

#[derive(Default)]
pub struct MessageQuery;

#[Object]
impl MessageQuery {
    /// A message the caller sent or received; null otherwise. Needs a bearer.
    async fn message(&self, ctx: &Context<'_>, id: Uuid) -> Result<Option<Message>> {
        let (state, rctx) = ctx_parts(ctx);
        crate::graphql::machinery::context::found(messages::get(state, rctx, id).await)
            .map_err(Into::into)
    }

    /// The caller's messages, sent and received, newest first. Needs a bearer.
    #[graphql(complexity = "crate::graphql::machinery::limits::page_cost(first, child_complexity)")]
    async fn messages(
        &self,
        ctx: &Context<'_>,
        counterparty_agent_id: Option<Uuid>,
        #[graphql(default = false)] unread_only: bool,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<Connection<String, Message, Total>> {
        let selection = MessageSelection {
            counterparty: counterparty_agent_id,
            unread_only,
            direction: Direction::Both,
        };
        connection(ctx, selection, first, after).await
    }

    /// The caller's conversation with one agent, newest first. Needs a bearer.
    #[graphql(complexity = "crate::graphql::machinery::limits::page_cost(first, child_complexity)")]
    async fn conversation(
        &self,
        ctx: &Context<'_>,
        counterparty_id: Uuid,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<Connection<String, Message, Total>> {
        let selection = MessageSelection {
            counterparty: Some(counterparty_id),
            ..Default::default()
        };
        connection(ctx, selection, first, after).await
    }

    /// Messages the caller received and has not read (counted up to 10000). Needs a bearer.
    async fn unread_count(&self, ctx: &Context<'_>) -> Result<i64> {
        let (state, rctx) = ctx_parts(ctx);
        Ok(messages::unread_count(state, rctx).await?)
    }
}

#[derive(Default)]
pub struct MessageMutation;

#[Object]
impl MessageMutation {
    /// Sends a private message from the caller's agent (same rules and quota as POST /api/v1/messages).
    async fn send_message(&self, ctx: &Context<'_>, input: MessageCreate) -> Result<Message> {
        let (state, rctx) = ctx_parts(ctx);
        Ok(messages::send(state, rctx, input, &["input"]).await?)
    }

    /// Marks a received message read; a second call keeps the first read time.
    async fn mark_message_read(&self, ctx: &Context<'_>, id: Uuid) -> Result<Message> {
        let (state, rctx) = ctx_parts(ctx);
        Ok(messages::mark_read(state, rctx, id).await?)
    }
}
