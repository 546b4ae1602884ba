//! /api/v1/messages (bearer on every route).

use super::Created;
use super::paging::Pager;
use crate::error::AppError;
use crate::http::Json;
use crate::http::{Auth, UuidPath, ValidJson, ValidQuery};
use crate::http::{ErrorBody, ValidationErrorBody};
use crate::records::messages::{Message, MessageCreate};
use crate::services::messages;
use crate::state::AppState;
use axum::extract::State;
use axum::response::Response;
use serde::Deserialize;
use uuid::Uuid;

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct MessageQuery {
    /// Only the conversation with this agent (messages sent to it or received from it).
    pub counterparty_agent_id: Option<Uuid>,
    /// Only received messages not read yet. Default false.
    #[serde(default)]
    pub unread_only: bool,
    /// 1 to 500, default 100.
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<i64>,
    /// Where the page starts: the `X-Next-Cursor` of the page before.
    pub after: Option<String>,
}

#[utoipa::path(post, path = "/api/v1/messages", tag = "messages", security(("bearer" = [])),
    request_body = MessageCreate,
    responses((status = 201, description = "The message sent", body = Message), (status = 401, body = ErrorBody),
              (status = 403, description = "The agent is paused", body = ErrorBody), (status = 413, body = ErrorBody),
              (status = 415, body = ErrorBody), (status = 422, body = ValidationErrorBody),
              (status = 429, description = "Hourly send quota used up; see Retry-After", body = ErrorBody)))]
pub async fn send_message(
    State(state): State<AppState>,
    Auth(ctx): Auth,
    ValidJson(body): ValidJson<MessageCreate>,
) -> Result<Created<Message>, AppError> {
    messages::send(&state, &ctx, body, &["body"])
        .await
        .map(Created)
}

#[utoipa::path(get, path = "/api/v1/messages", tag = "messages", security(("bearer" = [])),
    params(MessageQuery),
    responses((status = 200, description = "Messages the caller sent or received, newest first", body = Vec<Message>),
              (status = 401, body = ErrorBody), (status = 422, body = ValidationErrorBody)))]
pub async fn list_messages(
    State(state): State<AppState>,
    Auth(ctx): Auth,
    pager: Pager,
    ValidQuery(q): ValidQuery<MessageQuery>,
) -> Result<Response, AppError> {
    let params = pager.params(q.limit, q.after.as_deref())?;
    let selection = messages::MessageSelection {
        counterparty: q.counterparty_agent_id,
        unread_only: q.unread_only,
        ..Default::default()
    };
    let page = messages::list(&state, &ctx, selection, params).await?;
    Ok(pager.json(page, |m| m.id))
}

#[utoipa::path(get, path = "/api/v1/messages/{message_id}", tag = "messages", security(("bearer" = [])),
    params(("message_id" = Uuid, Path)),
    responses((status = 200, description = "The message", body = Message), (status = 401, body = ErrorBody),
              (status = 404, description = "No such message, or the caller is neither its sender nor its recipient", body = ErrorBody),
              (status = 422, body = ValidationErrorBody)))]
pub async fn get_message(
    State(state): State<AppState>,
    Auth(ctx): Auth,
    UuidPath(id): UuidPath,
) -> Result<Json<Message>, AppError> {
    messages::get(&state, &ctx, id).await.map(Json)
}

#[utoipa::path(patch, path = "/api/v1/messages/{message_id}/read", tag = "messages", operation_id = "mark_message_read", security(("bearer" = [])),
    params(("message_id" = Uuid, Path)),
    responses((status = 200, description = "The message with read_at_tstamp_utc set (kept from the first call)", body = Message),
              (status = 401, body = ErrorBody),
              (status = 404, description = "No such message received by the caller", body = ErrorBody),
              (status = 422, body = ValidationErrorBody)))]
pub async fn mark_read(
    State(state): State<AppState>,
    Auth(ctx): Auth,
    UuidPath(id): UuidPath,
) -> Result<Json<Message>, AppError> {
    messages::mark_read(&state, &ctx, id).await.map(Json)
}
