//! What one GraphQL request may ask for: the standard introspection query answers in full; deep,
//! wide, aliased or costly requests are refused before execution with a stable code; graph edges
//! load a bounded number of rows per parent.

use crate::harness::{TestApp, entity_entry};
use axum::http::StatusCode;
use serde_json::{Value, json};
use spacetime_records::db;

const INTROSPECTION: &str = include_str!("introspection.graphql");

fn code(body: &Value) -> &str {
    body["errors"][0]["extensions"]["code"]
        .as_str()
        .unwrap_or("none")
}

#[tokio::test]
async fn the_standard_introspection_query_answers_in_full() {
    let app = TestApp::new().await;
    let r = app.graphql(INTROSPECTION, json!({}), None).await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(r.body["errors"].is_null(), "{}", r.text);
    let schema = &r.body["data"]["__schema"];
    assert_eq!(schema["queryType"]["name"], "Query");
    assert_eq!(schema["mutationType"]["name"], "Mutation");
    let types = schema["types"].as_array().unwrap();
    assert!(
        types.iter().any(|t| t["name"] == "Entity"),
        "the record types are listed"
    );
    assert!(types.len() > 50);
}

#[tokio::test]
async fn a_fan_out_of_large_pages_is_refused_before_it_runs() {
    let app = TestApp::new().await;
    let query = "{ agents(first: 500) { edges { node { entries(first: 500) { edges { node { agent { entries(first: 500) { edges { node { id } } } } } } } } } } }";
    let r = app.graphql(query, json!({}), None).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(code(&r.body), "QUERY_TOO_COMPLEX", "{}", r.text);
    assert!(r.body["data"].is_null());
    let variables = app
        .graphql(
            "query($n: Int) { agents(first: $n) { edges { node { entries(first: $n) { edges { node { contributions { id } } } } } } } }",
            json!({"n": 500}),
            None,
        )
        .await;
    assert_eq!(
        code(&variables.body),
        "QUERY_TOO_COMPLEX",
        "page sizes in variables count too"
    );
}

#[tokio::test]
async fn a_query_too_complex_is_told_its_cost_and_the_limit() {
    let app = TestApp::new().await;
    let query = "query($n: Int) { agents(first: $n) { edges { node { entries(first: $n) { edges { node { id } } } } } } }";
    let r = app.graphql(query, json!({"n": 500}), None).await;
    assert_eq!(code(&r.body), "QUERY_TOO_COMPLEX", "{}", r.text);
    let extensions = &r.body["errors"][0]["extensions"];
    let cost = extensions["cost"].as_u64().unwrap();
    let limit = extensions["limit"].as_u64().unwrap();
    assert_eq!(limit, 250_000);
    // 500 agents × (edges, node, and 500 entries × (edges, node, id) + 1) + 1, the figure
    // docs/graphql.md quotes.
    assert_eq!(cost, 500 * (2 + (500 * 3 + 1)) + 1);
    let message = r.body["errors"][0]["message"].as_str().unwrap();
    assert!(
        message.contains(&format!("its cost is {cost}")) && message.contains("the limit is 250000"),
        "{message}"
    );
    // Halving the page size halves the cost: what the numbers are for.
    let r = app.graphql(query, json!({"n": 250}), None).await;
    assert!(r.body["errors"].is_null(), "{}", r.text);
}

#[tokio::test]
async fn default_pages_of_a_dashboard_query_fit() {
    let app = TestApp::new().await;
    let r = app
        .graphql(
            "{ agents(first: 50) { edges { node { displayName entries(first: 20) { edges { node { id status contributions { linkType } } } } } } } }",
            json!({}),
            None,
        )
        .await;
    assert!(r.body["errors"].is_null(), "{}", r.text);
}

#[tokio::test]
async fn hundreds_of_aliased_root_fields_are_refused() {
    let app = TestApp::new().await;
    let many: String = (0..300)
        .map(|i| format!("s{i}: search(query: \"bakery\") {{ results {{ label }} }} "))
        .collect();
    let r = app.graphql(&format!("{{ {many} }}"), json!({}), None).await;
    assert_eq!(
        code(&r.body),
        "TOO_MANY_ROOT_FIELDS",
        "{}",
        &r.text[..r.text.len().min(300)]
    );
    assert!(r.body["data"].is_null());
    assert_eq!(
        app.count("SELECT count(*) FROM canonical.search_words WHERE false")
            .await,
        0
    );
}

#[tokio::test]
async fn many_aliases_anywhere_are_refused() {
    let app = TestApp::new().await;
    let aliases: String = (0..60).map(|i| format!("a{i}: id ")).collect();
    let r = app
        .graphql(
            &format!("{{ agents(first: 1) {{ edges {{ node {{ {aliases} }} }} }} }}"),
            json!({}),
            None,
        )
        .await;
    assert_eq!(code(&r.body), "TOO_MANY_ALIASES", "{}", r.text);
}

#[tokio::test]
async fn nesting_past_the_depth_limit_is_refused_even_through_fragments() {
    let app = TestApp::new().await;
    let query = "{ agents(first: 1) { edges { node { ...A } } } }
        fragment A on Agent { entries(first: 1) { edges { node { agent { entries(first: 1) { edges { node { agent { entries(first: 1) { edges { node { id } } } } } } } } } } } }";
    let r = app.graphql(query, json!({}), None).await;
    assert_eq!(code(&r.body), "QUERY_TOO_DEEP", "{}", r.text);
    let extensions = &r.body["errors"][0]["extensions"];
    assert_eq!(extensions["limit"], 12, "{}", r.text);
    assert!(extensions["depth"].as_u64().unwrap() > 12, "{}", r.text);
}

#[tokio::test]
async fn malformed_and_invalid_documents_carry_codes() {
    let app = TestApp::new().await;
    let parse = app.graphql("{ agents(first: ", json!({}), None).await;
    assert_eq!(code(&parse.body), "GRAPHQL_PARSE_FAILED", "{}", parse.text);
    let invalid = app.graphql("{ noSuchField }", json!({}), None).await;
    assert_eq!(
        code(&invalid.body),
        "GRAPHQL_VALIDATION_FAILED",
        "{}",
        invalid.text
    );
}

#[tokio::test]
async fn edge_loaders_read_a_bounded_number_of_rows_per_parent() {
    let app = TestApp::new().await;
    let admin = app.admin_key().await;
    let (_, key) = app.register("Repeat Sighter").await;
    let mut entity = None;
    for i in 0..3 {
        let mut entry = entity_entry(
            "Bounded Bakery",
            53.4839,
            -2.2350,
            json!({"website_url": "https://bounded.example"}),
        );
        entry["idempotency_key"] = json!(format!("bounded-{i}"));
        let processed = app.publish(&key, &admin, entry).await;
        entity = processed["canonical_id"].as_str().map(str::to_string);
    }
    let id: uuid::Uuid = entity.unwrap().parse().unwrap();
    let all = db::contributions::for_targets(app.pool(), &[id], 100)
        .await
        .unwrap();
    assert_eq!(all.len(), 3);
    let bounded = db::contributions::for_targets(app.pool(), &[id, id], 2)
        .await
        .unwrap();
    assert_eq!(bounded.len(), 4, "two per parent");
    assert!(bounded[0].id < bounded[1].id, "oldest first");
}
