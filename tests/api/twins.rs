//! Every REST read and its GraphQL twin (the table in docs/graphql.md) return the same data. The
//! GraphQL selection is built from the REST body itself: each REST field whose camelCase name is a
//! leaf field of the GraphQL type is asked for and compared (timestamps as instants, decimals as
//! numbers, enums by name), so a field added to one side only shows up here.

use crate::harness::{TestApp, entity_entry};
use serde_json::{Map, Value, json};

fn camel(snake: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in snake.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// The leaf (scalar or enum) fields of a GraphQL object type.
async fn leaf_fields(app: &TestApp, type_name: &str) -> Vec<String> {
    app.plain_fields(type_name)
        .await
        .into_iter()
        .filter(|(_, kind, _)| matches!(kind.as_str(), "SCALAR" | "ENUM"))
        .map(|(name, _, _)| name)
        .collect()
}

fn same(rest: &Value, graphql: &Value) -> bool {
    match (rest, graphql) {
        (Value::String(a), Value::String(b)) => {
            if a == b {
                return true;
            }
            if let (Ok(x), Ok(y)) = (
                chrono::DateTime::parse_from_rfc3339(a),
                chrono::DateTime::parse_from_rfc3339(b),
            ) {
                return x == y;
            }
            if let (Ok(x), Ok(y)) = (a.parse::<f64>(), b.parse::<f64>()) {
                return x == y;
            }
            // Enums: REST sends the spec string, GraphQL the SCREAMING_CASE name
            // (`canonical.entities` is `ENTITIES`, `api_agent` is `API_AGENT`).
            a.to_uppercase() == *b || a.rsplit('.').next().is_some_and(|t| t.to_uppercase() == *b)
        }
        (Value::String(a), Value::Number(b)) | (Value::Number(b), Value::String(a)) => {
            a.parse::<f64>().ok() == b.as_f64()
        }
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y))
        }
        (a, b) => a == b,
    }
}

/// Asks `root(id)` for every REST field the GraphQL type has as a leaf, and compares them.
async fn assert_twins(
    app: &TestApp,
    key: Option<&str>,
    rest_path: &str,
    root: &str,
    type_name: &str,
    id: &str,
) -> usize {
    let rest = app.request("GET", rest_path, None, key).await;
    assert_eq!(rest.status, 200, "{rest_path}: {}", rest.text);
    let body: &Map<String, Value> = rest.body.as_object().unwrap();
    let leaves = leaf_fields(app, type_name).await;
    let pairs: Vec<(&String, String)> = body
        .keys()
        .map(|k| (k, camel(k)))
        .filter(|(_, c)| leaves.contains(c))
        .collect();
    assert!(
        pairs.len() >= 3,
        "{rest_path} and {type_name} share too few fields: {pairs:?}"
    );
    let selection: Vec<&str> = pairs.iter().map(|(_, c)| c.as_str()).collect();
    let query = format!(
        "query($id: UUID!) {{ {root}(id: $id) {{ {} }} }}",
        selection.join(" ")
    );
    let g = app.graphql(&query, json!({"id": id}), key).await;
    assert!(g.body["errors"].is_null(), "{root}: {}", g.text);
    let node = &g.body["data"][root];
    for (rest_name, graphql_name) in &pairs {
        assert!(
            same(&body[rest_name.as_str()], &node[graphql_name.as_str()]),
            "{rest_path} {rest_name} = {} but {root}.{graphql_name} = {}",
            body[rest_name.as_str()],
            node[graphql_name.as_str()]
        );
    }
    pairs.len()
}

