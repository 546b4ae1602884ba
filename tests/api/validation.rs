//! Every malformed input answers 422 with `{detail: [{loc, msg, type}]}`; never a 500.

use crate::harness::{TestApp, locs};
use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::json;

#[tokio::test]
async fn unknown_properties_are_rejected_at_their_location() {
    let app = TestApp::new().await;
    let r = app
        .post(
            "/api/v1/agents",
            json!({"agent_type": "human", "display_name": "A", "agent_id": "x"}),
        )
        .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(locs(&r.body), ["body.agent_id"]);
    assert_eq!(r.body["detail"][0]["type"], "extra_forbidden");
}

#[tokio::test]
async fn wrong_types_bad_enums_and_missing_fields_name_the_field() {
    let app = TestApp::new().await;
    let cases = [
        (
            json!({"agent_type": "robot", "display_name": "A"}),
            "body.agent_type",
            "enum",
        ),
        (
            json!({"agent_type": "human", "display_name": 42}),
            "body.display_name",
            "type_error",
        ),
        (
            json!({"agent_type": "human"}),
            "body.display_name",
            "missing",
        ),
        (
            json!({"agent_type": "human", "display_name": "A", "status": "sleeping"}),
            "body.status",
            "enum",
        ),
        (
            json!({"agent_type": "human", "display_name": "A", "metadata": [1]}),
            "body.metadata",
            "type_error",
        ),
        (
            json!({"agent_type": "human", "display_name": "A", "score_trust": "1e1"}),
            "body.score_trust",
            "value_error",
        ),
        (
            json!({"agent_type": "human", "display_name": "A", "principal_id": "not-a-uuid"}),
            "body.principal_id",
            "value_error",
        ),
    ];
    for (body, loc, kind) in cases {
        let r = app.post("/api/v1/agents", body.clone()).await;
        assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
        assert_eq!(locs(&r.body), [loc], "{body}");
        assert_eq!(r.body["detail"][0]["type"], kind, "{body}: {}", r.text);
    }
}

#[tokio::test]
async fn handle_pattern_and_score_ranges_are_checked() {
    let app = TestApp::new().await;
    for handle in [
        "ab",
        "1abc",
        "Upper",
        "has-dash",
        "a234567890123456789012345678901234",
    ] {
        let r = app
            .post(
                "/api/v1/agents",
                json!({"agent_type": "human", "display_name": "A", "agent_handle": handle}),
            )
            .await;
        assert_eq!(locs(&r.body), ["body.agent_handle"], "{handle}");
    }
    for (field, value) in [
        ("score_trust", json!(1.01)),
        ("score_reputation", json!("-0.1")),
        ("score_trust", json!(-1)),
    ] {
        let r = app
            .post(
                "/api/v1/agents",
                json!({"agent_type": "human", "display_name": "A", field: value}),
            )
            .await;
        assert_eq!(locs(&r.body), [format!("body.{field}")], "{field}={value}");
    }
}

#[tokio::test]
async fn limits_outside_1_to_500_and_malformed_limits_are_422() {
    let app = TestApp::new().await;
    for limit in ["0", "501", "-1", "abc", "1.5"] {
        for path in ["/api/v1/agents", "/api/v1/principals"] {
            let r = app.get(&format!("{path}?limit={limit}")).await;
            assert_eq!(
                r.status,
                StatusCode::UNPROCESSABLE_ENTITY,
                "{path} limit={limit}"
            );
            assert_eq!(locs(&r.body), ["query.limit"]);
        }
    }
    assert_eq!(
        app.get("/api/v1/agents?limit=500").await.status,
        StatusCode::OK
    );
}

#[tokio::test]
async fn malformed_uuids_in_paths_are_422() {
    let app = TestApp::new().await;
    let (_, key) = app.register("Pathy").await;
    assert_eq!(
        locs(&app.get("/api/v1/agents/nope").await.body),
        ["path.agent_id"]
    );
    assert_eq!(
        locs(&app.get("/api/v1/principals/123").await.body),
        ["path.principal_id"]
    );
    let r = app
        .request("DELETE", "/api/v1/agents/me/api-keys/zzz", None, Some(&key))
        .await;
    assert_eq!(locs(&r.body), ["path.key_id"]);
}

