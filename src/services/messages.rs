//! Private messages: the sender is the caller; only the sender and the recipient ever read one.

use super::notes::check_target;
use crate::ctx::Ctx;
use crate::db::messages::{self as db, MessageFilter, NewMessage};
use crate::domain::{ListParams, Page, Violations};
use crate::error::{AppError, AppResult};
use crate::records::messages::{Message, MessageCreate};
use crate::state::AppState;
use serde_json::Value;
use uuid::Uuid;

pub const MAX_CONTENT_CHARS: usize = 65_536;
pub const MAX_ATTACHMENTS: usize = 20;
pub const MAX_ATTACHMENTS_JSON_BYTES: usize = 16 * 1024;
/// Room for the longest content (4 bytes a character in UTF-8), the attachments and the rest.
pub const MAX_BODY_BYTES: usize = MAX_CONTENT_CHARS * 4 + 2 * MAX_ATTACHMENTS_JSON_BYTES;
/// Unread counts stop counting here, so the count stays an index probe.
pub const UNREAD_COUNT_CAP: i64 = 10_000;
const QUOTA_WINDOW_SECS: i64 = 3_600;

fn at<'a>(loc: &[&'a str], field: &'a str) -> Vec<&'a str> {
    loc.iter().copied().chain([field]).collect()
}

fn validate(input: &MessageCreate, sender: Uuid, loc: &[&str]) -> AppResult<()> {
    let mut v = Violations::at(loc);
    let chars = input.message_content.chars().count();
    v.check(
        (1..=MAX_CONTENT_CHARS).contains(&chars) && !input.message_content.trim().is_empty(),
        "message_content",
        &format!("must be between 1 and {MAX_CONTENT_CHARS} characters, not only white space"),
        "string_length",
    );
    v.check(
        input.recipient_agent_id != sender,
        "recipient_agent_id",
        "you cannot send a message to yourself",
        "value_error",
    );
    let target = [
        input.target_schema.is_some(),
        input.target_table.is_some(),
        input.target_id.is_some(),
    ];
    v.check(
        target.iter().all(|t| *t) || target.iter().all(|t| !*t),
        "target_id",
        "target_schema, target_table and target_id go together: send all three or none",
        "value_error",
    );
    if let Some(attachments) = &input.attachments {
        v.check(
            attachments.len() <= MAX_ATTACHMENTS,
            "attachments",
            &format!("at most {MAX_ATTACHMENTS} attachments"),
            "too_long",
        );
        for (i, item) in attachments.iter().enumerate() {
            if !item.is_object() {
                v.push(
                    &format!("attachments.{i}"),
                    "must be an object",
                    "object_type",
                );
            }
        }
        let size = serde_json::to_vec(attachments).map_or(usize::MAX, |b| b.len());
        v.check(
            size <= MAX_ATTACHMENTS_JSON_BYTES,
            "attachments",
            &format!("at most {MAX_ATTACHMENTS_JSON_BYTES} bytes of JSON together"),
            "too_long",
        );
    }
    v.into_result()
}

/// A per-agent hourly quota shared by every server process (a fixed window in PostgreSQL).
async fn check_quota(state: &AppState, sender: Uuid) -> AppResult<()> {
    let bucket = format!("messages:{sender}");
    let (sent, seconds_left) =
        crate::db::rate_limits::hit(&state.pool, &bucket, QUOTA_WINDOW_SECS).await?;
    if sent > state.config.messages_per_hour {
        return Err(AppError::RateLimited {
            retry_after_secs: seconds_left as u64,
        });
    }
    Ok(())
}

