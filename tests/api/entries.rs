use crate::harness::{TestApp, entity_entry, locs};
use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::json;
use spacetime_records::domain::AgentStatus;

#[tokio::test]
async fn the_recommended_flow_end_to_end() {
    let app = TestApp::new().await;
    let admin = app.admin_key().await;
    let (agent_id, key) = app.register("Flow Scraper").await;
    let index = app.get("/api/v1/space-time-entries/context-rubrics").await;
    assert_eq!(index.status, StatusCode::OK);
    assert_eq!(index.body["rubrics"].as_array().unwrap().len(), 3);
    let rubric = app
        .get("/api/v1/space-time-entries/context-rubrics/entity")
        .await;
    assert_eq!(rubric.body["entry_type"], "entity");
    assert!(rubric.body["minimum_viable_context"].is_array());

    let mut body = entity_entry(
        "Northern Plumbing Ltd",
        53.4808,
        -2.2426,
        json!({"website_url": "https://northern-plumbing.example", "phone": "0161 496 0000", "categories": ["plumber"]}),
    );
    body.as_object_mut().unwrap().extend(json!({"idempotency_key": "web:northern:entity::northern plumbing", "source_ref": "https://dir.example/northern", "score_confidence": 0.8, "entry_intent": "submit"}).as_object().unwrap().clone());
    let created = app.post_entry(&key, body).await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
    let entry_id = created.body["id"].as_str().unwrap().to_string();
    assert_eq!(created.body["status"], "pending");
    assert_eq!(created.body["agent_id"], agent_id.to_string());
    assert_eq!(created.body["geohash"].as_str().unwrap().len(), 9);
    assert_eq!(created.body["score_confidence"], "0.8");

    let processed = app
        .request(
            "POST",
            "/api/v1/transformer/process-pending",
            None,
            Some(&admin),
        )
        .await;
    assert_eq!(processed.status, StatusCode::OK, "{}", processed.text);
    assert_eq!(processed.body["processed"], 1);
    assert_eq!(processed.body["results"][0]["link_type"], "created");

    let entry = app
        .get(&format!("/api/v1/space-time-entries/{entry_id}"))
        .await;
    assert_eq!(entry.body["status"], "processed");
    assert_eq!(entry.body["canonical_table"], "canonical.entities");
    let entity_id = entry.body["canonical_id"].as_str().unwrap();
    let entity = app.get(&format!("/api/v1/entities/{entity_id}")).await;
    assert_eq!(entity.status, StatusCode::OK);
    assert_eq!(entity.body["display_name"], "Northern Plumbing Ltd");
    assert_eq!(entity.body["country_code"], "GB");
    assert_eq!(entity.body["categories"], json!(["plumber"]));
    assert!(entity.body["score_data_richness"].as_str().unwrap() != "0");
    let links = app
        .get(&format!(
            "/api/v1/canonical-link-contributions?space_time_entry_id={entry_id}"
        ))
        .await;
    let link = &links.body[0];
    assert_eq!(link["link_type"], "created");
    assert_eq!(link["target_canonical_id"], entity_id);
    assert_eq!(link["transformer_name"], "SpaceTimeEntryTransformer");
    assert_eq!(link["score_confidence"], "0.8");
    let by_target = app.get(&format!("/api/v1/canonical-link-contributions?target_canonical_table=canonical.entities&target_canonical_id={entity_id}")).await;
    assert_eq!(by_target.body.as_array().unwrap().len(), 1);
    assert_eq!(app.list_len("/api/v1/entities?status=active").await, 1);
    assert_eq!(app.list_len("/api/v1/entities?status=archived").await, 0);
}

