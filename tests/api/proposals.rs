//! Field proposals: an entry whose identity is settled always links; another agent's
//! replacement of an established identity field leaves the record as it is and waits as a
//! proposal, with both values' evidence, which operators accept or dismiss over REST, GraphQL and
//! the admin CLI (two at once: one wins). Cosmetic variants make none.

use crate::harness::{TestApp, east, entity_entry};
use axum::http::StatusCode;
use serde_json::{Value, json};

const LAT: f64 = 53.4791;
const LNG: f64 = -2.2301;

struct Shop {
    app: TestApp,
    admin: String,
    alice: (uuid::Uuid, String),
    id: String,
    created_entry: String,
}

/// "Harbour Plumbing", created by Alice and corroborated by Bob: established.
async fn established(website: &str, phone: &str) -> Shop {
    let app = TestApp::new().await;
    let admin = app.admin_key().await;
    let alice = app.register("Alice Directory").await;
    let (_, bob) = app.register("Bob Directory").await;
    let facts = json!({"website_url": website, "phone": phone});
    let created = app
        .publish(
            &alice.1,
            &admin,
            entity_entry("Harbour Plumbing", LAT, LNG, facts.clone()),
        )
        .await;
    let id = created["canonical_id"].as_str().unwrap().to_owned();
    let r = app
        .publish(
            &bob,
            &admin,
            entity_entry("Harbour Plumbing", LAT, LNG, facts),
        )
        .await;
    assert_eq!(r["canonical_id"], id.as_str(), "{r}");
    Shop {
        app,
        admin,
        alice,
        created_entry: created["space_time_entry_id"].as_str().unwrap().to_owned(),
        id,
    }
}

impl Shop {
    /// An entry about the shop (named by id: its identity is settled), confident and fresh.
    fn about(&self, fields: Value, observed: &str) -> Value {
        let mut body = entity_entry("Harbour Plumbing", LAT, LNG, fields);
        body["target_canonical_table"] = json!("canonical.entities");
        body["target_canonical_id"] = json!(self.id);
        body["score_confidence"] = json!(1.0);
        body["observed_at_tstamp_utc"] = json!(observed);
        body
    }

    async fn entity(&self) -> Value {
        self.app
            .get(&format!("/api/v1/entities/{}", self.id))
            .await
            .body
    }

    async fn open_proposals(&self) -> Vec<Value> {
        let r = self
            .app
            .get(&format!(
                "/api/v1/review-queue/field-proposals?status=open&record_id={}",
                self.id
            ))
            .await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.text);
        r.body.as_array().unwrap().clone()
    }

    async fn decide(
        &self,
        proposal: &Value,
        verb: &str,
        key: Option<&str>,
    ) -> crate::harness::TestResponse {
        let path = format!(
            "/api/v1/review-queue/field-proposals/{}/{verb}",
            proposal["id"].as_str().unwrap()
        );
        self.app.request("POST", &path, None, key).await
    }

    /// Runs `spacetime-records admin <command> --proposal-id <proposal's id>` as the operator.
    fn cli(&self, command: &str, proposal: &Value) -> std::process::Output {
        let id = proposal["id"].as_str().unwrap();
        self.app.admin_cli_output(
            &self.admin,
            &format!("{command}-{id}"),
            &[command, "--proposal-id", id],
        )
    }

    /// The shop as a replay of its history makes it (`entity(id, asOf: now)`).
    async fn as_of(&self) -> Value {
        let g = self
            .app
            .graphql(
                "query($id: UUID!, $at: DateTime!) { entity(id: $id, asOf: $at) { phone description } }",
                json!({"id": self.id, "at": chrono::Utc::now().to_rfc3339()}),
                None,
            )
            .await;
        assert!(g.body["errors"].is_null(), "{}", g.text);
        g.body["data"]["entity"].clone()
    }

    async fn count(&self, sql: &str) -> i64 {
        self.app.count(sql).await
    }
}

