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
        contributions { linkType entry { agent { displayName influence { created matched records } } } } } } }";
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
        json!({"created": 1, "matched": 0, "records": 1})
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
