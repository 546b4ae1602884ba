//! Builds the state (database, migrations, signing key), the router, and serves with graceful
//! shutdown, stopping the embedded cluster after the last request has drained.

use crate::auth::jwt::JwtKeys;
use crate::config::Config;
use crate::db::cluster::{Durability, EmbeddedCluster};
use crate::error::AppError;
use crate::state::AppState;
use crate::{db, graphql, rest};
use anyhow::Context;
use axum::extract::DefaultBodyLimit;
use axum::http::{HeaderName, Request, header};
use axum::response::IntoResponse;
use axum::routing::get;
use axum::{Extension, Router};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::sensitive_headers::SetSensitiveRequestHeadersLayer;
use tower_http::trace::TraceLayer;
use utoipa_axum::routes;

pub const EMBEDDED_DATABASE: &str = "spacetime";

/// Where the database is: the configured URL, or the embedded cluster started (or reused) here.
pub async fn database_url(config: &Config) -> anyhow::Result<(String, Option<EmbeddedCluster>)> {
    if let Some(url) = &config.database_url {
        return Ok((url.expose().to_string(), None));
    }
    let pg_dir = config.data_dir.join("postgres");
    let bindir = config.pg_bindir.clone();
    let cluster = tokio::task::spawn_blocking(move || {
        EmbeddedCluster::ensure_running(&pg_dir, bindir.as_deref(), Durability::Full)
    })
    .await??;
    db::ensure_database(&cluster.url("postgres"), EMBEDDED_DATABASE).await?;
    Ok((cluster.url(EMBEDDED_DATABASE), Some(cluster)))
}

pub async fn build_state(config: Config, url: &str) -> anyhow::Result<AppState> {
    config.validate()?;
    // Migrations run on a session of their own, free of the request-sized statement timeout.
    let migrations = db::connect(url, 1)
        .await
        .context("connecting to the database")?;
    db::migrate(&migrations)
        .await
        .context("running migrations")?;
    migrations.close().await;
    let limits =
        db::SessionLimits::for_request_timeout(Duration::from_secs(config.request_timeout_secs));
    let pool = db::connect_limited(url, config.db_max_connections, limits)
        .await
        .context("connecting to the database")?;
    let lean = db::LeanPools::new(url, config.db_max_connections, limits)
        .context("the database URL, for reads")?;
    let secret = match &config.jwt_secret {
        Some(secret) => secret.expose().as_bytes().to_vec(),
        None => load_or_create_secret(&config.data_dir)?,
    };
    let jwt = Arc::new(JwtKeys::new(&secret, config.access_token_ttl_secs));
    let replicas = crate::services::read_route::Replicas::connect(&config, limits)
        .context("the read replica URLs")?;
    let swept =
        crate::storage::BlobStore::new(&config.data_dir).sweep_temporaries(STALE_TEMPORARY_AGE);
    if swept > 0 {
        tracing::info!(
            swept,
            "removed temporary attachment files left by interrupted writes"
        );
    }
    let disk =
        crate::storage::space::DiskFloor::new(&config.data_dir, config.min_free_disk_bytes());
    let state = AppState::new(crate::state::Shared {
        events: crate::services::events::EventHub::new(pool.clone()),
        disk,
        pool,
        lean,
        permits: tokio::sync::Semaphore::new(config.max_concurrent_requests),
        websockets: Arc::new(tokio::sync::Semaphore::new(config.max_websockets)),
        exports: Arc::new(tokio::sync::Semaphore::new(
            crate::services::exports::MAX_CONCURRENT_EXPORTS,
        )),
        replicas,
        config: Arc::new(config),
        jwt,
        tile_counts_refreshing: std::sync::atomic::AtomicBool::new(false),
    });
    // Reads go to a replica only once it has been measured fit.
    crate::services::read_route::check(&state).await;
    crate::services::read_route::monitor(&state);
    Ok(state)
}

/// A temporary attachment file older than this belongs to no write in progress (an attachment
/// write takes well under a minute, whichever process sharing the directory runs it).
const STALE_TEMPORARY_AGE: Duration = Duration::from_secs(600);

/// The signing secret is generated once and kept (mode 0600) in the data directory.
fn load_or_create_secret(data_dir: &Path) -> anyhow::Result<Vec<u8>> {
    use rand::RngCore;
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::create_dir_all(data_dir)?;
    let path = data_dir.join("jwt-secret");
    let mut secret = [0u8; 32];
    rand::rng().fill_bytes(&mut secret);
    let encoded: String = secret.iter().map(|b| format!("{b:02x}")).collect();
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&path)
    {
        Ok(mut file) => {
            file.write_all(encoded.as_bytes())?;
            file.sync_all()?;
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e).with_context(|| format!("creating {}", path.display())),
    }
    let stored = std::fs::read_to_string(&path)?;
    anyhow::ensure!(
        stored.trim().len() >= 32,
        "{} is too short; delete it to regenerate",
        path.display()
    );
    Ok(stored.trim().as_bytes().to_vec())
}