#[tokio::test]
async fn a_contested_phone_links_the_entry_keeps_the_record_and_waits_with_both_evidences() {
    let s = established("https://harbour-plumbing.example", "0161 496 0440").await;
    let (carol_id, carol) = s.app.register("Carol Scraper").await;
    let mut hostile = s.about(
        json!({"phone": "0161 496 0999", "description": "Emergency callouts"}),
        "2026-11-20T10:00:00Z",
    );
    hostile["entry_intent"] = json!("correct");
    let r = s.app.publish(&carol, &s.admin, hostile).await;
    assert_eq!(r["status"], "processed", "{r}");
    assert_eq!(r["canonical_id"], s.id.as_str());
    assert_eq!(r["link_type"], "updated", "its other fields merge: {r}");
    let carol_entry = r["space_time_entry_id"].as_str().unwrap().to_owned();
    let shop = s.entity().await;
    assert_eq!(shop["phone"], "0161 496 0440", "the record keeps its value");
    assert_eq!(shop["description"], "Emergency callouts");
    // The entry's contribution says which field the record kept; nothing waits as an entry.
    let contested: Value = sqlx::query_scalar(
        "SELECT metadata -> 'contested_fields' FROM canonical_link_contributions
         WHERE source_space_time_entry_id = $1::uuid",
    )
    .bind(&carol_entry)
    .fetch_one(s.app.pool())
    .await
    .unwrap();
    assert_eq!(contested, json!(["phone"]));
    assert_eq!(s.app.get("/api/v1/review-queue").await.body, json!([]));

    let open = s.open_proposals().await;
    assert_eq!(open.len(), 1, "{open:?}");
    let p = &open[0];
    assert_eq!(p["canonical_table"], "canonical.entities");
    assert_eq!(p["record_id"], s.id.as_str());
    assert_eq!(p["field"], "phone");
    assert_eq!(p["status"], "open");
    assert_eq!(p["proposal_count"], 1);
    assert_eq!(p["current"]["value"], "0161 496 0440");
    assert_eq!(p["current"]["evidence"]["agent_id"], s.alice.0.to_string());
    assert_eq!(
        p["current"]["evidence"]["space_time_entry_id"],
        s.created_entry.as_str()
    );
    assert_eq!(p["proposed"]["value"], "0161 496 0999");
    assert_eq!(p["proposed"]["evidence"]["agent_id"], carol_id.to_string());
    assert_eq!(
        p["proposed"]["evidence"]["space_time_entry_id"],
        carol_entry.as_str()
    );
    assert_eq!(p["proposed"]["evidence"]["confidence"], 1.0);
    assert_eq!(
        p["proposed"]["evidence"]["observed_at_tstamp_utc"],
        "2026-11-20T10:00:00Z"
    );
    assert!(p["reason"].as_str().unwrap().contains("phone"), "{p}");

    // The same number again, written internationally, counts up rather than queueing twice; a
    // third agent's other number is a proposal of its own.
    let again = s.about(json!({"phone": "+44 161 496 0999"}), "2026-11-21T10:00:00Z");
    assert_eq!(
        s.app.publish(&carol, &s.admin, again).await["status"],
        "processed"
    );
    let (_, dave) = s.app.register("Dave Scraper").await;
    let other = s.about(json!({"phone": "0161 496 0123"}), "2026-11-21T11:00:00Z");
    assert_eq!(
        s.app.publish(&dave, &s.admin, other).await["status"],
        "processed"
    );
    let open = s.open_proposals().await;
    assert_eq!(open.len(), 2, "{open:?}");
    let carols = open
        .iter()
        .find(|p| p["agent_id"] == carol_id.to_string())
        .unwrap();
    assert_eq!(carols["proposal_count"], 2);
    let daves = open
        .iter()
        .find(|p| p["agent_id"] != carol_id.to_string())
        .unwrap();

    // A replay of the record's history keeps the contested phone too.
    let replayed = s.as_of().await;
    assert_eq!(replayed["phone"], "0161 496 0440", "{replayed}");
    assert_eq!(replayed["description"], "Emergency callouts");

    // Only operators decide.
    let r = s.decide(carols, "accept", Some(&carol)).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN, "{}", r.text);
    let r = s.decide(carols, "accept", None).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{}", r.text);

    // Accepted: the record takes the value, its field evidence names Carol's entry, and a
    // contribution says who decided.
    let operator = s.app.get_as("/api/v1/agents/me", &s.admin).await.body["id"].clone();
    let r = s.decide(carols, "accept", Some(&s.admin)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.body["status"], "accepted");
    assert_eq!(r.body["decided_by_agent_id"], operator);
    assert!(r.body["decided_at_tstamp_utc"].is_string());
    assert_eq!(s.entity().await["phone"], "0161 496 0999");
    let evidence: Value = sqlx::query_scalar(
        "SELECT field_evidence -> 'phone' FROM canonical.entities WHERE id = $1::uuid",
    )
    .bind(&s.id)
    .fetch_one(s.app.pool())
    .await
    .unwrap();
    assert_eq!(evidence["entry_id"], carol_entry.as_str());
    assert_eq!(evidence["agent_id"], carol_id.to_string());
    let (link, metadata): (String, Value) = sqlx::query_as(
        "SELECT link_type, metadata FROM canonical_link_contributions
         WHERE metadata ? 'proposal_id' AND target_canonical_id = $1::uuid",
    )
    .bind(&s.id)
    .fetch_one(s.app.pool())
    .await
    .unwrap();
    assert_eq!(link, "updated");
    assert_eq!(metadata["proposal_id"], carols["id"]);
    assert_eq!(metadata["decided_by_agent_id"], operator);
    assert!(metadata["decided_at_tstamp_utc"].is_string());
    // Provenance shows it, and a replay of the record's history applies it as decided.
    let provenance = s
        .app
        .get(&format!("/api/v1/entities/{}/provenance", s.id))
        .await;
    assert_eq!(provenance.status, StatusCode::OK, "{}", provenance.text);
    assert!(
        provenance.text.contains(&carol_entry),
        "{}",
        provenance.text
    );
    let replayed = s.as_of().await;
    assert_eq!(replayed["phone"], "0161 496 0999", "{replayed}");
    assert_eq!(replayed["description"], "Emergency callouts");

    // Dave's number contested the old one: moot now. Deciding anything not open is a conflict.
    let dave_now = s
        .app
        .get(&format!(
            "/api/v1/review-queue/field-proposals?status=superseded&record_id={}",
            s.id
        ))
        .await
        .body;
    assert_eq!(dave_now[0]["id"], daves["id"], "{dave_now}");
    for (proposal, verb) in [(carols, "accept"), (carols, "dismiss"), (daves, "accept")] {
        let r = s.decide(proposal, verb, Some(&s.admin)).await;
        assert_eq!(r.status, StatusCode::CONFLICT, "{verb}: {}", r.text);
    }
    let r = s
        .app
        .request(
            "POST",
            &format!(
                "/api/v1/review-queue/field-proposals/{}/accept",
                uuid::Uuid::now_v7()
            ),
            None,
            Some(&s.admin),
        )
        .await;
    assert_eq!(r.status, StatusCode::NOT_FOUND, "{}", r.text);
    let r = s
        .app
        .get("/api/v1/review-queue/field-proposals?status=pending")
        .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
}

