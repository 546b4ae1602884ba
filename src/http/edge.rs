//! The one middleware every request passes, REST, GraphQL and MCP alike: counted for `/metrics`,
//! refused at once when the process is at capacity, given its time limit, and authenticated.
//! One layer rather than four: each axum middleware layer costs every request a clone of the
//! inner service and a boxed future (docs/bench-log/hot-paths.md).

use crate::error::AppError;
use crate::state::AppState;
use axum::extract::{MatchedPath, Request, State};
use axum::http::{Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::time::Instant;

pub async fn edge(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = request.method().clone();
    // The template, never the concrete path: ids would make one series per record.
    let route = request.extensions().get::<MatchedPath>().cloned();
    let expects_continue = request.headers().contains_key(header::EXPECT);
    let (request, body) = super::unread::track(request);
    let response = match state.permits.try_acquire() {
        Ok(_permit) => {
            if let Err(refused) = room_for(&state, &method, request.uri().path()) {
                drop(request);
                refused.into_response()
            } else {
                let limit = std::time::Duration::from_secs(state.config.request_timeout_secs);
                let answered =
                    tokio::time::timeout(limit, crate::http::authenticate(&state, request, next))
                        .await;
                match answered {
                    Ok(response) => response,
                    // The handler was still waiting for the body: the client is late, not us.
                    Err(_) if body.as_ref().is_some_and(|b| b.unfinished()) => {
                        AppError::RequestTimeout.into_response()
                    }
                    Err(_) => AppError::NotReady("the request took too long; retry later".into())
                        .into_response(),
                }
            }
        }
        // Past `STRS_MAX_CONCURRENT_REQUESTS` a request is refused rather than queued without
        // bound; the semaphore is the process's (the state's), whatever the route.
        Err(_) => {
            drop(request);
            AppError::NotReady("the server is at capacity; retry later".into()).into_response()
        }
    };
    let response = super::unread::settle(response, body, expects_continue).await;
    crate::telemetry::record_request(
        method.as_str(),
        route.as_ref().map_or("unmatched", MatchedPath::as_str),
        response.status().as_u16(),
        started.elapsed(),
    );
    response
}

/// REST writes are refused (507) while the data volume is below its free-space floor; GraphQL
/// mutations (`graphql::limits`) and MCP tools that write (`mcp::server`) check the same floor,
/// as their reads share the route of their writes.
fn room_for(state: &AppState, method: &Method, path: &str) -> Result<(), AppError> {
    let writes = !matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS);
    if writes && !path.starts_with("/graphql") && !path.starts_with("/mcp") {
        state.disk.ensure_room()
    } else {
        Ok(())
    }
}
