//! GraphQL subscriptions over WebSocket on `GET /graphql`: `graphql-transport-ws` (and the older
//! `graphql-ws`). Credentials come with the upgrade request's `Authorization` header or, as
//! browsers cannot set it, in the `connection_init` payload (`{"Authorization": "Bearer …"}`);
//! a bad credential closes the connection (4403) before any subscription starts.

use super::limits::LimitedSchema;
use super::subscriptions::SubscriptionSlots;
use crate::ctx::Ctx;
use crate::error::AppError;
use crate::rest::extract::bearer;
use crate::state::AppState;
use async_graphql::http::{
    ALL_WEBSOCKET_PROTOCOLS, WebSocket as GraphQLSocket, WebSocketProtocols, WsMessage,
};
use axum::extract::ws::{CloseFrame, Message, WebSocket};
use axum::extract::{FromRequestParts, WebSocketUpgrade};
use axum::http::request::Parts;
use axum::http::{HeaderMap, header};
use axum::response::{IntoResponse, Response};
use futures::{SinkExt, StreamExt};
use std::time::Duration;

/// A client that neither pongs nor sends within this time is disconnected.
const KEEPALIVE_TIMEOUT: Duration = Duration::from_secs(60);
/// graphql-transport-ws's close code for a refused `connection_init` (async-graphql sends 1002).
const FORBIDDEN: u16 = 4403;

pub fn is_upgrade(headers: &HeaderMap) -> bool {
    headers
        .get(header::UPGRADE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("websocket"))
}

pub async fn upgrade(
    mut parts: Parts,
    state: AppState,
    schema: LimitedSchema,
    ctx: Ctx,
) -> Result<Response, AppError> {
    let protocol = parts
        .headers
        .get(header::SEC_WEBSOCKET_PROTOCOL)
        .and_then(|value| value.to_str().ok())
        .and_then(|offered| {
            offered
                .split(',')
                .find_map(|p| p.trim().parse::<WebSocketProtocols>().ok())
        })
        .ok_or_else(|| {
            AppError::invalid(
                &["header", "sec-websocket-protocol"],
                "a GraphQL WebSocket needs the `graphql-transport-ws` (or `graphql-ws`) subprotocol",
                "missing",
            )
        })?;
    let upgrade = match WebSocketUpgrade::from_request_parts(&mut parts, &state).await {
        Ok(upgrade) => upgrade,
        Err(rejection) => return Ok(rejection.into_response()),
    };
    // The request's own permit ends with the upgrade answer; an open connection holds this one
    // until it closes, so idle sockets cannot pile up without bound.
    let slot = state.websockets.clone().try_acquire_owned().map_err(|_| {
        AppError::NotReady("too many open WebSockets on this server; retry later".into())
    })?;
    Ok(upgrade
        .protocols(ALL_WEBSOCKET_PROTOCOLS)
        .on_upgrade(move |socket| async move {
            serve(socket, schema, protocol, state, ctx).await;
            drop(slot);
        }))
}

async fn serve(
    socket: WebSocket,
    schema: LimitedSchema,
    protocol: WebSocketProtocols,
    state: AppState,
    ctx: Ctx,
) {
    let (mut sink, stream) = socket.split();
    let input = stream
        .take_while(|message| futures::future::ready(message.is_ok()))
        .filter_map(|message| {
            futures::future::ready(match message {
                Ok(Message::Text(text)) => Some(text.as_bytes().to_vec()),
                Ok(Message::Binary(bytes)) => Some(bytes.to_vec()),
                _ => None,
            })
        });
    let refused = AppError::Unauthorized.public_message();
    let mut output = std::pin::pin!(
        GraphQLSocket::new(schema, input, protocol)
            .on_connection_init(move |payload| connection_data(state, ctx, payload))
            .keepalive_timeout(KEEPALIVE_TIMEOUT)
            .map(move |message| match message {
                WsMessage::Text(text) => Message::Text(text.into()),
                WsMessage::Close(code, reason) => Message::Close(Some(CloseFrame {
                    code: if reason == refused { FORBIDDEN } else { code },
                    reason: reason.into(),
                })),
            })
    );
    while let Some(message) = output.next().await {
        if sink.send(message).await.is_err() {
            break;
        }
    }
}

/// The connection's caller (from `connection_init` when it names one), its loaders and its
/// subscription slots.
async fn connection_data(
    state: AppState,
    mut ctx: Ctx,
    payload: serde_json::Value,
) -> async_graphql::Result<async_graphql::Data> {
    let authorization = payload.as_object().and_then(|fields| {
        fields
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case("authorization"))
            .and_then(|(_, value)| value.as_str())
    });
    if let Some(authorization) = authorization {
        ctx.actor = Some(bearer(&state, authorization).await?);
    }
    let mut data = super::request_data(&state, ctx);
    data.insert(SubscriptionSlots::default());
    Ok(data)
}
