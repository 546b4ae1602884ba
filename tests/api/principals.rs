use crate::harness::{TestApp, locs};
use axum::http::StatusCode;
use serde_json::json;

#[tokio::test]
async fn principals_are_created_read_and_listed() {
    let app = TestApp::new().await;
    let r = app
        .post("/api/v1/principals", json!({"principal_type": "company", "display_name": "Acme Ltd", "email": "ops@acme.example", "website_url": "https://acme.example", "metadata": {"tier": 1}}))
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let id = r.body["id"].as_str().unwrap().to_string();
    assert_eq!(r.body["metadata"], json!({"tier": 1}));
    let read = app.get(&format!("/api/v1/principals/{id}")).await;
    assert_eq!(read.status, StatusCode::OK);
    assert_eq!(read.body, r.body);
    let list = app.get("/api/v1/principals?limit=10").await;
    assert_eq!(list.body.as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn an_agent_can_belong_to_a_principal() {
    let app = TestApp::new().await;
    let p = app
        .post(
            "/api/v1/principals",
            json!({"principal_type": "supplier", "display_name": "Supplier"}),
        )
        .await;
    let r = app
        .post("/api/v1/agents/register", json!({"agent_type": "supplier_agent", "display_name": "Bot", "principal_id": p.body["id"]}))
        .await;
    assert_eq!(r.status, StatusCode::CREATED);
    assert_eq!(r.body["agent"]["principal_id"], p.body["id"]);
}

#[tokio::test]
async fn bad_principal_fields_are_all_reported() {
    let app = TestApp::new().await;
    let r = app
        .post("/api/v1/principals", json!({"principal_type": "company", "display_name": " ", "email": "nope", "website_url": "ftp://x", "phone": "call me"}))
        .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        locs(&r.body),
        [
            "body.display_name",
            "body.email",
            "body.phone",
            "body.website_url"
        ]
    );
}

#[tokio::test]
async fn an_unknown_principal_is_404() {
    let app = TestApp::new().await;
    let r = app
        .get(&format!("/api/v1/principals/{}", uuid::Uuid::now_v7()))
        .await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
}
