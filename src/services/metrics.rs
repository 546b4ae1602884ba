//! The Prometheus exposition of this process (`GET /metrics`): its own counters and histograms
//! (`telemetry`), plus gauges of shared state measured now.

use crate::state::AppState;
use crate::telemetry;

/// The transformer backlog is counted up to this many entries, so a scrape stays cheap whatever
/// the backlog.
const BACKLOG_COUNT_CAP: i64 = 1_000_000;

#[tracing::instrument(name = "metrics::render", level = "debug", skip_all)]
pub async fn render(state: &AppState) -> String {
    let handle = telemetry::handle();
    let primary = state.pool.options().get_max_connections() as usize;
    pool_gauges(
        "primary",
        "primary",
        (state.pool.size() as usize, state.pool.num_idle(), primary),
    );
    pool_gauges("primary_lean", "primary", state.lean.general.usage());
    pool_gauges("primary_search", "primary", state.lean.searches.usage());
    for (name, pools) in state.replicas.pools() {
        pool_gauges("replica_lean", name, pools.general.usage());
        pool_gauges("replica_search", name, pools.searches.usage());
    }
    for (name, health) in state.replicas.health() {
        let labels = [("server", name.to_string())];
        metrics::gauge!(telemetry::REPLICA_LAG, &labels).set(health.lag_seconds);
        metrics::gauge!(telemetry::REPLICA_LAG_BYTES, &labels).set(health.lag_bytes);
        let in_rotation = health.state == crate::services::read_route::ReplicaState::InRotation;
        metrics::gauge!(telemetry::REPLICA_IN_ROTATION, &labels)
            .set(f64::from(u8::from(in_rotation)));
    }
    metrics::gauge!(telemetry::DATA_VOLUME_FREE).set(state.disk.free_bytes() as f64);
    // A scrape during an outage still answers, without the backlog gauge's update.
    if let Ok(backlog) = crate::db::transformer_runs::backlog(&state.pool, BACKLOG_COUNT_CAP).await
    {
        metrics::gauge!(telemetry::TRANSFORMER_BACKLOG).set(backlog as f64);
    }
    handle.render()
}

/// `usage`: open connections, idle ones, and the most there may be.
fn pool_gauges(pool_name: &str, server: &str, (open, idle, max): (usize, usize, usize)) {
    let labels = [
        ("pool", pool_name.to_string()),
        ("server", server.to_string()),
    ];
    metrics::gauge!(telemetry::POOL_CONNECTIONS, &labels).set(open as f64);
    metrics::gauge!(telemetry::POOL_IDLE, &labels).set(idle as f64);
    metrics::gauge!(telemetry::POOL_MAX, &labels).set(max as f64);
}
