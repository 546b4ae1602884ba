use crate::harness::{TestApp, tmp_dir};
use axum::http::StatusCode;
use spacetime_records::config::Config;
use spacetime_records::db::cluster::{Durability, EmbeddedCluster};
use spacetime_records::{app, db};

#[tokio::test]
async fn health_and_ready_answer_200_with_string_maps() {
    let app = TestApp::new().await;
    let h = app.get("/health").await;
    assert_eq!(h.status, StatusCode::OK);
    assert_eq!(h.body["status"], "ok");
    let r = app.get("/ready").await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(
        r.body
            .as_object()
            .unwrap()
            .values()
            .all(serde_json::Value::is_string)
    );
}

#[tokio::test]
async fn ready_is_503_while_migrations_are_pending() {
    let app = TestApp::new().await;
    sqlx::query("DELETE FROM _sqlx_migrations")
        .execute(app.pool())
        .await
        .unwrap();
    let r = app.get("/ready").await;
    assert_eq!(r.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(r.body["code"], "NOT_READY");
}

/// A cluster of its own, so stopping it cannot disturb the other tests.
#[tokio::test]
async fn ready_is_503_when_the_database_is_stopped() {
    let dir = tmp_dir().join(format!("ready-{}", uuid::Uuid::new_v4().simple()));
    let cluster = tokio::task::spawn_blocking({
        let dir = dir.clone();
        move || EmbeddedCluster::ensure_running(&dir, None, Durability::ThrowAway)
    })
    .await
    .unwrap()
    .unwrap();
    db::ensure_database(&cluster.url("postgres"), "ready_probe")
        .await
        .unwrap();
    let mut config = Config::for_data_dir(dir.join("data"));
    config.jwt_secret = Some("x".repeat(32).into());
    let state = app::build_state(config, &cluster.url("ready_probe"))
        .await
        .unwrap();
    let test_app = TestApp::over(state);
    assert_eq!(test_app.get("/ready").await.status, StatusCode::OK);
    tokio::task::spawn_blocking(move || cluster.stop())
        .await
        .unwrap()
        .unwrap();
    let r = test_app.get("/ready").await;
    assert_eq!(r.status, StatusCode::SERVICE_UNAVAILABLE, "{}", r.text);
    assert_eq!(test_app.get("/health").await.status, StatusCode::OK);
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn openapi_is_3_1_version_0_1_0_and_lists_every_route() {
    let app = TestApp::new().await;
    let r = app.get("/openapi.json").await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(r.body["openapi"].as_str().unwrap().starts_with("3.1"));
    assert_eq!(r.body["info"]["version"], "0.1.0");
    let expected = [
        ("/health", "get"),
        ("/ready", "get"),
        ("/graphql", "get"),
        ("/graphql", "post"),
        ("/api/v1/principals", "get"),
        ("/api/v1/principals", "post"),
        ("/api/v1/principals/{principal_id}", "get"),
        ("/api/v1/agents", "get"),
        ("/api/v1/agents", "post"),
        ("/api/v1/agents/{agent_id}", "get"),
        ("/api/v1/agents/register", "post"),
        ("/api/v1/agents/me", "get"),
        ("/api/v1/agents/me/tokens", "post"),
        ("/api/v1/agents/me/api-keys", "get"),
        ("/api/v1/agents/me/api-keys", "post"),
        ("/api/v1/agents/me/api-keys/{key_id}", "delete"),
        ("/api/v1/space-time-entries", "post"),
        ("/api/v1/space-time-entries", "get"),
        ("/api/v1/space-time-entries/{entry_id}", "get"),
        ("/api/v1/space-time-entries/context-rubrics", "get"),
        (
            "/api/v1/space-time-entries/context-rubrics/{entry_type}",
            "get",
        ),
        ("/api/v1/space-time-entries/agent-guide", "get"),
        ("/api/v1/attachments/{sha256}", "get"),
        ("/api/v1/entities", "get"),
        ("/api/v1/entities/{entity_id}", "get"),
        ("/api/v1/listings", "get"),
        ("/api/v1/listings/{listing_id}", "get"),
        ("/api/v1/requests", "get"),
        ("/api/v1/requests/{request_id}", "get"),
        ("/api/v1/canonical-link-contributions", "get"),
        ("/api/v1/transformer/process-pending", "post"),
        ("/api/v1/transformer/process/{space_time_entry_id}", "post"),
        ("/api/v1/ranker/run/entity/{entity_id}", "post"),
        ("/api/v1/ranker/run-all", "post"),
        ("/api/v1/search", "get"),
        ("/api/v1/notes", "get"),
        ("/api/v1/notes", "post"),
        ("/api/v1/signals", "get"),
        ("/api/v1/signals", "post"),
        ("/api/v1/public", "get"),
        ("/api/v1/public/agent-docs", "get"),
        ("/api/v1/public/agent-docs/{doc_slug}", "get"),
        ("/api/v1/public/terms-and-conditions/{doc_slug}", "get"),
    ];
    let paths = r.body["paths"].as_object().unwrap();
    for (path, method) in expected {
        assert!(
            paths.get(path).and_then(|p| p.get(method)).is_some(),
            "{method} {path} missing from /openapi.json"
        );
    }
    let register = &paths["/api/v1/agents/register"]["post"];
    assert!(register["requestBody"].is_object());
    assert!(register["responses"]["201"].is_object());
    assert!(r.body["components"]["securitySchemes"]["bearer"].is_object());
    assert!(paths["/api/v1/agents/me"]["get"]["security"].is_array());
    // And every documented route is really served (not the JSON 404 fallback).
    for (path, method) in paths.iter().flat_map(|(p, ops)| {
        ops.as_object()
            .unwrap()
            .keys()
            .map(move |m| (p.clone(), m.clone()))
    }) {
        let concrete = path
            .replace("{principal_id}", "x")
            .replace("{agent_id}", "x")
            .replace("{key_id}", "x");
        let response = app
            .request(&method.to_uppercase(), &concrete, None, None)
            .await;
        assert!(
            !(response.status == StatusCode::NOT_FOUND
                && response.body["detail"] == "route not found"),
            "{method} {path}"
        );
    }
}

#[test]
fn the_committed_schema_graphql_is_current() {
    let committed = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/schema.graphql"))
        .unwrap_or_default();
    assert!(
        committed == spacetime_records::graphql::sdl(),
        "schema.graphql is stale: run `cargo run -- export-schema` and commit the result"
    );
}
