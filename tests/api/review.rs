//! The review queue and its resolutions, over REST, GraphQL and the admin CLI: each ambiguity
//! ends in review with its candidates; an operator's answer (is that record, is new, reject)
//! sets the canonical state and is recorded; two operators resolving one entry, one wins.

use crate::harness::{TestApp, east, entity_entry};
use axum::http::StatusCode;
use serde_json::{Value, json};

const LAT: f64 = 53.4808;
const LNG: f64 = -2.2426;

struct World {
    app: TestApp,
    admin: String,
    scout: String,
    acme: String,
    bolt: String,
}

/// Two records 40 m apart; each `split()` entry carries Acme's name and Bolt's phone.
async fn world() -> World {
    let app = TestApp::new().await;
    let admin = app.admin_key().await;
    let (_, scout) = app.register("Review Scout").await;
    let acme = app
        .publish(
            &scout,
            &admin,
            entity_entry(
                "Acme Plumbing",
                LAT,
                LNG,
                json!({"website_url": "https://acme-review.example"}),
            ),
        )
        .await["canonical_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let (lat, lng) = east(LAT, LNG, 40.0);
    let bolt = app
        .publish(
            &scout,
            &admin,
            entity_entry("Bolt Heating", lat, lng, json!({"phone": "0161 496 0777"})),
        )
        .await["canonical_id"]
        .as_str()
        .unwrap()
        .to_owned();
    World {
        app,
        admin,
        scout,
        acme,
        bolt,
    }
}

impl World {
    /// Posts an ambiguous entry and returns its id (it waits for review).
    async fn split(&self, observed: &str) -> String {
        let (lat, lng) = east(LAT, LNG, 20.0);
        let mut body = entity_entry("Acme Plumbing", lat, lng, json!({"phone": "0161 496 0777"}));
        body["observed_at_tstamp_utc"] = json!(observed);
        let r = self.app.publish(&self.scout, &self.admin, body).await;
        assert_eq!(r["status"], "review_required", "{r}");
        r["space_time_entry_id"].as_str().unwrap().to_owned()
    }

    async fn resolve(
        &self,
        entry: &str,
        body: Value,
        key: Option<&str>,
    ) -> crate::harness::TestResponse {
        self.app
            .request(
                "POST",
                &format!("/api/v1/review-queue/{entry}/resolution"),
                Some(body),
                key,
            )
            .await
    }
}

#[tokio::test]
async fn an_ambiguous_entry_waits_with_its_candidates_and_an_operator_resolves_it() {
    let w = world().await;
    let entry = w.split("2026-11-02T10:00:00Z").await;

    let queue = w.app.get("/api/v1/review-queue").await;
    assert_eq!(queue.status, StatusCode::OK, "{}", queue.text);
    let item = &queue.body[0];
    assert_eq!(item["space_time_entry_id"], entry.as_str());
    assert_eq!(
        item["why"],
        "the name fits one record and the phone or website another"
    );
    let mut ids: Vec<&str> = item["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["canonical_id"].as_str().unwrap())
        .collect();
    ids.sort();
    let mut expected = vec![w.acme.as_str(), w.bolt.as_str()];
    expected.sort();
    assert_eq!(ids, expected);
    assert!(item["candidates"][0]["score"].is_number());
    assert!(
        !item["candidates"][0]["reasons"]
            .as_array()
            .unwrap()
            .is_empty()
    );

    let g = w
        .app
        .graphql(
            "{ reviewQueue { edges { node { why entry { id } agent { displayName }
               candidates { score record { ... on Entity { displayName } } } } } } }",
            json!({}),
            None,
        )
        .await;
    assert!(g.body["errors"].is_null(), "{}", g.text);
    let node = &g.body["data"]["reviewQueue"]["edges"][0]["node"];
    assert_eq!(node["entry"]["id"], entry.as_str());
    assert_eq!(node["agent"]["displayName"], "Review Scout");
    let mut names: Vec<&str> = node["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["record"]["displayName"].as_str().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["Acme Plumbing", "Bolt Heating"]);

    // Only operators resolve, with a well-formed answer.
    let (_, agent) = w.app.register("Not An Operator").await;
    let body = json!({"resolution": "is_record", "canonical_id": w.acme});
    assert_eq!(
        w.resolve(&entry, body.clone(), None).await.status,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        w.resolve(&entry, body.clone(), Some(&agent)).await.status,
        StatusCode::FORBIDDEN
    );
    for (bad, loc) in [
        (json!({"resolution": "is_record"}), "canonical_id"),
        (
            json!({"resolution": "is_new", "canonical_id": w.acme}),
            "canonical_id",
        ),
        (
            json!({"resolution": "is_record", "canonical_id": uuid::Uuid::now_v7()}),
            "canonical_id",
        ),
        (json!({"resolution": "maybe"}), "resolution"),
    ] {
        let r = w.resolve(&entry, bad.clone(), Some(&w.admin)).await;
        assert_eq!(
            r.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{bad}: {}",
            r.text
        );
        assert_eq!(
            r.body["detail"][0]["loc"],
            json!(["body", loc]),
            "{bad}: {}",
            r.text
        );
    }

    // "It is Acme": applied to Acme as an update (the phone fills a gap), and recorded.
    let r = w.resolve(&entry, body.clone(), Some(&w.admin)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.body["canonical_id"], w.acme.as_str());
    assert_eq!(r.body["link_type"], "updated");
    let phone: Option<String> =
        sqlx::query_scalar("SELECT phone FROM canonical.entities WHERE id = $1::uuid")
            .bind(&w.acme)
            .fetch_one(w.app.pool())
            .await
            .unwrap();
    assert_eq!(phone.as_deref(), Some("0161 496 0777"));
    let recorded: Value = sqlx::query_scalar(
        "SELECT c.metadata -> 'resolution' FROM canonical_link_contributions c
         WHERE c.source_space_time_entry_id = $1::uuid",
    )
    .bind(&entry)
    .fetch_one(w.app.pool())
    .await
    .unwrap();
    assert_eq!(recorded["resolution"], "is_record");
    assert!(recorded["resolved_by_agent_id"].is_string());
    assert!(
        w.app
            .get("/api/v1/review-queue")
            .await
            .body
            .as_array()
            .unwrap()
            .is_empty()
    );
    // Resolved once: a second answer is a conflict.
    let again = w.resolve(&entry, body, Some(&w.admin)).await;
    assert_eq!(again.status, StatusCode::CONFLICT, "{}", again.text);
}

