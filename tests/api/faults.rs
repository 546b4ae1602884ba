//! Faults: statements are time-limited; a database outage answers 503 with Retry-After on every
//! route (never 500) and the routes recover by themselves when the database is back.

use crate::harness::{TestApp, tmp_dir};
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use http_body_util::BodyExt;
use spacetime_records::config::Config;
use spacetime_records::db::cluster::{Durability, EmbeddedCluster};
use spacetime_records::{app, db};
use tower::ServiceExt;

#[tokio::test]
async fn statements_are_cancelled_before_the_request_times_out() {
    let app = TestApp::with_config(|c| c.request_timeout_secs = 6).await;
    let timeout: String = sqlx::query_scalar("SHOW statement_timeout")
        .fetch_one(app.pool())
        .await
        .unwrap();
    assert_eq!(timeout, "1s");
    let idle: String = sqlx::query_scalar("SHOW idle_in_transaction_session_timeout")
        .fetch_one(app.pool())
        .await
        .unwrap();
    assert_eq!(idle, "12s");
    // No LLVM compilation added to a request whose plan the planner over-estimated.
    let jit: String = sqlx::query_scalar("SHOW jit")
        .fetch_one(app.pool())
        .await
        .unwrap();
    assert_eq!(jit, "off");
    let slow = sqlx::query("SELECT pg_sleep(3)")
        .execute(app.pool())
        .await
        .unwrap_err();
    let error = spacetime_records::error::AppError::from(slow);
    assert_eq!(
        error.status(),
        503,
        "a cancelled statement is a retryable 503, not a 500"
    );
    assert_eq!(error.code(), "NOT_READY");
}

async fn call(
    router: &axum::Router,
    method: &str,
    path: &str,
    body: Option<&str>,
) -> (StatusCode, Option<String>, String) {
    let mut request = Request::builder().method(method).uri(path);
    if body.is_some() {
        request = request.header(header::CONTENT_TYPE, "application/json");
    }
    let request = request
        .body(
            body.map(|b| Body::from(b.to_string()))
                .unwrap_or_else(Body::empty),
        )
        .unwrap();
    let response = router.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let retry = response
        .headers()
        .get(header::RETRY_AFTER)
        .map(|v| v.to_str().unwrap().to_string());
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    (status, retry, String::from_utf8_lossy(&bytes).to_string())
}