pub fn openapi() -> utoipa::openapi::OpenApi {
    let (_, mut api) = api_router().split_for_parts();
    rest::openapi_responses::complete(&mut api);
    api
}

fn api_router() -> utoipa_axum::router::OpenApiRouter<AppState> {
    rest::router()
        .routes(routes!(
            graphql::handler::graphql_get,
            graphql::handler::graphql_post
        ))
        .routes(routes!(crate::web::landing::landing))
        .routes(routes!(crate::web::api_docs::index))
        .routes(routes!(crate::web::api_docs::guide))
        .routes(routes!(crate::web::graphiql::asset))
        .routes(routes!(crate::web::explorer::page))
        .routes(routes!(crate::web::explorer::asset))
        .merge(crate::ogc::routes())
}

pub fn build_router(state: AppState) -> Router {
    let (api, mut openapi) = api_router().split_for_parts();
    rest::openapi_responses::complete(&mut openapi);
    let schema = graphql::service(state.clone());
    let request_id = HeaderName::from_static("x-request-id");
    let body_limit = state.config.max_body_bytes;
    let docs_pages = crate::web::api_docs::pages(&openapi);
    let mcp = crate::mcp::router(state.clone(), &openapi);
    // Installs the metrics recorder before the first request is counted.
    crate::telemetry::handle();
    // Served as the bytes it serialises to, made once: the document does not change while the
    // process runs, and its maps (1.5 MB of heap) are needed by nothing after start-up.
    let openapi_json = match serde_json::to_vec(&openapi) {
        Ok(json) => axum::body::Bytes::from(json),
        Err(error) => {
            tracing::error!(%error, "the OpenAPI document did not serialise");
            axum::body::Bytes::new()
        }
    };
    drop(openapi);
    api.route(
        "/openapi.json",
        get(move || async move {
            ([(header::CONTENT_TYPE, "application/json")], openapi_json.clone())
        }),
    )
        .fallback(|| async { AppError::NotFound("route").into_response() })
        .merge(mcp)
        .layer(Extension(schema))
        .layer(Extension(docs_pages))
        // Inside the edge, so that a handler's panic is answered 500 and still counted.
        .layer(CatchPanicLayer::custom(panic_response))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            crate::http::edge::edge,
        ))
        .layer(axum::middleware::from_fn_with_state(
            crate::http::cors::policy(&state.config),
            crate::http::cors::cors,
        ))
        .with_state(state)
        .layer(DefaultBodyLimit::max(body_limit))
        // Outside the edge too: a panic there would otherwise reset the connection.
        .layer(CatchPanicLayer::custom(panic_response))
        .layer(PropagateRequestIdLayer::new(request_id.clone()))
        .layer(TraceLayer::new_for_http().make_span_with(|req: &Request<_>| {
            let id = req.headers().get("x-request-id").and_then(|v| v.to_str().ok()).unwrap_or("-");
            // The path only: never the query string, a header or the body.
            tracing::info_span!("request", method = %req.method(), path = %req.uri().path(), request_id = %id)
        }).on_failure(log_failure))
        .layer(SetRequestIdLayer::new(request_id, MakeRequestUuid))
        .layer(SetSensitiveRequestHeadersLayer::new([header::AUTHORIZATION]))
}

/// A 500 is an error worth a line each (its cause is logged where it happened); a refusal the
/// service meant (503 during an outage or at capacity, 507 on a full disk) is logged once per
/// change of state where it is decided (`db::outage`, `storage::space`), and here at debug only:
/// an outage under load would otherwise write thousands of lines a minute.
fn log_failure(
    class: tower_http::classify::ServerErrorsFailureClass,
    latency: Duration,
    _span: &tracing::Span,
) {
    use tower_http::classify::ServerErrorsFailureClass;
    match class {
        ServerErrorsFailureClass::StatusCode(status)
            if status.as_u16() == 503 || status.as_u16() == 507 =>
        {
            tracing::debug!(status = status.as_u16(), ?latency, "request refused");
        }
        class => tracing::error!(%class, ?latency, "response failed"),
    }
}

/// A panicking handler answers the standard 500 body (its cause logged in the request's span,
/// which carries the request id) instead of resetting the connection.
pub fn panic_response(panic: Box<dyn std::any::Any + Send + 'static>) -> axum::response::Response {
    let cause = panic
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| panic.downcast_ref::<&str>().copied())
        .unwrap_or("a non-string panic payload");
    AppError::internal(anyhow::anyhow!("handler panicked: {cause}")).into_response()
}