#[tokio::test]
async fn is_new_and_reject_over_graphql_and_the_cli() {
    let w = world().await;
    let first = w.split("2026-11-03T10:00:00Z").await;
    let second = w.split("2026-11-04T10:00:00Z").await;
    let third = w.split("2026-11-05T10:00:00Z").await;
    let before = w.app.count("SELECT count(*) FROM canonical.entities").await;

    let mutation = "mutation($id: UUID!, $input: ReviewResolutionInput!) {
        resolveReview(spaceTimeEntryId: $id, input: $input) { status linkType canonicalId } }";
    let r = w
        .app
        .graphql(
            mutation,
            json!({"id": first, "input": {"resolution": "IS_NEW"}}),
            Some(&w.admin),
        )
        .await;
    assert!(r.body["errors"].is_null(), "{}", r.text);
    assert_eq!(r.body["data"]["resolveReview"]["linkType"], "CREATED");
    assert_eq!(
        w.app.count("SELECT count(*) FROM canonical.entities").await,
        before + 1
    );

    let r = w
        .app
        .graphql(
            mutation,
            json!({"id": second, "input": {"resolution": "REJECT"}}),
            Some(&w.admin),
        )
        .await;
    assert_eq!(
        r.body["data"]["resolveReview"]["status"], "REJECTED",
        "{}",
        r.text
    );
    let r = w
        .app
        .graphql(
            mutation,
            json!({"id": second, "input": {"resolution": "REJECT"}}),
            Some(&w.admin),
        )
        .await;
    assert_eq!(
        r.body["errors"][0]["extensions"]["code"], "CONFLICT",
        "{}",
        r.text
    );

    // The admin CLI: the same service, as the operator whose key it is given.
    let printed = w.app.admin_cli(
        &w.admin,
        &third,
        &[
            "resolve-review",
            "--entry-id",
            &third,
            "--resolution",
            "is_record",
            "--canonical-id",
            &w.bolt,
        ],
    );
    assert_eq!(printed["canonical_id"], w.bolt.as_str());
    let status: String =
        sqlx::query_scalar("SELECT status FROM space_time_entries WHERE id = $1::uuid")
            .bind(&third)
            .fetch_one(w.app.pool())
            .await
            .unwrap();
    assert_eq!(status, "processed");
}

