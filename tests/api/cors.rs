//! CORS on the public read surface: a web map on another origin can read tiles, search, OGC API
//! Features and GraphQL (a preflight included), never with credentials; the writing API gives
//! other origins nothing; `STRS_CORS_ORIGINS` narrows the origins.

use crate::harness::TestApp;
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use spacetime_records::config::Config;

const ORIGIN: &str = "https://maps.example.org";

async fn from_origin(
    app: &TestApp,
    method: &str,
    path: &str,
    origin: &str,
) -> crate::harness::TestResponse {
    let request = Request::builder()
        .method(method)
        .uri(path)
        .header(header::ORIGIN, origin)
        .body(Body::empty())
        .unwrap();
    app.send(request).await
}

fn allowed_origin(r: &crate::harness::TestResponse) -> Option<&str> {
    r.headers
        .get(header::ACCESS_CONTROL_ALLOW_ORIGIN)
        .map(|v| v.to_str().unwrap())
}

#[tokio::test]
async fn a_graphql_preflight_is_answered_with_the_cors_headers() {
    let app = TestApp::new().await;
    let request = Request::builder()
        .method("OPTIONS")
        .uri("/graphql")
        .header(header::ORIGIN, ORIGIN)
        .header(header::ACCESS_CONTROL_REQUEST_METHOD, "POST")
        .header(header::ACCESS_CONTROL_REQUEST_HEADERS, "content-type")
        .body(Body::empty())
        .unwrap();
    let r = app.send(request).await;
    assert!(r.status.is_success(), "{}", r.status);
    assert_eq!(allowed_origin(&r), Some("*"));
    let methods = r.headers[header::ACCESS_CONTROL_ALLOW_METHODS]
        .to_str()
        .unwrap();
    assert!(
        methods.contains("POST") && methods.contains("GET"),
        "{methods}"
    );
    let headers = r.headers[header::ACCESS_CONTROL_ALLOW_HEADERS]
        .to_str()
        .unwrap();
    assert!(headers.contains("content-type"), "{headers}");
    assert!(!headers.contains("authorization"), "{headers}");
    assert!(
        r.headers
            .get(header::ACCESS_CONTROL_ALLOW_CREDENTIALS)
            .is_none()
    );
}

#[tokio::test]
async fn the_public_reads_answer_any_origin_and_the_rest_of_the_api_none() {
    let app = TestApp::new().await;
    for path in [
        "/collections",
        "/collections/entities/items",
        "/conformance",
        "/api/v1/search?query=bakery",
        "/tiles/records.json",
        "/graphql?query=%7B__typename%7D",
        "/openapi.json",
        "/",
    ] {
        let r = from_origin(&app, "GET", path, ORIGIN).await;
        assert_eq!(r.status, StatusCode::OK, "{path}: {}", r.text);
        assert_eq!(allowed_origin(&r), Some("*"), "{path}");
        assert!(
            r.headers
                .get(header::ACCESS_CONTROL_ALLOW_CREDENTIALS)
                .is_none()
        );
    }
    for path in ["/api/v1/agents", "/api/v1/entities", "/health"] {
        let r = from_origin(&app, "GET", path, ORIGIN).await;
        assert_eq!(allowed_origin(&r), None, "{path}");
    }
}

#[tokio::test]
async fn configured_origins_are_the_only_ones_let_in() {
    let app = TestApp::with_config(|c| c.cors_origins = vec![ORIGIN.into()]).await;
    let r = from_origin(&app, "GET", "/collections", ORIGIN).await;
    assert_eq!(allowed_origin(&r), Some(ORIGIN));
    let r = from_origin(&app, "GET", "/collections", "https://elsewhere.example").await;
    assert_eq!(allowed_origin(&r), None);

    let off = TestApp::with_config(|c| c.cors_origins = vec![String::new()]).await;
    let r = from_origin(&off, "GET", "/collections", ORIGIN).await;
    assert_eq!(allowed_origin(&r), None);
}

#[test]
fn an_origin_that_is_not_one_stops_the_server_at_start_up() {
    let mut config = Config::for_data_dir("/tmp/unused".into());
    config.validate().unwrap();
    for bad in ["maps.example.org", "https://maps.example.org/", "ftp://x"] {
        config.cors_origins = vec![bad.into()];
        assert!(config.validate().is_err(), "{bad}");
    }
    config.cors_origins = vec![ORIGIN.into(), "http://localhost:5173".into()];
    config.validate().unwrap();
}
