//! GraphQL over HTTP as its spec says: `application/graphql-response+json` for clients that
//! accept it (request errors 400, no `data` when execution never started), the legacy
//! `application/json` rules for the others, 400 for a body that is not a GraphQL request, 405 for
//! a mutation over GET.

use crate::harness::{TestApp, urlencode};
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use serde_json::json;

const CURRENT: &str = "application/graphql-response+json";

async fn post(app: &TestApp, accept: Option<&str>, body: &str) -> crate::harness::TestResponse {
    let mut request = Request::post("/graphql").header(header::CONTENT_TYPE, "application/json");
    if let Some(accept) = accept {
        request = request.header(header::ACCEPT, accept);
    }
    app.send(request.body(Body::from(body.to_string())).unwrap())
        .await
}

fn media_type(r: &crate::harness::TestResponse) -> &str {
    r.headers[header::CONTENT_TYPE].to_str().unwrap()
}

#[tokio::test]
async fn a_client_accepting_the_current_media_type_gets_it_and_400_for_request_errors() {
    let app = TestApp::new().await;
    let ok = post(&app, Some(CURRENT), r#"{"query": "{ __typename }"}"#).await;
    assert_eq!(ok.status, StatusCode::OK, "{}", ok.text);
    assert!(media_type(&ok).starts_with(CURRENT));
    assert_eq!(ok.body["data"]["__typename"], "Query");

    for (query, code) in [
        ("{", "GRAPHQL_PARSE_FAILED"),
        ("{ noSuchField }", "GRAPHQL_VALIDATION_FAILED"),
    ] {
        let body = json!({ "query": query }).to_string();
        let r = post(&app, Some(CURRENT), &body).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{query}: {}", r.text);
        assert!(media_type(&r).starts_with(CURRENT));
        assert!(
            r.body.get("data").is_none(),
            "no execution, no data: {}",
            r.text
        );
        assert_eq!(
            r.body["errors"][0]["extensions"]["code"], code,
            "{}",
            r.text
        );
    }
    let coercion =
        json!({"query": "query($id: UUID!) { agent(id: $id) { id } }", "variables": {"id": null}});
    let r = post(&app, Some(CURRENT), &coercion.to_string()).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text);
    assert!(r.body.get("data").is_none());
}

#[tokio::test]
async fn legacy_json_clients_get_200_for_every_graphql_result_and_no_data_when_nothing_ran() {
    let app = TestApp::new().await;
    for accept in [None, Some("application/json"), Some("*/*")] {
        let r = post(&app, accept, r#"{"query": "{ noSuchField }"}"#).await;
        assert_eq!(r.status, StatusCode::OK, "{accept:?}: {}", r.text);
        assert_eq!(media_type(&r), "application/json", "{accept:?}");
        assert_eq!(
            r.body["errors"][0]["extensions"]["code"],
            "GRAPHQL_VALIDATION_FAILED"
        );
        assert!(r.body.get("data").is_none(), "{}", r.text);
    }
    // A client preferring application/json by quality keeps it.
    let r = post(
        &app,
        Some("application/graphql-response+json;q=0.5, application/json"),
        r#"{"query": "{"}"#,
    )
    .await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(media_type(&r), "application/json");
}

#[tokio::test]
async fn a_field_error_is_a_result_with_data_and_200_under_either_media_type() {
    let app = TestApp::new().await;
    // `me` needs a caller: an anonymous request executes and the field fails.
    for accept in [CURRENT, "application/json"] {
        let r = post(
            &app,
            Some(accept),
            r#"{"query": "{ __typename me { id } }"}"#,
        )
        .await;
        assert_eq!(r.status, StatusCode::OK, "{accept}: {}", r.text);
        assert!(
            r.body.get("data").is_some(),
            "execution started: {}",
            r.text
        );
        assert!(!r.body["errors"][0]["path"].is_null(), "{}", r.text);
    }
}

#[tokio::test]
async fn a_body_that_is_not_a_graphql_request_is_400_on_graphql_and_stays_422_on_rest() {
    let app = TestApp::new().await;
    for accept in [Some(CURRENT), Some("application/json"), None] {
        for body in [
            r#"{ "not a JSON"#,
            r#"{"notquery": "{ __typename }"}"#,
            r#"{"query": 0}"#,
            r#"["{ __typename }"]"#,
        ] {
            let r = post(&app, accept, body).await;
            assert_eq!(
                r.status,
                StatusCode::BAD_REQUEST,
                "{accept:?} {body}: {}",
                r.text
            );
            assert_eq!(r.body["errors"][0]["extensions"]["code"], "BAD_REQUEST");
            assert!(r.body.get("data").is_none());
        }
    }
    let rest = app
        .send(
            Request::post("/api/v1/agents/register")
                .header(header::CONTENT_TYPE, "application/json")
                .body(Body::from(r#"{ "not a JSON"#))
                .unwrap(),
        )
        .await;
    assert_eq!(rest.status, StatusCode::UNPROCESSABLE_ENTITY);
}

#[tokio::test]
async fn get_without_a_query_explains_itself_and_a_mutation_over_get_is_405() {
    let app = TestApp::new().await;
    let r = app
        .send(
            Request::get("/graphql")
                .header(header::ACCEPT, "*/*")
                .body(Body::empty())
                .unwrap(),
        )
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    let message = r.body["errors"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("POST") && message.contains("GraphiQL"),
        "{message}"
    );

    let r = app
        .send(
            Request::get("/graphql?query=mutation%20%7B%20__typename%20%7D")
                .header(header::ACCEPT, CURRENT)
                .body(Body::empty())
                .unwrap(),
        )
        .await;
    assert_eq!(r.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(r.headers[header::ALLOW], "POST");
    assert!(media_type(&r).starts_with(CURRENT));

    let r = app
        .send(
            Request::get("/graphql?query=%7B%20__typename%20%7D")
                .header(header::ACCEPT, CURRENT)
                .body(Body::empty())
                .unwrap(),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.body, json!({"data": {"__typename": "Query"}}));

    // The operation the request selects (`operationName`, as clients name it) decides, whether
    // the document is new or already cached (the second round reads it from the cache).
    let both = "query Read { __typename } mutation Write { __typename }";
    for round in ["new", "cached"] {
        for (operation, status) in [
            ("Read", StatusCode::OK),
            ("Write", StatusCode::METHOD_NOT_ALLOWED),
        ] {
            let r = app
                .send(
                    Request::get(format!(
                        "/graphql?query={}&operationName={operation}",
                        urlencode(both)
                    ))
                    .header(header::ACCEPT, CURRENT)
                    .body(Body::empty())
                    .unwrap(),
                )
                .await;
            assert_eq!(r.status, status, "{round} {operation}: {}", r.text);
            if status == StatusCode::OK {
                assert_eq!(r.body, json!({"data": {"__typename": "Query"}}));
            }
        }
    }
    let r = app
        .send(
            Request::get(format!("/graphql?query={}", urlencode(both)))
                .header(header::ACCEPT, CURRENT)
                .body(Body::empty())
                .unwrap(),
        )
        .await;
    assert_eq!(r.status, StatusCode::METHOD_NOT_ALLOWED, "{}", r.text);
}