#[tokio::test]
async fn malformed_or_empty_json_is_422_and_a_wrong_media_type_is_415() {
    let app = TestApp::new().await;
    for raw in [
        "{bad",
        "",
        "[1,2]",
        "{\"agent_type\": \"human\", \"display_name\": \"A\"} trailing",
    ] {
        let req = Request::post("/api/v1/agents")
            .header("content-type", "application/json")
            .body(Body::from(raw))
            .unwrap();
        let r = app.send(req).await;
        assert_eq!(
            r.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{raw:?}: {}",
            r.text
        );
        assert_eq!(locs(&r.body)[0], "body", "{raw:?}");
    }
    let req = Request::post("/api/v1/agents")
        .header("content-type", "text/plain")
        .body(Body::from("{}"))
        .unwrap();
    let r = app.send(req).await;
    assert_eq!(r.status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert_eq!(r.body["code"], "UNSUPPORTED_MEDIA_TYPE");
}

#[tokio::test]
async fn bodies_over_the_limit_are_413_on_rest_and_graphql() {
    let app = TestApp::new().await;
    let big = "x".repeat(1024 * 1024 + 10);
    let body = json!({"agent_type": "human", "display_name": "A", "description": big}).to_string();
    for path in ["/api/v1/agents", "/graphql"] {
        let req = Request::post(path)
            .header("content-type", "application/json")
            .body(Body::from(body.clone()))
            .unwrap();
        let r = app.send(req).await;
        assert_eq!(r.status, StatusCode::PAYLOAD_TOO_LARGE, "{path}");
        assert_eq!(r.body["code"], "PAYLOAD_TOO_LARGE");
    }
    // Without a Content-Length the limit still applies while streaming.
    let stream = futures::stream::iter(
        (0..2048).map(|_| Ok::<_, std::io::Error>(bytes::Bytes::from(vec![b' '; 1024]))),
    );
    let req = Request::post("/graphql")
        .header("content-type", "application/json")
        .body(Body::from_stream(stream))
        .unwrap();
    assert_eq!(app.send(req).await.status, StatusCode::PAYLOAD_TOO_LARGE);
}

#[tokio::test]
async fn unknown_routes_are_a_json_404() {
    let app = TestApp::new().await;
    let r = app.get("/api/v1/nothing-here").await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    assert_eq!(r.body["code"], "NOT_FOUND");
}

#[tokio::test]
async fn an_oversized_json_entry_is_refused_after_reading_little_more_than_the_limit() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let app = TestApp::new().await;
    let (_, key) = app.register("Flooder").await;
    let produced = Arc::new(AtomicUsize::new(0));
    let counter = produced.clone();
    // 20 MiB of JSON, produced lazily in 64 KiB chunks; the JSON limit is 1 MiB.
    let chunks = futures::stream::iter((0..320).map(move |i| {
        counter.fetch_add(65_536, Ordering::SeqCst);
        let chunk = if i == 0 {
            format!("{{\"entry_type\": \"{}", "a".repeat(65_536 - 16))
        } else {
            "a".repeat(65_536)
        };
        Ok::<_, std::io::Error>(axum::body::Bytes::from(chunk))
    }));
    let request = Request::post("/api/v1/space-time-entries")
        .header(axum::http::header::CONTENT_TYPE, "application/json")
        .header(axum::http::header::AUTHORIZATION, format!("Bearer {key}"))
        .body(Body::from_stream(chunks))
        .unwrap();
    let r = app.send(request).await;
    assert_eq!(r.status, StatusCode::PAYLOAD_TOO_LARGE, "{}", r.text);
    let read = produced.load(Ordering::SeqCst);
    assert!(
        read <= 2 * 1024 * 1024,
        "read {read} bytes of a 20 MiB body"
    );
}
