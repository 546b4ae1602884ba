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
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_spacetime-records"))
        .args([
            "admin",
            "resolve-review",
            "--entry-id",
            &third,
            "--resolution",
            "is_record",
        ])
        .args(["--canonical-id", &w.bolt])
        .env("DATABASE_URL", w.app.database_url())
        .env("STRS_ADMIN_API_KEY", &w.admin)
        .env(
            "STRS_DATA_DIR",
            crate::harness::tmp_dir().join(format!("cli-{third}")),
        )
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let printed: Value = serde_json::from_slice(&output.stdout).unwrap();
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
    let (_, other_admin) = {
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