#[tokio::test]
async fn every_rest_read_and_its_graphql_twin_return_the_same_fields() {
    let app = TestApp::new().await;
    let admin = app.admin_key().await;
    let (agent_id, key) = app.register("Twin Source").await;
    let (reader_id, reader) = app.register("Twin Reader").await;
    let created = app
        .publish(
            &key,
            &admin,
            entity_entry(
                "Twin Joinery",
                53.4808,
                -2.2426,
                json!({"website_url": "https://twin-joinery.example", "phone": "+44 161 496 0100",
                       "categories": ["joiner"]}),
            ),
        )
        .await;
    let entity_id = created["canonical_id"].as_str().unwrap().to_string();
    let entry_id = created["space_time_entry_id"].as_str().unwrap().to_string();
    let listing = app
        .publish(&key, &admin, json!({"entry_type": "listing", "latitude": 53.4808, "longitude": -2.2426,
            "observed_at_tstamp_utc": "2026-11-01T10:00:00Z",
            "context": {"title": "Kitchen fitting", "price_amount": "450.50", "currency_code": "GBP",
                        "provider_entity_id": entity_id}}))
        .await;
    let listing_id = listing["canonical_id"].as_str().unwrap().to_string();
    let request = app
        .publish(&key, &admin, json!({"entry_type": "request", "latitude": 53.48, "longitude": -2.24,
            "observed_at_tstamp_utc": "2026-11-01T10:00:00Z",
            "context": {"title": "Need a staircase built", "request_type": "quote", "budget_amount": 2000,
                        "currency_code": "GBP"}}))
        .await;
    let request_id = request["canonical_id"]
        .as_str()
        .unwrap_or_else(|| panic!("{request}"))
        .to_string();
    let principal = app
        .post_as(
            "/api/v1/principals",
            json!({"principal_type": "company", "display_name": "Twin Holdings"}),
            &admin,
        )
        .await;
    assert_eq!(principal.status, 201, "{}", principal.text);
    let principal_id = principal.body["id"].as_str().unwrap().to_string();
    let message = app
        .post_as(
            "/api/v1/messages",
            json!({"recipient_agent_id": reader_id, "message_content": "twin?"}),
            &key,
        )
        .await;
    let message_id = message.body["id"].as_str().unwrap().to_string();
    let term = app
        .post_as(
            "/api/v1/transaction-terms",
            json!({"title": "Twin terms", "terms_text": "Pay on delivery.", "currency_code": "GBP",
                   "value_amount": "120.50", "visibility": "private", "offered_to_agent_ids": [reader_id]}),
            &key,
        )
        .await;
    assert_eq!(term.status, 201, "{}", term.text);
    let term_id = term.body["id"].as_str().unwrap().to_string();
    let signature = app
        .post_as(
            "/api/v1/transaction-terms-signatures",
            json!({"transaction_term_id": term_id, "signature": "base64:3q2+7w==", "counterparty_agent_id": agent_id}),
            &reader,
        )
        .await;
    assert_eq!(signature.status, 201, "{}", signature.text);
    let signature_id = signature.body["id"].as_str().unwrap().to_string();
    let certificate = app
        .post_as(
            "/api/v1/committed-trust-certificates",
            json!({"transaction_terms_signature_id": signature_id, "currency_code": "GBP",
                   "value_amount": "120.50", "metadata": {"purpose": "twin"}}),
            &reader,
        )
        .await;
    assert_eq!(certificate.status, 201, "{}", certificate.text);
    let certificate_id = certificate.body["id"].as_str().unwrap().to_string();

    let compared = [
        assert_twins(
            &app,
            None,
            &format!("/api/v1/entities/{entity_id}"),
            "entity",
            "Entity",
            &entity_id,
        )
        .await,
        assert_twins(
            &app,
            None,
            &format!("/api/v1/listings/{listing_id}"),
            "listing",
            "Listing",
            &listing_id,
        )
        .await,
        assert_twins(
            &app,
            None,
            &format!("/api/v1/requests/{request_id}"),
            "request",
            "CanonicalRequest",
            &request_id,
        )
        .await,
        assert_twins(
            &app,
            None,
            &format!("/api/v1/space-time-entries/{entry_id}"),
            "entry",
            "SpaceTimeEntry",
            &entry_id,
        )
        .await,
        assert_twins(
            &app,
            None,
            &format!("/api/v1/agents/{agent_id}"),
            "agent",
            "Agent",
            &agent_id.to_string(),
        )
        .await,
        assert_twins(
            &app,
            None,
            &format!("/api/v1/principals/{principal_id}"),
            "principal",
            "Principal",
            &principal_id,
        )
        .await,
        assert_twins(
            &app,
            Some(&reader),
            &format!("/api/v1/messages/{message_id}"),
            "message",
            "Message",
            &message_id,
        )
        .await,
        assert_twins(
            &app,
            Some(&reader),
            &format!("/api/v1/transaction-terms/{term_id}"),
            "transactionTerm",
            "TransactionTerm",
            &term_id,
        )
        .await,
        assert_twins(
            &app,
            Some(&reader),
            &format!("/api/v1/transaction-terms-signatures/{signature_id}"),
            "transactionTermsSignature",
            "TransactionTermsSignature",
            &signature_id,
        )
        .await,
        assert_twins(
            &app,
            None,
            &format!("/api/v1/committed-trust-certificates/{certificate_id}"),
            "committedTrustCertificate",
            "CommittedTrustCertificate",
            &certificate_id,
        )
        .await,
    ];
    // Most of each record's fields are compared, not a token few.
    assert!(compared[0] >= 20, "{compared:?}");
    assert!(compared.iter().all(|n| *n >= 5), "{compared:?}");

    // A record's provenance: the same field sources on both sides.
    let rest = app
        .get(&format!("/api/v1/entities/{entity_id}/provenance"))
        .await;
    let g = app
        .graphql(
            "query($id: UUID!) { entity(id: $id) { provenance { fields { field spaceTimeEntryId agentId observedAtTstampUtc scoreConfidence } } } }",
            json!({"id": entity_id}),
            None,
        )
        .await;
    let graphql_fields = g.body["data"]["entity"]["provenance"]["fields"]
        .as_array()
        .unwrap();
    let rest_fields = rest.body["fields"].as_array().unwrap();
    assert_eq!(rest_fields.len(), graphql_fields.len());
    for (r, q) in rest_fields.iter().zip(graphql_fields) {
        for (snake, value) in r.as_object().unwrap() {
            assert!(same(value, &q[camel(snake)]), "{r} vs {q}");
        }
    }
}

