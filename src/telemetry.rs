//! Prometheus metrics of this process (`GET /metrics`).
//!
//! Each process counts its own requests and work; Prometheus scrapes every process and sums.
//! Gauges that describe shared state (pool use, replica lag, the transformer's backlog) are set
//! when `/metrics` is scraped (`services::metrics`), so they are never older than the scrape.
//! The recorder is process-wide (the `metrics` facade allows one), installed on first use.

use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use std::sync::OnceLock;
use std::time::Duration;

pub const HTTP_REQUESTS: &str = "strs_http_requests_total";
pub const HTTP_DURATION: &str = "strs_http_request_duration_seconds";
pub const ENTRIES_PROCESSED: &str = "strs_transformer_entries_processed_total";
pub const TRANSFORMER_BATCHES: &str = "strs_transformer_batches_total";
pub const TRANSFORMER_BACKLOG: &str = "strs_transformer_backlog_entries";
pub const POOL_CONNECTIONS: &str = "strs_db_pool_connections";
pub const POOL_IDLE: &str = "strs_db_pool_idle_connections";
pub const POOL_MAX: &str = "strs_db_pool_max_connections";
pub const REPLICA_LAG: &str = "strs_db_replica_lag_seconds";
pub const REPLICA_LAG_BYTES: &str = "strs_db_replica_lag_bytes";
pub const REPLICA_IN_ROTATION: &str = "strs_db_replica_in_rotation";
pub const BATCHED_READS: &str = "strs_db_batched_reads_total";
pub const READ_BATCHES: &str = "strs_db_read_batches_total";
pub const GRAPHQL_COMPILED: &str = "strs_graphql_compiled_answers_total";
pub const DB_REFUSALS: &str = "strs_db_refusals_total";
pub const STORAGE_REFUSALS: &str = "strs_storage_refusals_total";
pub const DATA_VOLUME_FREE: &str = "strs_data_volume_free_bytes";
pub const EMBEDDED_RESTARTS: &str = "strs_embedded_postgres_restarts_total";
pub const EMBEDDED_UP: &str = "strs_embedded_postgres_up";

/// Latency buckets from 0.5 ms to 10 s: reads by id answer in well under a millisecond, a
/// timed-out request in `request_timeout_secs`.
const LATENCY_BUCKETS: &[f64] = &[
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

/// The process's recorder, installed on first use.
pub fn handle() -> &'static PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE.get_or_init(|| {
        let recorder = PrometheusBuilder::new()
            .set_buckets_for_metric(Matcher::Full(HTTP_DURATION.into()), LATENCY_BUCKETS)
            .expect("static, non-empty buckets")
            .build_recorder();
        let handle = recorder.handle();
        // Another recorder may already be installed (an embedding program's); then this handle
        // renders nothing of the facade's metrics, which is the embedder's choice to make.
        let _ = metrics::set_global_recorder(recorder);
        describe();
        spawn_upkeep(handle.clone());
        handle
    })
}

/// The exporter keeps every histogram sample until it folds them into buckets, at a scrape or
/// at an upkeep: without a scraper, a busy process would grow by 8 bytes per request for ever.
/// One thread per process folds them every `UPKEEP_EVERY` (on no runtime: tests start many).
const UPKEEP_EVERY: Duration = Duration::from_secs(5);

fn spawn_upkeep(handle: PrometheusHandle) {
    let spawned = std::thread::Builder::new()
        .name("metrics-upkeep".into())
        .spawn(move || {
            loop {
                std::thread::sleep(UPKEEP_EVERY);
                handle.run_upkeep();
            }
        });
    if let Err(error) = spawned {
        tracing::warn!(%error, "the metrics upkeep thread could not start");
    }
}

