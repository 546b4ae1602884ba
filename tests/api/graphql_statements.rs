//! The provenance graph is N+1-free: a nested query costs the same few SQL statements whatever
//! its fan-out (counted by pg_stat_statements in this test's own database).

use crate::harness::{TestApp, entity_entry};
use serde_json::json;

const NESTED: &str = "{ agents(first: 50) { edges { node { displayName entries(first: 10) { edges { node {
    id contributions(first: 5) { linkType entity { displayName contributions(first: 10) { linkType entry { id agent { displayName } } } } } } } } } } } }";

/// What an analyst asks: each agent's influence, and each record's field sources with the entry
/// and agent behind each field.
const ANALYST: &str =
    "{ agents(first: 50) { edges { node { displayName influence { created matched records }
    entries(first: 10) { edges { node { contributions(first: 5) { entity { provenance {
      fields { field entry { observedAtTstampUtc } agent { displayName } }
      contributions(first: 10) { linkType entry { observedAtTstampUtc } } } } } } } } } } } }";

/// Each agent's touched records near the fan-out's shops, with each record.
const TOUCHED: &str = "{ agents(first: 50) { edges { node { displayName
    touched(latitude: 53.43, longitude: -2.2, radiusMeters: 20000, first: 5) { edges { node {
      contributions record { ... on Entity { displayName } } } } } } } } }";

async fn statements(app: &TestApp) -> i64 {
    sqlx::query_scalar(
        "SELECT coalesce(sum(calls), 0)::int8 FROM pg_stat_statements
         WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())",
    )
    .fetch_one(app.pool())
    .await
    .unwrap()
}

/// Statements one run of the nested query costs, with `agents` agents each publishing two entries.
async fn cost_with(agents: usize, query: &str) -> i64 {
    let app = TestApp::new().await;
    sqlx::query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        .execute(app.pool())
        .await
        .unwrap();
    let admin = app.admin_key().await;
    for a in 0..agents {
        let (_, key) = app.register(&format!("Fan Out {a}")).await;
        for e in 0..2 {
            let lat = 53.40 + a as f64 * 0.01;
            let mut entry = entity_entry(
                &format!("Fan Out Shop {a}"),
                lat,
                -2.2 - e as f64 * 0.0001,
                json!({"phone": format!("+44 161 496 {a:04}")}),
            );
            entry["idempotency_key"] = json!(format!("fan-{a}-{e}"));
            app.publish(&key, &admin, entry).await;
        }
    }
    // Warm: prepared statements and the first connection's set-up are not what is counted.
    let warm = app.graphql(query, json!({}), None).await;
    assert!(warm.body["errors"].is_null(), "{}", warm.text);
    let before = statements(&app).await;
    let r = app.graphql(query, json!({}), None).await;
    let after = statements(&app).await;
    assert!(r.body["errors"].is_null(), "{}", r.text);
    let edges = r.body["data"]["agents"]["edges"].as_array().unwrap();
    assert!(edges.len() > agents, "every agent is in the answer");
    // The counting statement itself is counted once.
    after - before - 1
}

#[tokio::test]
async fn a_nested_provenance_query_costs_the_same_few_statements_whatever_its_fan_out() {
    let small = cost_with(2, NESTED).await;
    let large = cost_with(8, NESTED).await;
    assert!(large <= 5, "the nested query ran {large} statements");
    assert_eq!(
        small, large,
        "statements must not grow with the number of agents"
    );
}

#[tokio::test]
async fn influence_and_field_sources_are_batched_too() {
    let small = cost_with(2, ANALYST).await;
    let large = cost_with(8, ANALYST).await;
    assert!(large <= 7, "the analyst query ran {large} statements");
    assert_eq!(
        small, large,
        "statements must not grow with the number of agents"
    );
}

#[tokio::test]
async fn touched_records_are_one_statement_for_a_page_of_agents() {
    let small = cost_with(2, TOUCHED).await;
    let large = cost_with(8, TOUCHED).await;
    assert!(large <= 3, "the touched query ran {large} statements");
    assert_eq!(
        small, large,
        "statements must not grow with the number of agents"
    );
}