#[tokio::test]
async fn two_operators_resolving_one_entry_at_once_exactly_one_wins() {
    let w = world().await;
    let entry = w.split("2026-11-06T10:00:00Z").await;
    let ((), other_admin) = {
        let key = w.app.admin_key().await;
        ((), key)
    };
    let a = w.resolve(
        &entry,
        json!({"resolution": "is_record", "canonical_id": w.acme}),
        Some(&w.admin),
    );
    let b = w.resolve(&entry, json!({"resolution": "is_new"}), Some(&other_admin));
    let (a, b) = tokio::join!(a, b);
    let mut statuses = [a.status.as_u16(), b.status.as_u16()];
    statuses.sort();
    assert_eq!(statuses, [200, 409], "{} / {}", a.text, b.text);
    assert_eq!(
        w.app
            .count("SELECT count(*) FROM canonical_link_contributions c JOIN space_time_entries e ON e.id = c.source_space_time_entry_id WHERE e.status = 'processed' AND e.review ? 'resolution'")
            .await,
        1
    );
}

/// Two parentless offers of one title 80 m apart (too far to be one offer by title alone), and a
/// way to post an entry of that title midway, which fits both equally (it waits for review).
struct Offers {
    app: TestApp,
    admin: String,
    scout: String,
    kind: &'static str,
    x: String,
    y: String,
}

async fn offers(kind: &'static str, title: &str) -> Offers {
    let app = TestApp::new().await;
    let admin = app.admin_key().await;
    let (_, scout) = app.register("Offer Scout").await;
    let post = |point: (f64, f64)| {
        json!({"entry_type": kind, "latitude": point.0, "longitude": point.1,
               "observed_at_tstamp_utc": "2026-11-01T10:00:00Z", "context": {"title": title}})
    };
    let x = app.publish(&scout, &admin, post((LAT, LNG))).await;
    let y = app
        .publish(&scout, &admin, post(east(LAT, LNG, 80.0)))
        .await;
    let (x, y) = (
        x["canonical_id"].as_str().unwrap().to_owned(),
        y["canonical_id"].as_str().unwrap().to_owned(),
    );
    assert_ne!(x, y, "80 m apart, the same title is two offers");
    Offers {
        app,
        admin,
        scout,
        kind,
        x,
        y,
    }
}

impl Offers {
    /// Posts an entry midway with `context` and returns its id (it waits for review).
    async fn midway(&self, title: &str, observed: &str, context: Value) -> String {
        let (lat, lng) = east(LAT, LNG, 40.0);
        let mut ctx = json!({"title": title});
        if let (Some(c), Some(extra)) = (ctx.as_object_mut(), context.as_object()) {
            c.extend(extra.clone());
        }
        let body = json!({"entry_type": self.kind, "latitude": lat, "longitude": lng,
                          "observed_at_tstamp_utc": observed, "context": ctx});
        let r = self.app.publish(&self.scout, &self.admin, body).await;
        assert_eq!(r["status"], "review_required", "{r}");
        r["space_time_entry_id"].as_str().unwrap().to_owned()
    }