#[tokio::test]
async fn entry_bodies_are_validated_field_by_field() {
    let app = TestApp::new().await;
    let (_, key) = app.register("Validator").await;
    let base = json!({"entry_type": "entity", "latitude": 51.5, "longitude": -0.12});
    let cases: Vec<(serde_json::Value, &str)> = vec![
        (
            json!({"agent_id": "01a1ffca-6c84-7521-ae5e-aecd4e5b84e0"}),
            "body.agent_id",
        ),
        (json!({"entry_type": "business"}), "body.entry_type"),
        (json!({"latitude": 90.5}), "body.latitude"),
        (json!({"longitude": "-181"}), "body.longitude"),
        (json!({"latitude": ""}), "body.latitude"),
        (json!({"latitude": "NaN"}), "body.latitude"),
        (json!({"latitude": "1e2"}), "body.latitude"),
        (json!({"longitude": 1e300}), "body.longitude"),
        (json!({"score_confidence": 1.5}), "body.score_confidence"),
        (json!({"entry_intent": "merge"}), "body.entry_intent"),
        (
            json!({"observed_at_tstamp_utc": "yesterday"}),
            "body.observed_at_tstamp_utc",
        ),
        (
            json!({"target_canonical_table": "canonical.entities"}),
            "body.target_canonical_id",
        ),
        (
            json!({"target_canonical_table": "entities", "target_canonical_id": uuid::Uuid::now_v7()}),
            "body.target_canonical_table",
        ),
        (
            json!({"target_canonical_table": "canonical.entities", "target_canonical_id": uuid::Uuid::now_v7()}),
            "body.target_canonical_id",
        ),
        (
            json!({"valid_from_tstamp_utc": "2026-02-01T00:00:00Z", "valid_to_tstamp_utc": "2026-01-01T00:00:00Z"}),
            "body.valid_to_tstamp_utc",
        ),
        (json!({"geohash": "aaaa!"}), "body.geohash"),
        (json!({"context": ["not", "an", "object"]}), "body.context"),
        (json!({"idempotency_key": ""}), "body.idempotency_key"),
    ];
    for (patch, loc) in cases {
        let mut body = base.clone();
        body.as_object_mut()
            .unwrap()
            .extend(patch.as_object().unwrap().clone());
        let r = app.post_entry(&key, body.clone()).await;
        assert_eq!(
            r.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{body}: {}",
            r.text
        );
        assert_eq!(locs(&r.body), [loc], "{body}: {}", r.text);
    }
    let missing = app
        .post_entry(&key, json!({"entry_type": "entity", "latitude": 1}))
        .await;
    assert_eq!(locs(&missing.body), ["body.longitude"]);
    assert_eq!(
        app.count("SELECT count(*) FROM space_time_entries").await,
        0
    );
}

