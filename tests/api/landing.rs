//! `GET /`: the landing page links every surface; JSON for a client, HTML for a browser, and
//! every link it gives answers.

use crate::harness::TestApp;
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use serde_json::Value;

const BROWSER_ACCEPT: &str =
    "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8";

async fn landing(app: &TestApp, path: &str, accept: Option<&str>) -> crate::harness::TestResponse {
    let mut request = Request::get(path).header(header::HOST, "records.test:8080");
    if let Some(accept) = accept {
        request = request.header(header::ACCEPT, accept);
    }
    app.send(request.body(Body::empty()).unwrap()).await
}

fn content_type(r: &crate::harness::TestResponse) -> String {
    r.headers
        .get(header::CONTENT_TYPE)
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default()
}

/// Every surface a newcomer needs, by path and `rel`.
const SURFACES: [(&str, &str); 11] = [
    ("/api/v1/public", "rest"),
    ("/openapi.json", "service-desc"),
    ("/api-docs", "service-doc"),
    ("/graphql", "graphql"),
    ("/graphql", "graphiql"),
    ("/mcp/", "mcp"),
    ("/explore", "explorer"),
    ("/tiles/records.json", "tiles"),
    ("/metrics", "metrics"),
    ("/health", "health"),
    ("/ready", "ready"),
];

#[tokio::test]
async fn a_client_gets_the_landing_page_as_json_links_to_every_surface() {
    let app = TestApp::new().await;
    for accept in [None, Some("*/*"), Some("application/json")] {
        let r = landing(&app, "/", accept).await;
        assert_eq!(r.status, StatusCode::OK, "{accept:?}");
        assert_eq!(content_type(&r), "application/json", "{accept:?}");
        assert_eq!(r.headers[header::VARY], "accept");
        assert_eq!(r.body["title"], "Space-Time Records Service");
        assert!(r.body["description"].as_str().unwrap().len() > 40);
        let links = r.body["links"].as_array().unwrap();
        for link in links {
            for field in ["href", "rel", "type", "title"] {
                assert!(link[field].is_string(), "{field} of {link}");
            }
        }
        let find = |rel: &str| -> &Value {
            links
                .iter()
                .find(|l| l["rel"] == rel)
                .unwrap_or_else(|| panic!("no {rel} link"))
        };
        assert_eq!(find("self")["href"], "http://records.test:8080/?f=json");
        assert_eq!(find("alternate")["type"], "text/html");
        for (path, rel) in SURFACES {
            assert_eq!(
                find(rel)["href"],
                format!("http://records.test:8080{path}"),
                "{rel}"
            );
        }
    }
}

#[tokio::test]
async fn a_browser_gets_the_landing_page_as_html_with_a_link_to_every_surface() {
    let app = TestApp::new().await;
    for (path, accept) in [("/", Some(BROWSER_ACCEPT)), ("/?f=html", None)] {
        let r = landing(&app, path, accept).await;
        assert_eq!(r.status, StatusCode::OK, "{path}");
        assert!(content_type(&r).starts_with("text/html"), "{path}");
        assert!(r.text.starts_with("<!doctype html>"));
        for (surface, _) in SURFACES {
            let href = format!("href=\"http://records.test:8080{surface}\"");
            assert!(r.text.contains(&href), "{path}: no {href}");
        }
        assert!(!r.text.to_lowercase().contains("<script"), "self-contained");
    }
    // `f` wins over Accept.
    let r = landing(&app, "/?f=json", Some(BROWSER_ACCEPT)).await;
    assert_eq!(content_type(&r), "application/json");
}

#[tokio::test]
async fn an_unknown_landing_page_format_is_a_400_naming_f_as_on_the_ogc_routes() {
    let app = TestApp::new().await;
    let r = landing(&app, "/?f=xml", None).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text);
    assert_eq!(r.body["code"], "BAD_REQUEST");
    let detail = r.body["detail"].as_str().unwrap();
    assert!(detail.starts_with("f: "), "{detail}");
    // The OGC routes answer the same mistake the same way.
    let ogc = app.get("/collections?f=xml").await;
    assert_eq!(ogc.status, StatusCode::BAD_REQUEST, "{}", ogc.text);
    assert_eq!(ogc.body["code"], r.body["code"]);
    // And the OpenAPI document says so, with no 422 the page never answers.
    let doc = app.get("/openapi.json").await.body;
    let responses = &doc["paths"]["/"]["get"]["responses"];
    assert!(responses.get("400").is_some(), "{responses}");
    assert!(responses.get("422").is_none(), "{responses}");
}

#[tokio::test]
async fn every_link_of_the_landing_page_answers() {
    let app = TestApp::new().await;
    let r = landing(&app, "/", None).await;
    for link in r.body["links"].as_array().unwrap() {
        let href = link["href"].as_str().unwrap();
        let path = href.strip_prefix("http://records.test:8080").unwrap();
        let status = if link["rel"] == "mcp" {
            // A POST endpoint for authenticated clients: a bare GET is refused, but it is there.
            let r = app
                .send(
                    Request::get(path)
                        .header(header::HOST, "localhost")
                        .body(Body::empty())
                        .unwrap(),
                )
                .await;
            assert_ne!(r.status, StatusCode::NOT_FOUND, "{path}");
            continue;
        } else if link["type"] == "text/html" {
            landing(&app, path, Some(BROWSER_ACCEPT)).await.status
        } else if link["rel"] == "graphql" {
            // The GraphQL endpoint itself: a query over GET.
            landing(
                &app,
                "/graphql?query=%7B__typename%7D",
                Some("application/json"),
            )
            .await
            .status
        } else {
            landing(&app, path, None).await.status
        };
        assert_eq!(status, StatusCode::OK, "{} {path}", link["rel"]);
    }
}
