//! The one middleware every request passes, REST, GraphQL and MCP alike: counted for `/metrics`,
//! refused at once when the process is at capacity, given its time limit, and authenticated.
//! One layer rather than four: each axum middleware layer costs every request a clone of the
//! inner service and a boxed future (docs/benchmarks.md).

use crate::error::AppError;
use crate::state::AppState;
use axum::extract::{MatchedPath, Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::time::Instant;

pub async fn edge(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = request.method().clone();
    // The template, never the concrete path: ids would make one series per record.
    let route = request.extensions().get::<MatchedPath>().cloned();
    let response = match state.permits.try_acquire() {
        Ok(_permit) => {
            let limit = std::time::Duration::from_secs(state.config.request_timeout_secs);
            match tokio::time::timeout(limit, super::extract::authenticate(&state, request, next))
                .await
            {
                Ok(response) => response,
                Err(_) => AppError::NotReady("the request took too long; retry later".into())
                    .into_response(),
            }
        }
        // Past `STRS_MAX_CONCURRENT_REQUESTS` a request is refused rather than queued without
        // bound; the semaphore is the process's (the state's), whatever the route.
        Err(_) => {
            AppError::NotReady("the server is at capacity; retry later".into()).into_response()
        }
    };
    crate::telemetry::record_request(
        method.as_str(),
        route.as_ref().map_or("unmatched", MatchedPath::as_str),
        response.status().as_u16(),
        started.elapsed(),
    );
    response
}
