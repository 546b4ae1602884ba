//! /health and /ready

use crate::error::AppError;
use crate::http::Json;
use crate::services::health;
use crate::state::AppState;
use axum::extract::State;
use std::collections::BTreeMap;

#[utoipa::path(get, path = "/health", tag = "status",
    responses((status = 200, description = "The process is up", body = BTreeMap<String, String>)))]
pub async fn get_health() -> Json<BTreeMap<String, String>> {
    Json(health::health())
}

#[utoipa::path(get, path = "/ready", tag = "status",
    responses((status = 200, description = "Database reachable, migrations applied", body = BTreeMap<String, String>),
              (status = 503, description = "Not ready", body = super::ErrorBody)))]
pub async fn get_ready(
    State(state): State<AppState>,
) -> Result<Json<BTreeMap<String, String>>, AppError> {
    health::ready(&state).await.map(Json)
}

/// Prometheus text exposition of this process: requests per route and status, latency
/// histograms, pool use, replica lag and rotation, transformer throughput and backlog. Each
/// process answers for itself; scrape every process.
#[utoipa::path(get, path = "/metrics", tag = "status",
    responses((status = 200, description = "Prometheus text format, version 0.0.4", body = String,
               content_type = "text/plain")))]
pub async fn get_metrics(State(state): State<AppState>) -> impl axum::response::IntoResponse {
    (
        [(
            axum::http::header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        crate::services::metrics::render(&state).await,
    )
}