#[tokio::test]
async fn coordinates_accept_numbers_and_decimal_strings() {
    let app = TestApp::new().await;
    let (_, key) = app.register("Coords").await;
    let r = app
        .post_entry(
            &key,
            json!({"entry_type": "observation", "latitude": "-33.8688", "longitude": 151.2093}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    assert_eq!(r.body["latitude"], -33.8688);
    assert_eq!(r.body["entry_intent"], "observe");
}

#[tokio::test]
async fn a_repeated_idempotency_key_is_409_with_the_existing_id() {
    let app = TestApp::new().await;
    let (_, key) = app.register("Repeater").await;
    let body = json!({"entry_type": "entity", "latitude": 51.5, "longitude": -0.12, "idempotency_key": "k1", "context": {"name": "X"}});
    let first = app.post_entry(&key, body.clone()).await;
    assert_eq!(first.status, StatusCode::CREATED);
    let second = app.post_entry(&key, body.clone()).await;
    assert_eq!(second.status, StatusCode::CONFLICT);
    assert_eq!(second.body["code"], "CONFLICT");
    assert_eq!(second.body["existing_id"], first.body["id"]);
    // The key is unique per agent: another agent may use the same key.
    let (_, other) = app.register("Other").await;
    assert_eq!(
        app.post_entry(&other, body).await.status,
        StatusCode::CREATED
    );
}

#[tokio::test]
async fn twenty_racing_identical_posts_give_exactly_one_201() {
    let app = TestApp::new().await;
    let (_, key) = app.register("Racer").await;
    let body = json!({"entry_type": "entity", "latitude": 51.5, "longitude": -0.12, "idempotency_key": "race", "context": {"name": "Race Ltd"}});
    let tasks: Vec<_> = (0..20)
        .map(|_| {
            let (router, key, body) = (app.router.clone(), key.clone(), body.clone());
            tokio::spawn(async move {
                use tower::ServiceExt;
                let req = Request::post("/api/v1/space-time-entries")
                    .header("authorization", format!("Bearer {key}"))
                    .header("content-type", "application/json")
                    .body(Body::from(body.to_string()))
                    .unwrap();
                let resp = router.oneshot(req).await.unwrap();
                let status = resp.status();
                let bytes = http_body_util::BodyExt::collect(resp.into_body())
                    .await
                    .unwrap()
                    .to_bytes();
                (
                    status,
                    serde_json::from_slice::<serde_json::Value>(&bytes).unwrap(),
                )
            })
        })
        .collect();
    let mut created = Vec::new();
    let mut conflicts = Vec::new();
    for task in tasks {
        let (status, body) = task.await.unwrap();
        match status {
            StatusCode::CREATED => created.push(body["id"].clone()),
            StatusCode::CONFLICT => conflicts.push(body["existing_id"].clone()),
            other => panic!("unexpected {other}: {body}"),
        }
    }
    assert_eq!(created.len(), 1);
    assert_eq!(conflicts.len(), 19);
    assert!(conflicts.iter().all(|id| *id == created[0]));
    assert_eq!(
        app.count("SELECT count(*) FROM space_time_entries").await,
        1
    );
}

#[tokio::test]
async fn publishing_needs_a_valid_writer_key_and_an_active_agent() {
    let app = TestApp::new().await;
    let body = json!({"entry_type": "observation", "latitude": 1, "longitude": 1});
    assert_eq!(
        app.post("/api/v1/space-time-entries", body.clone())
            .await
            .status,
        StatusCode::UNAUTHORIZED
    );
    let (id, key) = app.register("Pausable").await;
    let admin_only = app.admin_key().await;
    let scoped = app
        .post_as(
            "/api/v1/agents/me/api-keys",
            json!({"scopes": ["admin"]}),
            &admin_only,
        )
        .await;
    let no_write = scoped.body["api_key"].as_str().unwrap();
    let r = app.post_entry(no_write, body.clone()).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN, "{}", r.text);
    app.set_agent_status(id, AgentStatus::Paused).await;
    let paused = app.post_entry(&key, body).await;
    assert_eq!(paused.status, StatusCode::FORBIDDEN);
    assert!(paused.body["detail"].as_str().unwrap().contains("paused"));
}

#[tokio::test]
async fn entries_are_listed_by_status_and_read_by_id() {
    let app = TestApp::new().await;
    let (_, key) = app.register("Lister").await;
    for i in 0..3 {
        app.post_entry(
            &key,
            json!({"entry_type": "observation", "latitude": i, "longitude": 0}),
        )
        .await;
    }
    assert_eq!(
        app.list_len("/api/v1/space-time-entries?status=pending")
            .await,
        3
    );
    assert_eq!(
        app.list_len("/api/v1/space-time-entries?status=processed")
            .await,
        0
    );
    assert_eq!(app.list_len("/api/v1/space-time-entries?limit=2").await, 2);
    assert_eq!(
        locs(&app.get("/api/v1/space-time-entries?status=done").await.body),
        ["query.status"]
    );
    assert_eq!(
        app.get(&format!(
            "/api/v1/space-time-entries/{}",
            uuid::Uuid::now_v7()
        ))
        .await
        .status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        locs(&app.get("/api/v1/space-time-entries/nope").await.body),
        ["path.entry_id"]
    );
}

#[tokio::test]
async fn a_body_that_is_neither_json_nor_multipart_is_415_and_a_huge_json_is_413() {
    let app = TestApp::new().await;
    let (_, key) = app.register("Media").await;
    let req = Request::post("/api/v1/space-time-entries")
        .header("authorization", format!("Bearer {key}"))
        .header("content-type", "text/csv")
        .body(Body::from("a,b"))
        .unwrap();
    assert_eq!(
        app.send(req).await.status,
        StatusCode::UNSUPPORTED_MEDIA_TYPE
    );
    let huge = json!({"entry_type": "entity", "latitude": 1, "longitude": 1, "context": {"description": "x".repeat(1_100_000)}});
    assert_eq!(
        app.post_entry(&key, huge).await.status,
        StatusCode::PAYLOAD_TOO_LARGE
    );
}

#[tokio::test]
async fn rubrics_guide_and_public_docs_are_served() {
    let app = TestApp::new().await;
    assert_eq!(
        locs(
            &app.get("/api/v1/space-time-entries/context-rubrics/observation")
                .await
                .body
        ),
        ["path.entry_type"]
    );
    for t in ["entity", "listing", "request"] {
        let r = app
            .get(&format!("/api/v1/space-time-entries/context-rubrics/{t}"))
            .await;
        assert_eq!(r.body["entry_type"], t);
    }
    let guide = app.get("/api/v1/space-time-entries/agent-guide").await;
    assert_eq!(guide.status, StatusCode::OK);
    assert!(
        guide.headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/plain")
    );
    let doc = app.get("/api/v1/public/agent-docs/agent_ingestion").await;
    assert_eq!(doc.text, guide.text);
    assert!(
        app.get("/api/v1/public")
            .await
            .text
            .contains("agent_ingestion")
    );
    let catalogue = app.get("/api/v1/public/agent-docs").await;
    assert_eq!(catalogue.body["agent_docs"].as_array().unwrap().len(), 18);
    assert_eq!(
        app.get("/api/v1/public/agent-docs/nope").await.status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        app.get("/api/v1/public/terms-and-conditions/agent_terms_of_service")
            .await
            .status,
        StatusCode::OK
    );
    let gql = app
        .graphql("{ contextRubric(entryType: \"listing\") contextRubrics agentDoc(slug: \"agent_ingestion\") missing: agentDoc(slug: \"nope\") }", json!({}), None)
        .await;
    let rubric = app
        .get("/api/v1/space-time-entries/context-rubrics/listing")
        .await
        .body;
    assert_eq!(gql.body["data"]["contextRubric"], rubric, "{}", gql.text);
    assert_eq!(
        gql.body["data"]["contextRubrics"],
        app.get("/api/v1/space-time-entries/context-rubrics")
            .await
            .body
    );
    assert_eq!(gql.body["data"]["agentDoc"].as_str().unwrap(), guide.text);
    assert!(gql.body["data"]["missing"].is_null());
}

#[tokio::test]
async fn evidence_dated_in_the_future_is_refused() {
    let app = TestApp::new().await;
    let (_, key) = app.register("Time Traveller").await;
    let base = json!({"entry_type": "entity", "latitude": 53.48, "longitude": -2.24,
        "context": {"display_name": "Tomorrow Ltd"}});
    let soon = (chrono::Utc::now() + chrono::Duration::minutes(2)).to_rfc3339();
    let later = (chrono::Utc::now() + chrono::Duration::hours(1)).to_rfc3339();
    for (field, value, status) in [
        (
            "observed_at_tstamp_utc",
            "9999-01-01T00:00:00Z",
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            "observed_at_tstamp_utc",
            later.as_str(),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        ("observed_at_tstamp_utc", soon.as_str(), StatusCode::CREATED),
        (
            "valid_to_tstamp_utc",
            "9999-12-31T00:00:00Z",
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            "valid_from_tstamp_utc",
            "2027-01-01T00:00:00Z",
            StatusCode::CREATED,
        ),
    ] {
        let mut body = base.clone();
        body[field] = json!(value);
        let r = app.post_entry(&key, body).await;
        assert_eq!(r.status, status, "{field} = {value}: {}", r.text);
        if status == StatusCode::UNPROCESSABLE_ENTITY {
            assert_eq!(r.body["detail"][0]["loc"], json!(["body", field]));
        }
    }
}

/// An agent's entries of a status other than `processed` (pending, in review, rejected) are read
/// through a partial index of such entries, not by walking the agent's whole history; its plain
/// and processed listings keep walking it newest first, which finds their rows at once.
#[tokio::test]
async fn an_agents_unsettled_entries_are_read_through_their_own_index() {
    let app = TestApp::new().await;
    let mut conn = app.pool().acquire().await.unwrap();
    // At test scale a sequential scan is cheaper; disabled, PostgreSQL must still find an index.
    sqlx::query("SET enable_seqscan = off")
        .execute(&mut *conn)
        .await
        .unwrap();
    use spacetime_records::db::entries::{for_agents_statement, list_statement};
    use spacetime_records::domain::EntryStatus::{Pending, Processed, Rejected, ReviewRequired};
    let agent = uuid::Uuid::now_v7();
    let cases = [
        (
            list_statement("e.id", Some(Rejected)),
            format!("'rejected', '{agent}', NULL, 101"),
            false,
        ),
        (
            for_agents_statement(Some(ReviewRequired)),
            format!("ARRAY['{agent}']::uuid[], 'review_required', NULL, 101"),
            false,
        ),
        (
            for_agents_statement(Some(Pending)),
            format!("ARRAY['{agent}']::uuid[], 'pending', NULL, 101"),
            false,
        ),
        (
            for_agents_statement(Some(Processed)),
            format!("ARRAY['{agent}']::uuid[], 'processed', NULL, 101"),
            true,
        ),
        (
            for_agents_statement(None),
            format!("ARRAY['{agent}']::uuid[], NULL, NULL, 101"),
            true,
        ),
    ];
    // Both indexes led by agent_id alone walk the agent's history, newest first.
    let walks_history = |plan: &str| plan.contains("space_time_entries_agent_id_");
    for (statement, arguments, expected_walk) in cases {
        let plan = crate::harness::plan_of(&mut conn, &statement, &arguments).await;
        assert_eq!(walks_history(&plan), expected_walk, "{statement}\n{plan}");
        assert!(!plan.contains("Seq Scan"), "{statement}\n{plan}");
    }
}
