//! CORS for the public read surface, so that a web map or notebook on another origin can read
//! it: the tiles and TileJSON, search, OGC API Features, the bulk exports, GraphQL, the landing
//! page and the OpenAPI document. Origins come from `STRS_CORS_ORIGINS` (`*` by default). Credentials are
//! never allowed and `Authorization` is not among the allowed request headers: what a page on
//! another origin can do here is read what anyone can read. Every other route answers without
//! CORS headers, so browsers keep other origins away from the writing API.

use crate::config::Config;
use axum::extract::{Request, State};
use axum::http::{HeaderName, Method, header};
use axum::middleware::Next;
use axum::response::Response;
use std::sync::Arc;
use std::time::Duration;
use tower::{Layer, ServiceExt};
use tower_http::cors::{AllowOrigin, CorsLayer};

/// How long a browser may cache a preflight answer.
const PREFLIGHT_MAX_AGE: Duration = Duration::from_secs(3600);

/// The routes a page on another origin may call.
pub fn is_public_read(path: &str) -> bool {
    matches!(
        path,
        "/" | "/openapi.json" | "/graphql" | "/api/v1/search" | "/conformance" | "/collections"
    ) || path.starts_with("/collections/")
        || path.starts_with("/tiles/")
        || path.starts_with("/api/v1/exports/")
}

/// The configured policy; `None` when `STRS_CORS_ORIGINS` is empty. Shared: the middleware's
/// state is cloned for every request, and a `CorsLayer` clone copies its header lists.
pub fn policy(config: &Config) -> Option<Arc<CorsLayer>> {
    let origins: Vec<&str> = config
        .cors_origins
        .iter()
        .map(|o| o.trim())
        .filter(|o| !o.is_empty())
        .collect();
    if origins.is_empty() {
        return None;
    }
    let allow = if origins.contains(&"*") {
        AllowOrigin::any()
    } else {
        // `Config::validate` has checked that each parses.
        AllowOrigin::list(origins.iter().filter_map(|o| o.parse().ok()))
    };
    Some(Arc::new(
        CorsLayer::new()
            .allow_origin(allow)
            .allow_methods([Method::GET, Method::HEAD, Method::POST])
            .allow_headers([
                header::CONTENT_TYPE,
                header::ACCEPT,
                HeaderName::from_static("x-request-id"),
            ])
            .expose_headers([
                HeaderName::from_static("x-request-id"),
                header::CONTENT_LOCATION,
                header::RETRY_AFTER,
            ])
            .max_age(PREFLIGHT_MAX_AGE),
    ))
}

/// Applies the policy to the public read routes only. Outside the edge middleware, so that a
/// preflight is answered at once and an error answer (503, 429) still carries the headers a
/// browser needs to show it to the page.
pub async fn cors(
    State(policy): State<Option<Arc<CorsLayer>>>,
    request: Request,
    next: Next,
) -> Response {
    match policy {
        Some(policy) if is_public_read(request.uri().path()) => {
            match policy.layer(next).oneshot(request).await {
                Ok(response) => response,
                Err(never) => match never {},
            }
        }
        _ => next.run(request).await,
    }
}
