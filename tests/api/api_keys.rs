use crate::harness::{TestApp, locs};
use axum::http::StatusCode;
use serde_json::json;

#[tokio::test]
async fn the_key_lifecycle_create_list_revoke_then_401() {
    let app = TestApp::new().await;
    let (_, first_key) = app.register("Lifecycle").await;
    let created = app
        .post_as("/api/v1/agents/me/api-keys", json!({}), &first_key)
        .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
    let second_key = created.body["api_key"].as_str().unwrap().to_string();
    let second_id = created.body["key"]["id"].as_str().unwrap().to_string();
    assert_eq!(
        created.body["key"]["scopes"],
        json!(["space_time_entries:write"])
    );

    let list = app.get_as("/api/v1/agents/me/api-keys", &second_key).await;
    assert_eq!(list.status, StatusCode::OK);
    assert_eq!(list.body.as_array().unwrap().len(), 2);
    assert!(
        !list.text.contains(&second_key) && !list.text.contains(&first_key),
        "a raw key leaked into a list"
    );
    assert!(list.body[0].get("api_key").is_none());

    let revoked = app
        .request(
            "DELETE",
            &format!("/api/v1/agents/me/api-keys/{second_id}"),
            None,
            Some(&first_key),
        )
        .await;
    assert_eq!(revoked.status, StatusCode::NO_CONTENT);
    assert!(revoked.text.is_empty());
    let refused = app.get_as("/api/v1/agents/me", &second_key).await;
    assert_eq!(refused.status, StatusCode::UNAUTHORIZED);
    let list = app.get_as("/api/v1/agents/me/api-keys", &first_key).await;
    let statuses: Vec<_> = list
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["status"].as_str().unwrap().to_string())
        .collect();
    assert!(statuses.contains(&"revoked".to_string()));
}

#[tokio::test]
async fn an_empty_body_creates_a_key_with_default_scopes() {
    let app = TestApp::new().await;
    let (_, key) = app.register("Empty Body").await;
    let r = app
        .request("POST", "/api/v1/agents/me/api-keys", None, Some(&key))
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    assert_eq!(r.body["key"]["scopes"], json!(["space_time_entries:write"]));
}