#[tracing::instrument(name = "messages::send", level = "debug", skip_all)]
pub async fn send(
    state: &AppState,
    ctx: &Ctx,
    input: MessageCreate,
    loc: &[&str],
) -> AppResult<Message> {
    let sender = ctx.require_active_agent()?.agent_id;
    validate(&input, sender, loc)?;
    check_quota(state, sender).await?;
    let mut tx = state.pool.begin().await?;
    if crate::db::agents::existing_ids(&mut tx, &[input.recipient_agent_id])
        .await?
        .is_empty()
    {
        return Err(AppError::invalid(
            &at(loc, "recipient_agent_id"),
            "no such agent",
            "not_found",
        ));
    }
    if let Some(reply_to) = input.reply_to_message_id
        && db::get_many_visible(&mut *tx, &[reply_to], sender)
            .await?
            .is_empty()
    {
        return Err(AppError::invalid(
            &at(loc, "reply_to_message_id"),
            "no such message among those you sent or received",
            "not_found",
        ));
    }
    let target = match (input.target_schema, input.target_table, input.target_id) {
        (Some(schema), Some(table), Some(id)) => {
            check_target(&mut tx, &schema, &table, id, loc).await?;
            Some((schema, table, id))
        }
        _ => None,
    };
    let message = db::insert(
        &mut tx,
        &NewMessage {
            sender_agent_id: sender,
            recipient_agent_id: input.recipient_agent_id,
            reply_to_message_id: input.reply_to_message_id,
            target,
            message_content: input.message_content,
            attachments: Value::Array(input.attachments.unwrap_or_default()),
        },
    )
    .await?;
    tx.commit().await?;
    Ok(message)
}

/// A message the caller sent or received; anyone else gets 404, as for a message that does not exist.
#[tracing::instrument(name = "messages::get", level = "debug", skip_all, fields(id = %id))]
pub async fn get(state: &AppState, ctx: &Ctx, id: Uuid) -> AppResult<Message> {
    let viewer = ctx.require_actor()?.agent_id;
    crate::services::read_route::read_many!(state, &[id], |m| m.id, |pool, ids| {
        db::get_many_visible(pool, ids, viewer)
    })?
    .pop()
    .ok_or(AppError::NotFound("message"))
}

/// Messages the caller sent or received among `ids` (loader batch); others are left out.
#[tracing::instrument(
    name = "messages::visible_by_ids", level = "debug", skip_all,
    fields(count = ids.len())
)]
pub async fn visible_by_ids(state: &AppState, ctx: &Ctx, ids: &[Uuid]) -> AppResult<Vec<Message>> {
    match &ctx.actor {
        Some(actor) => Ok(crate::services::read_route::read_many!(
            state,
            ids,
            |m| m.id,
            |pool, ids| db::get_many_visible(pool, ids, actor.agent_id)
        )?),
        None => Ok(Vec::new()),
    }
}

/// Which of the caller's messages a list shows.
#[derive(Debug, Clone, Copy, Default)]
pub struct MessageSelection {
    /// Only the conversation with this agent.
    pub counterparty: Option<Uuid>,
    /// Only received messages not yet read.
    pub unread_only: bool,
    pub direction: Direction,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Direction {
    #[default]
    Both,
    Sent,
    Received,
}

/// The caller's messages a selection names (a bearer is required).
pub(crate) fn filter(ctx: &Ctx, selection: MessageSelection) -> AppResult<MessageFilter> {
    Ok(MessageFilter {
        viewer: ctx.require_actor()?.agent_id,
        counterparty: selection.counterparty,
        unread_only: selection.unread_only,
        sent: selection.direction != Direction::Received,
        received: selection.direction != Direction::Sent,
    })
}

/// The caller's messages, newest first.
#[tracing::instrument(name = "messages::list", level = "debug", skip_all)]
pub async fn list(
    state: &AppState,
    ctx: &Ctx,
    selection: MessageSelection,
    params: ListParams,
) -> AppResult<Page<Message>> {
    let filter = filter(ctx, selection)?;
    Ok(Page::from_rows(
        db::list(crate::services::read_route::reads(state), &filter, &params).await?,
        &params,
    ))
}

/// Sets `read_at_tstamp_utc` once; only the recipient may (404 for anyone else).
#[tracing::instrument(name = "messages::mark_read", level = "debug", skip_all, fields(id = %id))]
pub async fn mark_read(state: &AppState, ctx: &Ctx, id: Uuid) -> AppResult<Message> {
    let recipient = ctx.require_actor()?.agent_id;
    db::mark_read(&state.pool, id, recipient)
        .await?
        .ok_or(AppError::NotFound("message"))
}

/// Unread received messages of the caller, counted up to `UNREAD_COUNT_CAP`.
#[tracing::instrument(name = "messages::unread_count", level = "debug", skip_all)]
pub async fn unread_count(state: &AppState, ctx: &Ctx) -> AppResult<i64> {
    let agent = ctx.require_actor()?.agent_id;
    Ok(db::unread_count(
        crate::services::read_route::reads(state),
        agent,
        UNREAD_COUNT_CAP,
    )
    .await?)
}