#[tokio::test]
async fn operators_decide_over_graphql_and_the_cli_and_of_two_at_once_one_wins() {
    let s = established("https://harbour-plumbing.example", "0161 496 0440").await;
    let (carol_id, carol) = s.app.register("Carol Scraper").await;
    let mut renamed = s.about(json!({}), "2026-11-20T10:00:00Z");
    renamed["context"]["display_name"] = json!("Apex Drains");
    assert_eq!(
        s.app.publish(&carol, &s.admin, renamed).await["status"],
        "processed"
    );
    let rehosted = s.about(
        json!({"website_url": "https://apex-drains.example"}),
        "2026-11-20T11:00:00Z",
    );
    assert_eq!(
        s.app.publish(&carol, &s.admin, rehosted).await["status"],
        "processed"
    );
    let (far_lat, far_lng) = east(LAT, LNG, 500.0);
    let mut moved = s.about(json!({}), "2026-11-20T12:00:00Z");
    moved["latitude"] = json!(far_lat);
    moved["longitude"] = json!(far_lng);
    assert_eq!(
        s.app.publish(&carol, &s.admin, moved).await["status"],
        "processed"
    );

    // The queue on the graph, with the record, the entry and the agent.
    let g = s
        .app
        .graphql(
            r#"{ fieldProposals(status: "open") { edges { node {
                id field reason current { value evidence { agentId } } proposed { value evidence { agentId } }
                record { ... on Entity { id displayName } } entry { id } agent { id } } } } }"#,
            json!({}),
            None,
        )
        .await;
    assert_eq!(g.status, StatusCode::OK, "{}", g.text);
    let nodes: Vec<Value> = g.body["data"]["fieldProposals"]["edges"]
        .as_array()
        .unwrap_or_else(|| panic!("{}", g.text))
        .iter()
        .map(|e| e["node"].clone())
        .collect();
    assert_eq!(nodes.len(), 3, "{}", g.text);
    let node = |field: &str| nodes.iter().find(|n| n["field"] == field).unwrap().clone();
    let rename = node("display_name");
    assert_eq!(rename["record"]["displayName"], "Harbour Plumbing");
    assert_eq!(rename["agent"]["id"], carol_id.to_string());
    assert_eq!(rename["proposed"]["value"], "Apex Drains");
    assert_eq!(
        rename["current"]["evidence"]["agentId"],
        s.alice.0.to_string()
    );
    assert!(rename["entry"]["id"].is_string());

    // Dismissed on the graph: the record keeps its name; again is a CONFLICT.
    let dismiss =
        "mutation($id: UUID!) { dismissFieldProposal(id: $id) { status decidedByAgentId } }";
    let g = s
        .app
        .graphql(dismiss, json!({"id": rename["id"]}), Some(&s.admin))
        .await;
    assert_eq!(
        g.body["data"]["dismissFieldProposal"]["status"], "dismissed",
        "{}",
        g.text
    );
    assert_eq!(s.entity().await["display_name"], "Harbour Plumbing");
    let g = s
        .app
        .graphql(dismiss, json!({"id": rename["id"]}), Some(&s.admin))
        .await;
    assert_eq!(
        g.body["errors"][0]["extensions"]["code"], "CONFLICT",
        "{}",
        g.text
    );
    let g = s
        .app
        .graphql(
            "mutation($id: UUID!) { acceptFieldProposal(id: $id) { status } }",
            json!({"id": node("website_url")["id"]}),
            Some(&carol),
        )
        .await;
    assert_eq!(
        g.body["errors"][0]["extensions"]["code"], "FORBIDDEN",
        "{}",
        g.text
    );

    // Accepted over the CLI: the record takes the website.
    let website = node("website_url");
    let output = s.cli("accept-field-proposal", &website);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let printed: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(printed["status"], "accepted");
    assert_eq!(
        s.entity().await["website_url"],
        "https://apex-drains.example"
    );
    // The CLI's dismissal of what is no longer open fails, saying why.
    let output = s.cli("dismiss-field-proposal", &website);
    assert!(!output.status.success());
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("not open"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );

    // Two operators accept the move at once: exactly one does, the other gets 409.
    let location = node("location");
    let other_admin = s.app.admin_key().await;
    let (one, two) = tokio::join!(
        s.decide(&location, "accept", Some(&s.admin)),
        s.decide(&location, "accept", Some(&other_admin)),
    );
    let mut statuses = [one.status.as_u16(), two.status.as_u16()];
    statuses.sort();
    assert_eq!(statuses, [200, 409], "{} / {}", one.text, two.text);
    assert_eq!(
        s.count(&format!(
            "SELECT count(*) FROM canonical_link_contributions WHERE metadata ->> 'proposal_id' = {}",
            format_args!("'{}'", location["id"].as_str().unwrap())
        ))
        .await,
        1,
        "one decision took effect"
    );
    let shop = s.entity().await;
    assert!(
        (shop["location_lng"].as_f64().unwrap() - far_lng).abs() < 1e-6,
        "{shop}"
    );
}

