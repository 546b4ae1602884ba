//! Every operation document in graphql/ (what dashboards and analysts run) executes against a
//! populated service without errors, and answers what its snapshot in graphql/snapshots/ says
//! (ids numbered in order of appearance, times and scores masked: they change with every run).
//! `STRS_UPDATE_SNAPSHOTS=1 cargo test graphql_documents` rewrites the snapshots; review the diff.

use crate::harness::{TestApp, entity_entry};
use serde_json::{Value, json};

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
    // What the variables files' `{{name}}` placeholders stand for: ids made by the seeding above.
    let seeded = json!({
        "entityId": entity_id,
        "entryId": created["space_time_entry_id"],
        "agentId": agent_id,
    });
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("graphql");
    let mut documents: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "graphql"))
        .collect();
    documents.sort();
    assert!(
        documents.len() >= 5,
        "graphql/ holds the operation documents"
    );
    for path in documents {
        let document = std::fs::read_to_string(&path).unwrap();
        let variables = variables_for(&path, &seeded);
        // As the dashboard's own agent: an inbox needs its bearer; public reads ignore it.
        let r = app.graphql(&document, variables, Some(&key)).await;
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
        check_snapshot(&path, &r.body);
    }
}

/// The variables file next to an operation (`<name>.variables.json`), its `{{name}}` placeholders
/// replaced by the seeded ids; every operation has one, and it names every variable the
/// operation declares without a default.
fn variables_for(document: &std::path::Path, seeded: &Value) -> Value {
    let file = document.with_extension("variables.json");
    let text = std::fs::read_to_string(&file).unwrap_or_else(|_| {
        panic!(
            "{} has no variables file {}",
            document.display(),
            file.display()
        )
    });
    let mut variables: Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    for value in variables.as_object_mut().expect("an object").values_mut() {
        if let Some(name) = value
            .as_str()
            .and_then(|v| v.strip_prefix("{{"))
            .and_then(|v| v.strip_suffix("}}"))
            .map(str::to_string)
        {
            let name = name.as_str();
            *value = seeded[name].clone();
            assert!(
                !value.is_null(),
                "{}: no seeded value for {name}",
                file.display()
            );
        }
    }
    let declared = std::fs::read_to_string(document).unwrap();
    let header = declared
        .lines()
        .find(|l| l.starts_with("query"))
        .unwrap_or("");
    for part in header.split('$').skip(1) {
        let name: String = part.chars().take_while(|c| c.is_alphanumeric()).collect();
        let has_default = part
            .split(')')
            .next()
            .unwrap_or("")
            .split(',')
            .next()
            .unwrap_or("")
            .contains('=');
        assert!(
            has_default || variables.get(&name).is_some(),
            "{} declares ${name} without a default; {} does not give it",
            document.display(),
            file.display()
        );
    }
    variables
}

fn check_snapshot(document: &std::path::Path, answer: &Value) {
    let name = document.file_stem().unwrap().to_string_lossy();
    let file = document
        .parent()
        .unwrap()
        .join("snapshots")
        .join(format!("{name}.json"));
    let mut ids = Vec::new();
    let redacted = redact(answer, None, &mut ids);
    let text = serde_json::to_string_pretty(&redacted).unwrap() + "\n";
    if std::env::var("STRS_UPDATE_SNAPSHOTS").is_ok_and(|v| v == "1") {
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, &text).unwrap();
        return;
    }
    let stored = std::fs::read_to_string(&file).unwrap_or_else(|_| {
        panic!(
            "no snapshot {}: run STRS_UPDATE_SNAPSHOTS=1 cargo test graphql_documents",
            file.display()
        )
    });
    assert_eq!(
        stored,
        text,
        "{} no longer answers its snapshot {}",
        document.display(),
        file.display()
    );
}

/// Ids become `<id N>` (N in order of first appearance, so links between records still show),
/// times `<time>`, scores, hashes and generated handles `<masked>`.
fn redact(value: &Value, field: Option<&str>, ids: &mut Vec<String>) -> Value {
    let masked = field.is_some_and(|f| {
        f.starts_with("score") || f.ends_with("Hash") || f == "confidence" || f == "agentHandle"
    });
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), redact(v, Some(k), ids)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(|v| redact(v, field, ids)).collect()),
        Value::Null => Value::Null,
        _ if masked => json!("<masked>"),
        Value::String(text) => {
            if chrono::DateTime::parse_from_rfc3339(text).is_ok() {
                return json!("<time>");
            }
            json!(redact_ids(text, ids))
        }
        other => other.clone(),
    }
}

fn redact_ids(text: &str, ids: &mut Vec<String>) -> String {
    let mut out = String::new();
    let mut rest = text;
    while !rest.is_empty() {
        let candidate = rest
            .get(..36)
            .filter(|c| uuid::Uuid::parse_str(c).is_ok() && c.len() == 36);
        match candidate {
            Some(id) => {
                let n = match ids.iter().position(|known| known == id) {
                    Some(n) => n,
                    None => {
                        ids.push(id.to_string());
                        ids.len() - 1
                    }
                };
                out.push_str(&format!("<id {n}>"));
                rest = &rest[36..];
            }
            None => {
                let next = rest.chars().next().unwrap();
                out.push(next);
                rest = &rest[next.len_utf8()..];
            }
        }
    }
    out
}
