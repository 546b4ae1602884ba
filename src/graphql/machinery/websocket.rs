//! GraphQL subscriptions over WebSocket on `GET /graphql`: `graphql-transport-ws` (and the older
//! `graphql-ws`). Credentials come with the upgrade request's `Authorization` header or, as
//! browsers cannot set it, in the `connection_init` payload (`{"Authorization": "Bearer …"}`);
//! a bad credential closes the connection (4403) before any subscription starts. The credential
//! is checked again every `STRS_WS_RECHECK_SECS`: once revoked or expired, it closes the
//! connection (4403) with every subscription on it.

use super::limits::LimitedSchema;
use crate::ctx::Ctx;
use crate::error::AppError;
use crate::http::bearer;
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
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// A client that neither pongs nor sends within this time is disconnected.
const KEEPALIVE_TIMEOUT: Duration = Duration::from_secs(60);
/// graphql-transport-ws's close code for a refused `connection_init` (async-graphql sends 1002).
const FORBIDDEN: u16 = 4403;

/// The `Authorization` value a connection authenticated with (the upgrade's header, or the one
/// `connection_init` carried), kept to check it again while the connection lives.
#[derive(Clone, Default)]
struct Credential(Arc<Mutex<Option<String>>>);

impl Credential {
    fn set(&self, authorization: &str) {
        *self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(authorization.to_owned());
    }

    fn get(&self) -> Option<String> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// False once the credential no longer authenticates; a database that cannot answer right
    /// now is no reason to drop anyone's subscriptions.
    async fn still_valid(&self, state: &AppState) -> bool {
        let Some(authorization) = self.get() else {
            return true;
        };
        !matches!(
            bearer(state, &authorization).await,
            Err(AppError::Unauthorized)
        )
    }
}

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
    let credential = Credential::default();
    if ctx.actor.is_some()
        && let Some(authorization) = parts
            .headers
            .get(header::AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
    {
        credential.set(authorization);
    }
    Ok(upgrade
        .protocols(ALL_WEBSOCKET_PROTOCOLS)
        .on_upgrade(move |socket| async move {
            serve(socket, schema, protocol, state, ctx, credential).await;
            drop(slot);
        }))
}

async fn serve(
    socket: WebSocket,
    schema: LimitedSchema,
    protocol: WebSocketProtocols,
    state: AppState,
    ctx: Ctx,
    credential: Credential,
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
    let init_state = state.clone();
    let init_credential = credential.clone();
    let mut output = std::pin::pin!(
        GraphQLSocket::new(schema, input, protocol)
            .on_connection_init(move |payload| {
                connection_data(init_state, ctx, payload, init_credential)
            })
            .keepalive_timeout(KEEPALIVE_TIMEOUT)
            .map(move |message| match message {
                WsMessage::Text(text) => Message::Text(text.into()),
                WsMessage::Close(code, reason) => Message::Close(Some(CloseFrame {
                    code: if reason == refused { FORBIDDEN } else { code },
                    reason: reason.into(),
                })),
            })
    );
    let period = Duration::from_secs(state.config.ws_recheck_secs);
    let mut recheck = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
    recheck.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let message = tokio::select! {
            message = output.next() => match message {
                Some(message) => message,
                None => break,
            },
            _ = recheck.tick() => {
                if credential.still_valid(&state).await {
                    continue;
                }
                Message::Close(Some(CloseFrame {
                    code: FORBIDDEN,
                    reason: "the credential was revoked or has expired".into(),
                }))
            }
        };
        let closing = matches!(message, Message::Close(_));
        if sink.send(message).await.is_err() || closing {
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
    credential: Credential,
) -> async_graphql::Result<async_graphql::Data> {
    let authorization = payload.as_object().and_then(|fields| {
        fields
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case("authorization"))
            .and_then(|(_, value)| value.as_str())
    });
    if let Some(authorization) = authorization {
        ctx.actor = Some(bearer(&state, authorization).await?);
        credential.set(authorization);
    }
    let mut data = super::context::request_data(&state, ctx);
    data.insert(SubscriptionSlots::default());
    Ok(data)
}

/// The subscriptions one connection may still open (`MAX_SUBSCRIPTIONS_PER_CONNECTION` in all).
#[derive(Clone)]
pub struct SubscriptionSlots(Arc<Semaphore>);

impl Default for SubscriptionSlots {
    fn default() -> Self {
        SubscriptionSlots(Arc::new(Semaphore::new(
            crate::services::events::MAX_SUBSCRIPTIONS_PER_CONNECTION,
        )))
    }
}

impl SubscriptionSlots {
    /// One slot for as long as the permit lives; `None` when all are taken.
    pub fn take(&self) -> Option<OwnedSemaphorePermit> {
        self.0.clone().try_acquire_owned().ok()
    }
}