#[tokio::test]
async fn an_agent_lists_its_own_proposals() {
    let s = established("https://harbour-plumbing.example", "0161 496 0440").await;
    let (carol_id, carol) = s.app.register("Carol Scraper").await;
    let (_, dave) = s.app.register("Dave Quiet").await;
    let hostile = s.about(json!({"phone": "0161 496 0999"}), "2026-11-20T10:00:00Z");
    assert_eq!(
        s.app.publish(&carol, &s.admin, hostile).await["status"],
        "processed"
    );

    let mine = s
        .app
        .get_as("/api/v1/agents/me/field-proposals", &carol)
        .await;
    assert_eq!(mine.status, StatusCode::OK, "{}", mine.text);
    assert_eq!(mine.body.as_array().unwrap().len(), 1, "{}", mine.text);
    assert_eq!(mine.body[0]["field"], "phone");
    let open = s
        .app
        .get_as(
            "/api/v1/agents/me/field-proposals?status=open&limit=10",
            &carol,
        )
        .await;
    assert_eq!(open.body.as_array().unwrap().len(), 1, "{}", open.text);
    let theirs = s
        .app
        .get_as("/api/v1/agents/me/field-proposals", &dave)
        .await;
    assert_eq!(
        theirs.body,
        json!([]),
        "another agent's list holds only its own"
    );
    let anonymous = s.app.get("/api/v1/agents/me/field-proposals").await;
    assert_eq!(
        anonymous.status,
        StatusCode::UNAUTHORIZED,
        "{}",
        anonymous.text
    );
    let by_agent = s
        .app
        .get(&format!(
            "/api/v1/review-queue/field-proposals?agent_id={carol_id}"
        ))
        .await;
    assert_eq!(
        by_agent.body.as_array().unwrap().len(),
        1,
        "{}",
        by_agent.text
    );

    let g = s
        .app
        .graphql(
            "query($id: UUID!) { agent(id: $id) { fieldProposals(status: \"open\") { edges { node { field proposed { value } } } } } }",
            json!({"id": carol_id}),
            Some(&carol),
        )
        .await;
    let edges = &g.body["data"]["agent"]["fieldProposals"]["edges"];
    assert_eq!(edges.as_array().map(Vec::len), Some(1), "{}", g.text);
    assert_eq!(edges[0]["node"]["proposed"]["value"], "0161 496 0999");
}

