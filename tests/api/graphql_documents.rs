//! Every operation document in graphql/ (what dashboards and analysts run) executes against a
//! populated service without errors.

use crate::harness::{TestApp, entity_entry};
use serde_json::json;

#[tokio::test]
async fn every_committed_operation_document_runs_without_errors() {
    let app = TestApp::new().await;
    let admin = app.admin_key().await;
    let (agent_id, key) = app.register("Dashboard Source").await;
    let created = app
        .publish(
            &key,
            &admin,
            entity_entry(
                "Documented Plumbing",
                53.4808,
                -2.2426,
                json!({"categories": ["plumber"]}),
            ),
        )
        .await;
    let entity_id = created["canonical_id"].as_str().unwrap().to_string();
    let other = app
        .publish(
            &key,
            &admin,
            entity_entry(
                "Documented Heating",
                53.49,
                -2.20,
                json!({"categories": ["heating"]}),
            ),
        )
        .await;
    app.publish(&key, &admin, json!({"entry_type": "listing", "latitude": 53.4808, "longitude": -2.2426,
        "context": {"title": "Boiler repair", "price_amount": 90, "currency_code": "GBP", "provider_entity_id": entity_id}})).await;
    app.publish(
        &key,
        &admin,
        json!({"entry_type": "observation", "latitude": 1.0, "longitude": 1.0, "context": {}}),
    )
    .await;
    app.post(
        "/api/v1/signals",
        json!({"signal_type": "duplicate", "target_schema": "canonical", "target_table": "entities",
        "target_id": entity_id, "duplicate_of_id": other["canonical_id"]}),
    )
    .await;
    app.post(
        "/api/v1/notes",
        json!({"target_schema": "canonical", "target_table": "entities", "target_id": entity_id,
        "body": "seen open", "visibility": "public"}),
    )
    .await;
    let (_, correspondent) = app.register("Correspondent").await;
    let sent = app
        .post_as(
            "/api/v1/messages",
            json!({"recipient_agent_id": agent_id, "message_content": "Are you open on Sundays?"}),
            &correspondent,
        )
        .await;
    assert_eq!(sent.status, 201, "{}", sent.text);
    let variables = json!({
        "entityId": entity_id,
        "entryId": created["space_time_entry_id"],
        "agentId": agent_id,
        "query": "plumbing",
        "latitude": 53.4808,
        "longitude": -2.2426,
    });
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("graphql");
    let mut documents: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    documents.sort();
    assert!(
        documents.len() >= 5,
        "graphql/ holds the operation documents"
    );
    for path in documents {
        let document = std::fs::read_to_string(&path).unwrap();
        // As the dashboard's own agent: an inbox needs its bearer; public reads ignore it.
        let r = app.graphql(&document, variables.clone(), Some(&key)).await;
        assert!(
            r.body.get("errors").is_none(),
            "{}: {}",
            path.display(),
            r.text
        );
        let data = r.body["data"]
            .as_object()
            .unwrap_or_else(|| panic!("{}: {}", path.display(), r.text));
        assert!(
            data.values().all(|v| !v.is_null()),
            "{}: {}",
            path.display(),
            r.text
        );
    }
}