    async fn resolve(&self, entry: &str, body: Value) -> crate::harness::TestResponse {
        self.app
            .request(
                "POST",
                &format!("/api/v1/review-queue/{entry}/resolution"),
                Some(body),
                Some(&self.admin),
            )
            .await
    }

    async fn resolution_of(&self, entry: &str) -> Value {
        sqlx::query_scalar(
            "SELECT c.metadata -> 'resolution' FROM canonical_link_contributions c
             WHERE c.source_space_time_entry_id = $1::uuid",
        )
        .bind(entry)
        .fetch_one(self.app.pool())
        .await
        .unwrap()
    }
}

#[tokio::test]
async fn a_listing_fitting_two_listings_waits_and_each_resolution_sets_the_listings() {
    let o = offers("listing", "Bike repair").await;
    let entry = o
        .midway(
            "Bike repair",
            "2026-11-02T10:00:00Z",
            json!({"price_amount": "25.00", "currency_code": "GBP"}),
        )
        .await;

    // The queue shows the entry, why, and both candidates with their scores and score parts.
    let queue = o.app.get("/api/v1/review-queue").await;
    let item = &queue.body[0];
    assert_eq!(
        item["space_time_entry_id"],
        entry.as_str(),
        "{}",
        queue.text
    );
    assert_eq!(item["entry_type"], "listing");
    assert_eq!(
        item["why"],
        "several records fit this evidence about equally well"
    );
    let mut candidates: Vec<(&str, &str)> = item["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            assert!(c["score"].is_number(), "{c}");
            assert!(!c["reasons"].as_array().unwrap().is_empty(), "{c}");
            (
                c["canonical_table"].as_str().unwrap(),
                c["canonical_id"].as_str().unwrap(),
            )
        })
        .collect();
    candidates.sort();
    let mut expected = [
        ("canonical.listings", o.x.as_str()),
        ("canonical.listings", o.y.as_str()),
    ];
    expected.sort();
    assert_eq!(candidates, expected);

    // An entity's id is no listing.
    let provider = o
        .app
        .publish(
            &o.scout,
            &o.admin,
            entity_entry("Spoke Works", LAT, LNG, json!({})),
        )
        .await;
    let wrong = o
        .resolve(
            &entry,
            json!({"resolution": "is_record", "canonical_id": provider["canonical_id"]}),
        )
        .await;
    assert_eq!(
        wrong.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "{}",
        wrong.text
    );
    assert_eq!(
        wrong.body["detail"][0]["loc"],
        json!(["body", "canonical_id"])
    );

    // "It is Y": applied to Y (the price fills a gap), and recorded with who and when.
    let r = o
        .resolve(
            &entry,
            json!({"resolution": "is_record", "canonical_id": o.y}),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.body["canonical_table"], "canonical.listings");
    assert_eq!(r.body["canonical_id"], o.y.as_str());
    assert_eq!(r.body["link_type"], "updated");
    let y = o.app.get(&format!("/api/v1/listings/{}", o.y)).await.body;
    assert_eq!(y["price_amount"], "25.00");
    let x = o.app.get(&format!("/api/v1/listings/{}", o.x)).await.body;
    assert!(x["price_amount"].is_null(), "{x}");
    let recorded = o.resolution_of(&entry).await;
    assert_eq!(recorded["resolution"], "is_record");
    assert_eq!(recorded["canonical_id"], o.y.as_str());
    assert!(
        recorded["resolved_by_agent_id"].is_string()
            && recorded["resolved_at_tstamp_utc"].is_string()
    );

    // "It is new", over GraphQL: a third listing from the entry.
    let second = o
        .midway("Bike repair", "2026-11-03T10:00:00Z", json!({}))
        .await;
    let before = o.app.count("SELECT count(*) FROM canonical.listings").await;
    let r = o
        .app
        .graphql(
            "mutation($id: UUID!) { resolveReview(spaceTimeEntryId: $id, input: {resolution: IS_NEW}) {
                status linkType canonicalTable canonicalId } }",
            json!({"id": second}),
            Some(&o.admin),
        )
        .await;
    assert!(r.body["errors"].is_null(), "{}", r.text);
    let outcome = &r.body["data"]["resolveReview"];
    assert_eq!(outcome["linkType"], "CREATED");
    assert_eq!(outcome["canonicalTable"], "LISTINGS");
    assert_eq!(
        o.app.count("SELECT count(*) FROM canonical.listings").await,
        before + 1
    );
    let created = outcome["canonicalId"].as_str().unwrap();
    assert!(created != o.x && created != o.y);
    assert_eq!(o.resolution_of(&second).await["resolution"], "is_new");

    // "Reject": nothing changes, the entry is rejected.
    let third = o
        .midway("Bike repair", "2026-11-04T10:00:00Z", json!({}))
        .await;
    let r = o.resolve(&third, json!({"resolution": "reject"})).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.body["status"], "rejected");
    assert!(r.body["canonical_id"].is_null());
    assert_eq!(
        o.app.count("SELECT count(*) FROM canonical.listings").await,
        before + 1
    );
    assert!(
        o.app
            .get("/api/v1/review-queue")
            .await
            .body
            .as_array()
            .unwrap()
            .is_empty()
    );
}

