//! Provenance for analysts: field sources, contributions with evidence, PROV-O JSON-LD, and the
//! same over GraphQL (a record's provenance, an agent's influence).

use crate::harness::{TestApp, entity_entry};
use axum::body::Body;
use axum::http::Request;
use serde_json::{Value, json};

#[tokio::test]
async fn a_record_tells_which_entry_and_agent_set_each_field() {
    let app = TestApp::new().await;
    let admin = app.admin_key().await;
    let (first_agent, first_key) = app.register("First Guide").await;
    let (second_agent, second_key) = app.register("Second Guide").await;
    let mut first = entity_entry(
        "Provenance Bakery",
        53.4808,
        -2.2426,
        json!({"website_url": "https://provenance-bakery.example"}),
    );
    first["source_ref"] = json!("https://guide-one.example/bakery");
    let created = app.publish(&first_key, &admin, first).await;
    let entity_id = created["canonical_id"].as_str().unwrap().to_string();
    let mut second = entity_entry(
        "Provenance Bakery",
        53.4808,
        -2.2426,
        json!({"website_url": "https://provenance-bakery.example", "phone": "+44 161 496 0000"}),
    );
    second["source_ref"] = json!("https://guide-two.example/b");
    let matched = app.publish(&second_key, &admin, second).await;
    assert_eq!(matched["canonical_id"], entity_id.as_str(), "{matched}");

    let r = app
        .get(&format!("/api/v1/entities/{entity_id}/provenance"))
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.body["canonical_table"], "canonical.entities");
    let field = |name: &str| -> Value {
        r.body["fields"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["field"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("no source for {name}: {}", r.text))
    };
    assert_eq!(field("display_name")["agent_id"], first_agent.to_string());
    assert_eq!(
        field("display_name")["space_time_entry_id"],
        created["space_time_entry_id"]
    );
    assert_eq!(field("phone")["agent_id"], second_agent.to_string());
    assert_eq!(
        field("phone")["space_time_entry_id"],
        matched["space_time_entry_id"]
    );
    let contributions = r.body["contributions"].as_array().unwrap();
    assert_eq!(contributions.len(), 2, "{}", r.text);
    assert_eq!(contributions[0]["link_type"], "created");
    assert_eq!(contributions[0]["agent_display_name"], "First Guide");
    assert_eq!(
        contributions[0]["source_ref"],
        "https://guide-one.example/bakery"
    );
    assert_eq!(contributions[1]["agent_id"], second_agent.to_string());
    assert_eq!(
        contributions[1]["observed_at_tstamp_utc"],
        "2026-11-01T10:00:00Z"
    );

    // The same as W3C PROV-O.
    let response = app
        .send(
            Request::get(format!("/api/v1/entities/{entity_id}/provenance"))
                .header("accept", "application/ld+json")
                .body(Body::empty())
                .unwrap(),
        )
        .await;
    assert_eq!(response.status, 200);
    assert_eq!(response.headers["content-type"], "application/ld+json");
    let document = &response.body;
    assert_eq!(document["@context"]["prov"], "http://www.w3.org/ns/prov#");
    let graph = document["@graph"].as_array().unwrap();
    let node = |id: String| -> Value {
        graph
            .iter()
            .find(|n| n["@id"] == id.as_str())
            .cloned()
            .unwrap_or_else(|| panic!("{id} missing from {document}"))
    };
    let record = node(format!("urn:uuid:{entity_id}"));
    assert_eq!(record["@type"], "prov:Entity");
    let derived: Vec<&str> = record["prov:wasDerivedFrom"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["@id"].as_str().unwrap())
        .collect();
    assert_eq!(derived.len(), 2);
    let entry = node(format!(
        "urn:uuid:{}",
        matched["space_time_entry_id"].as_str().unwrap()
    ));
    assert_eq!(
        entry["prov:wasAttributedTo"]["@id"],
        format!("urn:uuid:{second_agent}")
    );
    assert_eq!(
        entry["prov:hadPrimarySource"],
        "https://guide-two.example/b"
    );
    assert_eq!(
        entry["prov:generatedAtTime"]["@value"],
        "2026-11-01T10:00:00+00:00"
    );
    assert_eq!(
        node(format!("urn:uuid:{second_agent}"))["@type"],
        "prov:Agent"
    );
    let phone_derivation = record["prov:qualifiedDerivation"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["strs:field"] == "phone")
        .cloned()
        .unwrap();
    assert_eq!(phone_derivation["prov:entity"]["@id"], entry["@id"]);

    assert_eq!(
        app.get(&format!(
            "/api/v1/entities/{}/provenance",
            uuid::Uuid::now_v7()
        ))
        .await
        .status,
        404
    );
    assert_eq!(
        app.get("/api/v1/listings/not-a-uuid/provenance")
            .await
            .status,
        422
    );
    // An entity's id is no listing.
    assert_eq!(
        app.get(&format!("/api/v1/listings/{entity_id}/provenance"))
            .await
            .status,
        404
    );

    // GraphQL: the same sources on the graph, and each agent's influence.
    let q = "query($id: UUID!) { entity(id: $id) { provenance {
        fields { field agent { displayName } entry { sourceRef } }
        contributions { linkType entry { agent { displayName influence { created matched records complete } } } } } } }";
    let g = app.graphql(q, json!({"id": entity_id}), None).await;
    assert!(g.body["errors"].is_null(), "{}", g.text);
    let provenance = &g.body["data"]["entity"]["provenance"];
    let phone = provenance["fields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["field"] == "phone")
        .unwrap();
    assert_eq!(phone["agent"]["displayName"], "Second Guide");
    assert_eq!(phone["entry"]["sourceRef"], "https://guide-two.example/b");
    let links = provenance["contributions"].as_array().unwrap();
    assert_eq!(
        links[0]["entry"]["agent"]["influence"],
        json!({"created": 1, "matched": 0, "records": 1, "complete": true})
    );
    assert_eq!(
        links[1]["linkType"],
        contributions[1]["link_type"]
            .as_str()
            .unwrap()
            .to_uppercase()
    );
    assert_eq!(links[1]["entry"]["agent"]["influence"]["records"], 1);
}

