//! `/api-docs`: a self-contained HTML quick start and reference that lists every operation of
//! `/openapi.json`, and each agent guide as HTML.

use crate::harness::TestApp;
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use spacetime_records::services::docs::AGENT_DOC_SLUGS;

async fn page(app: &TestApp, path: &str, host: &str) -> (StatusCode, String, String) {
    let r = app
        .send(
            Request::get(path)
                .header(header::HOST, host)
                .body(Body::empty())
                .unwrap(),
        )
        .await;
    let content_type = r
        .headers
        .get(header::CONTENT_TYPE)
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    (r.status, content_type, r.text)
}

#[tokio::test]
async fn api_docs_lists_every_operation_of_the_openapi_document() {
    let app = TestApp::new().await;
    let openapi = app.get("/openapi.json").await.body;
    let (status, content_type, html) = page(&app, "/api-docs", "records.test:8080").await;
    assert_eq!(status, StatusCode::OK);
    assert!(content_type.starts_with("text/html"), "{content_type}");
    let mut count = 0;
    for (path, item) in openapi["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let id = op["operationId"].as_str().unwrap();
            let anchor = format!("id=\"op-{id}\"");
            assert!(
                html.contains(&anchor),
                "{method} {path} ({id}) is not on /api-docs"
            );
            let escaped = path.replace('&', "&amp;");
            assert!(html.contains(&format!("<code>{escaped}</code>")), "{path}");
            count += 1;
        }
    }
    assert!(count >= 45, "only {count} operations");
    for name in openapi["components"]["schemas"].as_object().unwrap().keys() {
        assert!(
            html.contains(&format!("id=\"schema-{name}\"")),
            "schema {name}"
        );
    }
    for section in ["quick-start", "graphql", "mcp", "reference"] {
        assert!(html.contains(&format!("id=\"{section}\"")), "{section}");
    }
    assert!(
        html.contains("http://records.test:8080/api/v1/"),
        "examples use the reader's address"
    );
    assert!(!html.contains("{base_url}"));
}

#[tokio::test]
async fn api_docs_is_self_contained() {
    let app = TestApp::new().await;
    let (_, _, html) = page(&app, "/api-docs", "localhost").await;
    // An empty inline icon loads nothing; it keeps browsers from asking for /favicon.ico.
    let lower = html
        .to_lowercase()
        .replace(r#"<link rel="icon" href="data:,">"#, "");
    for outside in [
        "<script",
        "<link",
        "<img",
        "<iframe",
        "@import",
        "src=\"http",
        "url(http",
    ] {
        assert!(!lower.contains(outside), "/api-docs loads {outside}");
    }
    assert!(lower.contains("name=\"viewport\""), "readable on a phone");
}

#[tokio::test]
async fn every_guide_renders_as_html_and_an_unknown_one_is_404() {
    let app = TestApp::new().await;
    for slug in AGENT_DOC_SLUGS {
        let (status, content_type, html) =
            page(&app, &format!("/api-docs/guides/{slug}"), "localhost").await;
        assert_eq!(status, StatusCode::OK, "{slug}");
        assert!(content_type.starts_with("text/html"));
        assert!(html.contains("<h1>"), "{slug} has a title");
        assert!(!html.contains("<script"), "{slug}");
        assert!(
            !html.contains("](/api"),
            "{slug}: a Markdown link was left unrendered"
        );
    }
    let (status, _, _) = page(&app, "/api-docs/guides/nope", "localhost").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_crafted_host_header_is_not_echoed_into_the_page() {
    let app = TestApp::new().await;
    let (status, _, html) = page(&app, "/api-docs", "evil\"><script>alert(1)</script>").await;
    assert_eq!(status, StatusCode::OK);
    assert!(!html.contains("<script>alert"));
}

#[tokio::test]
async fn a_browser_asking_for_graphql_gets_the_bundled_graphiql_ide() {
    let app = TestApp::new().await;
    let r = app
        .send(
            Request::get("/graphql")
                .header(header::ACCEPT, "text/html,application/xhtml+xml")
                .body(Body::empty())
                .unwrap(),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(r.text.contains("/graphiql/graphiql.js") && r.text.contains("/graphiql/graphiql.css"));
    assert!(
        !r.text.contains("http://") && !r.text.contains("https://"),
        "nothing from outside"
    );
    for (file, media) in [
        ("graphiql.js", "text/javascript"),
        ("graphiql.css", "text/css"),
        ("editor.worker.js", "text/javascript"),
        ("graphql.worker.js", "text/javascript"),
        ("json.worker.js", "text/javascript"),
        ("codicon.ttf", "font/ttf"),
    ] {
        let asset = app.get(&format!("/graphiql/{file}")).await;
        assert_eq!(asset.status, StatusCode::OK, "{file}");
        let content_type = asset.headers[header::CONTENT_TYPE].to_str().unwrap();
        assert!(content_type.starts_with(media), "{file}: {content_type}");
        assert!(asset.text.len() > 10_000, "{file} is the real bundle");
    }
    assert_eq!(
        app.get("/graphiql/nope.js").await.status,
        StatusCode::NOT_FOUND
    );
    let client = app.get("/graphql").await;
    assert_eq!(
        client.status,
        StatusCode::BAD_REQUEST,
        "a client without a query gets a 400 saying how to ask"
    );
    let message = client.body["errors"][0]["message"].as_str().unwrap();
    assert!(message.contains("query"), "{message}");
}
