//! Operators merge duplicate entities and undo merges: the survivor keeps the union of the
//! evidence, the other becomes a redirect that search never shows, contributions say who decided
//! what and when, and an undo rebuilds both records from their own contributions.

use crate::harness::{TestApp, east, entity_entry};
use axum::http::StatusCode;
use serde_json::{Value, json};

const LAT: f64 = 53.4420;
const LNG: f64 = -2.2770;

#[tokio::test]
async fn a_merge_unites_the_evidence_redirects_the_duplicate_and_can_be_undone() {
    let app = TestApp::new().await;
    let admin = app.admin_key().await;
    let (_, first) = app.register("First Directory").await;
    let (_, second) = app.register("Second Directory").await;
    let a = app
        .publish(
            &first,
            &admin,
            entity_entry(
                "Rowbotham Family Butchers",
                LAT,
                LNG,
                json!({"phone": "0161 496 0550", "categories": ["butcher"]}),
            ),
        )
        .await["canonical_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let (lat, lng) = east(LAT, LNG, 15.0);
    let b = app
        .publish(&second, &admin, entity_entry("R and I Meats", lat, lng,
            json!({"email": "shop@ri-meats.example", "description": "Family butchers since 1952",
                   "categories": ["deli"]})))
        .await["canonical_id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_ne!(a, b, "two records to begin with");
    let signal = app
        .post_as(
            "/api/v1/signals",
            json!({"signal_type": "duplicate", "target_schema": "canonical",
            "target_table": "entities", "target_id": b, "duplicate_of_id": a}),
            &second,
        )
        .await;
    assert_eq!(signal.status, StatusCode::CREATED, "{}", signal.text);

    let merge = |key: Option<String>, body: Value| {
        let app = &app;
        let a = a.clone();
        async move {
            app.request(
                "POST",
                &format!("/api/v1/entities/{a}/merge"),
                Some(body),
                key.as_deref(),
            )
            .await
        }
    };
    let denied = merge(Some(first.clone()), json!({"merged_id": b})).await;
    assert_eq!(denied.status, StatusCode::FORBIDDEN, "{}", denied.text);
    let itself = merge(Some(admin.clone()), json!({"merged_id": a})).await;
    assert_eq!(
        itself.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "{}",
        itself.text
    );

    let merged = merge(Some(admin.clone()), json!({"merged_id": b})).await;
    assert_eq!(merged.status, StatusCode::OK, "{}", merged.text);
    let survivor = &merged.body;
    assert_eq!(survivor["id"], a.as_str());
    assert_eq!(survivor["phone"], "0161 496 0550");
    assert_eq!(
        survivor["email"], "shop@ri-meats.example",
        "the union of the evidence"
    );
    assert_eq!(survivor["description"], "Family butchers since 1952");
    assert_eq!(survivor["categories"], json!(["butcher", "deli"]));

    // The duplicate answers with the survivor and says so.
    let redirected = app.get(&format!("/api/v1/entities/{b}")).await;
    assert_eq!(redirected.status, StatusCode::OK);
    assert_eq!(redirected.body["id"], a.as_str());
    assert_eq!(
        redirected.headers["content-location"],
        format!("/api/v1/entities/{a}").as_str()
    );
    let g = app
        .graphql(
            "query($id: UUID!) { entity(id: $id) { id } }",
            json!({"id": b}),
            None,
        )
        .await;
    assert_eq!(g.body["data"]["entity"]["id"], a.as_str());
    let (status, into): (String, Option<uuid::Uuid>) =
        sqlx::query_as("SELECT status, merged_into_id FROM canonical.entities WHERE id = $1::uuid")
            .bind(&b)
            .fetch_one(app.pool())
            .await
            .unwrap();
    assert_eq!(status, "merged");
    assert_eq!(into.map(|u| u.to_string()), Some(a.clone()));

    // Search never shows the redirect.
    let found = app.get("/api/v1/search?query=meats").await;
    assert!(
        found.body["results"]
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h["id"] != b.as_str()),
        "{}",
        found.text
    );
    let asked = app
        .get("/api/v1/search?query=meats&filters=status:merged|active")
        .await;
    assert!(
        asked.body["results"]
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h["id"] != b.as_str()),
        "not even when asked for by status: {}",
        asked.text
    );
    // Who decided what and when.
    let decided: Value = sqlx::query_scalar(
        "SELECT metadata FROM canonical_link_contributions
         WHERE target_canonical_id = $1::uuid AND link_type = 'duplicate_of'",
    )
    .bind(&b)
    .fetch_one(app.pool())
    .await
    .unwrap();
    assert_eq!(decided["duplicate_of"], a.as_str());
    assert!(
        decided["decided_by_agent_id"].is_string() && decided["decided_at_tstamp_utc"].is_string()
    );
    assert_eq!(
        app.count(&format!("SELECT count(*) FROM canonical_link_contributions WHERE target_canonical_id = '{a}' AND link_type = 'merged'")).await,
        1
    );
    assert_eq!(
        app.count("SELECT count(*) FROM duplicate_candidates WHERE status = 'confirmed'")
            .await,
        1
    );
    let again = merge(Some(admin.clone()), json!({"merged_id": b})).await;
    assert_eq!(again.status, StatusCode::CONFLICT, "{}", again.text);

    // Undone over GraphQL: both records as their own contributions make them.
    let undone = app
        .graphql(
            "mutation($id: UUID!) { undoEntityMerge(entityId: $id) { id displayName status email mergedIntoId } }",
            json!({"id": b}),
            Some(&admin),
        )
        .await;
    assert!(undone.body["errors"].is_null(), "{}", undone.text);
    let restored = &undone.body["data"]["undoEntityMerge"];
    assert_eq!(restored["id"], b.as_str());
    assert_eq!(restored["status"], "active");
    assert!(restored["mergedIntoId"].is_null());
    assert_eq!(restored["email"], "shop@ri-meats.example");
    let survivor = app.get(&format!("/api/v1/entities/{a}")).await.body;
    assert!(survivor["email"].is_null(), "{survivor}");
    assert_eq!(survivor["categories"], json!(["butcher"]));
    assert_eq!(
        app.get(&format!("/api/v1/entities/{b}")).await.body["id"],
        b.as_str()
    );
    let twice = app
        .request(
            "POST",
            &format!("/api/v1/entities/{b}/unmerge"),
            None,
            Some(&admin),
        )
        .await;
    assert_eq!(twice.status, StatusCode::CONFLICT, "{}", twice.text);
}