pub async fn serve(config: Config) -> anyhow::Result<()> {
    config.validate()?;
    let (url, cluster) = database_url(&config).await?;
    let cluster = cluster.map(Arc::new);
    let supervisor = cluster.as_ref().and_then(|cluster| {
        let owned = cluster.started_here();
        let status = db::supervisor::register(owned);
        if owned {
            tracing::info!(
                data_dir = %cluster.data_dir.display(),
                "started the embedded PostgreSQL: this process owns it, starts it again if it exits and stops it on shutdown"
            );
            Some(db::supervisor::spawn(cluster.clone(), status))
        } else {
            tracing::info!(
                data_dir = %cluster.data_dir.display(),
                "the embedded PostgreSQL was already running: this process uses it but does not own it (the process that started it restarts and stops it)"
            );
            None
        }
    });
    let bind = config.bind;
    let state = build_state(config, &url).await?;
    let pool = state.pool.clone();
    let worker = state.config.transformer_worker.then(|| {
        crate::services::transformer::worker::spawn(state.clone(), state.config.transformer_loops())
    });
    let tile_counts_keeper = crate::services::tile_counts::spawn_keeper(state.clone());
    let listener = tokio::net::TcpListener::bind(bind)
        .await
        .with_context(|| format!("binding {bind}"))?;
    tracing::info!(address = %listener.local_addr()?, embedded_database = cluster.is_some(), "listening");
    serve_connections(
        listener,
        build_router(state),
        HEADER_READ_TIMEOUT,
        shutdown_signal(),
    )
    .await;
    for (stop, handle) in worker.into_iter().chain([tile_counts_keeper]) {
        let _ = stop.send(true);
        let _ = handle.await;
    }
    pool.close().await;
    if let Some((stop, handle)) = supervisor {
        let _ = stop.send(true);
        let _ = handle.await;
    }
    if let Some(cluster) = cluster.filter(|c| c.started_here()) {
        tracing::info!("stopping the embedded PostgreSQL cluster");
        tokio::task::spawn_blocking(move || cluster.stop()).await??;
    }
    Ok(())
}

/// How long a client may take to send a request's headers: a slow client cannot hold a
/// connection (and its memory) open by trickling bytes.
const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a shutdown waits for requests in flight.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(30);

/// Accepts connections until SIGINT/SIGTERM, then drains them. hyper-util's server rather than
/// `axum::serve`, which cannot set a header-read timeout (hyper ignores that timeout unless the
/// connection has a timer).
pub async fn serve_connections(
    listener: tokio::net::TcpListener,
    router: Router,
    header_read_timeout: Duration,
    shutdown: impl Future<Output = ()>,
) {
    use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
    use hyper_util::server::conn::auto::Builder;
    use hyper_util::server::graceful::GracefulShutdown;
    use hyper_util::service::TowerToHyperService;
    use tower::ServiceExt;

    let mut builder = Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(header_read_timeout);
    // Shared by every connection's task (each connection takes its own copy when it starts).
    let builder = Arc::new(builder);
    let graceful = GracefulShutdown::new();
    tokio::pin!(shutdown);
    loop {
        let (stream, client) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(err) => {
                    // Out of file descriptors and the like: pause rather than spin.
                    tracing::warn!(error = %err, "accepting a connection failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        // A response is written whole; waiting to coalesce it with the next would only delay it.
        let _ = stream.set_nodelay(true);
        let first_byte_timeout = header_read_timeout;
        let service =
            router
                .clone()
                .map_request(move |mut request: Request<hyper::body::Incoming>| {
                    request
                        .extensions_mut()
                        .insert(axum::extract::ConnectInfo(client));
                    request
                });
        let builder = builder.clone();
        let watcher = graceful.watcher();
        tokio::spawn(async move {
            // hyper's header timeout starts at the first byte of a request (the HTTP version is
            // sniffed before it), so a connection that never sends one would stay open for ever:
            // it gets the same time for its first byte, from accept.
            let mut first = [0u8; 1];
            match tokio::time::timeout(first_byte_timeout, stream.peek(&mut first)).await {
                Ok(Ok(n)) if n > 0 => {}
                _ => {
                    tracing::debug!(%client, "closed a connection that sent nothing");
                    return;
                }
            }
            let connection = builder
                .serve_connection_with_upgrades(
                    TokioIo::new(stream),
                    TowerToHyperService::new(service),
                )
                .into_owned();
            if let Err(err) = watcher.watch(connection).await {
                tracing::debug!(error = %err, "connection ended with an error");
            }
        });
    }
    drop(listener);
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(DRAIN_TIMEOUT) => tracing::warn!("requests still in flight after the drain timeout"),
    }
}

async fn shutdown_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    let mut terminate = signal(SignalKind::terminate()).expect("installing the SIGTERM handler");
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = terminate.recv() => {}
    }
    tracing::info!("shutdown requested; draining requests");
}