#[tokio::test]
async fn requests_resolve_over_the_cli_and_two_operators_resolving_one_request_entry_one_wins() {
    let o = offers("request", "Need a van for a house move").await;
    let entry = o
        .midway(
            "Need a van for a house move",
            "2026-11-02T10:00:00Z",
            json!({"budget_amount": 120}),
        )
        .await;
    let other_admin = o.app.admin_key().await;
    let path = format!("/api/v1/review-queue/{entry}/resolution");
    let one = o.resolve(
        &entry,
        json!({"resolution": "is_record", "canonical_id": o.x}),
    );
    let two = o.app.request(
        "POST",
        &path,
        Some(json!({"resolution": "is_new"})),
        Some(&other_admin),
    );
    let (one, two) = tokio::join!(one, two);
    let mut statuses = [one.status.as_u16(), two.status.as_u16()];
    statuses.sort();
    assert_eq!(statuses, [200, 409], "{} / {}", one.text, two.text);
    assert_eq!(
        o.app
            .count(&format!(
                "SELECT count(*) FROM canonical_link_contributions WHERE source_space_time_entry_id = '{entry}'"
            ))
            .await,
        1,
        "one answer took effect"
    );

    // An add_context entry that names no record waits too; the CLI answers it.
    let (lat, lng) = east(LAT, LNG, 400.0);
    let mut orphan = json!({"entry_type": "request", "latitude": lat, "longitude": lng,
        "entry_intent": "add_context", "observed_at_tstamp_utc": "2026-11-03T10:00:00Z",
        "context": {"title": "House move van", "description": "Two flights of stairs"}});
    let r = o.app.publish(&o.scout, &o.admin, orphan.take()).await;
    assert_eq!(r["status"], "review_required", "{r}");
    let orphan_id = r["space_time_entry_id"].as_str().unwrap().to_owned();
    let printed = o.app.admin_cli(
        &o.admin,
        &orphan_id,
        &[
            "resolve-review",
            "--entry-id",
            &orphan_id,
            "--resolution",
            "is_record",
            "--canonical-id",
            &o.y,
        ],
    );
    assert_eq!(printed["canonical_id"], o.y.as_str());
    assert_eq!(printed["canonical_table"], "canonical.requests");
    let y = o.app.get(&format!("/api/v1/requests/{}", o.y)).await.body;
    assert_eq!(y["description"], "Two flights of stairs", "{y}");
    assert_eq!(o.resolution_of(&orphan_id).await["resolution"], "is_record");
}