/// Two records of one business, as two directories wrote it.
async fn two_records(app: &TestApp) -> (String, String, String) {
    let admin = app.admin_key().await;
    let (_, key) = app.register("Merge Source").await;
    let a = app
        .publish(
            &key,
            &admin,
            entity_entry(
                "Chorlton Cheese Shop",
                LAT,
                LNG,
                json!({"phone": "0161 496 0560"}),
            ),
        )
        .await["canonical_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let (lat, lng) = east(LAT, LNG, 12.0);
    let b = app
        .publish(
            &key,
            &admin,
            entity_entry(
                "The Cheese Hamper",
                lat,
                lng,
                json!({"email": "hello@hamper.example"}),
            ),
        )
        .await["canonical_id"]
        .as_str()
        .unwrap()
        .to_owned();
    (admin, a, b)
}

#[tokio::test]
async fn two_operators_merging_one_pair_both_ways_exactly_one_wins() {
    let app = TestApp::new().await;
    let (admin, a, b) = two_records(&app).await;
    let other = app.admin_key().await;
    let (path_a, path_b) = (
        format!("/api/v1/entities/{a}/merge"),
        format!("/api/v1/entities/{b}/merge"),
    );
    let one = app.request("POST", &path_a, Some(json!({"merged_id": b})), Some(&admin));
    let two = app.request("POST", &path_b, Some(json!({"merged_id": a})), Some(&other));
    let (one, two) = tokio::join!(one, two);
    let mut statuses = [one.status.as_u16(), two.status.as_u16()];
    statuses.sort();
    assert_eq!(statuses, [200, 409], "{} / {}", one.text, two.text);
    assert_eq!(
        app.count("SELECT count(*) FROM canonical.entities WHERE status = 'merged'")
            .await,
        1
    );
}

#[tokio::test]
async fn the_admin_cli_merges_and_undoes_through_the_same_service() {
    let app = TestApp::new().await;
    let (admin, a, b) = two_records(&app).await;
    let run = format!("merge-{a}");
    let cli = |args: &[&str]| app.admin_cli(&admin, &run, args);
    let survivor = cli(&["merge-entities", "--survivor-id", &a, "--merged-id", &b]);
    assert_eq!(survivor["email"], "hello@hamper.example");
    let restored = cli(&["undo-merge", "--entity-id", &b]);
    assert_eq!(restored["id"], b.as_str());
    assert_eq!(restored["status"], "active");
}

#[tokio::test]
async fn reported_pairs_are_listed_and_an_operator_may_dismiss_them() {
    let app = TestApp::new().await;
    let (admin, a, b) = two_records(&app).await;
    let (_, reporter) = app.register("Pair Reporter").await;
    let signal = app
        .post_as(
            "/api/v1/signals",
            json!({"signal_type": "duplicate", "target_schema": "canonical",
            "target_table": "entities", "target_id": a, "duplicate_of_id": b}),
            &reporter,
        )
        .await;
    assert_eq!(signal.status, StatusCode::CREATED, "{}", signal.text);
    let open = app.get("/api/v1/review-queue/duplicates?status=open").await;
    assert_eq!(open.status, StatusCode::OK, "{}", open.text);
    let pair = &open.body[0];
    assert_eq!(pair["record_id"], a.as_str());
    assert_eq!(pair["duplicate_of_id"], b.as_str());
    let id = pair["id"].as_str().unwrap().to_owned();
    let path = format!("/api/v1/review-queue/duplicates/{id}/dismiss");
    assert_eq!(
        app.request("POST", &path, None, Some(&reporter))
            .await
            .status,
        StatusCode::FORBIDDEN
    );
    let dismissed = app.request("POST", &path, None, Some(&admin)).await;
    assert_eq!(dismissed.status, StatusCode::OK, "{}", dismissed.text);
    assert_eq!(dismissed.body["status"], "dismissed");
    assert_eq!(
        app.request("POST", &path, None, Some(&admin)).await.status,
        StatusCode::CONFLICT
    );
    let unknown = format!(
        "/api/v1/review-queue/duplicates/{}/dismiss",
        uuid::Uuid::now_v7()
    );
    assert_eq!(
        app.request("POST", &unknown, None, Some(&admin))
            .await
            .status,
        StatusCode::NOT_FOUND
    );
    assert!(
        app.get("/api/v1/review-queue/duplicates?status=open")
            .await
            .body
            .as_array()
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        app.count("SELECT count(*) FROM canonical.entities WHERE status = 'merged'")
            .await,
        0,
        "dismissing merges nothing"
    );
}

#[tokio::test]
async fn graphql_merge_refusals_locate_the_argument_and_rest_ones_the_body_or_path() {
    let app = TestApp::new().await;
    let (admin, a, b) = two_records(&app).await;
    let unknown = uuid::Uuid::now_v7().to_string();
    let merge = |survivor: &str, merged: &str| {
        app.graphql(
            "mutation($s: UUID!, $m: UUID!) { mergeEntities(survivorId: $s, mergedId: $m) { id } }",
            json!({"s": survivor, "m": merged}),
            Some(&admin),
        )
    };
    for (survivor, merged) in [(&a, &unknown), (&a, &a)] {
        let r = merge(survivor, merged).await;
        let error = &r.body["errors"][0]["extensions"];
        assert_eq!(error["code"], "VALIDATION_ERROR", "{}", r.text);
        assert_eq!(error["detail"][0]["loc"], json!(["mergedId"]), "{}", r.text);
    }
    let r = merge(&unknown, &b).await;
    assert_eq!(
        r.body["errors"][0]["extensions"]["code"], "NOT_FOUND",
        "{}",
        r.text
    );
    // A listing's id is no entity.
    let r = app
        .graphql(
            "mutation($s: UUID!, $m: UUID!) { mergeListings(survivorId: $s, mergedId: $m) { id } }",
            json!({"s": a, "m": b}),
            Some(&admin),
        )
        .await;
    assert_eq!(
        r.body["errors"][0]["extensions"]["code"], "NOT_FOUND",
        "{}",
        r.text
    );
    let r = app
        .graphql(
            "mutation($id: UUID!) { undoEntityMerge(entityId: $id) { id } }",
            json!({"id": a}),
            Some(&admin),
        )
        .await;
    assert_eq!(
        r.body["errors"][0]["extensions"]["code"], "CONFLICT",
        "{}",
        r.text
    );

    let rest = app
        .request(
            "POST",
            &format!("/api/v1/entities/{a}/merge"),
            Some(json!({"merged_id": unknown})),
            Some(&admin),
        )
        .await;
    assert_eq!(
        rest.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "{}",
        rest.text
    );
    assert_eq!(rest.body["detail"][0]["loc"], json!(["body", "merged_id"]));
    let rest = app
        .request(
            "POST",
            &format!("/api/v1/entities/{unknown}/merge"),
            Some(json!({"merged_id": b})),
            Some(&admin),
        )
        .await;
    assert_eq!(rest.status, StatusCode::NOT_FOUND, "{}", rest.text);
    let rest = app
        .request(
            "POST",
            &format!("/api/v1/entities/{unknown}/unmerge"),
            None,
            Some(&admin),
        )
        .await;
    assert_eq!(rest.status, StatusCode::NOT_FOUND, "{}", rest.text);
}

#[tokio::test]
async fn a_chain_of_merges_keeps_every_record_s_evidence_and_unwinds_from_the_outside_in() {
    let app = TestApp::new().await;
    let (admin, a, b) = two_records(&app).await;
    let (_, key) = app.register("Third Source").await;
    let (lat, lng) = east(LAT, LNG, 18.0);
    let c = app
        .publish(
            &key,
            &admin,
            entity_entry(
                "Rind and Crust Deli",
                lat,
                lng,
                json!({"website_url": "https://rind-crust.example"}),
            ),
        )
        .await["canonical_id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        merge_entities(&app, &admin, &a, &b).await.status,
        StatusCode::OK
    );
    let outer = merge_entities(&app, &admin, &c, &a).await;
    assert_eq!(outer.status, StatusCode::OK, "{}", outer.text);
    // C holds its own facts, A's and, through A, B's.
    assert_eq!(outer.body["website_url"], "https://rind-crust.example");
    assert_eq!(outer.body["phone"], "0161 496 0560");
    assert_eq!(outer.body["email"], "hello@hamper.example");
    let followed = app.get(&format!("/api/v1/entities/{b}")).await;
    assert_eq!(followed.body["id"], c.as_str(), "two redirects followed");
    assert_eq!(
        followed.headers["content-location"],
        format!("/api/v1/entities/{c}").as_str()
    );

    // B's merge sits inside A's: A's merge into C is undone first.
    let inner = unmerge_entity(&app, &admin, &b).await;
    assert_eq!(inner.status, StatusCode::CONFLICT, "{}", inner.text);
    let a_back = unmerge_entity(&app, &admin, &a).await;
    assert_eq!(a_back.status, StatusCode::OK, "{}", a_back.text);
    assert_eq!(
        a_back.body["email"], "hello@hamper.example",
        "B is still merged into A"
    );
    let c_back = app.get(&format!("/api/v1/entities/{c}")).await.body;
    assert!(
        c_back["phone"].is_null() && c_back["email"].is_null(),
        "{c_back}"
    );
    let b_back = unmerge_entity(&app, &admin, &b).await;
    assert_eq!(b_back.status, StatusCode::OK, "{}", b_back.text);
    assert_eq!(b_back.body["id"], b.as_str());
    let a_alone = app.get(&format!("/api/v1/entities/{a}")).await.body;
    assert!(a_alone["email"].is_null(), "{a_alone}");
    assert_eq!(
        app.count("SELECT count(*) FROM canonical.entities WHERE status = 'merged'")
            .await,
        0
    );
}

async fn merge_entities(
    app: &TestApp,
    key: &str,
    survivor: &str,
    merged: &str,
) -> crate::harness::TestResponse {
    app.request(
        "POST",
        &format!("/api/v1/entities/{survivor}/merge"),
        Some(json!({"merged_id": merged})),
        Some(key),
    )
    .await
}

async fn unmerge_entity(app: &TestApp, key: &str, id: &str) -> crate::harness::TestResponse {
    app.request(
        "POST",
        &format!("/api/v1/entities/{id}/unmerge"),
        None,
        Some(key),
    )
    .await
}

#[tokio::test]
async fn after_a_merge_a_sighting_of_the_duplicate_is_applied_to_the_survivor() {
    let app = TestApp::new().await;
    let admin = app.admin_key().await;
    let (_, first) = app.register("Cheese Guide").await;
    let (_, second) = app.register("Deli Directory").await;
    let a = app
        .publish(
            &first,
            &admin,
            entity_entry("Chorlton Cheese Shop", LAT, LNG, json!({})),
        )
        .await["canonical_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let (lat, lng) = east(LAT, LNG, 12.0);
    let b = app
        .publish(
            &second,
            &admin,
            entity_entry("The Cheese Hamper", lat, lng, json!({})),
        )
        .await["canonical_id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_ne!(a, b);
    let merged = merge_entities(&app, &admin, &a, &b).await;
    assert_eq!(merged.status, StatusCode::OK, "{}", merged.text);
    assert_eq!(
        merged.body["display_name"], "Chorlton Cheese Shop",
        "the other agent's name does not replace the survivor's"
    );
    // Another directory lists the duplicate's name where it stood: only the redirect's name
    // says which business it is, and it names the survivor.
    let (_, directory) = app.register("Later Directory").await;
    let seen = app
        .publish(
            &directory,
            &admin,
            entity_entry("The Cheese Hamper", lat, lng, json!({})),
        )
        .await;
    assert_eq!(seen["canonical_id"], a.as_str(), "{seen}");
    assert_eq!(
        app.count("SELECT count(*) FROM canonical.entities").await,
        2,
        "no new duplicate"
    );
    assert_eq!(
        app.count(&format!(
            "SELECT count(*) FROM canonical_link_contributions WHERE target_canonical_id = '{b}'
             AND link_type IN ('created', 'updated', 'matched')"
        ))
        .await,
        1,
        "the redirect keeps only its own creation"
    );
}

#[tokio::test]
async fn a_claimed_record_keeps_its_contact_and_its_fields_through_a_merge_and_its_undo() {
    let app = TestApp::new().await;
    let admin = app.admin_key().await;
    let (_, guide) = app.register("Cheese Guide").await;
    let (owner_id, owner) = app.register("Hamper Owner").await;
    let a = app
        .publish(
            &guide,
            &admin,
            entity_entry("Chorlton Cheese Shop", LAT, LNG, json!({})),
        )
        .await["canonical_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let (lat, lng) = east(LAT, LNG, 12.0);
    let b = app
        .publish(
            &owner,
            &admin,
            entity_entry("The Cheese Hamper", lat, lng, json!({})),
        )
        .await["canonical_id"]
        .as_str()
        .unwrap()
        .to_owned();
    // The owner claims its record; the claim's context changes no field.
    let mut claim = entity_entry("Hamper Holdings", lat, lng, json!({}));
    claim["entry_intent"] = json!("claim");
    claim["observed_at_tstamp_utc"] = json!("2026-11-09T10:00:00Z");
    claim["target_canonical_table"] = json!("canonical.entities");
    claim["target_canonical_id"] = json!(b);
    let claimed = app.publish(&owner, &admin, claim).await;
    assert_eq!(claimed["link_type"], "updated", "{claimed}");
    let before = app.get(&format!("/api/v1/entities/{b}")).await.body;
    assert_eq!(before["contact_agent_id"], owner_id.to_string());
    assert_eq!(before["display_name"], "The Cheese Hamper");

    let merged = merge_entities(&app, &admin, &a, &b).await;
    assert_eq!(merged.status, StatusCode::OK, "{}", merged.text);
    assert_eq!(merged.body["display_name"], "Chorlton Cheese Shop");
    let restored = unmerge_entity(&app, &admin, &b).await;
    assert_eq!(restored.status, StatusCode::OK, "{}", restored.text);
    assert_eq!(restored.body["display_name"], "The Cheese Hamper");
    assert_eq!(restored.body["contact_agent_id"], owner_id.to_string());
}
