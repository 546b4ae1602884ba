//! Notes and signals: targets, threads, authorship, visibility, effects, abuse limits.

use crate::harness::{TestApp, entity_entry, locs};
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{Request, StatusCode};
use serde_json::{Value, json};
use std::net::SocketAddr;

async fn entity(app: &TestApp, name: &str, lng: f64) -> String {
    let admin = app.admin_key().await;
    let (_, key) = app.register(&format!("{name} Source")).await;
    let r = app
        .publish(&key, &admin, entity_entry(name, 53.48, lng, json!({})))
        .await;
    r["canonical_id"].as_str().unwrap().to_string()
}

fn note(target: &str, visibility: &str, body: &str) -> Value {
    json!({"target_schema": "canonical", "target_table": "entities", "target_id": target, "body": body, "visibility": visibility})
}

fn bodies(r: &Value) -> Vec<String> {
    let mut b: Vec<String> = r
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["body"].as_str().unwrap().to_string())
        .collect();
    b.sort();
    b
}

#[tokio::test]
async fn note_visibility_follows_the_reader() {
    let app = TestApp::new().await;
    let target = entity(&app, "Noted Ltd", -2.24).await;
    let principal = app
        .post(
            "/api/v1/principals",
            json!({"principal_type": "company", "display_name": "Acme Group"}),
        )
        .await;
    let member = |name: &str| {
        let body = json!({"agent_type": "api_agent", "display_name": name, "principal_id": principal.body["id"]});
        let app = &app;
        async move {
            app.post("/api/v1/agents/register", body).await.body["api_key"]
                .as_str()
                .unwrap()
                .to_string()
        }
    };
    let (alice, colleague) = (member("Alice").await, member("Colleague").await);
    // Alice named the unowned principal first and owns it; the colleague waits for her grant.
    let colleague_id = app.get_as("/api/v1/agents/me", &colleague).await.body["id"]
        .as_str()
        .unwrap()
        .to_string();
    let granted = app
        .request(
            "POST",
            &format!(
                "/api/v1/principals/{}/members/{colleague_id}/grant",
                principal.body["id"].as_str().unwrap()
            ),
            None,
            Some(&alice),
        )
        .await;
    assert_eq!(granted.status, StatusCode::OK, "{}", granted.text);
    assert_eq!(granted.body["status"], "granted");
    let (_, outsider) = app.register("Outsider").await;
    let anon_public = app
        .post("/api/v1/notes", note(&target, "public", "public note"))
        .await;
    assert_eq!(
        anon_public.status,
        StatusCode::CREATED,
        "{}",
        anon_public.text
    );
    assert!(anon_public.body["created_by_agent_id"].is_null());
    assert_eq!(
        app.post_as(
            "/api/v1/notes",
            note(&target, "internal", "internal note"),
            &alice
        )
        .await
        .status,
        StatusCode::CREATED
    );
    let private = app
        .post_as(
            "/api/v1/notes",
            note(&target, "principal_only", "group note"),
            &alice,
        )
        .await;
    assert_eq!(private.status, StatusCode::CREATED);
    assert_eq!(
        private.body["created_by_agent_id"],
        app.get_as("/api/v1/agents/me", &alice).await.body["id"]
    );
    let default_visibility = app.post_as("/api/v1/notes", json!({"target_schema": "canonical", "target_table": "entities", "target_id": target, "body": "no visibility given"}), &alice).await;
    assert_eq!(default_visibility.body["visibility"], "internal");

    let path =
        format!("/api/v1/notes?target_schema=canonical&target_table=entities&target_id={target}");
    assert_eq!(bodies(&app.get(&path).await.body), ["public note"]);
    assert_eq!(
        bodies(&app.get_as(&path, &outsider).await.body),
        ["internal note", "no visibility given", "public note"]
    );
    assert_eq!(
        bodies(&app.get_as(&path, &colleague).await.body),
        [
            "group note",
            "internal note",
            "no visibility given",
            "public note"
        ]
    );
    let gql = app
        .graphql(
            "query($id: UUID!) { entity(id: $id) { notes { body visibility } } }",
            json!({"id": target}),
            None,
        )
        .await;
    assert_eq!(
        gql.body["data"]["entity"]["notes"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    let gql_colleague = app
        .graphql(
            "query($id: UUID!) { entity(id: $id) { notes { body } } }",
            json!({"id": target}),
            Some(&colleague),
        )
        .await;
    assert_eq!(
        gql_colleague.body["data"]["entity"]["notes"]
            .as_array()
            .unwrap()
            .len(),
        4
    );
    assert_eq!(
        app.request("GET", &path, None, Some("str_invalid"))
            .await
            .status,
        StatusCode::UNAUTHORIZED
    );
}

#[tokio::test]
async fn notes_check_targets_threads_and_authorship() {
    let app = TestApp::new().await;
    let target = entity(&app, "Threaded Ltd", -2.24).await;
    let other = entity(&app, "Elsewhere Ltd", -1.0).await;
    let (_, key) = app.register("Threader").await;
    let root = app
        .post_as("/api/v1/notes", note(&target, "public", "root"), &key)
        .await;
    let mut reply = note(&target, "public", "reply");
    reply["parent_note_id"] = root.body["id"].clone();
    assert_eq!(
        app.post_as("/api/v1/notes", reply.clone(), &key)
            .await
            .status,
        StatusCode::CREATED
    );
    let mut misplaced = note(&other, "public", "wrong thread");
    misplaced["parent_note_id"] = root.body["id"].clone();
    assert_eq!(
        locs(&app.post_as("/api/v1/notes", misplaced, &key).await.body),
        ["body.parent_note_id"]
    );
    reply["parent_note_id"] = json!(uuid::Uuid::now_v7());
    assert_eq!(
        locs(&app.post_as("/api/v1/notes", reply, &key).await.body),
        ["body.parent_note_id"]
    );
    let bad_pair = json!({"target_schema": "public", "target_table": "agents", "target_id": target, "body": "x"});
    assert_eq!(
        locs(&app.post("/api/v1/notes", bad_pair).await.body),
        ["body.target_table"]
    );
    assert_eq!(
        locs(
            &app.post(
                "/api/v1/notes",
                note(&uuid::Uuid::now_v7().to_string(), "public", "x")
            )
            .await
            .body
        ),
        ["body.target_id"]
    );
    let mut impostor = note(&target, "public", "x");
    impostor["created_by_agent_id"] = json!(uuid::Uuid::now_v7());
    assert_eq!(
        locs(&app.post_as("/api/v1/notes", impostor, &key).await.body),
        ["body.created_by_agent_id"]
    );
    assert_eq!(
        locs(
            &app.post("/api/v1/notes", note(&target, "principal_only", "x"))
                .await
                .body
        ),
        ["body.visibility"]
    );
    assert_eq!(
        locs(
            &app.post("/api/v1/notes", note(&target, "public", ""))
                .await
                .body
        ),
        ["body.body"]
    );
    let entry = app
        .post_entry(
            &key,
            json!({"entry_type": "observation", "latitude": 1, "longitude": 1}),
        )
        .await;
    let on_entry = json!({"target_schema": "public", "target_table": "space_time_entries", "target_id": entry.body["id"], "body": "about this entry", "visibility": "public"});
    assert_eq!(
        app.post("/api/v1/notes", on_entry).await.status,
        StatusCode::CREATED
    );
    let huge = note(&target, "public", &"x".repeat(17 * 1024));
    assert_eq!(
        app.post("/api/v1/notes", huge).await.status,
        StatusCode::PAYLOAD_TOO_LARGE
    );
}

fn signal(target: &str, signal_type: &str) -> Value {
    json!({"signal_type": signal_type, "target_schema": "canonical", "target_table": "entities", "target_id": target})
}

async fn scores(app: &TestApp, id: &str) -> (Option<f64>, f64) {
    let e = app.get(&format!("/api/v1/entities/{id}")).await.body;
    (
        e["score_signal"].as_str().map(|s| s.parse().unwrap()),
        e["score_confidence"].as_str().unwrap().parse().unwrap(),
    )
}

#[tokio::test]
async fn signals_feed_the_scores_at_once_and_repeats_count_once() {
    let app = TestApp::new().await;
    let target = entity(&app, "Signalled Ltd", -2.24).await;
    let (_, alice) = app.register("Confirmer").await;
    let (_, bob) = app.register("Rejecter").await;
    let (none, base) = scores(&app, &target).await;
    assert_eq!(none, None);
    let r = app
        .post_as("/api/v1/signals", signal(&target, "confirm"), &alice)
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    assert_eq!(r.body["weight"], "1");
    let (after_confirm, raised) = scores(&app, &target).await;
    assert_eq!(after_confirm, Some(1.0));
    assert!(raised > base);
    for _ in 0..3 {
        app.post_as("/api/v1/signals", signal(&target, "confirm"), &alice)
            .await;
    }
    let mut reject = signal(&target, "reject");
    reject["weight"] = json!("1");
    app.post_as("/api/v1/signals", reject, &bob).await;
    let (balanced, _) = scores(&app, &target).await;
    assert_eq!(
        balanced,
        Some(0.5),
        "four identical confirms from one agent count once against one reject"
    );
    let listed = app
        .get(&format!(
            "/api/v1/signals?target_schema=canonical&target_table=entities&target_id={target}"
        ))
        .await;
    assert_eq!(listed.body.as_array().unwrap().len(), 5);
}

#[tokio::test]
async fn a_duplicate_signal_queues_the_pair_for_review_and_merges_nothing() {
    let app = TestApp::new().await;
    let a = entity(&app, "Twin One Ltd", -2.24).await;
    let b = entity(&app, "Twin Two Ltd", -1.00).await;
    let (_, key) = app.register("Dedup Reporter").await;
    assert_eq!(
        locs(
            &app.post_as("/api/v1/signals", signal(&a, "duplicate"), &key)
                .await
                .body
        ),
        ["body.duplicate_of_id"]
    );
    let mut flag_with_other = signal(&a, "flag");
    flag_with_other["duplicate_of_id"] = json!(b);
    assert_eq!(
        locs(
            &app.post_as("/api/v1/signals", flag_with_other, &key)
                .await
                .body
        ),
        ["body.duplicate_of_id"]
    );
    let mut dup = signal(&a, "duplicate");
    dup["duplicate_of_id"] = json!(uuid::Uuid::now_v7());
    assert_eq!(
        locs(&app.post_as("/api/v1/signals", dup.clone(), &key).await.body),
        ["body.duplicate_of_id"]
    );
    dup["duplicate_of_id"] = json!(b);
    assert_eq!(
        app.post_as("/api/v1/signals", dup, &key).await.status,
        StatusCode::CREATED
    );
    let mut reverse = signal(&b, "duplicate");
    reverse["duplicate_of_id"] = json!(a);
    app.post("/api/v1/signals", reverse).await;
    let q = "query($id: UUID!) { entity(id: $id) { status duplicateCandidates { status signalCount record { ... on Entity { id } } duplicateOf { ... on Entity { id } } } } }";
    let r = app.graphql(q, json!({"id": a}), None).await;
    let candidates = r.body["data"]["entity"]["duplicateCandidates"]
        .as_array()
        .unwrap_or_else(|| panic!("{}", r.text));
    assert_eq!(candidates.len(), 1);
    assert_eq!(candidates[0]["status"], "open");
    assert_eq!(candidates[0]["signalCount"], 2);
    assert_eq!(candidates[0]["duplicateOf"]["id"], b);
    for id in [&a, &b] {
        assert_eq!(
            app.get(&format!("/api/v1/entities/{id}")).await.body["status"],
            "active"
        );
    }
    let queue = app
        .graphql(
            "{ duplicateCandidates(status: \"open\") { edges { node { recordId } } } }",
            json!({}),
            None,
        )
        .await;
    assert_eq!(
        queue.body["data"]["duplicateCandidates"]["edges"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

#[tokio::test]
async fn signal_bodies_are_validated() {
    let app = TestApp::new().await;
    let target = entity(&app, "Checked Ltd", -2.24).await;
    let mut heavy = signal(&target, "boost_confidence");
    heavy["weight"] = json!(1.5);
    assert_eq!(
        locs(&app.post("/api/v1/signals", heavy).await.body),
        ["body.weight"]
    );
    assert_eq!(
        locs(
            &app.post("/api/v1/signals", signal(&target, "like"))
                .await
                .body
        ),
        ["body.signal_type"]
    );
    let mut extra = signal(&target, "stale");
    extra["merge"] = json!(true);
    assert_eq!(
        locs(&app.post("/api/v1/signals", extra).await.body),
        ["body.merge"]
    );
    let gql = app
        .graphql("mutation($id: UUID!) { createSignal(input: {signalType: STALE, targetSchema: \"canonical\", targetTable: \"entities\", targetId: $id, reason: \"closed\"}) { id signalType } }", json!({"id": target}), None)
        .await;
    assert_eq!(
        gql.body["data"]["createSignal"]["signalType"], "STALE",
        "{}",
        gql.text
    );
}

fn from(addr: &str, path: &str, body: Value) -> Request<Body> {
    let mut req = Request::post(path)
        .header("content-type", "application/json")
        .body(Body::from(body.to_string()))
        .unwrap();
    req.extensions_mut()
        .insert(ConnectInfo(addr.parse::<SocketAddr>().unwrap()));
    req
}

#[tokio::test]
async fn anonymous_writes_are_rate_limited_per_client_address() {
    let app = TestApp::with_config(|c| c.anon_writes_per_minute = 3).await;
    let target = entity(&app, "Popular Ltd", -2.24).await;
    for _ in 0..3 {
        assert_eq!(
            app.send(from(
                "10.0.0.1:5000",
                "/api/v1/notes",
                note(&target, "public", "hi")
            ))
            .await
            .status,
            StatusCode::CREATED
        );
    }
    let limited = app
        .send(from(
            "10.0.0.1:5001",
            "/api/v1/notes",
            note(&target, "public", "hi"),
        ))
        .await;
    assert_eq!(limited.status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(limited.body["code"], "RATE_LIMITED");
    let retry: u64 = limited.headers["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&retry));
    assert_eq!(
        app.send(from(
            "10.0.0.2:5000",
            "/api/v1/notes",
            note(&target, "public", "hi")
        ))
        .await
        .status,
        StatusCode::CREATED
    );
    assert_eq!(
        app.send(from(
            "10.0.0.1:5000",
            "/api/v1/signals",
            signal(&target, "confirm")
        ))
        .await
        .status,
        StatusCode::CREATED
    );
    let (_, key) = app.register("Accountable").await;
    let mut keyed = from(
        "10.0.0.1:5000",
        "/api/v1/notes",
        note(&target, "public", "hi"),
    );
    keyed
        .headers_mut()
        .insert("authorization", format!("Bearer {key}").parse().unwrap());
    assert_eq!(app.send(keyed).await.status, StatusCode::CREATED);
}

#[tokio::test]
async fn a_reply_to_a_note_the_caller_cannot_see_is_refused_like_a_missing_parent() {
    let app = TestApp::new().await;
    let target = entity(&app, "Private Thread Ltd", -2.24).await;
    let (_, author) = app.register("Insider").await;
    let internal = app
        .post_as(
            "/api/v1/notes",
            note(&target, "internal", "agents only"),
            &author,
        )
        .await;
    assert_eq!(internal.status, StatusCode::CREATED, "{}", internal.text);
    let mut reply = note(&target, "public", "a reply from outside");
    reply["parent_note_id"] = internal.body["id"].clone();
    let hidden = app.post("/api/v1/notes", reply.clone()).await;
    reply["parent_note_id"] = json!(uuid::Uuid::now_v7());
    let missing = app.post("/api/v1/notes", reply).await;
    assert_eq!(hidden.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        hidden.body, missing.body,
        "no difference reveals the hidden note"
    );
    assert_eq!(app.count("SELECT count(*) FROM notes").await, 1);
}

#[tokio::test]
async fn naming_a_principal_does_not_make_an_agent_its_member_until_a_member_grants_it() {
    let app = TestApp::new().await;
    let target = entity(&app, "Group Secret Ltd", -2.24).await;
    let (owner_id, owner) = app.register("Group Owner").await;
    let principal = app
        .post_as(
            "/api/v1/principals",
            json!({"principal_type": "company", "display_name": "Secretive Group"}),
            &owner,
        )
        .await;
    assert_eq!(principal.status, StatusCode::CREATED, "{}", principal.text);
    let principal_id = principal.body["id"].as_str().unwrap().to_string();
    assert_eq!(
        app.get_as("/api/v1/agents/me", &owner).await.body["principal_id"],
        principal_id.as_str(),
        "the creator's agent is linked to the principal it created"
    );
    let secret = app
        .post_as(
            "/api/v1/notes",
            note(&target, "principal_only", "group secret"),
            &owner,
        )
        .await;
    assert_eq!(secret.status, StatusCode::CREATED, "{}", secret.text);

    // Principal ids are public: anyone can name one at registration.
    let intruder = app
        .post(
            "/api/v1/agents/register",
            json!({"agent_type": "scraper", "display_name": "Intruder", "principal_id": principal_id}),
        )
        .await;
    assert_eq!(intruder.status, StatusCode::CREATED);
    let intruder_key = intruder.body["api_key"].as_str().unwrap().to_string();
    let intruder_id = intruder.body["agent"]["id"].as_str().unwrap().to_string();
    let path = format!("/api/v1/notes?target_id={target}");
    assert!(
        !bodies(&app.get_as(&path, &intruder_key).await.body).contains(&"group secret".to_string()),
        "a pending member reads nothing of the principal's"
    );
    let members = format!("/api/v1/principals/{principal_id}/members");
    assert_eq!(
        app.get_as(&members, &intruder_key).await.status,
        StatusCode::FORBIDDEN
    );
    let listed = app.get_as(&members, &owner).await;
    assert_eq!(listed.status, StatusCode::OK);
    let statuses: Vec<(String, String)> = listed
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["agent_id"].as_str().unwrap().to_string(),
                m["status"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert!(statuses.contains(&(owner_id.to_string(), "granted".into())));
    assert!(statuses.contains(&(intruder_id.clone(), "pending".into())));
    // The intruder cannot grant itself.
    let grant = format!("/api/v1/principals/{principal_id}/members/{intruder_id}/grant");
    assert_eq!(
        app.request("POST", &grant, None, Some(&intruder_key))
            .await
            .status,
        StatusCode::FORBIDDEN
    );
    // A member's grant lets it in.
    let granted = app.request("POST", &grant, None, Some(&owner)).await;
    assert_eq!(granted.status, StatusCode::OK, "{}", granted.text);
    assert_eq!(granted.body["granted_by_agent_id"], owner_id.to_string());
    assert!(
        bodies(&app.get_as(&path, &intruder_key).await.body).contains(&"group secret".to_string())
    );
    let gql = "query($id: UUID!) { principal(id: $id) { memberships { edges { node { agentId status } } } } }";
    let as_owner = app
        .graphql(gql, json!({"id": principal_id}), Some(&owner))
        .await;
    assert_eq!(
        as_owner.body["data"]["principal"]["memberships"]["edges"]
            .as_array()
            .map(Vec::len),
        Some(2),
        "{}",
        as_owner.text
    );
    let as_stranger = app.graphql(gql, json!({"id": principal_id}), None).await;
    assert_eq!(
        as_stranger.body["errors"][0]["extensions"]["code"],
        "UNAUTHENTICATED"
    );
    let unknown = format!(
        "/api/v1/principals/{principal_id}/members/{}/grant",
        uuid::Uuid::now_v7()
    );
    assert_eq!(
        app.request("POST", &unknown, None, Some(&owner))
            .await
            .status,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn registrations_are_limited_per_client_address_and_old_windows_are_purged() {
    let app = TestApp::with_config(|c| c.registrations_per_hour = 3).await;
    let body = json!({"agent_type": "scraper", "display_name": "Spammer"});
    for _ in 0..2 {
        assert_eq!(
            app.post("/api/v1/agents/register", body.clone())
                .await
                .status,
            StatusCode::CREATED
        );
    }
    let principal = json!({"principal_type": "company", "display_name": "Spam Co"});
    assert_eq!(
        app.post("/api/v1/principals", principal.clone())
            .await
            .status,
        StatusCode::CREATED
    );
    for (path, body) in [
        ("/api/v1/agents/register", body.clone()),
        ("/api/v1/agents", body.clone()),
        ("/api/v1/principals", principal),
    ] {
        let refused = app.post(path, body).await;
        assert_eq!(
            refused.status,
            StatusCode::TOO_MANY_REQUESTS,
            "{path}: {}",
            refused.text
        );
        assert!(refused.headers.get("retry-after").is_some());
    }
    assert_eq!(
        app.count("SELECT count(*) FROM agents WHERE display_name = 'Spammer'")
            .await,
        2
    );
    // Windows of other addresses that ended long ago are purged.
    sqlx::query("INSERT INTO rate_limit_windows (bucket, window_start, hits) VALUES ('register:198.51.100.9', now() - interval '1 day', 5)")
        .execute(app.pool())
        .await
        .unwrap();
    let purged = spacetime_records::db::rate_limits::purge_expired(app.pool(), 100)
        .await
        .unwrap();
    assert_eq!(purged, 1);
}

/// Notes, signals and link contributions are read by their target's id alone: REST `target_id`
/// (`target_canonical_id`) without the schema and table, and the GraphQL fields of a page of
/// records (one loader statement). Each must find its rows through an index; a plan that scans
/// the table grows with every note written and every entry processed.
#[tokio::test]
async fn notes_signals_and_contributions_are_read_by_target_id_alone_through_an_index() {
    let app = TestApp::new().await;
    let (_, key) = app.register("Target Reader").await;
    let target = entity(&app, "Indexed Bakery", -2.24).await;
    let other = entity(&app, "Other Bakery", -2.25).await;
    for (on, body) in [(&target, "fresh bread"), (&other, "closed mondays")] {
        let r = app
            .post_as("/api/v1/notes", note(on, "public", body), &key)
            .await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    }
    let r = app.get(&format!("/api/v1/notes?target_id={target}")).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(bodies(&r.body), ["fresh bread"]);
    let r = app
        .get(&format!(
            "/api/v1/canonical-link-contributions?target_canonical_id={target}"
        ))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let links = r.body.as_array().unwrap();
    assert_eq!(links.len(), 1, "{}", r.body);
    assert_eq!(links[0]["target_canonical_id"], target.as_str());
    assert_eq!(links[0]["link_type"], "created");

    let mut conn = app.pool().acquire().await.unwrap();
    // At test scale a sequential scan is cheaper; disabled, PostgreSQL must still find an index.
    sqlx::query("SET enable_seqscan = off")
        .execute(&mut *conn)
        .await
        .unwrap();
    use spacetime_records::db::{contributions, notes, signals};
    let anonymous_by_id = format!("NULL, NULL, NULL, NULL, '{target}', NULL, 101");
    let statements = [
        (notes::list_statement("id"), anonymous_by_id),
        (
            notes::for_targets_statement(),
            format!("NULL, NULL, ARRAY['{target}', '{other}']::uuid[], 21"),
        ),
        (
            signals::list_statement("id"),
            format!("NULL, NULL, '{target}', NULL, 101"),
        ),
        (
            signals::for_targets_statement(),
            format!("ARRAY['{target}', '{other}']::uuid[], 21"),
        ),
        (
            contributions::list_statement("id"),
            format!("NULL, '{target}', NULL, NULL, 101"),
        ),
        (
            contributions::for_targets_statement(),
            format!("ARRAY['{target}', '{other}']::uuid[], 21"),
        ),
    ];
    for (statement, arguments) in statements {
        let plan = crate::harness::plan_of(&mut conn, &statement, &arguments).await;
        assert!(
            plan.contains("target_id_idx") && !plan.contains("Seq Scan"),
            "{statement}\n{plan}"
        );
    }
}
