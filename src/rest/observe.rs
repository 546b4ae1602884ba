//! Counts and times every request for `/metrics`, labelled by its route template.

use axum::extract::{MatchedPath, Request};
use axum::middleware::Next;
use axum::response::Response;
use std::time::Instant;

pub async fn track(request: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = request.method().clone();
    // The template, never the concrete path: ids would make one series per record.
    let route = request.extensions().get::<MatchedPath>().cloned();
    let response = next.run(request).await;
    crate::telemetry::record_request(
        method.as_str(),
        route.as_ref().map_or("unmatched", MatchedPath::as_str),
        response.status().as_u16(),
        started.elapsed(),
    );
    response
}
