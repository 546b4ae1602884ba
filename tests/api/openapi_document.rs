//! `/openapi.json` as client generators read it: valid OpenAPI 3.1 (the OpenAPI Initiative's
//! schema of the format, `oas-3.1-schema.json`: https://spec.openapis.org/oas/3.1/schema/2022-10-07,
//! Apache-2.0, as shipped by PyPI `openapi-spec-validator` 0.9.0), one meaningful `operationId`
//! per operation, a description on every response, and request bodies documented as required
//! exactly where an empty body is refused. tests/clients/generated.sh runs generated Python and
//! TypeScript clients against a real server.

use crate::harness::TestApp;
use axum::http::StatusCode;
use serde_json::Value;
use std::collections::BTreeMap;

const METHODS: &[&str] = &["get", "put", "post", "delete", "patch"];

async fn served_document(app: &TestApp) -> Value {
    let r = app.get("/openapi.json").await;
    assert_eq!(r.status, StatusCode::OK);
    r.body
}

/// (method, path, operation) of every operation, in document order.
fn operations(doc: &Value) -> Vec<(&'static str, &str, &Value)> {
    let mut all = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for method in METHODS {
            if let Some(operation) = item.get(*method) {
                all.push((*method, path.as_str(), operation));
            }
        }
    }
    all
}

#[tokio::test]
async fn the_served_document_is_valid_openapi_3_1() {
    let app = TestApp::new().await;
    let doc = served_document(&app).await;
    let meta: Value = serde_json::from_str(include_str!("oas-3.1-schema.json")).unwrap();
    let validator = jsonschema::validator_for(&meta).expect("the OpenAPI 3.1 schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(&doc)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .take(20)
        .collect();
    assert!(
        errors.is_empty(),
        "/openapi.json is not valid OpenAPI 3.1: {errors:#?}"
    );
    // And the check has teeth: a response without its description is refused.
    let mut broken = doc.clone();
    broken["paths"]["/health"]["get"]["responses"]["200"]
        .as_object_mut()
        .unwrap()
        .remove("description");
    assert!(!validator.is_valid(&broken));
}

#[tokio::test]
async fn every_operation_has_its_own_snake_case_operation_id() {
    let app = TestApp::new().await;
    let doc = served_document(&app).await;
    let mut seen: BTreeMap<&str, String> = BTreeMap::new();
    for (method, path, operation) in operations(&doc) {
        let id = operation["operationId"]
            .as_str()
            .unwrap_or_else(|| panic!("{method} {path} has no operationId"));
        assert!(
            id.len() >= 6
                && id.starts_with(|c: char| c.is_ascii_lowercase())
                && id
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
            "{method} {path}: operationId `{id}` is not a descriptive snake_case name"
        );
        // A generated client names its functions after these; a bare noun says too little.
        assert!(
            id.contains('_'),
            "{method} {path}: operationId `{id}` should be verb_object (e.g. get_{id})"
        );
        if let Some(other) = seen.insert(id, format!("{method} {path}")) {
            panic!("operationId `{id}` is used by {other} and {method} {path}");
        }
    }
    assert!(seen.len() >= 80, "only {} operations", seen.len());
}

#[tokio::test]
async fn every_response_has_a_description() {
    let app = TestApp::new().await;
    let doc = served_document(&app).await;
    let mut missing = Vec::new();
    let mut count = 0;
    for (method, path, operation) in operations(&doc) {
        for (status, response) in operation["responses"].as_object().unwrap() {
            count += 1;
            if response["description"]
                .as_str()
                .is_none_or(|d| d.trim().is_empty())
            {
                missing.push(format!("{method} {path} {status}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "responses without a description (give one in `responses((status = …, description = …))`): {missing:#?}"
    );
    assert!(count > 300, "only {count} responses");
}

#[tokio::test]
async fn a_body_is_documented_as_required_exactly_where_an_empty_one_is_refused() {
    let app = TestApp::new().await;
    let admin = app.admin_key().await;
    let doc = served_document(&app).await;
    let mut checked = 0;
    for (method, path, operation) in operations(&doc) {
        let Some(body) = operation.get("requestBody") else {
            continue;
        };
        let required = body["required"].as_bool().unwrap_or(false);
        // Any id will do: the body is read (and refused) before the record is looked up.
        let concrete: String = path
            .split('/')
            .map(|segment| match segment {
                "{entry_type}" => "entity",
                s if s.starts_with('{') => "018f0000-0000-7000-8000-000000000000",
                s => s,
            })
            .collect::<Vec<_>>()
            .join("/");
        let r = app
            .request(&method.to_uppercase(), &concrete, None, Some(&admin))
            .await;
        if required {
            assert!(
                [
                    StatusCode::BAD_REQUEST,
                    StatusCode::UNSUPPORTED_MEDIA_TYPE,
                    StatusCode::UNPROCESSABLE_ENTITY
                ]
                .contains(&r.status),
                "{method} {path} documents its body as required, yet an empty one got {}: {}",
                r.status,
                r.text
            );
        } else {
            assert!(
                r.status.is_success(),
                "{method} {path} documents its body as optional, yet an empty one got {}: {}",
                r.status,
                r.text
            );
        }
        checked += 1;
    }
    assert!(checked >= 15, "only {checked} operations take a body");
    let keys = &doc["paths"]["/api/v1/agents/me/api-keys"]["post"]["requestBody"];
    assert_ne!(keys["required"], true, "{keys}");
}
