//! The served agent docs of messages, terms and certificates: every request example they show runs
//! against the server with the documented status (placeholder ids swapped for real ones).

use crate::harness::{TestApp, entity_entry};
use axum::http::StatusCode;
use serde_json::{Value, json};

/// (path, JSON body) of each `curl -X POST {base_url}<path> ... -d '<json>'` in a Markdown doc.
fn post_examples(markdown: &str) -> Vec<(String, Value)> {
    let mut examples = Vec::new();
    for block in markdown.split("curl -s -X POST {base_url}").skip(1) {
        let path = block.split_whitespace().next().unwrap().to_string();
        let start = block.find("-d '").expect("a body") + 4;
        let end = start + block[start..].find("}'").expect("the end of the body") + 1;
        let body: Value = serde_json::from_str(&block[start..end])
            .unwrap_or_else(|e| panic!("the example body for {path} is not JSON: {e}"));
        examples.push((path, body));
    }
    examples
}

async fn served_examples(app: &TestApp, slug: &str) -> Vec<(String, Value)> {
    let doc = app.get(&format!("/api/v1/public/agent-docs/{slug}")).await;
    assert_eq!(doc.status, StatusCode::OK, "{slug}");
    let examples = post_examples(&doc.text);
    assert!(!examples.is_empty(), "{slug} shows no request example");
    examples
}

/// Replaces the docs' placeholder ids with ids that exist.
fn with_ids(body: &Value, ids: &[(&str, String)]) -> Value {
    let mut text = body.to_string();
    for (placeholder, id) in ids {
        text = text.replace(placeholder, id);
    }
    serde_json::from_str(&text).unwrap()
}

const AGENT: &str = "0196c8c4-7a10-7f3e-b2d4-1e9a5c7f0b22";
const LISTING: &str = "0196c8a9-3b5c-7d21-8e4f-6a2b9c1d0e73";
const TERM: &str = "0196c8d0-5e6f-7a81-9b2c-3d4e5f607182";
const SIGNATURE: &str = "0196c8d2-8a9b-7c0d-a1e2-f3a4b5c6d7e8";

#[tokio::test]
async fn every_request_example_of_the_dealings_docs_runs_as_documented() {
    let app = TestApp::new().await;
    let admin = app.admin_key().await;
    let (_, key) = app.register("Doc Reader").await;
    let (other, _) = app.register("Counterparty").await;
    let mut listing_entry = entity_entry(
        "Boiler service",
        53.48,
        -2.24,
        json!({"title": "Annual boiler service", "listing_type": "service"}),
    );
    listing_entry["entry_type"] = json!("listing");
    let processed = app.publish(&key, &admin, listing_entry).await;
    let listing = processed["canonical_id"]
        .as_str()
        .expect("a listing")
        .to_string();
    let mut ids = vec![(AGENT, other.to_string()), (LISTING, listing)];

    for slug in [
        "messages",
        "transaction_terms",
        "committed_trust_certificates",
    ] {
        for (path, body) in served_examples(&app, slug).await {
            let r = app.post_as(&path, with_ids(&body, &ids), &key).await;
            assert_eq!(r.status, StatusCode::CREATED, "{slug} {path}: {}", r.text);
            let id = r.body["id"].as_str().unwrap().to_string();
            match path.as_str() {
                "/api/v1/transaction-terms" => ids.push((TERM, id)),
                "/api/v1/transaction-terms-signatures" => ids.push((SIGNATURE, id)),
                _ => {}
            }
        }
    }
    assert_eq!(
        app.count("SELECT count(*) FROM committed_trust_certificates")
            .await,
        1
    );
}