/// A REST list and its GraphQL connection name the same records in the same order.
async fn assert_list_twins(app: &TestApp, key: Option<&str>, rest_path: &str, connection: &str) {
    let rest = app.request("GET", rest_path, None, key).await;
    assert_eq!(rest.status, 200, "{rest_path}: {}", rest.text);
    let rest_ids: Vec<&Value> = rest
        .body
        .as_array()
        .unwrap_or_else(|| panic!("{rest_path}: {}", rest.text))
        .iter()
        .map(|record| &record["id"])
        .collect();
    let g = app
        .graphql(
            &format!("{{ {connection} {{ edges {{ node {{ id }} }} }} }}"),
            json!({}),
            key,
        )
        .await;
    assert!(g.body["errors"].is_null(), "{connection}: {}", g.text);
    let root = connection.split('(').next().unwrap();
    let graphql_ids: Vec<&Value> = g.body["data"][root]["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|edge| &edge["node"]["id"])
        .collect();
    assert!(
        !rest_ids.is_empty(),
        "{rest_path} is empty: nothing compared"
    );
    assert_eq!(rest_ids, graphql_ids, "{rest_path} vs {connection}");
}

#[tokio::test]
async fn every_rest_list_and_its_graphql_connection_name_the_same_records() {
    let app = TestApp::new().await;
    let admin = app.admin_key().await;
    let (agent_id, key) = app.register("List Source").await;
    let (reader_id, reader) = app.register("List Reader").await;
    for (i, name) in ["One Bakery", "Two Bakery", "Three Bakery"]
        .iter()
        .enumerate()
    {
        let created = app
            .publish(
                &key,
                &admin,
                entity_entry(name, 53.48 + i as f64 * 0.01, -2.24, json!({})),
            )
            .await;
        app.publish(
            &key,
            &admin,
            json!({"entry_type": "listing", "latitude": 53.48, "longitude": -2.24,
            "observed_at_tstamp_utc": "2026-11-01T10:00:00Z",
            "context": {"title": format!("Loaf {i}"), "price_amount": 3, "currency_code": "GBP",
                        "provider_entity_id": created["canonical_id"]}}),
        )
        .await;
        app.publish(
            &key,
            &admin,
            json!({"entry_type": "request", "latitude": 53.48, "longitude": -2.24,
            "observed_at_tstamp_utc": "2026-11-01T10:00:00Z",
            "context": {"title": format!("Need cakes {i}"), "request_type": "quote"}}),
        )
        .await;
        let sent = app
            .post_as(
                "/api/v1/messages",
                json!({"recipient_agent_id": reader_id, "message_content": format!("hello {i}")}),
                &key,
            )
            .await;
        assert_eq!(sent.status, 201, "{}", sent.text);
        let term = app
            .post_as(
                "/api/v1/transaction-terms",
                json!({"title": format!("Terms {i}"), "terms_text": "Cash."}),
                &key,
            )
            .await;
        assert_eq!(term.status, 201, "{}", term.text);
    }

    for (rest, connection) in [
        ("/api/v1/entities", "entities"),
        ("/api/v1/listings", "listings"),
        ("/api/v1/requests", "requests"),
        (
            "/api/v1/entities?bbox=-2.3,53.47,-2.2,53.495",
            "entitiesWithin(bbox: {west: -2.3, south: 53.47, east: -2.2, north: 53.495})",
        ),
        ("/api/v1/space-time-entries", "entries"),
        ("/api/v1/agents", "agents"),
        ("/api/v1/transaction-terms", "transactionTerms"),
        (
            &format!("/api/v1/transaction-terms?created_by_agent_id={agent_id}"),
            &format!("transactionTerms(createdByAgentId: \"{agent_id}\")"),
        ),
    ] {
        assert_list_twins(&app, None, rest, connection).await;
    }
    assert_list_twins(&app, Some(&reader), "/api/v1/messages", "messages").await;
}
