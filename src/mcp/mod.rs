//! The Model Context Protocol endpoint at `/mcp/`: streamable HTTP (rmcp), stateless, JSON
//! answers, the same bearer authentication as REST. Tools call the same service functions as the
//! REST handlers and GraphQL resolvers; the agent docs and rubrics are resources.

mod completion;
mod logging;
mod prompts;
mod resources;
mod schema;
mod server;
mod tools;

use crate::error::AppError;
use crate::state::AppState;
use axum::Router;
use axum::extract::{Request, State};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use std::sync::Arc;

/// Every MCP request must carry a valid bearer (API key or access token); the caller's `Ctx`
/// travels to the tools in the request's extensions.
async fn require_agent(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let (mut parts, body) = req.into_parts();
    let ctx = match crate::http::context(&parts, &state).await {
        Ok(ctx) if ctx.actor.is_some() => ctx,
        Ok(_) => return AppError::Unauthorized.into_response(),
        Err(e) => return e.into_response(),
    };
    parts.extensions.insert(ctx);
    next.run(Request::from_parts(parts, body)).await
}

/// Browser origins let in: the configured ones, and the loopback ones when the server listens on
/// a loopback address (a page on the same machine talking to a local server is what DNS-rebinding
/// protection lets through; a foreign origin, such as a rebound `evil.example`, stays refused).
/// A server bound to a public address accepts only the origins it lists.
fn allowed_origins(config: &crate::config::Config) -> Vec<String> {
    let mut origins = config.mcp_allowed_origins.clone();
    if config.bind.ip().is_loopback() {
        for scheme in ["http", "https"] {
            for host in ["localhost", "127.0.0.1", "[::1]"] {
                origins.push(format!("{scheme}://{host}:*"));
            }
        }
    }
    origins
}

/// `/mcp` and `/mcp/`, authenticated, as a router to merge into the application.
pub fn router<S: Clone + Send + Sync + 'static>(
    state: AppState,
    api: &utoipa::openapi::OpenApi,
) -> Router<S> {
    let config = StreamableHttpServerConfig::default()
        // Stateless: no session lives in one process, so any process of a fleet answers.
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_sse_keep_alive(None)
        .with_max_request_body_bytes(state.config.max_body_bytes)
        .with_allowed_hosts(state.config.mcp_allowed_hosts.clone())
        .with_allowed_origins(allowed_origins(&state.config))
        .enforce_origin_validation();
    let catalogue = Arc::new(tools::catalogue(&schema::Schemas::of_document(api)));
    let for_factory = state.clone();
    let service = StreamableHttpService::new(
        move || {
            Ok(server::McpServer::new(
                for_factory.clone(),
                catalogue.clone(),
            ))
        },
        Arc::new(NeverSessionManager::default()),
        config,
    );
    Router::new()
        .route_service("/mcp", service.clone())
        .route_service("/mcp/", service)
        .layer(middleware::from_fn_with_state(state, require_agent))
}