#[tokio::test]
async fn an_entity_as_of_a_past_instant_is_replayed_from_its_contributions() {
    let app = TestApp::new().await;
    let admin = app.admin_key().await;
    let (_, key) = app.register("History Guide").await;
    let now = |app: &TestApp| {
        let pool = app.pool().clone();
        async move {
            let instant: chrono::DateTime<chrono::Utc> =
                sqlx::query_scalar("SELECT clock_timestamp()")
                    .fetch_one(&pool)
                    .await
                    .unwrap();
            instant.to_rfc3339()
        }
    };
    let before = now(&app).await;
    let created = app
        .publish(
            &key,
            &admin,
            entity_entry(
                "History Cafe",
                53.4808,
                -2.2426,
                json!({"phone": "+44 161 496 0001", "categories": ["cafe"]}),
            ),
        )
        .await;
    let id = created["canonical_id"].as_str().unwrap().to_string();
    let after_created = now(&app).await;
    let mut update = entity_entry(
        "History Cafe",
        53.4808,
        -2.2426,
        json!({"phone": "+44 161 496 0002", "website_url": "https://history-cafe.example", "categories": ["bakery"]}),
    );
    update["observed_at_tstamp_utc"] = json!("2026-11-10T10:00:00Z");
    let updated = app.publish(&key, &admin, update).await;
    assert_eq!(updated["link_type"], "updated", "{updated}");
    let after_updated = now(&app).await;
    let mut relocated = entity_entry(
        "History Cafe",
        53.4809,
        -2.2427,
        json!({"description": "Moved next door"}),
    );
    relocated["observed_at_tstamp_utc"] = json!("2026-11-20T10:00:00Z");
    relocated["target_canonical_table"] = json!("canonical.entities");
    relocated["target_canonical_id"] = json!(id);
    app.publish(&key, &admin, relocated).await;

    let fields =
        "id displayName phone websiteUrl categories description locationLat locationLng legalName
        email addressText city countryCode tags linkUrls { url } entityType status scoreConfidence
        contextL0Routing contextL1Common contextL2Specific contextL2AvailableFeatures
        createdAtTstampUtc updatedAtTstampUtc";
    let as_of = |instant: Option<String>| {
        let app = &app;
        let id = id.clone();
        async move {
            let r = app
                .graphql(
                    &format!("query($id: UUID!, $at: DateTime) {{ entity(id: $id, asOf: $at) {{ {fields} }} }}"),
                    json!({"id": id, "at": instant}),
                    None,
                )
                .await;
            assert!(r.body["errors"].is_null(), "{}", r.text);
            r.body["data"]["entity"].clone()
        }
    };
    assert!(as_of(Some(before)).await.is_null(), "it did not exist yet");
    let first = as_of(Some(after_created)).await;
    assert_eq!(first["phone"], "+44 161 496 0001");
    assert!(first["websiteUrl"].is_null());
    assert_eq!(first["categories"], json!(["cafe"]));
    let second = as_of(Some(after_updated)).await;
    assert_eq!(second["phone"], "+44 161 496 0002");
    assert_eq!(second["websiteUrl"], "https://history-cafe.example");
    assert!(second["description"].is_null());
    assert_eq!(second["locationLat"], 53.4808);
    // Replayed up to now, the record is exactly today's record.
    let today = as_of(None).await;
    let replayed = as_of(Some(now(&app).await)).await;
    assert_eq!(today["description"], "Moved next door");
    assert_eq!(replayed, today);

    let bad = app
        .graphql(
            "query($id: UUID!) { entity(id: $id, asOf: \"yesterday\") { id } }",
            json!({"id": id}),
            None,
        )
        .await;
    assert!(!bad.body["errors"].is_null(), "{}", bad.text);
    let unknown = app
        .graphql(
            "query($id: UUID!) { entity(id: $id, asOf: \"2026-11-24T00:00:00Z\") { id } }",
            json!({"id": uuid::Uuid::now_v7()}),
            None,
        )
        .await;
    assert!(unknown.body["data"]["entity"].is_null(), "{}", unknown.text);
}