#[tokio::test]
async fn revoking_another_agents_key_is_404_and_leaves_it_working() {
    let app = TestApp::new().await;
    let (_, alice) = app.register("Alice").await;
    let (_, bob) = app.register("Bob").await;
    let bob_keys = app.get_as("/api/v1/agents/me/api-keys", &bob).await;
    let bob_key_id = bob_keys.body[0]["id"].as_str().unwrap();
    let r = app
        .request(
            "DELETE",
            &format!("/api/v1/agents/me/api-keys/{bob_key_id}"),
            None,
            Some(&alice),
        )
        .await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    assert_eq!(r.body["code"], "NOT_FOUND");
    assert_eq!(
        app.get_as("/api/v1/agents/me", &bob).await.status,
        StatusCode::OK
    );
    let missing = app
        .request(
            "DELETE",
            &format!("/api/v1/agents/me/api-keys/{}", uuid::Uuid::now_v7()),
            None,
            Some(&alice),
        )
        .await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn an_expired_key_is_refused_and_listed_as_expired() {
    let app = TestApp::new().await;
    let (_, key) = app.register("Expiring").await;
    let expires = (chrono::Utc::now() + chrono::Duration::seconds(60)).to_rfc3339();
    let created = app
        .post_as(
            "/api/v1/agents/me/api-keys",
            json!({"expires_at_tstamp_utc": expires}),
            &key,
        )
        .await;
    assert_eq!(created.status, StatusCode::CREATED);
    let short_key = created.body["api_key"].as_str().unwrap();
    assert_eq!(
        app.get_as("/api/v1/agents/me", short_key).await.status,
        StatusCode::OK
    );
    // Move the expiry into the past instead of sleeping.
    sqlx::query("UPDATE agent_api_keys SET expires_at_tstamp_utc = now() - interval '1 second' WHERE id = $1::uuid")
        .bind(created.body["key"]["id"].as_str().unwrap())
        .execute(app.pool())
        .await
        .unwrap();
    assert_eq!(
        app.get_as("/api/v1/agents/me", short_key).await.status,
        StatusCode::UNAUTHORIZED
    );
    let list = app.get_as("/api/v1/agents/me/api-keys", &key).await;
    assert!(
        list.body
            .as_array()
            .unwrap()
            .iter()
            .any(|k| k["status"] == "expired")
    );
}

#[tokio::test]
async fn missing_malformed_and_unknown_keys_get_the_same_401() {
    let app = TestApp::new().await;
    let well_formed_unknown = spacetime_records::auth::api_key::generate().raw;
    let mut bodies = Vec::new();
    for header in [
        None,
        Some("Bearer"),
        Some("Basic abc"),
        Some("Bearer str_nonsense"),
        Some(&format!("Bearer {well_formed_unknown}")[..]),
        Some("Bearer eyJa.b.c"),
    ] {
        let mut req = axum::http::Request::builder().uri("/api/v1/agents/me");
        if let Some(h) = header {
            req = req.header("authorization", h);
        }
        let r = app.send(req.body(axum::body::Body::empty()).unwrap()).await;
        assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{header:?}");
        assert_eq!(r.headers["www-authenticate"], "Bearer");
        bodies.push(r.body);
    }
    assert!(
        bodies.windows(2).all(|w| w[0] == w[1]),
        "401 bodies differ: {bodies:?}"
    );
}

#[tokio::test]
async fn last_used_is_recorded_at_most_once_a_minute() {
    let app = TestApp::new().await;
    let (_, key) = app.register("Touchy").await;
    app.get_as("/api/v1/agents/me", &key).await;
    let first: chrono::DateTime<chrono::Utc> =
        sqlx::query_scalar("SELECT last_used_at_tstamp_utc FROM agent_api_keys")
            .fetch_one(app.pool())
            .await
            .unwrap();
    app.get_as("/api/v1/agents/me", &key).await;
    let second: chrono::DateTime<chrono::Utc> =
        sqlx::query_scalar("SELECT last_used_at_tstamp_utc FROM agent_api_keys")
            .fetch_one(app.pool())
            .await
            .unwrap();
    assert_eq!(first, second);
}

#[tokio::test]
async fn bad_key_creation_bodies_are_422_and_admin_scope_needs_admin() {
    let app = TestApp::new().await;
    let (_, key) = app.register("Scoper").await;
    let r = app
        .post_as(
            "/api/v1/agents/me/api-keys",
            json!({"scopes": ["space_time_entries:write", "root"]}),
            &key,
        )
        .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(locs(&r.body), ["body.scopes.1"]);
    let past = app
        .post_as(
            "/api/v1/agents/me/api-keys",
            json!({"expires_at_tstamp_utc": "2001-01-01T00:00:00Z"}),
            &key,
        )
        .await;
    assert_eq!(locs(&past.body), ["body.expires_at_tstamp_utc"]);
    let bad_date = app
        .post_as(
            "/api/v1/agents/me/api-keys",
            json!({"expires_at_tstamp_utc": "tomorrow"}),
            &key,
        )
        .await;
    assert_eq!(locs(&bad_date.body), ["body.expires_at_tstamp_utc"]);
    let admin = app
        .post_as(
            "/api/v1/agents/me/api-keys",
            json!({"scopes": ["admin"]}),
            &key,
        )
        .await;
    assert_eq!(admin.status, StatusCode::FORBIDDEN);
    assert_eq!(admin.body["code"], "FORBIDDEN");
    let operator = app.admin_key().await;
    let ok = app
        .post_as(
            "/api/v1/agents/me/api-keys",
            json!({"scopes": ["admin"]}),
            &operator,
        )
        .await;
    assert_eq!(ok.status, StatusCode::CREATED);
}

/// The ids of a list of keys, in order.
fn ids(keys: &serde_json::Value) -> Vec<String> {
    keys.as_array()
        .unwrap()
        .iter()
        .map(|k| k["id"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn a_key_list_is_bounded_newest_first_on_rest_and_graphql() {
    let app = TestApp::new().await;
    let (agent_id, key) = app.register("Many Keys").await;
    let mut created = Vec::new();
    for _ in 0..3 {
        let r = app
            .post_as("/api/v1/agents/me/api-keys", json!({}), &key)
            .await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
        created.push(r.body["key"]["id"].as_str().unwrap().to_string());
    }
    let newest_two: Vec<_> = created.iter().rev().take(2).cloned().collect();

    let list = app.get_as("/api/v1/agents/me/api-keys?limit=2", &key).await;
    assert_eq!(list.status, StatusCode::OK, "{}", list.text);
    assert_eq!(ids(&list.body), newest_two);
    let all = app.get_as("/api/v1/agents/me/api-keys", &key).await;
    assert_eq!(
        all.body.as_array().unwrap().len(),
        4,
        "the default page holds every key here"
    );

    for bad in ["0", "501", "many"] {
        let r = app
            .get_as(&format!("/api/v1/agents/me/api-keys?limit={bad}"), &key)
            .await;
        assert_eq!(
            r.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "limit={bad}: {}",
            r.text
        );
        assert_eq!(locs(&r.body), ["query.limit"], "limit={bad}");
    }

    let document = "query($id: UUID!) { agent(id: $id) { apiKeys(first: 2) { id } } myApiKeys(first: 2) { id } }";
    let answer = app
        .graphql(document, json!({"id": agent_id}), Some(&key))
        .await;
    assert!(answer.body["errors"].is_null(), "{}", answer.text);
    for field in [
        &answer.body["data"]["agent"]["apiKeys"],
        &answer.body["data"]["myApiKeys"],
    ] {
        assert_eq!(ids(field), newest_two);
    }
    let too_many = app
        .graphql("{ myApiKeys(first: 501) { id } }", json!({}), Some(&key))
        .await;
    assert_eq!(
        too_many.body["errors"][0]["extensions"]["code"], "VALIDATION_ERROR",
        "{}",
        too_many.text
    );
}
