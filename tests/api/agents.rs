use crate::harness::{TestApp, locs};
use axum::http::StatusCode;
use serde_json::json;
use spacetime_records::domain::AgentStatus;

#[tokio::test]
async fn registration_returns_the_agent_a_raw_key_once_and_key_metadata() {
    let app = TestApp::new().await;
    let r = app
        .post("/api/v1/agents/register", json!({"agent_type": "scraper", "display_name": "Acme Scraper", "agent_handle": "acme_scraper"}))
        .await;
    assert_eq!(r.status, StatusCode::CREATED);
    assert_eq!(r.body["agent"]["agent_handle"], "acme_scraper");
    assert_eq!(r.body["agent"]["status"], "active");
    assert_eq!(r.body["agent"]["score_trust"], "0.5");
    let raw = r.body["api_key"].as_str().unwrap();
    assert!(raw.starts_with("str_"));
    assert_eq!(r.body["key"]["scopes"], json!(["space_time_entries:write"]));
    assert!(raw.starts_with(r.body["key"]["key_prefix"].as_str().unwrap()));
    // Only a hash is stored: the raw key is nowhere in the database.
    let stored: i64 = sqlx::query_scalar("SELECT count(*) FROM agent_api_keys WHERE key_prefix = $1 AND key_hash = sha256($2::bytea)")
        .bind(r.body["key"]["key_prefix"].as_str().unwrap())
        .bind(raw.as_bytes())
        .fetch_one(app.pool())
        .await
        .unwrap();
    assert_eq!(stored, 1);
}

#[tokio::test]
async fn a_generated_handle_follows_the_pattern() {
    let app = TestApp::new().await;
    let r = app
        .post(
            "/api/v1/agents",
            json!({"agent_type": "human", "display_name": "Zoë's Bakery — Ltd."}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let handle = r.body["agent_handle"].as_str().unwrap();
    assert!(handle.starts_with("zo_s_bakery_ltd_"), "{handle}");
}

#[tokio::test]
async fn creating_an_agent_issues_no_key() {
    let app = TestApp::new().await;
    let r = app
        .post(
            "/api/v1/agents",
            json!({"agent_type": "sensor", "display_name": "Weather station"}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED);
    assert!(r.body.get("api_key").is_none());
    let keys: i64 = sqlx::query_scalar("SELECT count(*) FROM agent_api_keys")
        .fetch_one(app.pool())
        .await
        .unwrap();
    assert_eq!(keys, 0);
}

#[tokio::test]
async fn me_returns_the_bearer_agent() {
    let app = TestApp::new().await;
    let (id, key) = app.register("Me Agent").await;
    let r = app.get_as("/api/v1/agents/me", &key).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.body["id"], id.to_string());
}

#[tokio::test]
async fn agent_reads_answer_404_for_unknown_ids() {
    let app = TestApp::new().await;
    let r = app
        .get(&format!("/api/v1/agents/{}", uuid::Uuid::now_v7()))
        .await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    assert_eq!(r.body["code"], "NOT_FOUND");
    assert!(r.body["detail"].is_string());
}

#[tokio::test]
async fn agent_lists_show_public_metadata_only_newest_first() {
    let app = TestApp::new().await;
    app.post(
        "/api/v1/agents",
        json!({"agent_type": "human", "display_name": "First", "metadata": {"secret_note": "x"}}),
    )
    .await;
    app.post(
        "/api/v1/agents",
        json!({"agent_type": "human", "display_name": "Second"}),
    )
    .await;
    let r = app.get("/api/v1/agents?limit=1").await;
    assert_eq!(r.status, StatusCode::OK);
    let list = r.body.as_array().unwrap();
    assert_eq!(list.len(), 1);
    assert_eq!(list[0]["display_name"], "Second");
    assert!(list[0].get("metadata").is_none());
    assert!(list[0].get("truth_certificate_amount_gbp").is_none());
    assert_eq!(app.list_len("/api/v1/agents").await, 2);
}

#[tokio::test]
async fn a_taken_handle_is_a_422_on_that_field() {
    let app = TestApp::new().await;
    let body = json!({"agent_type": "human", "display_name": "A", "agent_handle": "same_handle"});
    assert_eq!(
        app.post("/api/v1/agents", body.clone()).await.status,
        StatusCode::CREATED
    );
    let r = app.post("/api/v1/agents/register", body).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(locs(&r.body), ["body.agent_handle"]);
    assert_eq!(r.body["detail"][0]["type"], "unique_violation");
}

#[tokio::test]
async fn an_unknown_principal_is_a_422_on_principal_id() {
    let app = TestApp::new().await;
    let r = app
        .post("/api/v1/agents", json!({"agent_type": "human", "display_name": "A", "principal_id": uuid::Uuid::now_v7()}))
        .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(locs(&r.body), ["body.principal_id"]);
}

#[tokio::test]
async fn decimal_scores_accept_numbers_and_strings() {
    let app = TestApp::new().await;
    let r = app
        .post("/api/v1/agents", json!({"agent_type": "human", "display_name": "A", "score_trust": 0.75, "score_reputation": "0.25", "truth_certificate_amount_gbp": 0}))
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    assert_eq!(r.body["score_trust"], "0.75");
    assert_eq!(r.body["score_reputation"], "0.25");
    assert_eq!(r.body["truth_certificate_amount_gbp"], "0");
    let declared = app
        .post("/api/v1/agents", json!({"agent_type": "human", "display_name": "B", "truth_certificate_amount_gbp": "100.50"}))
        .await;
    assert_eq!(
        declared.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "{}",
        declared.text
    );
    assert_eq!(locs(&declared.body), ["body.truth_certificate_amount_gbp"]);
}

#[tokio::test]
async fn a_disabled_agent_is_refused_with_401() {
    let app = TestApp::new().await;
    let (id, key) = app.register("Soon Disabled").await;
    assert_eq!(
        app.get_as("/api/v1/agents/me", &key).await.status,
        StatusCode::OK
    );
    app.set_agent_status(id, AgentStatus::Disabled).await;
    let r = app.get_as("/api/v1/agents/me", &key).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    assert_eq!(r.headers["www-authenticate"], "Bearer");
}