fn describe() {
    metrics::describe_counter!(
        HTTP_REQUESTS,
        "HTTP requests answered, by method, route template and status"
    );
    metrics::describe_histogram!(
        HTTP_DURATION,
        metrics::Unit::Seconds,
        "Time to answer an HTTP request, by method and route template"
    );
    metrics::describe_counter!(
        ENTRIES_PROCESSED,
        "Entries the transformer of this process decided"
    );
    metrics::describe_counter!(
        TRANSFORMER_BATCHES,
        "Transformer batches run by this process"
    );
    metrics::describe_gauge!(
        TRANSFORMER_BACKLOG,
        "Entries waiting for the transformer (shared by all processes; capped count)"
    );
    metrics::describe_gauge!(POOL_CONNECTIONS, "Open connections of this process's pools");
    metrics::describe_gauge!(POOL_IDLE, "Idle connections of this process's pools");
    metrics::describe_gauge!(
        POOL_MAX,
        "Configured maximum connections of this process's pools"
    );
    metrics::describe_gauge!(
        REPLICA_LAG,
        metrics::Unit::Seconds,
        "Replay lag of each read replica, as last measured"
    );
    metrics::describe_gauge!(
        REPLICA_LAG_BYTES,
        metrics::Unit::Bytes,
        "WAL bytes each read replica has yet to replay"
    );
    metrics::describe_counter!(
        BATCHED_READS,
        "Reads by id of a canonical record, gathered into batches (db::batched)"
    );
    metrics::describe_counter!(
        READ_BATCHES,
        "Statements those reads took: reads over batches is the mean batch size"
    );
    metrics::describe_counter!(
        GRAPHQL_COMPILED,
        "GraphQL requests answered by a compiled plan instead of the executor (graphql::machinery::compiled)"
    );
    metrics::describe_counter!(
        DB_REFUSALS,
        "Requests answered 503 because the database was unavailable or too slow"
    );
    metrics::describe_counter!(
        STORAGE_REFUSALS,
        "Writes answered 507 because the data volume was full or below its free-space floor"
    );
    metrics::describe_gauge!(
        DATA_VOLUME_FREE,
        metrics::Unit::Bytes,
        "Free bytes on the volume of the data directory, as last measured"
    );
    metrics::describe_counter!(
        EMBEDDED_RESTARTS,
        "Times this process restarted the embedded PostgreSQL after it exited unexpectedly"
    );
    metrics::describe_gauge!(
        EMBEDDED_UP,
        "1 while the embedded PostgreSQL this process supervises runs, 0 while it is down"
    );
    metrics::describe_gauge!(
        REPLICA_IN_ROTATION,
        "1 when reads may go to the replica, 0 when it is down or lags too far"
    );
}

/// One answered request. `route` is the route's template (`/api/v1/entities/{entity_id}`),
/// never the concrete path, so ids do not multiply the series. Labels are static strings (no
/// allocation per request): route templates and status codes are interned once each.
pub fn record_request(method: &str, route: &str, status: u16, elapsed: Duration) {
    let method = method_label(method);
    let route = intern(route);
    let status = status_label(status);
    metrics::counter!(HTTP_REQUESTS, "method" => method, "route" => route, "status" => status)
        .increment(1);
    metrics::histogram!(HTTP_DURATION, "method" => method, "route" => route)
        .record(elapsed.as_secs_f64());
}

fn method_label(method: &str) -> &'static str {
    match method {
        "GET" => "GET",
        "POST" => "POST",
        "PUT" => "PUT",
        "PATCH" => "PATCH",
        "DELETE" => "DELETE",
        "HEAD" => "HEAD",
        "OPTIONS" => "OPTIONS",
        _ => "OTHER",
    }
}

fn status_label(status: u16) -> &'static str {
    static LABELS: OnceLock<std::sync::RwLock<std::collections::HashMap<u16, &'static str>>> =
        OnceLock::new();
    let labels = LABELS.get_or_init(Default::default);
    if let Some(found) = labels.read().expect("status labels").get(&status) {
        return found;
    }
    let label = intern(&status.to_string());
    labels.write().expect("status labels").insert(status, label);
    label
}

/// The `'static` copy of a label value. Only route templates and status codes come here, so the
/// set is bounded by the router (and unmatched paths share one label).
fn intern(value: &str) -> &'static str {
    static INTERNED: OnceLock<std::sync::RwLock<std::collections::HashSet<&'static str>>> =
        OnceLock::new();
    let set = INTERNED.get_or_init(Default::default);
    if let Some(found) = set.read().expect("interned labels").get(value) {
        return found;
    }
    let mut set = set.write().expect("interned labels");
    if let Some(found) = set.get(value) {
        return found;
    }
    let leaked: &'static str = Box::leak(value.to_owned().into_boxed_str());
    set.insert(leaked);
    leaked
}

/// One statement of batched reads by id.
pub fn record_read_batch(reads: usize) {
    metrics::counter!(READ_BATCHES).increment(1);
    metrics::counter!(BATCHED_READS).increment(reads as u64);
}

/// One GraphQL request answered by its document's compiled plan.
pub fn record_compiled_answer() {
    metrics::counter!(GRAPHQL_COMPILED).increment(1);
}

/// One transformer batch of this process.
pub fn record_batch(processed: usize) {
    metrics::counter!(TRANSFORMER_BATCHES).increment(1);
    metrics::counter!(ENTRIES_PROCESSED).increment(processed as u64);
}

/// One request refused because the database was unavailable (`db::outage`).
pub fn record_db_refusal() {
    metrics::counter!(DB_REFUSALS).increment(1);
}

/// One write refused because the disk is full or below the floor (`storage::space`).
pub fn record_storage_refusal() {
    metrics::counter!(STORAGE_REFUSALS).increment(1);
}

/// The embedded PostgreSQL was started again after an unexpected exit (`db::supervisor`).
pub fn record_embedded_restart() {
    metrics::counter!(EMBEDDED_RESTARTS).increment(1);
}

/// Whether the supervised embedded PostgreSQL runs.
pub fn set_embedded_up(up: bool) {
    metrics::gauge!(EMBEDDED_UP).set(f64::from(u8::from(up)));
}