#[tokio::test]
async fn cosmetic_variants_link_without_a_proposal_and_the_better_formed_one_shows() {
    let s = established("http://harbour-plumbing.example", "0161 496 0440").await;
    let (_, crawler) = s.app.register("Carol Crawler").await;
    // A crawler's contact page, the name in capitals, the phone internationally: all the same
    // business written another way, found by matching (no id given).
    let mut variant = entity_entry(
        "HARBOUR PLUMBING",
        LAT,
        LNG,
        json!({"website_url": "https://www.harbour-plumbing.example/contact?utm_source=crawl",
               "phone": "+44 161 496 0440"}),
    );
    variant["score_confidence"] = json!(1.0);
    variant["observed_at_tstamp_utc"] = json!("2026-11-20T10:00:00Z");
    let r = s.app.publish(&crawler, &s.admin, variant).await;
    assert_eq!(r["status"], "processed", "{r}");
    assert_eq!(r["canonical_id"], s.id.as_str(), "{r}");
    let shop = s.entity().await;
    assert_eq!(
        shop["display_name"], "Harbour Plumbing",
        "proper case stays"
    );
    assert_eq!(
        shop["website_url"], "http://harbour-plumbing.example",
        "a page of the same host is the same website"
    );
    assert_eq!(
        shop["phone"], "+44 161 496 0440",
        "the international form shows"
    );

    // The same address over https is better formed.
    let mut https = entity_entry(
        "Harbour Plumbing",
        LAT,
        LNG,
        json!({"website_url": "https://harbour-plumbing.example/"}),
    );
    https["observed_at_tstamp_utc"] = json!("2026-11-21T10:00:00Z");
    let r = s.app.publish(&crawler, &s.admin, https).await;
    assert_eq!(r["status"], "processed", "{r}");
    assert_eq!(
        s.entity().await["website_url"],
        "https://harbour-plumbing.example/"
    );

    assert_eq!(s.count("SELECT count(*) FROM field_proposals").await, 0);
    assert_eq!(s.app.get("/api/v1/review-queue").await.body, json!([]));
}