#[tokio::test]
async fn an_agent_s_touched_records_are_bounded_by_place_and_time() {
    let app = TestApp::new().await;
    let admin = app.admin_key().await;
    let (scout_id, scout) = app.register("Area Scout").await;
    let (other_id, other) = app.register("Other Scout").await;
    let near = app
        .publish(
            &scout,
            &admin,
            entity_entry("Touched Tailor", 53.4808, -2.2426, json!({})),
        )
        .await;
    let near_id = near["canonical_id"].as_str().unwrap().to_string();
    let mut again = entity_entry(
        "Touched Tailor",
        53.4808,
        -2.2426,
        json!({"phone": "+44 161 496 0303"}),
    );
    again["observed_at_tstamp_utc"] = json!("2026-11-10T10:00:00Z");
    let updated = app.publish(&scout, &admin, again).await;
    assert_eq!(updated["canonical_id"], near_id.as_str());
    let (lat, lng) = crate::harness::east(53.4808, -2.2426, 800.0);
    app.publish(
        &scout,
        &admin,
        entity_entry("Second Stitch", lat, lng, json!({})),
    )
    .await;
    app.publish(
        &scout,
        &admin,
        entity_entry("Leeds Looms", 53.8008, -1.5491, json!({})),
    )
    .await;
    app.publish(
        &other,
        &admin,
        entity_entry("Not Mine", 53.4809, -2.2427, json!({})),
    )
    .await;

    let touched = |agent: uuid::Uuid, arguments: &str| {
        let app = &app;
        let query = format!(
            "query($id: UUID!) {{ agent(id: $id) {{ touched(latitude: 53.4808, longitude: -2.2426, {arguments}) {{
                edges {{ cursor node {{ canonicalTable canonicalId linkTypes contributions distanceMeters
                    record {{ ... on Entity {{ displayName }} }} }} }} pageInfo {{ hasNextPage endCursor }} }} }} }}"
        );
        async move { app.graphql(&query, json!({"id": agent}), None).await }
    };
    let r = touched(scout_id, "radiusMeters: 2000").await;
    assert!(r.body["errors"].is_null(), "{}", r.text);
    let edges = r.body["data"]["agent"]["touched"]["edges"]
        .as_array()
        .unwrap()
        .clone();
    let names: Vec<&str> = edges
        .iter()
        .map(|e| e["node"]["record"]["displayName"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["Second Stitch", "Touched Tailor"],
        "most recent first"
    );
    let tailor = &edges[1]["node"];
    assert_eq!(tailor["canonicalTable"], "ENTITIES");
    assert_eq!(tailor["contributions"], 2);
    assert_eq!(tailor["linkTypes"], json!(["CREATED", "UPDATED"]));
    assert!(tailor["distanceMeters"].as_f64().unwrap() < 1.0);

    // Pages join by cursor.
    let first = touched(scout_id, "radiusMeters: 2000, first: 1").await;
    let page = &first.body["data"]["agent"]["touched"];
    assert_eq!(page["pageInfo"]["hasNextPage"], true);
    let after = page["pageInfo"]["endCursor"].as_str().unwrap();
    let second = touched(
        scout_id,
        &format!("radiusMeters: 2000, first: 1, after: \"{after}\""),
    )
    .await;
    assert_eq!(
        second.body["data"]["agent"]["touched"]["edges"][0]["node"]["canonicalId"],
        near_id.as_str()
    );

    // A window before any of it, the other agent, and a radius that leaves Leeds out.
    let past = touched(
        scout_id,
        "radiusMeters: 2000, since: \"2025-01-01T00:00:00Z\", until: \"2025-06-01T00:00:00Z\"",
    )
    .await;
    assert_eq!(past.body["data"]["agent"]["touched"]["edges"], json!([]));
    let theirs = touched(other_id, "radiusMeters: 100000").await;
    let their_names: Vec<&str> = theirs.body["data"]["agent"]["touched"]["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["node"]["record"]["displayName"].as_str().unwrap())
        .collect();
    assert_eq!(their_names, ["Not Mine"]);

    for (arguments, loc) in [
        ("radiusMeters: 0", "radiusMeters"),
        (
            "radiusMeters: 10, since: \"2025-01-01T00:00:00Z\", until: \"2026-11-01T00:00:00Z\"",
            "since",
        ),
        (
            "radiusMeters: 10, since: \"2026-11-02T00:00:00Z\", until: \"2026-11-01T00:00:00Z\"",
            "since",
        ),
        ("radiusMeters: 10, after: \"nope\"", "after"),
    ] {
        let r = touched(scout_id, arguments).await;
        let error = &r.body["errors"][0];
        assert_eq!(
            error["extensions"]["code"], "VALIDATION_ERROR",
            "{arguments}: {}",
            r.text
        );
        assert_eq!(
            error["extensions"]["detail"][0]["loc"][0], loc,
            "{}",
            r.text
        );
    }

    // A page of agents asks once, whatever its size.
    let r = app
        .graphql(
            "{ agents(first: 50) { edges { node { displayName touched(latitude: 53.4808, longitude: -2.2426, radiusMeters: 2000) { edges { node { contributions } } } } } } }",
            json!({}),
            None,
        )
        .await;
    assert!(r.body["errors"].is_null(), "{}", r.text);
    let counts: Vec<usize> = r.body["data"]["agents"]["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["node"]["touched"]["edges"].as_array().unwrap().len())
        .collect();
    assert!(counts.contains(&2) && counts.contains(&1), "{counts:?}");
}

/// An agent whose three entries created three records `spacing` degrees of longitude apart near
/// Manchester, and an agent without entries.
async fn three_records_and_an_idle_agent(app: &TestApp, spacing: f64) -> (uuid::Uuid, uuid::Uuid) {
    let admin = app.admin_key().await;
    let (agent, key) = app.register("Busy Guide").await;
    for (n, name) in ["Bound Bakery", "Bound Butcher", "Bound Barber"]
        .iter()
        .enumerate()
    {
        let entry = entity_entry(name, 53.48, -2.24 + n as f64 * spacing, json!({}));
        app.publish(&key, &admin, entry).await;
    }
    let (idle, _) = app.register("Idle Guide").await;
    (agent, idle)
}

/// An agent's influence counts the contributions of its newest entries up to a bound, so its cost
/// does not grow with everything the agent ever published, and says when entries were left out.
#[tokio::test]
async fn an_agents_influence_counts_its_newest_entries_up_to_the_bound_and_says_so() {
    let app = TestApp::new().await;
    let (agent, idle) = three_records_and_an_idle_agent(&app, 0.01).await;
    use spacetime_records::db::provenance::influence;

    let all = influence(app.pool(), &[agent, idle], 3).await.unwrap();
    let of = |found: &[(
        uuid::Uuid,
        spacetime_records::records::provenance::AgentInfluence,
    )],
              id: uuid::Uuid| found.iter().find(|(a, _)| *a == id).unwrap().1.clone();
    let everything = of(&all, agent);
    assert_eq!((everything.created, everything.records), (3, 3));
    assert!(everything.complete);
    let nothing = of(&all, idle);
    assert_eq!((nothing.created, nothing.records), (0, 0));
    assert!(nothing.complete);

    // A bound of two: the two newest entries' contributions, and the word that one was left out.
    let bounded = of(&influence(app.pool(), &[agent], 2).await.unwrap(), agent);
    assert_eq!((bounded.created, bounded.records), (2, 2));
    assert!(!bounded.complete);

    let q = "query($id: UUID!) { agent(id: $id) { influence { created records complete } } }";
    let g = app.graphql(q, json!({"id": agent}), None).await;
    assert!(g.body["errors"].is_null(), "{}", g.text);
    assert_eq!(
        g.body["data"]["agent"]["influence"],
        json!({"created": 3, "records": 3, "complete": true})
    );
}

/// `touched` looks only at the contributions of an agent's newest entries, up to a bound, and the
/// connection says whether that was all of them; an agent without records still gets its answer.
#[tokio::test]
async fn touched_records_come_from_the_newest_entries_up_to_the_bound_and_say_so() {
    let app = TestApp::new().await;
    let (agent, idle) = three_records_and_an_idle_agent(&app, 0.001).await;
    use spacetime_records::db::touched::{TouchedQuery, records};
    let now = chrono::Utc::now();
    let question = |entry_limit| TouchedQuery {
        latitude: 53.48,
        longitude: -2.24,
        radius_m: 5_000.0,
        since: now - chrono::Duration::days(1),
        until: now + chrono::Duration::minutes(1),
        after: None,
        limit: 10,
        entry_limit,
    };
    let shape = |rows: &[spacetime_records::db::touched::TouchedRow], who| {
        rows.iter()
            .filter(|r| r.agent_id == who)
            .map(|r| (r.complete, r.record.is_some()))
            .collect::<Vec<_>>()
    };

    let all = records(app.pool(), &[agent, idle], &question(3))
        .await
        .unwrap();
    assert_eq!(shape(&all, agent), [(true, true); 3]);
    assert_eq!(shape(&all, idle), [(true, false)], "one row, no record");
    let bounded = records(app.pool(), &[agent], &question(2)).await.unwrap();
    assert_eq!(shape(&bounded, agent), [(false, true); 2]);
    let mut looked_at: Vec<uuid::Uuid> = bounded
        .iter()
        .map(|r| r.record.as_ref().unwrap().target_canonical_id)
        .collect();
    let mut newest_two: Vec<uuid::Uuid> = sqlx::query_scalar(
        "SELECT canonical_id FROM space_time_entries WHERE agent_id = $1 ORDER BY id DESC LIMIT 2",
    )
    .bind(agent)
    .fetch_all(app.pool())
    .await
    .unwrap();
    looked_at.sort();
    newest_two.sort();
    assert_eq!(
        looked_at, newest_two,
        "the records of the two newest entries"
    );

    let q = "query($id: UUID!) { agent(id: $id) {
        touched(latitude: 53.48, longitude: -2.24, radiusMeters: 5000) { complete nodes { contributions } } } }";
    let g = app.graphql(q, json!({"id": agent}), None).await;
    assert!(g.body["errors"].is_null(), "{}", g.text);
    let touched = &g.body["data"]["agent"]["touched"];
    assert_eq!(touched["complete"], true);
    assert_eq!(touched["nodes"].as_array().unwrap().len(), 3);
}