/// Stops the test's private cluster and removes it even when an assertion fails half-way.
struct StopOnDrop(std::path::PathBuf);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        let running = self.0.join("postmaster.pid").exists();
        if let (true, Ok(cluster)) = (
            running,
            EmbeddedCluster::ensure_running(&self.0, None, Durability::ThrowAway),
        ) {
            let _ = cluster.stop();
        }
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[tokio::test]
async fn a_database_outage_is_503_with_retry_after_everywhere_and_routes_recover() {
    // The cause of each 503 is logged (warn): shown when the test fails.
    let _ = tracing_subscriber::fmt()
        .with_test_writer()
        .with_env_filter("warn,sqlx=error")
        .try_init();
    let dir = tmp_dir().join(format!("outage-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let _cleanup = StopOnDrop(dir.clone());
    let cluster = EmbeddedCluster::ensure_running(&dir, None, Durability::ThrowAway).unwrap();
    db::ensure_database(&cluster.url("postgres"), "outage")
        .await
        .unwrap();
    let mut config = Config::for_data_dir(dir.join("data"));
    config.jwt_secret = Some("test-secret-test-secret-test-secret-0123".into());
    config.db_max_connections = 3;
    let state = app::build_state(config, &cluster.url("outage"))
        .await
        .unwrap();
    let router = app::build_router(state);
    let routes: [(&str, &str, Option<&str>); 5] = [
        ("GET", "/api/v1/entities", None),
        ("GET", "/api/v1/search?query=bakery", None),
        ("GET", "/api/v1/agents", None),
        (
            "POST",
            "/api/v1/agents/register",
            Some(r#"{"agent_type": "scraper", "display_name": "Outage"}"#),
        ),
        (
            "POST",
            "/graphql",
            Some(r#"{"query": "{ agents { edges { node { id } } } }"}"#),
        ),
    ];
    for (method, path, body) in routes {
        let (status, _, text) = call(&router, method, path, body).await;
        assert!(
            status.is_success(),
            "{method} {path} before the outage: {status} {text}"
        );
    }

    cluster.stop().unwrap();
    for (method, path, body) in routes {
        let (status, retry, text) = call(&router, method, path, body).await;
        if path == "/graphql" {
            assert_eq!(status, StatusCode::OK, "{text}");
            assert!(text.contains("NOT_READY"), "{text}");
        } else {
            assert_eq!(
                status,
                StatusCode::SERVICE_UNAVAILABLE,
                "{method} {path}: {text}"
            );
            assert_eq!(retry.as_deref(), Some("5"), "{method} {path}");
            assert!(text.contains("NOT_READY"), "{text}");
        }
    }
    let (ready, _, _) = call(&router, "GET", "/ready", None).await;
    assert_eq!(ready, StatusCode::SERVICE_UNAVAILABLE);

    let restarted = EmbeddedCluster::ensure_running(&dir, None, Durability::ThrowAway).unwrap();
    // A load balancer sends traffic back once /ready says so; on a busy machine PostgreSQL may
    // still refuse sessions for a moment after pg_ctl returns ("the database system is starting
    // up", a 503 like any outage). From then on, every route answers without a server restart.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while call(&router, "GET", "/ready", None).await.0 != StatusCode::OK {
        assert!(
            std::time::Instant::now() < deadline,
            "/ready did not recover within 30 s of the restart"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    for (method, path, body) in routes {
        let (status, _, text) = call(&router, method, path, body).await;
        assert!(
            status.is_success(),
            "{method} {path} after the outage: {status} {text}"
        );
    }
    restarted.stop().unwrap();
}

#[tokio::test]
async fn a_panicking_handler_answers_the_standard_500_body() {
    let router = axum::Router::new()
        .route(
            "/boom",
            axum::routing::get(|| async {
                if true {
                    panic!("a bug in a handler");
                }
                "unreachable"
            }),
        )
        .layer(tower_http::catch_panic::CatchPanicLayer::custom(
            app::panic_response,
        ));
    let (status, _, text) = call(&router, "GET", "/boom", None).await;
    assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR);
    let body: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(body["code"], "INTERNAL");
    assert!(
        !text.contains("a bug in a handler"),
        "the cause is logged, not sent"
    );
}

#[tokio::test]
async fn requests_past_the_concurrency_limit_are_shed_with_503() {
    let app = TestApp::with_config(|c| c.max_concurrent_requests = 1).await;
    // A body that never finishes keeps the first request (and its permit) in flight.
    let (_tx, rx) = tokio::sync::mpsc::channel::<Result<axum::body::Bytes, std::io::Error>>(1);
    let slow = Request::post("/api/v1/agents/register")
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from_stream(
            tokio_stream::wrappers::ReceiverStream::new(rx),
        ))
        .unwrap();
    let router = app.router.clone();
    let in_flight = tokio::spawn(async move { router.oneshot(slow).await });
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    let (status, retry, text) = call(&app.router, "GET", "/health", None).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{text}");
    assert_eq!(retry.as_deref(), Some("5"));
    in_flight.abort();
}

#[test]
fn secrets_never_appear_in_the_debug_form_of_the_configuration() {
    let mut config = Config::for_data_dir("/tmp/x".into());
    config.database_url = Some("postgres://app:hunter2-password@db.internal/records".into());
    config.jwt_secret = Some("jwt-secret-value-jwt-secret-value-0000".into());
    let printed = format!("{config:?}");
    assert!(!printed.contains("hunter2"), "{printed}");
    assert!(!printed.contains("jwt-secret-value"), "{printed}");
    assert!(printed.contains("[redacted]"));
}

#[tokio::test]
async fn a_client_that_trickles_its_headers_is_disconnected() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let app = TestApp::new().await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(app::serve_connections(
        listener,
        app.router.clone(),
        std::time::Duration::from_secs(1),
        async move {
            let _ = stopped.await;
        },
    ));
    let mut slow = tokio::net::TcpStream::connect(address).await.unwrap();
    slow.write_all(b"GET /health HTTP/1.1\r\nHost: localhost\r\n")
        .await
        .unwrap();
    let started = std::time::Instant::now();
    let mut buffer = [0u8; 256];
    let read = tokio::time::timeout(std::time::Duration::from_secs(5), slow.read(&mut buffer))
        .await
        .expect("the server closes the connection");
    let waited = started.elapsed();
    assert!(
        matches!(read, Ok(0) | Err(_)) || buffer.starts_with(b"HTTP/1.1 408"),
        "{read:?}"
    );
    assert!(
        waited < std::time::Duration::from_secs(3),
        "closed after {waited:?}"
    );
    // A client that sends its request at once is served by the same server.
    let mut quick = tokio::net::TcpStream::connect(address).await.unwrap();
    quick
        .write_all(b"GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut answer = String::new();
    quick.read_to_string(&mut answer).await.unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    stop.send(()).unwrap();
    tokio::time::timeout(std::time::Duration::from_secs(5), server)
        .await
        .expect("the server drains and stops")
        .unwrap();
}

/// Serves `router` on a loopback port with hyper-util's server (as `serve` does), with
/// `header_timeout`; the server stops when the returned sender is dropped.
async fn serve_on_loopback(
    router: axum::Router,
    header_timeout: std::time::Duration,
) -> (std::net::SocketAddr, tokio::sync::oneshot::Sender<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(app::serve_connections(
        listener,
        router,
        header_timeout,
        async move {
            let _ = stopped.await;
        },
    ));
    (address, stop)
}

/// One HTTP/1.1 response read off `stream`: status, lower-cased head, body.
async fn read_response(stream: &mut tokio::net::TcpStream) -> (u16, String, String) {
    use tokio::io::AsyncReadExt;
    let mut received = Vec::new();
    let mut buffer = [0u8; 8192];
    let head_end = loop {
        if let Some(at) = received.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        let n = stream
            .read(&mut buffer)
            .await
            .expect("reading the response");
        assert!(
            n > 0,
            "the connection closed before a response: {received:?}"
        );
        received.extend_from_slice(&buffer[..n]);
    };
    let head = String::from_utf8_lossy(&received[..head_end]).to_lowercase();
    let status = head[9..12].parse().unwrap();
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .map_or(0, |v| v.trim().parse().unwrap());
    while received.len() < head_end + length {
        let n = stream.read(&mut buffer).await.expect("reading the body");
        assert!(n > 0, "the connection closed mid-body");
        received.extend_from_slice(&buffer[..n]);
    }
    let body = String::from_utf8_lossy(&received[head_end..head_end + length]).to_string();
    (status, head, body)
}

/// Waits for the server to close `stream` (EOF or reset); how long it took.
async fn closed_within(
    stream: &mut tokio::net::TcpStream,
    limit: std::time::Duration,
) -> std::time::Duration {
    use tokio::io::AsyncReadExt;
    let started = std::time::Instant::now();
    let mut buffer = [0u8; 64];
    let read = tokio::time::timeout(limit, stream.read(&mut buffer))
        .await
        .unwrap_or_else(|_| panic!("the connection was still open after {limit:?}"));
    assert!(matches!(read, Ok(0) | Err(_)), "{read:?}");
    started.elapsed()
}

#[tokio::test]
async fn a_connection_that_never_speaks_is_closed_and_so_is_an_idle_keep_alive_one() {
    use tokio::io::AsyncWriteExt;
    let app = TestApp::new().await;
    let timeout = std::time::Duration::from_secs(1);
    let (address, _stop) = serve_on_loopback(app.router.clone(), timeout).await;
    // Opened and silent: closed from accept, not from a first byte that never comes.
    let mut silent = tokio::net::TcpStream::connect(address).await.unwrap();
    let waited = closed_within(&mut silent, std::time::Duration::from_secs(5)).await;
    assert!(
        waited >= std::time::Duration::from_millis(900),
        "{waited:?}"
    );
    // Served once, then idle on keep-alive: closed too.
    let mut idle = tokio::net::TcpStream::connect(address).await.unwrap();
    idle.write_all(b"GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .await
        .unwrap();
    let (status, head, _) = read_response(&mut idle).await;
    assert_eq!(status, 200, "{head}");
    closed_within(&mut idle, std::time::Duration::from_secs(5)).await;
}

#[tokio::test]
async fn a_body_that_does_not_arrive_in_time_is_answered_408_not_503() {
    use tokio::io::AsyncWriteExt;
    let app = TestApp::with_config(|c| c.request_timeout_secs = 2).await;
    let (address, _stop) =
        serve_on_loopback(app.router.clone(), std::time::Duration::from_secs(10)).await;
    let mut slow = tokio::net::TcpStream::connect(address).await.unwrap();
    slow.write_all(
        b"POST /api/v1/agents/register HTTP/1.1\r\nHost: localhost\r\n\
          Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"agent_type\"",
    )
    .await
    .unwrap();
    let started = std::time::Instant::now();
    let (status, head, body) = read_response(&mut slow).await;
    assert_eq!(status, 408, "{head}{body}");
    assert!(head.contains("connection: close"), "{head}");
    let body: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["code"], "REQUEST_TIMEOUT");
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
}

#[tokio::test]
async fn a_request_refused_before_its_body_is_read_leaves_a_keep_alive_connection_usable() {
    use tokio::io::AsyncWriteExt;
    let app = TestApp::new().await;
    let (address, _stop) =
        serve_on_loopback(app.router.clone(), std::time::Duration::from_secs(10)).await;
    let mut client = tokio::net::TcpStream::connect(address).await.unwrap();
    // An unknown key is refused (401) before the handler reads the 300 KB body.
    let body = format!(
        r#"{{"entry_type": "entity", "latitude": 1, "longitude": 1, "context": {{"notes": "{}"}}}}"#,
        "x".repeat(300_000)
    );
    let request = format!(
        "POST /api/v1/space-time-entries HTTP/1.1\r\nHost: localhost\r\n\
         Authorization: Bearer str_not_a_key\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let writer = {
        let (mut reader, mut writer) = client.into_split();
        let sending = tokio::spawn(async move {
            writer.write_all(request.as_bytes()).await.unwrap();
            writer
        });
        let mut head = Vec::new();
        // Read the answer while the body is still being sent.
        let answer = async {
            use tokio::io::AsyncReadExt;
            let mut buffer = [0u8; 4096];
            while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                let n = reader.read(&mut buffer).await.unwrap();
                assert!(n > 0, "closed before the answer");
                head.extend_from_slice(&buffer[..n]);
            }
        };
        answer.await;
        let writer = sending
            .await
            .expect("the whole body was sent, no broken pipe");
        client = reader.reunite(writer).unwrap();
        String::from_utf8_lossy(&head).to_lowercase()
    };
    assert!(writer.starts_with("http/1.1 401"), "{writer}");
    assert!(!writer.contains("connection: close"), "{writer}");
    // Read the rest of the 401's body, then the same connection serves the next request.
    let length: usize = writer
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .map(|v| v.trim().parse().unwrap())
        .unwrap();
    let already = writer.len() - writer.find("\r\n\r\n").unwrap() - 4;
    let mut rest = vec![0u8; length - already];
    tokio::io::AsyncReadExt::read_exact(&mut client, &mut rest)
        .await
        .unwrap();
    client
        .write_all(b"GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .await
        .unwrap();
    let (status, head, _) = read_response(&mut client).await;
    assert_eq!(status, 200, "{head}");
}