#[tokio::test]
async fn an_operator_applies_a_replacement_the_established_identity_guard_held_back() {
    let w = world().await;
    let (_, second) = w.app.register("Second Directory").await;
    let (rival_id, rival) = w.app.register("Rival Scraper").await;
    // A second agent corroborates Acme: it is established.
    let r = w
        .app
        .publish(
            &second,
            &w.admin,
            entity_entry(
                "Acme Plumbing",
                LAT,
                LNG,
                json!({"website_url": "https://acme-review.example"}),
            ),
        )
        .await;
    assert_eq!(r["canonical_id"], w.acme.as_str(), "{r}");

    // Another agent renames it and replaces its website: its identity is settled (it names the
    // record), so both entries link, the record keeps its values, and each contested value waits
    // for an operator as a field proposal; no entry waits in the review queue.
    let hostile = |fields: Value| {
        let mut body = entity_entry("Acme Plumbing", LAT, LNG, fields);
        body["target_canonical_table"] = json!("canonical.entities");
        body["target_canonical_id"] = json!(w.acme);
        body["score_confidence"] = json!(1.0);
        body["observed_at_tstamp_utc"] = json!("2026-11-20T10:00:00Z");
        body
    };
    let mut renamed = hostile(json!({}));
    renamed["context"]["display_name"] = json!("Apex Drains");
    let renamed = w.app.publish(&rival, &w.admin, renamed).await;
    assert_eq!(renamed["status"], "processed", "{renamed}");
    assert_eq!(renamed["canonical_id"], w.acme.as_str(), "{renamed}");
    let rehosted = w
        .app
        .publish(
            &rival,
            &w.admin,
            hostile(json!({"website_url": "https://apex-drains.example"})),
        )
        .await;
    assert_eq!(rehosted["status"], "processed", "{rehosted}");
    assert_eq!(rehosted["canonical_id"], w.acme.as_str(), "{rehosted}");
    let queue = w.app.get("/api/v1/review-queue").await.body;
    assert_eq!(queue, json!([]), "identity-certain entries are never held");
    let acme = w
        .app
        .get(&format!("/api/v1/entities/{}", w.acme))
        .await
        .body;
    assert_eq!(acme["display_name"], "Acme Plumbing");
    assert_eq!(acme["website_url"], "https://acme-review.example");
    let proposals = w
        .app
        .get("/api/v1/review-queue/field-proposals?status=open")
        .await;
    assert_eq!(proposals.status, StatusCode::OK, "{}", proposals.text);
    let by_field = |field: &str| {
        proposals
            .body
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["field"] == field)
            .cloned()
            .unwrap_or_else(|| panic!("no {field} proposal in {}", proposals.text))
    };
    let rename = by_field("display_name");
    assert_eq!(rename["current"]["value"], "Acme Plumbing");
    assert_eq!(rename["proposed"]["value"], "Apex Drains");
    assert_eq!(rename["agent_id"], rival_id.to_string());
    let rehost = by_field("website_url");
    assert_eq!(rehost["proposed"]["value"], "https://apex-drains.example");

    // The operator accepts the rename and dismisses the new website.
    let path = |id: &Value, verb: &str| {
        format!(
            "/api/v1/review-queue/field-proposals/{}/{verb}",
            id.as_str().unwrap()
        )
    };
    let r = w
        .app
        .request("POST", &path(&rename["id"], "accept"), None, Some(&w.admin))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.body["status"], "accepted");
    let acme = w
        .app
        .get(&format!("/api/v1/entities/{}", w.acme))
        .await
        .body;
    assert_eq!(acme["display_name"], "Apex Drains");
    assert_eq!(acme["website_url"], "https://acme-review.example");
    let r = w
        .app
        .request(
            "POST",
            &path(&rehost["id"], "dismiss"),
            None,
            Some(&w.admin),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.body["status"], "dismissed");
    let acme = w
        .app
        .get(&format!("/api/v1/entities/{}", w.acme))
        .await
        .body;
    assert_eq!(acme["website_url"], "https://acme-review.example");
}
