//! The transformer's judgement, case by case (docs/matching-rules.md).

use crate::harness::{TestApp, east, entity_entry};
use axum::http::StatusCode;
use serde_json::{Value, json};

const LAT: f64 = 53.4808;
const LNG: f64 = -2.2426;

struct Setup {
    app: TestApp,
    admin: String,
    alice: String,
    bob: String,
}

async fn setup() -> Setup {
    let app = TestApp::new().await;
    let admin = app.admin_key().await;
    let (_, alice) = app.register("Alice Scraper").await;
    let (_, bob) = app.register("Bob Directory").await;
    Setup {
        app,
        admin,
        alice,
        bob,
    }
}

/// An admin's context, for calling the transformer's service functions directly.
fn admin_ctx() -> spacetime_records::ctx::Ctx {
    spacetime_records::ctx::Ctx {
        actor: Some(spacetime_records::ctx::Actor {
            agent_id: uuid::Uuid::nil(),
            key_id: uuid::Uuid::nil(),
            principal_id: None,
            scopes: vec!["admin".into()],
            agent_status: spacetime_records::domain::AgentStatus::Active,
            wrote_recently: false,
        }),
        request_id: String::new(),
        client: None,
    }
}

/// Processes each entry in a task of its own, all at once (two workers), as an admin.
async fn process_at_once(s: &Setup, ids: Vec<uuid::Uuid>) {
    let ctx = admin_ctx();
    let tasks: Vec<_> = ids
        .into_iter()
        .map(|id| {
            let (state, ctx) = (s.app.state.clone(), ctx.clone());
            tokio::spawn(async move {
                spacetime_records::services::transformer::process_entry(&state, &ctx, id)
                    .await
                    .map_err(|e| e.public_message())
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap().unwrap();
    }
}

fn canonical_id(result: &Value) -> String {
    result["canonical_id"]
        .as_str()
        .unwrap_or_else(|| panic!("no canonical id: {result}"))
        .to_string()
}

#[tokio::test]
async fn the_same_website_nearby_is_the_same_entity() {
    let s = setup().await;
    let first = s
        .app
        .publish(
            &s.alice,
            &s.admin,
            entity_entry(
                "Acme Plumbing",
                LAT,
                LNG,
                json!({"website_url": "https://www.acme-plumbing.example/"}),
            ),
        )
        .await;
    let (lat, lng) = east(LAT, LNG, 80.0);
    let second = s
        .app
        .publish(
            &s.bob,
            &s.admin,
            entity_entry(
                "Acme Plumbing & Heating Services",
                lat,
                lng,
                json!({"website": "acme-plumbing.example"}),
            ),
        )
        .await;
    assert_eq!(first["link_type"], "created");
    assert_eq!(canonical_id(&second), canonical_id(&first));
    assert!(matches!(
        second["link_type"].as_str(),
        Some("updated" | "matched")
    ));
    assert_eq!(
        s.app.count("SELECT count(*) FROM canonical.entities").await,
        1
    );
}

#[tokio::test]
async fn a_phone_in_two_formats_nearby_is_the_same_entity() {
    let s = setup().await;
    let first = s
        .app
        .publish(
            &s.alice,
            &s.admin,
            entity_entry(
                "Pennine Boilers",
                LAT,
                LNG,
                json!({"phone": "+44 161 496 0000"}),
            ),
        )
        .await;
    let (lat, lng) = east(LAT, LNG, 60.0);
    let second = s
        .app
        .publish(
            &s.bob,
            &s.admin,
            entity_entry(
                "Pennine Boiler Repairs",
                lat,
                lng,
                json!({"phone": "0161 496 0000"}),
            ),
        )
        .await;
    assert_eq!(canonical_id(&second), canonical_id(&first));
}

#[tokio::test]
async fn a_name_variant_within_50_m_is_the_same_entity() {
    let s = setup().await;
    let first = s
        .app
        .publish(
            &s.alice,
            &s.admin,
            entity_entry("Acme Plumbing Ltd", LAT, LNG, json!({})),
        )
        .await;
    let (lat, lng) = east(LAT, LNG, 30.0);
    let second = s
        .app
        .publish(
            &s.bob,
            &s.admin,
            entity_entry("ACME PLUMBING", lat, lng, json!({})),
        )
        .await;
    assert_eq!(canonical_id(&second), canonical_id(&first));
}

#[tokio::test]
async fn the_same_name_5_km_apart_is_two_entities() {
    let s = setup().await;
    let first = s
        .app
        .publish(
            &s.alice,
            &s.admin,
            entity_entry("Corner Cafe", LAT, LNG, json!({})),
        )
        .await;
    let (lat, lng) = east(LAT, LNG, 5_000.0);
    let second = s
        .app
        .publish(
            &s.alice,
            &s.admin,
            entity_entry("Corner Cafe", lat, lng, json!({})),
        )
        .await;
    assert_ne!(canonical_id(&second), canonical_id(&first));
    assert_eq!(second["link_type"], "created");
}

#[tokio::test]
async fn chain_branches_sharing_a_website_and_phone_2_km_apart_are_two_places() {
    let s = setup().await;
    let shared = json!({"website_url": "https://pizzachain.example", "phone": "0161 496 0123"});
    let first = s
        .app
        .publish(
            &s.alice,
            &s.admin,
            entity_entry("Pizza Chain", LAT, LNG, shared.clone()),
        )
        .await;
    let (lat, lng) = east(LAT, LNG, 2_000.0);
    let second = s
        .app
        .publish(
            &s.alice,
            &s.admin,
            entity_entry("Pizza Chain", lat, lng, shared),
        )
        .await;
    assert_ne!(canonical_id(&second), canonical_id(&first));
}

#[tokio::test]
async fn a_competitor_next_door_stays_separate() {
    let s = setup().await;
    let first = s.app.publish(&s.alice, &s.admin, entity_entry("Smith Hardware", LAT, LNG, json!({"website_url": "https://smith-hardware.example", "phone": "0161 496 0001", "address_text": "1 High Street"}))).await;
    let (lat, lng) = east(LAT, LNG, 10.0);
    let second = s.app.publish(&s.bob, &s.admin, entity_entry("Jones Tools", lat, lng, json!({"website_url": "https://jones-tools.example", "phone": "0161 496 0002", "address_text": "1 High Street"}))).await;
    assert_ne!(canonical_id(&second), canonical_id(&first));
}

#[tokio::test]
async fn evidence_fitting_two_entities_equally_goes_to_review() {
    let s = setup().await;
    s.app
        .publish(
            &s.alice,
            &s.admin,
            entity_entry(
                "Acme Plumbing",
                LAT,
                LNG,
                json!({"website_url": "https://acme-a.example"}),
            ),
        )
        .await;
    let (lat, lng) = east(LAT, LNG, 40.0);
    s.app
        .publish(
            &s.alice,
            &s.admin,
            entity_entry("Bolt Heating", lat, lng, json!({"phone": "0161 496 0777"})),
        )
        .await;
    assert_eq!(
        s.app.count("SELECT count(*) FROM canonical.entities").await,
        2
    );
    let (lat, lng) = east(LAT, LNG, 20.0);
    let third = s
        .app
        .publish(
            &s.bob,
            &s.admin,
            entity_entry("Acme Plumbing", lat, lng, json!({"phone": "0161 496 0777"})),
        )
        .await;
    assert_eq!(third["status"], "review_required", "{third}");
    assert!(third["canonical_id"].is_null());
    assert_eq!(
        s.app.count("SELECT count(*) FROM canonical.entities").await,
        2
    );
    assert_eq!(
        s.app
            .count("SELECT count(*) FROM canonical_link_contributions")
            .await,
        2
    );
}

#[tokio::test]
async fn invalid_content_is_rejected_with_a_reason() {
    let s = setup().await;
    let r = s.app.publish(&s.alice, &s.admin, json!({"entry_type": "entity", "latitude": LAT, "longitude": LNG, "context": {"city": "Leeds"}})).await;
    assert_eq!(r["status"], "rejected");
    assert!(r["reason"].as_str().unwrap().contains("display_name"));
    let bad_country = s
        .app
        .publish(
            &s.alice,
            &s.admin,
            entity_entry("X", LAT, LNG, json!({"country_code": "United Kingdom"})),
        )
        .await;
    assert_eq!(bad_country["status"], "rejected");
    assert_eq!(
        s.app.count("SELECT count(*) FROM canonical.entities").await,
        0
    );
}

#[tokio::test]
async fn listings_and_requests_are_created_and_matched_within_their_kind() {
    let s = setup().await;
    let provider = s
        .app
        .publish(
            &s.alice,
            &s.admin,
            entity_entry("Acme Plumbing", LAT, LNG, json!({})),
        )
        .await;
    let provider_id = canonical_id(&provider);
    let listing = json!({"entry_type": "listing", "latitude": LAT, "longitude": LNG, "entry_subtype": "service",
        "context": {"title": "Boiler service", "price_amount": "80.00", "currency_code": "GBP", "provider_entity_id": provider_id}});
    let first = s.app.publish(&s.alice, &s.admin, listing.clone()).await;
    assert_eq!(first["canonical_table"], "canonical.listings");
    assert_eq!(first["link_type"], "created");
    let again = s.app.publish(&s.bob, &s.admin, listing).await;
    assert_eq!(canonical_id(&again), canonical_id(&first));
    let l = s
        .app
        .get(&format!("/api/v1/listings/{}", canonical_id(&first)))
        .await;
    assert_eq!(l.body["listing_type"], "service");
    assert_eq!(l.body["price_amount"], "80.00");
    assert_eq!(l.body["provider_entity_id"], provider_id);

    let request = json!({"entry_type": "request", "latitude": LAT, "longitude": LNG, "entry_subtype": "quote",
        "context": {"title": "Need a boiler fitted", "budget_amount": 1500, "currency_code": "GBP", "needed_by_tstamp_utc": "2026-12-15T00:00:00Z"}});
    let req = s.app.publish(&s.alice, &s.admin, request).await;
    assert_eq!(req["canonical_table"], "canonical.requests");
    let r = s
        .app
        .get(&format!("/api/v1/requests/{}", canonical_id(&req)))
        .await;
    assert_eq!(r.body["request_type"], "quote");
    assert_eq!(r.body["budget_amount"], "1500");
    assert_eq!(r.body["needed_by_tstamp_utc"], "2026-12-15T00:00:00Z");
    assert_eq!(
        s.app
            .get("/api/v1/requests")
            .await
            .body
            .as_array()
            .unwrap()
            .len(),
        1
    );
    let unknown_provider = s
        .app
        .publish(
            &s.alice,
            &s.admin,
            json!({"entry_type": "listing", "latitude": LAT, "longitude": LNG,
        "context": {"title": "Orphan", "provider_entity_id": uuid::Uuid::now_v7()}}),
        )
        .await;
    assert_eq!(unknown_provider["status"], "rejected");
}

#[tokio::test]
async fn add_context_to_a_service_supplied_target() {
    let s = setup().await;
    let created = s
        .app
        .publish(
            &s.alice,
            &s.admin,
            entity_entry("Target Ltd", LAT, LNG, json!({})),
        )
        .await;
    let id = canonical_id(&created);
    let mut body = entity_entry(
        "Target Ltd",
        LAT,
        LNG,
        json!({"description": "Family-run since 1982", "context_l1_common": {"verification": {"evidence_summary": "shop sign"}}}),
    );
    body.as_object_mut().unwrap().extend(json!({"entry_intent": "add_context", "target_canonical_table": "canonical.entities", "target_canonical_id": id}).as_object().unwrap().clone());
    let added = s.app.publish(&s.bob, &s.admin, body.clone()).await;
    assert_eq!(added["link_type"], "updated", "{added}");
    assert_eq!(canonical_id(&added), id);
    let entity = s.app.get(&format!("/api/v1/entities/{id}")).await;
    assert_eq!(entity.body["description"], "Family-run since 1982");
    assert_eq!(
        entity.body["context_l1_common"]["verification"]["evidence_summary"],
        "shop sign"
    );
    body["idempotency_key"] = json!("again");
    let same = s.app.publish(&s.bob, &s.admin, body).await;
    assert_eq!(same["link_type"], "supporting_evidence");
}

#[tokio::test]
async fn another_agents_weaker_fact_never_overwrites_a_stronger_one() {
    let s = setup().await;
    let mut strong = entity_entry("Fact Ltd", LAT, LNG, json!({"phone": "0161 496 0500"}));
    strong["score_confidence"] = json!(0.9);
    let id = canonical_id(&s.app.publish(&s.alice, &s.admin, strong).await);
    let mut weak = entity_entry("Fact Ltd", LAT, LNG, json!({"phone": "0161 496 0999"}));
    weak["score_confidence"] = json!(0.3);
    let r = s.app.publish(&s.bob, &s.admin, weak).await;
    assert_eq!(canonical_id(&r), id);
    assert_eq!(
        s.app.get(&format!("/api/v1/entities/{id}")).await.body["phone"],
        "0161 496 0500"
    );
    let mut correction = entity_entry("Fact Ltd", LAT, LNG, json!({"phone": "0161 496 0501"}));
    correction["entry_intent"] = json!("correct");
    correction["score_confidence"] = json!(0.9);
    correction["observed_at_tstamp_utc"] = json!("2026-11-10T10:00:00Z");
    let fixed = s.app.publish(&s.alice, &s.admin, correction).await;
    assert_eq!(fixed["link_type"], "updated");
    assert_eq!(
        s.app.get(&format!("/api/v1/entities/{id}")).await.body["phone"],
        "0161 496 0501"
    );
}

#[tokio::test]
async fn observations_support_a_target_or_a_match_and_otherwise_wait_for_review() {
    let s = setup().await;
    let id = canonical_id(
        &s.app
            .publish(
                &s.alice,
                &s.admin,
                entity_entry(
                    "Seen Ltd",
                    LAT,
                    LNG,
                    json!({"website_url": "https://seen.example"}),
                ),
            )
            .await,
    );
    let targeted = s.app.publish(&s.bob, &s.admin, json!({"entry_type": "observation", "latitude": LAT, "longitude": LNG,
        "target_canonical_table": "canonical.entities", "target_canonical_id": id, "context": {"context_l1_common": {"note": "open today"}}})).await;
    assert_eq!(targeted["link_type"], "supporting_evidence");
    let matched = s
        .app
        .publish(
            &s.bob,
            &s.admin,
            json!({"entry_type": "observation", "latitude": LAT, "longitude": LNG,
        "context": {"website_url": "https://seen.example"}}),
        )
        .await;
    assert_eq!(matched["link_type"], "supporting_evidence");
    assert_eq!(canonical_id(&matched), id);
    let orphan = s.app.publish(&s.bob, &s.admin, json!({"entry_type": "observation", "latitude": 10.0, "longitude": 10.0, "context": {}})).await;
    assert_eq!(orphan["status"], "review_required");
}

#[tokio::test]
async fn verify_claim_and_withdraw_do_what_they_say() {
    let s = setup().await;
    let id = canonical_id(
        &s.app
            .publish(
                &s.alice,
                &s.admin,
                entity_entry("Owned Ltd", LAT, LNG, json!({})),
            )
            .await,
    );
    let target = json!({"entry_type": "entity", "latitude": LAT, "longitude": LNG, "target_canonical_table": "canonical.entities", "target_canonical_id": id});
    let with = |intent: &str, key: &str| {
        let mut b = target.clone();
        b["entry_intent"] = json!(intent);
        b["idempotency_key"] = json!(format!("{intent}-{key}"));
        b
    };
    let verified = s.app.publish(&s.bob, &s.admin, with("verify", "b")).await;
    assert_eq!(verified["link_type"], "supporting_evidence");
    let claimed = s.app.publish(&s.bob, &s.admin, with("claim", "b")).await;
    assert_eq!(claimed["link_type"], "updated");
    let bob_id = s.app.get_as("/api/v1/agents/me", &s.bob).await.body["id"].clone();
    assert_eq!(
        s.app.get(&format!("/api/v1/entities/{id}")).await.body["contact_agent_id"],
        bob_id
    );
    let contested = s.app.publish(&s.alice, &s.admin, with("claim", "a")).await;
    assert_eq!(contested["status"], "review_required");
    let foreign_withdraw = s.app.publish(&s.bob, &s.admin, with("withdraw", "b")).await;
    assert_eq!(foreign_withdraw["status"], "review_required");
    let withdrawn = s
        .app
        .publish(&s.alice, &s.admin, with("withdraw", "a"))
        .await;
    assert_eq!(withdrawn["link_type"], "updated");
    assert_eq!(
        s.app.get(&format!("/api/v1/entities/{id}")).await.body["status"],
        "withdrawn"
    );
}

#[tokio::test]
async fn processing_a_processed_entry_returns_its_result_and_changes_nothing() {
    let s = setup().await;
    let created = s
        .app
        .post_entry(&s.alice, entity_entry("Once Ltd", LAT, LNG, json!({})))
        .await;
    let id = created.body["id"].as_str().unwrap();
    let path = format!("/api/v1/transformer/process/{id}");
    let first = s.app.request("POST", &path, None, Some(&s.admin)).await;
    let second = s.app.request("POST", &path, None, Some(&s.admin)).await;
    assert_eq!(first.body, second.body);
    assert_eq!(
        s.app
            .count("SELECT count(*) FROM canonical_link_contributions")
            .await,
        1
    );
    assert_eq!(
        s.app
            .request(
                "POST",
                "/api/v1/transformer/process-pending",
                None,
                Some(&s.admin)
            )
            .await
            .body["processed"],
        0
    );
}

#[tokio::test]
async fn processing_and_ranking_need_the_admin_scope() {
    let s = setup().await;
    for path in [
        "/api/v1/transformer/process-pending",
        "/api/v1/ranker/run-all",
    ] {
        assert_eq!(
            s.app
                .request("POST", path, None, Some(&s.alice))
                .await
                .status,
            StatusCode::FORBIDDEN
        );
        assert_eq!(
            s.app.request("POST", path, None, None).await.status,
            StatusCode::UNAUTHORIZED
        );
    }
    let bad = s
        .app
        .request(
            "POST",
            "/api/v1/transformer/process-pending?limit=501",
            None,
            Some(&s.admin),
        )
        .await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);
    let missing = s
        .app
        .request(
            "POST",
            &format!("/api/v1/transformer/process/{}", uuid::Uuid::now_v7()),
            None,
            Some(&s.admin),
        )
        .await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn two_workers_processing_the_same_new_business_at_once_make_one_entity() {
    for round in 0..5 {
        let s = setup().await;
        let a = s
            .app
            .post_entry(
                &s.alice,
                entity_entry(
                    "Twin Bakery",
                    LAT,
                    LNG,
                    json!({"website_url": "https://twin-bakery.example"}),
                ),
            )
            .await;
        let (lat, lng) = east(LAT, LNG, 20.0);
        let b = s
            .app
            .post_entry(
                &s.bob,
                entity_entry(
                    "Twin Bakery Ltd",
                    lat,
                    lng,
                    json!({"website_url": "https://twin-bakery.example"}),
                ),
            )
            .await;
        let ids = [
            a.body["id"].as_str().unwrap().to_string(),
            b.body["id"].as_str().unwrap().to_string(),
        ];
        process_at_once(&s, ids.iter().map(|id| id.parse().unwrap()).collect()).await;
        assert_eq!(
            s.app.count("SELECT count(*) FROM canonical.entities").await,
            1,
            "round {round}"
        );
        assert_eq!(
            s.app
                .count("SELECT count(*) FROM canonical_link_contributions")
                .await,
            2
        );
    }
}

#[tokio::test]
async fn the_worker_processes_new_entries_without_being_called() {
    let s = setup().await;
    let (stop, handle) =
        spacetime_records::services::transformer::worker::spawn(s.app.state.clone(), 2);
    let created = s
        .app
        .post_entry(&s.alice, entity_entry("Auto Ltd", LAT, LNG, json!({})))
        .await;
    let path = format!(
        "/api/v1/space-time-entries/{}",
        created.body["id"].as_str().unwrap()
    );
    let mut status = String::new();
    for _ in 0..100 {
        status = s.app.get(&path).await.body["status"]
            .as_str()
            .unwrap()
            .to_string();
        if status != "pending" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(status, "processed");
    stop.send(true).unwrap();
    handle.await.unwrap();
}

#[tokio::test]
async fn the_ranker_rewards_independent_corroboration() {
    let s = setup().await;
    let id = canonical_id(
        &s.app
            .publish(
                &s.alice,
                &s.admin,
                entity_entry(
                    "Ranked Ltd",
                    LAT,
                    LNG,
                    json!({"website_url": "https://ranked.example"}),
                ),
            )
            .await,
    );
    let one = s
        .app
        .request(
            "POST",
            &format!("/api/v1/ranker/run/entity/{id}"),
            None,
            Some(&s.admin),
        )
        .await;
    assert_eq!(one.status, StatusCode::OK);
    assert_eq!(one.body["entity_id"], id);
    assert!(one.body["score_signal"].is_null());
    let before: f64 = one.body["score_confidence"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    s.app
        .publish(
            &s.bob,
            &s.admin,
            entity_entry(
                "Ranked Ltd",
                LAT,
                LNG,
                json!({"website_url": "https://ranked.example", "description": "Ranks well"}),
            ),
        )
        .await;
    let all = s
        .app
        .request("POST", "/api/v1/ranker/run-all", None, Some(&s.admin))
        .await;
    let after: f64 = all.body[0]["score_confidence"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(after > before, "{after} > {before}");
    let richness: f64 = all.body[0]["score_data_richness"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(richness > 0.0 && richness <= 1.0);
    let missing = s
        .app
        .request(
            "POST",
            &format!("/api/v1/ranker/run/entity/{}", uuid::Uuid::now_v7()),
            None,
            Some(&s.admin),
        )
        .await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn one_failing_entry_is_rejected_and_its_batch_mates_are_still_processed() {
    let s = setup().await;
    // A database-level failure the transformer cannot foresee, for one name only.
    sqlx::query(
        "CREATE FUNCTION explode() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN IF NEW.display_name = 'Explode Ltd' THEN RAISE EXCEPTION 'boom'; END IF; RETURN NEW; END $$",
    )
    .execute(s.app.pool())
    .await
    .unwrap();
    sqlx::query("CREATE TRIGGER explode BEFORE INSERT ON canonical.entities FOR EACH ROW EXECUTE FUNCTION explode()")
        .execute(s.app.pool())
        .await
        .unwrap();
    for (i, name) in ["Before Ltd", "Explode Ltd", "After Ltd"]
        .iter()
        .enumerate()
    {
        let (lat, lng) = east(LAT, LNG, 3_000.0 * i as f64);
        let r = s
            .app
            .post_entry(&s.alice, entity_entry(name, lat, lng, json!({})))
            .await;
        assert_eq!(r.status, StatusCode::CREATED);
    }
    let r = s
        .app
        .request(
            "POST",
            "/api/v1/transformer/process-pending",
            None,
            Some(&s.admin),
        )
        .await;
    assert_eq!(r.body["processed"], 3, "{}", r.text);
    let results = r.body["results"].as_array().unwrap();
    let statuses: Vec<&str> = results
        .iter()
        .map(|r| r["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["processed", "rejected", "processed"]);
    assert_eq!(results[1]["reason"], "processing failed");
    assert_eq!(results[1]["error"], "internal server error");
    assert_eq!(
        s.app.count("SELECT count(*) FROM canonical.entities").await,
        2
    );
    assert_eq!(
        s.app
            .count("SELECT count(*) FROM space_time_entries WHERE status = 'pending'")
            .await,
        0
    );
}

/// The batch fetches every entry's candidates before deciding the first, so a second sighting
/// later in the same batch must still find the entity the batch has just created.
#[tokio::test]
async fn one_batch_matches_a_second_sighting_to_the_entity_it_just_created() {
    let s = setup().await;
    let (near_lat, near_lng) = east(LAT, LNG, 60.0);
    let (far_lat, far_lng) = east(LAT, LNG, 5_000.0);
    let bodies = [
        entity_entry(
            "Pennine Boilers",
            LAT,
            LNG,
            json!({"phone": "+44 161 496 0000"}),
        ),
        entity_entry(
            "Pennine Boiler Repairs",
            near_lat,
            near_lng,
            json!({"phone": "0161 496 0000"}),
        ),
        entity_entry("Pennine Boilers", far_lat, far_lng, json!({})),
    ];
    let mut ids = Vec::new();
    for body in bodies {
        let created = s.app.post_entry(&s.alice, body).await;
        assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
        ids.push(created.body["id"].as_str().unwrap().to_string());
    }
    let processed = s
        .app
        .request(
            "POST",
            "/api/v1/transformer/process-pending",
            None,
            Some(&s.admin),
        )
        .await;
    assert_eq!(processed.status, StatusCode::OK, "{}", processed.text);
    assert_eq!(processed.body["processed"], 3);
    let result_of = |id: &str| result_for(&processed.body, id);
    let (first, second, far) = (result_of(&ids[0]), result_of(&ids[1]), result_of(&ids[2]));
    assert_eq!(first["link_type"], "created");
    assert_eq!(canonical_id(&second), canonical_id(&first));
    assert_eq!(far["link_type"], "created");
    assert_ne!(canonical_id(&far), canonical_id(&first));
    assert_eq!(
        s.app.count("SELECT count(*) FROM canonical.entities").await,
        2
    );
}

/// A created entity is scored in its insert; the ranker must agree with those scores.
#[tokio::test]
async fn created_entities_carry_the_scores_the_ranker_gives_them() {
    let s = setup().await;
    for (name, metres, extra) in [
        ("Scored Bakery", 0.0, json!({})),
        (
            "Scored Florist",
            900.0,
            json!({"website_url": "https://florist.example", "phone": "0161 496 0123",
                   "description": "Flowers", "categories": ["florist"]}),
        ),
    ] {
        let (lat, lng) = east(LAT, LNG, metres);
        let created = s
            .app
            .post_entry(&s.alice, entity_entry(name, lat, lng, extra))
            .await;
        assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
    }
    let processed = s
        .app
        .request(
            "POST",
            "/api/v1/transformer/process-pending",
            None,
            Some(&s.admin),
        )
        .await;
    assert_eq!(processed.body["processed"], 2, "{}", processed.text);
    let stored: Vec<(uuid::Uuid, String, String, Option<String>)> = sqlx::query_as(
        "SELECT id, score_confidence::text, score_data_richness::text, score_signal::text
         FROM canonical.entities ORDER BY id",
    )
    .fetch_all(s.app.pool())
    .await
    .unwrap();
    assert_eq!(stored.len(), 2);
    assert_ne!(stored[0].2, stored[1].2, "richness tells the two apart");
    let ranked = s
        .app
        .request("POST", "/api/v1/ranker/run-all", None, Some(&s.admin))
        .await;
    assert_eq!(ranked.status, StatusCode::OK);
    for (id, confidence, richness, signal) in stored {
        let result = ranked
            .body
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["entity_id"] == id.to_string())
            .unwrap()
            .clone();
        let as_decimal = |v: &Value| {
            v.as_str()
                .map(|s| s.parse::<rust_decimal::Decimal>().unwrap())
        };
        assert_eq!(
            as_decimal(&result["score_confidence"]),
            confidence.parse().ok()
        );
        assert_eq!(
            as_decimal(&result["score_data_richness"]),
            richness.parse().ok()
        );
        assert_eq!(
            as_decimal(&result["score_signal"]),
            signal.and_then(|s| s.parse().ok())
        );
    }
}

/// A batch holds the entities it writes until its end: a record merged into twice, and one created
/// and then merged into within the batch, end with every merge's fields and with the scores the
/// ranker gives them (from the same stored track records).
#[tokio::test]
async fn records_a_batch_creates_and_merges_into_end_with_every_merge_and_the_rankers_scores() {
    let s = setup().await;
    let base = s
        .app
        .publish(
            &s.alice,
            &s.admin,
            entity_entry("Held Bakery", LAT, LNG, json!({})),
        )
        .await;
    assert_eq!(base["link_type"], "created");
    let (near_lat, near_lng) = east(LAT, LNG, 20.0);
    let (florist_lat, florist_lng) = east(LAT, LNG, 3_000.0);
    let (beside_lat, beside_lng) = east(florist_lat, florist_lng, 30.0);
    let batch = [
        (
            &s.bob,
            entity_entry(
                "Held Bakery",
                near_lat,
                near_lng,
                json!({"description": "Sourdough"}),
            ),
        ),
        (
            &s.alice,
            entity_entry(
                "Held Bakery",
                LAT,
                LNG,
                json!({"website_url": "https://held-bakery.example"}),
            ),
        ),
        (
            &s.alice,
            entity_entry("Held Florist", florist_lat, florist_lng, json!({})),
        ),
        (
            &s.bob,
            entity_entry(
                "Held Florist",
                beside_lat,
                beside_lng,
                json!({"categories": ["florist"]}),
            ),
        ),
        (
            &s.bob,
            entity_entry(
                "Held Florist",
                beside_lat,
                beside_lng,
                json!({"categories": ["florist"]}),
            ),
        ),
    ];
    let mut ids = Vec::new();
    for (key, body) in batch {
        let created = s.app.post_entry(key, body).await;
        assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
        ids.push(created.body["id"].as_str().unwrap().to_string());
    }
    let processed = s
        .app
        .request(
            "POST",
            "/api/v1/transformer/process-pending",
            None,
            Some(&s.admin),
        )
        .await;
    assert_eq!(processed.body["processed"], 5, "{}", processed.text);
    let result_of = |id: &str| result_for(&processed.body, id);
    let links: Vec<Value> = ids
        .iter()
        .map(|id| result_of(id)["link_type"].clone())
        .collect();
    assert_eq!(
        links,
        vec![
            json!("updated"),
            json!("updated"),
            json!("created"),
            json!("updated"),
            json!("matched")
        ]
    );
    let bakery: uuid::Uuid = canonical_id(&base).parse().unwrap();
    let florist: uuid::Uuid = canonical_id(&result_of(&ids[2])).parse().unwrap();
    assert_eq!(canonical_id(&result_of(&ids[0])), bakery.to_string());
    assert_eq!(canonical_id(&result_of(&ids[1])), bakery.to_string());
    assert_eq!(canonical_id(&result_of(&ids[3])), florist.to_string());
    assert_eq!(canonical_id(&result_of(&ids[4])), florist.to_string());
    assert_eq!(
        s.app.count("SELECT count(*) FROM canonical.entities").await,
        2
    );
    let fields: (Option<String>, Option<String>) =
        sqlx::query_as("SELECT description, website_url FROM canonical.entities WHERE id = $1")
            .bind(bakery)
            .fetch_one(s.app.pool())
            .await
            .unwrap();
    assert_eq!(
        fields,
        (
            Some("Sourdough".into()),
            Some("https://held-bakery.example".into())
        )
    );
    let categories: Vec<String> =
        sqlx::query_scalar("SELECT categories FROM canonical.entities WHERE id = $1")
            .bind(florist)
            .fetch_one(s.app.pool())
            .await
            .unwrap();
    assert_eq!(categories, vec!["florist".to_string()]);
    let stored: Vec<(uuid::Uuid, rust_decimal::Decimal, rust_decimal::Decimal)> = sqlx::query_as(
        "SELECT id, score_confidence, score_data_richness FROM canonical.entities ORDER BY id",
    )
    .fetch_all(s.app.pool())
    .await
    .unwrap();
    let mut tx = s.app.pool().begin().await.unwrap();
    let ranked = spacetime_records::services::ranker::rank_many(
        &mut tx,
        spacetime_records::domain::CanonicalTable::Entities,
        &[bakery, florist],
        spacetime_records::services::ranker::Freshness::Recent,
    )
    .await
    .unwrap();
    tx.rollback().await.unwrap();
    for (id, confidence, richness) in stored {
        let result = ranked.iter().find(|r| r.entity_id == id).unwrap();
        assert_eq!(result.score_data_richness, richness, "richness of {id}");
        assert_eq!(result.score_confidence, confidence, "confidence of {id}");
    }
}

/// Another worker holding an entry's area or identity locks leaves the entry pending (never
/// waiting, never processed twice); it is processed once the locks are free.
#[tokio::test]
async fn an_entry_whose_locks_another_worker_holds_stays_pending_until_they_are_free() {
    let s = setup().await;
    let created = s
        .app
        .post_entry(
            &s.alice,
            entity_entry("Locked Out Ltd", LAT, LNG, json!({})),
        )
        .await;
    let id: uuid::Uuid = created.body["id"].as_str().unwrap().parse().unwrap();
    let entry = spacetime_records::db::entries::get(s.app.pool(), id)
        .await
        .unwrap()
        .unwrap();
    let keys = spacetime_records::services::transformer::keys::entry_lock_keys(&entry);
    assert!(!keys.is_empty());
    let mut other_worker = s.app.pool().begin().await.unwrap();
    sqlx::query("SELECT pg_advisory_xact_lock(k) FROM unnest($1::bigint[]) AS k")
        .bind(&keys)
        .execute(&mut *other_worker)
        .await
        .unwrap();
    let process = || {
        s.app.request(
            "POST",
            "/api/v1/transformer/process-pending",
            None,
            Some(&s.admin),
        )
    };
    let blocked = process().await;
    assert_eq!(blocked.status, StatusCode::OK, "{}", blocked.text);
    assert_eq!(blocked.body["processed"], 0);
    assert_eq!(
        s.app
            .count("SELECT count(*) FROM space_time_entries WHERE status = 'pending'")
            .await,
        1
    );
    other_worker.rollback().await.unwrap();
    let freed = process().await;
    assert_eq!(freed.body["processed"], 1, "{}", freed.text);
    assert_eq!(freed.body["results"][0]["link_type"], "created");
}

#[tokio::test]
async fn an_agent_declaring_itself_reputable_gains_nothing_while_corroboration_counts() {
    let app = TestApp::new().await;
    let admin = app.admin_key().await;
    let boastful = app
        .post(
            "/api/v1/agents/register",
            json!({"agent_type": "scraper", "display_name": "Boastful", "score_reputation": "1", "score_trust": "1"}),
        )
        .await;
    assert_eq!(boastful.status, StatusCode::CREATED);
    assert_eq!(
        boastful.body["agent"]["score_reputation"], "1",
        "stored as declared"
    );
    let boastful_key = boastful.body["api_key"].as_str().unwrap().to_string();
    let (_, modest_key) = app.register("Modest").await;
    let a = app
        .publish(
            &boastful_key,
            &admin,
            entity_entry("Boast Bakery", 53.40, -2.20, json!({})),
        )
        .await;
    let b = app
        .publish(
            &modest_key,
            &admin,
            entity_entry("Modest Bakery", 53.50, -2.30, json!({})),
        )
        .await;
    let confidence = |id: &str| {
        let id = id.to_string();
        let app = &app;
        async move { app.get(&format!("/api/v1/entities/{id}")).await.body["score_confidence"].clone() }
    };
    let (ca, cb) = (
        confidence(a["canonical_id"].as_str().unwrap()).await,
        confidence(b["canonical_id"].as_str().unwrap()).await,
    );
    assert_eq!(ca, cb, "a declared reputation of 1 changes nothing");
    let ranked = app
        .request("POST", "/api/v1/ranker/run-all", None, Some(&admin))
        .await;
    assert_eq!(ranked.status, StatusCode::OK);
    assert_eq!(
        confidence(a["canonical_id"].as_str().unwrap()).await,
        confidence(b["canonical_id"].as_str().unwrap()).await,
        "nor after a ranker run"
    );
    // Another agent sighting the modest agent's bakery corroborates it.
    let (_, witness) = app.register("Witness").await;
    app.publish(
        &witness,
        &admin,
        entity_entry("Modest Bakery", 53.50, -2.30, json!({})),
    )
    .await;
    app.request("POST", "/api/v1/ranker/run-all", None, Some(&admin))
        .await;
    let after: f64 = confidence(b["canonical_id"].as_str().unwrap())
        .await
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let before: f64 = cb.as_str().unwrap().parse().unwrap();
    assert!(
        after > before,
        "corroboration raised confidence: {before} -> {after}"
    );
}

#[tokio::test]
async fn another_agents_replacement_of_an_established_identity_links_and_waits_as_a_field_proposal()
{
    let s = setup().await;
    let (_, carol) = s.app.register("Carol Overwriter").await;
    let facts = json!({"phone": "0161 496 0440", "website_url": "https://established.example"});
    let created = s
        .app
        .publish(
            &s.alice,
            &s.admin,
            entity_entry("Established Bakery", LAT, LNG, facts.clone()),
        )
        .await;
    let id = canonical_id(&created);
    // Bob corroborates: two agents now stand behind the record.
    let corroborated = s
        .app
        .publish(
            &s.bob,
            &s.admin,
            entity_entry("Established Bakery", LAT, LNG, facts),
        )
        .await;
    assert_eq!(corroborated["canonical_id"], id.as_str());

    // Carol, however confident and even as a correction, does not overwrite the phone.
    let mut hostile = entity_entry(
        "Established Bakery",
        LAT,
        LNG,
        json!({"phone": "0161 496 0999", "website_url": "https://established.example"}),
    );
    hostile["entry_intent"] = json!("correct");
    hostile["score_confidence"] = json!(1.0);
    hostile["observed_at_tstamp_utc"] = json!("2026-11-20T10:00:00Z");
    hostile["target_canonical_table"] = json!("canonical.entities");
    hostile["target_canonical_id"] = json!(id);
    // The entry links (its identity is settled); the contested phone waits as a field proposal.
    let r = s.app.publish(&carol, &s.admin, hostile).await;
    assert_eq!(r["status"], "processed", "{r}");
    assert_eq!(r["canonical_id"], id.as_str(), "{r}");
    assert!(r["reason"].as_str().unwrap().contains("phone"), "{r}");
    let phone: String =
        sqlx::query_scalar("SELECT phone FROM canonical.entities WHERE id = $1::uuid")
            .bind(&id)
            .fetch_one(s.app.pool())
            .await
            .unwrap();
    assert_eq!(phone, "0161 496 0440");
    let open_proposals = |field: &'static str| {
        let app = &s.app;
        let id = id.clone();
        async move {
            app.count(&format!(
                "SELECT count(*) FROM field_proposals WHERE record_id = '{id}' AND field = '{field}' AND status = 'open'"
            ))
            .await
        }
    };
    assert_eq!(open_proposals("phone").await, 1);

    // Moving it 500 m is a replacement too: the record stays where it is.
    let (far_lat, far_lng) = east(LAT, LNG, 500.0);
    let mut moved = entity_entry("Established Bakery", far_lat, far_lng, json!({}));
    moved["target_canonical_table"] = json!("canonical.entities");
    moved["target_canonical_id"] = json!(id);
    moved["observed_at_tstamp_utc"] = json!("2026-11-21T10:00:00Z");
    moved["score_confidence"] = json!(1.0);
    let r = s.app.publish(&carol, &s.admin, moved).await;
    assert_eq!(r["status"], "processed", "{r}");
    assert_eq!(open_proposals("location").await, 1);
    let lng: f64 =
        sqlx::query_scalar("SELECT location_lng FROM canonical.entities WHERE id = $1::uuid")
            .bind(&id)
            .fetch_one(s.app.pool())
            .await
            .unwrap();
    assert!((lng - LNG).abs() < 1e-9, "the record did not move: {lng}");

    // The agent that set the phone may correct its own fact; filling a gap is no replacement.
    let mut own = entity_entry(
        "Established Bakery",
        LAT,
        LNG,
        json!({"phone": "0161 496 0441", "email": "hello@established.example"}),
    );
    own["observed_at_tstamp_utc"] = json!("2026-11-22T10:00:00Z");
    let r = s.app.publish(&s.alice, &s.admin, own).await;
    assert_eq!(r["link_type"], "updated", "{r}");
    // Carol's phone contested the old number: once the phone changed otherwise, it is moot.
    assert_eq!(open_proposals("phone").await, 0);
    assert_eq!(
        s.app
            .count(&format!(
                "SELECT count(*) FROM field_proposals WHERE record_id = '{id}' AND field = 'phone' AND status = 'superseded'"
            ))
            .await,
        1
    );
    let mut filler = entity_entry(
        "Established Bakery",
        LAT,
        LNG,
        json!({"description": "Sourdough since 1990"}),
    );
    filler["observed_at_tstamp_utc"] = json!("2026-11-23T10:00:00Z");
    let r = s.app.publish(&carol, &s.admin, filler).await;
    assert_eq!(r["link_type"], "updated", "{r}");
}

#[tokio::test]
async fn the_transformer_reuses_an_agents_track_record_for_a_minute_and_ranker_runs_recount_it() {
    let app = TestApp::new().await;
    let admin = app.admin_key().await;
    let (agent, key) = app.register("Steady Poster").await;
    let stored = || async {
        sqlx::query_as::<_, (i64, chrono::DateTime<chrono::Utc>)>(
            "SELECT contributed, computed_at_tstamp_utc FROM agent_track_records WHERE agent_id = $1",
        )
        .bind(agent)
        .fetch_optional(app.pool())
        .await
        .unwrap()
    };
    assert!(stored().await.is_none());
    app.publish(
        &key,
        &admin,
        entity_entry("Steady Bakery", 53.41, -2.21, json!({})),
    )
    .await;
    let (contributed, first_count) = stored().await.expect("counted when first needed");
    // Matching asks for the agent's reputation before the entry's contribution is written.
    assert_eq!(contributed, 0);
    app.publish(
        &key,
        &admin,
        entity_entry("Steady Florist", 53.45, -2.25, json!({})),
    )
    .await;
    assert_eq!(
        stored().await,
        Some((0, first_count)),
        "within the minute the stored count is used, not recounted"
    );
    let ranked = app
        .request("POST", "/api/v1/ranker/run-all", None, Some(&admin))
        .await;
    assert_eq!(ranked.status, StatusCode::OK, "{}", ranked.text);
    let (contributed, recount) = stored().await.unwrap();
    assert_eq!(contributed, 2, "a ranker run recounts");
    assert!(recount > first_count);
}

/// The result of the entry `id` in a `process-pending` answer.
fn result_for(processed: &Value, id: &str) -> Value {
    processed["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["space_time_entry_id"] == id)
        .unwrap_or_else(|| panic!("no result for {id}: {processed}"))
        .clone()
}

/// A full batch's claim and a partial one are different statements (`db::entries::claim_pending`
/// writes a full batch's size into its text): both claim exactly what they are asked for, and
/// nothing twice.
#[tokio::test]
async fn partial_and_full_batches_claim_exactly_what_they_are_asked_for() {
    let s = setup().await;
    for n in 0..103 {
        let (lat, lng) = east(LAT, LNG, 300.0 * n as f64);
        let body = entity_entry(&format!("Claimed Shop Number {n}"), lat, lng, json!({}));
        let posted = s.app.post_entry(&s.alice, body).await;
        assert_eq!(posted.status, StatusCode::CREATED, "{}", posted.text);
    }
    let drain = |limit: u32| {
        let s = &s;
        async move {
            let path = format!("/api/v1/transformer/process-pending?limit={limit}");
            let answer = s.app.request("POST", &path, None, Some(&s.admin)).await;
            assert_eq!(answer.status, StatusCode::OK, "{}", answer.text);
            answer.body["processed"].as_i64().unwrap()
        }
    };
    let pending = "SELECT count(*) FROM space_time_entries WHERE status = 'pending'";
    assert_eq!(drain(2).await, 2, "a partial batch");
    assert_eq!(s.app.count(pending).await, 101);
    // A full batch of 100, then a partial one of the single entry left.
    assert_eq!(drain(300).await, 101);
    assert_eq!(s.app.count(pending).await, 0);
    assert_eq!(
        s.app
            .count("SELECT count(DISTINCT source_space_time_entry_id) FROM canonical_link_contributions")
            .await,
        103,
        "every entry decided once"
    );
    assert_eq!(
        s.app
            .count("SELECT count(*) FROM canonical_link_contributions")
            .await,
        103
    );
}

/// One street address written two ways puts two sightings 5 km apart at one place (the
/// geocoders disagreed); processed at the same moment by two workers they must still make one
/// entity, as they do one after the other.
#[tokio::test]
async fn two_workers_processing_one_address_geocoded_5_km_apart_make_one_entity() {
    let (far_lat, far_lng) = east(LAT, LNG, 5_000.0);
    let sightings = |s: &Setup| {
        [
            (
                s.alice.clone(),
                entity_entry(
                    "Harbour Fish Bar",
                    LAT,
                    LNG,
                    json!({"address_text": "12 Quay Street, Manchester M3 3JE"}),
                ),
            ),
            (
                s.bob.clone(),
                entity_entry(
                    "Harbour Fish Bar",
                    far_lat,
                    far_lng,
                    json!({"address_text": "12 Quay St"}),
                ),
            ),
        ]
    };
    // One after the other: the second is linked to the first's entity.
    let s = setup().await;
    let [first, second] = sightings(&s);
    let created = s.app.publish(&first.0, &s.admin, first.1).await;
    let linked = s.app.publish(&second.0, &s.admin, second.1).await;
    assert_eq!(canonical_id(&linked), canonical_id(&created), "{linked}");
    // At the same moment.
    for round in 0..5 {
        let s = setup().await;
        let mut ids = Vec::new();
        for (key, body) in sightings(&s) {
            let posted = s.app.post_entry(&key, body).await;
            assert_eq!(posted.status, StatusCode::CREATED, "{}", posted.text);
            ids.push(
                posted.body["id"]
                    .as_str()
                    .unwrap()
                    .parse::<uuid::Uuid>()
                    .unwrap(),
            );
        }
        process_at_once(&s, ids).await;
        assert_eq!(
            s.app.count("SELECT count(*) FROM canonical.entities").await,
            1,
            "round {round}"
        );
    }
}
