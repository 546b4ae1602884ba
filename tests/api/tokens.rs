use crate::harness::TestApp;
use axum::http::StatusCode;
use serde_json::json;
use spacetime_records::domain::AgentStatus;

async fn token_for(app: &TestApp, key: &str) -> String {
    let r = app
        .request("POST", "/api/v1/agents/me/tokens", None, Some(key))
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    assert_eq!(r.body["token_type"], "bearer");
    assert_eq!(r.body["expires_in"], 900);
    r.body["access_token"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn an_access_token_works_until_its_key_is_revoked() {
    let app = TestApp::new().await;
    let (id, key) = app.register("Tokened").await;
    let created = app
        .post_as("/api/v1/agents/me/api-keys", json!({}), &key)
        .await;
    let second_key = created.body["api_key"].as_str().unwrap();
    let token = token_for(&app, second_key).await;
    let me = app.get_as("/api/v1/agents/me", &token).await;
    assert_eq!(me.status, StatusCode::OK);
    assert_eq!(me.body["id"], id.to_string());
    let key_id = created.body["key"]["id"].as_str().unwrap();
    app.request(
        "DELETE",
        &format!("/api/v1/agents/me/api-keys/{key_id}"),
        None,
        Some(&key),
    )
    .await;
    assert_eq!(
        app.get_as("/api/v1/agents/me", &token).await.status,
        StatusCode::UNAUTHORIZED
    );
}

#[tokio::test]
async fn an_access_token_is_refused_once_its_agent_is_disabled() {
    let app = TestApp::new().await;
    let (id, key) = app.register("Token Disabled").await;
    let token = token_for(&app, &key).await;
    app.set_agent_status(id, AgentStatus::Disabled).await;
    assert_eq!(
        app.get_as("/api/v1/agents/me", &token).await.status,
        StatusCode::UNAUTHORIZED
    );
}

#[tokio::test]
async fn a_token_signed_with_another_secret_or_tampered_is_refused() {
    let app = TestApp::new().await;
    let (id, key) = app.register("Forger").await;
    let token = token_for(&app, &key).await;
    let other = spacetime_records::auth::jwt::JwtKeys::new(&[1u8; 32], 900);
    let forged = other
        .issue(id, uuid::Uuid::now_v7(), vec!["admin".into()])
        .unwrap();
    assert_eq!(
        app.get_as("/api/v1/agents/me", &forged).await.status,
        StatusCode::UNAUTHORIZED
    );
    let mut tampered = token.clone();
    tampered.pop();
    tampered.push(if token.ends_with('A') { 'B' } else { 'A' });
    assert_eq!(
        app.get_as("/api/v1/agents/me", &tampered).await.status,
        StatusCode::UNAUTHORIZED
    );
}

#[tokio::test]
async fn tokens_need_a_credential() {
    let app = TestApp::new().await;
    assert_eq!(
        app.request("POST", "/api/v1/agents/me/tokens", None, None)
            .await
            .status,
        StatusCode::UNAUTHORIZED
    );
}

#[tokio::test]
async fn a_bearer_sent_to_a_route_that_needs_none_must_still_be_valid() {
    let app = TestApp::new().await;
    for path in [
        "/api/v1/entities",
        "/api/v1/public",
        "/api-docs",
        "/api/v1/agents",
    ] {
        let bad = app.get_as(path, "str_not_a_real_key").await;
        assert_eq!(bad.status, StatusCode::UNAUTHORIZED, "{path}");
        assert_eq!(bad.body["code"], "UNAUTHENTICATED", "{path}");
        assert_eq!(
            app.get(path).await.status,
            StatusCode::OK,
            "{path} without a bearer"
        );
    }
    let (_, key) = app.register("Valid Everywhere").await;
    assert_eq!(
        app.get_as("/api/v1/entities", &key).await.status,
        StatusCode::OK
    );
}
