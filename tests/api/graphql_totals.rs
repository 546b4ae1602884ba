//! `totalCount` on the counted connections (docs/graphql.md): the whole list, whatever the page,
//! with the list's own filter and visibility; null past 10,000; batched under many parents.

use crate::harness::{TestApp, entity_entry};
use serde_json::{Value, json};

fn total(body: &Value, path: &[&str]) -> Value {
    let mut at = &body["data"];
    for step in path {
        at = &at[*step];
    }
    at["totalCount"].clone()
}

#[tokio::test]
async fn total_count_counts_every_page_with_the_lists_own_filter() {
    let app = TestApp::new().await;
    let admin = app.admin_key().await;
    let (source, key) = app.register("Counted Source").await;
    let (other, other_key) = app.register("Counted Other").await;
    for (n, (lat, lng)) in [(53.48, -2.24), (53.49, -2.25), (51.5, -0.12)]
        .iter()
        .enumerate()
    {
        app.publish(
            &key,
            &admin,
            entity_entry(
                &format!("Counted Shop {n}"),
                *lat,
                *lng,
                json!({"phone": format!("+44 161 496 01{n}0")}),
            ),
        )
        .await;
    }
    app.publish(
        &other_key,
        &admin,
        entity_entry(
            "Counted Elsewhere",
            48.85,
            2.35,
            json!({"country_code": "FR", "city": "Paris"}),
        ),
    )
    .await;
    let pending = app
        .post_entry(
            &other_key,
            entity_entry("Counted Pending", 40.4, -3.7, json!({})),
        )
        .await;
    assert_eq!(pending.status, 201, "{}", pending.text);

    let r = app
        .graphql(
            "query($a: UUID!, $b: UUID!) {
               entities(first: 1) { totalCount edges { node { id } } pageInfo { hasNextPage } }
               archived: entities(status: \"archived\") { totalCount }
               entitiesWithin(bbox: {west: -3, south: 53, east: -2, north: 54}, first: 1) { totalCount }
               entries(first: 2) { totalCount }
               pendingEntries: entries(status: PENDING) { totalCount }
               agents(first: 1) { totalCount }
               a: agent(id: $a) { entries(first: 1) { totalCount } }
               b: agent(id: $b) { entries(first: 1) { totalCount } processed: entries(status: PROCESSED) { totalCount }
                                  waiting: entries(status: PENDING) { totalCount nodes { id } } }
               listings { totalCount } requests { totalCount } reviewQueue(first: 1) { totalCount } }",
            json!({"a": source, "b": other}),
            None,
        )
        .await;
    assert!(r.body["errors"].is_null(), "{}", r.text);
    assert_eq!(total(&r.body, &["entities"]), 4, "{}", r.text);
    assert_eq!(
        r.body["data"]["entities"]["edges"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert_eq!(r.body["data"]["entities"]["pageInfo"]["hasNextPage"], true);
    assert_eq!(total(&r.body, &["archived"]), 0);
    assert_eq!(
        total(&r.body, &["entitiesWithin"]),
        2,
        "the two in Manchester"
    );
    assert_eq!(total(&r.body, &["entries"]), 5);
    assert_eq!(total(&r.body, &["pendingEntries"]), 1);
    // The operator registered for the admin key is an agent too.
    let agents = app.count("SELECT count(*) FROM agents").await;
    assert_eq!(total(&r.body, &["agents"]), agents);
    assert_eq!(total(&r.body, &["a", "entries"]), 3);
    assert_eq!(total(&r.body, &["b", "entries"]), 2);
    assert_eq!(total(&r.body, &["b", "processed"]), 1);
    assert_eq!(total(&r.body, &["b", "waiting"]), 1);
    assert_eq!(
        r.body["data"]["b"]["waiting"]["nodes"][0]["id"],
        pending.body["id"]
    );
    assert_eq!(total(&r.body, &["listings"]), 0);
    assert_eq!(total(&r.body, &["requests"]), 0);
    assert_eq!(total(&r.body, &["reviewQueue"]), 0);

    // A status that is too long is refused where the list refuses it, not counted.
    let refused = app
        .graphql(
            &format!(
                "{{ entities(status: \"{}\") {{ totalCount }} }}",
                "x".repeat(60)
            ),
            json!({}),
            None,
        )
        .await;
    assert_eq!(
        refused.body["errors"][0]["extensions"]["code"], "VALIDATION_ERROR",
        "{}",
        refused.text
    );
}

#[tokio::test]
async fn message_counts_are_the_callers_own() {
    let app = TestApp::new().await;
    let (alice, alice_key) = app.register("Counting Alice").await;
    let (bob, bob_key) = app.register("Counting Bob").await;
    for (from, to, text) in [
        (&alice_key, bob, "one"),
        (&alice_key, bob, "two"),
        (&bob_key, alice, "three"),
    ] {
        let sent = app
            .post_as(
                "/api/v1/messages",
                json!({"recipient_agent_id": to, "message_content": text}),
                from,
            )
            .await;
        assert_eq!(sent.status, 201, "{}", sent.text);
    }
    let document = "query($me: UUID!, $them: UUID!) {
        messages(first: 1) { totalCount }
        conversation(counterpartyId: $them) { totalCount }
        unread: messages(unreadOnly: true) { totalCount }
        me: agent(id: $me) { sentMessages { totalCount } receivedMessages { totalCount } }
        them: agent(id: $them) { sentMessages { totalCount } } }";
    let r = app
        .graphql(document, json!({"me": bob, "them": alice}), Some(&bob_key))
        .await;
    assert!(r.body["errors"].is_null(), "{}", r.text);
    assert_eq!(total(&r.body, &["messages"]), 3);
    assert_eq!(total(&r.body, &["conversation"]), 3);
    assert_eq!(total(&r.body, &["unread"]), 2);
    assert_eq!(total(&r.body, &["me", "sentMessages"]), 1);
    assert_eq!(total(&r.body, &["me", "receivedMessages"]), 2);
    assert!(
        r.body["data"]["them"]["sentMessages"].is_null(),
        "{}",
        r.text
    );
}

#[tokio::test]
async fn past_ten_thousand_the_count_is_null_and_under_many_parents_it_is_batched() {
    let app = TestApp::new().await;
    sqlx::query(
        "INSERT INTO canonical.entities (id, display_name, location_lat, location_lng)
         SELECT gen_random_uuid(), 'Bulk ' || n, 10 + n * 0.0001, 10 FROM generate_series(1, 10001) AS n",
    )
    .execute(app.pool())
    .await
    .unwrap();
    let r = app
        .graphql("{ entities(first: 1) { totalCount } }", json!({}), None)
        .await;
    assert!(r.body["errors"].is_null(), "{}", r.text);
    assert!(total(&r.body, &["entities"]).is_null(), "{}", r.text);
    sqlx::query("DELETE FROM canonical.entities WHERE display_name = 'Bulk 1'")
        .execute(app.pool())
        .await
        .unwrap();
    let r = app
        .graphql("{ entities(first: 1) { totalCount } }", json!({}), None)
        .await;
    assert_eq!(total(&r.body, &["entities"]), 10_000, "{}", r.text);

    // Twenty agents' entry counts: one statement, not twenty.
    for n in 0..20 {
        app.register(&format!("Batched Counter {n}")).await;
    }
    sqlx::query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        .execute(app.pool())
        .await
        .unwrap();
    let document = "{ agents(first: 25) { edges { node { entries { totalCount } } } } }";
    let warm = app.graphql(document, json!({}), None).await;
    assert!(warm.body["errors"].is_null(), "{}", warm.text);
    let counts = || async {
        sqlx::query_scalar::<_, i64>(
            "SELECT coalesce(sum(calls), 0)::int8 FROM pg_stat_statements
             WHERE query LIKE '%unnest(%agent(id)%' AND query LIKE '%count(*)%'
               AND dbid = (SELECT oid FROM pg_database WHERE datname = current_database())",
        )
        .fetch_one(app.pool())
        .await
        .unwrap()
    };
    let before = counts().await;
    let r = app.graphql(document, json!({}), None).await;
    assert!(r.body["errors"].is_null(), "{}", r.text);
    let edges = r.body["data"]["agents"]["edges"].as_array().unwrap();
    assert!(edges.len() >= 20, "{}", r.text);
    assert!(
        edges
            .iter()
            .all(|e| e["node"]["entries"]["totalCount"] == 0)
    );
    assert_eq!(
        counts().await - before,
        1,
        "one statement counts every agent's entries"
    );
}

#[tokio::test]
async fn contributions_notes_and_signals_are_counted_with_the_callers_visibility() {
    let app = TestApp::new().await;
    let admin = app.admin_key().await;
    let (_, key) = app.register("Feedback Counter").await;
    let mut targets = Vec::new();
    for _ in 0..2 {
        let bakery = entity_entry(
            "Counted Bakery",
            53.48,
            -2.24,
            json!({"phone": "+44 161 496 0990"}),
        );
        let processed = app.publish(&key, &admin, bakery).await;
        targets.push(processed["canonical_id"].as_str().unwrap().to_string());
    }
    assert_eq!(
        targets[0], targets[1],
        "the second entry re-observes the first's record"
    );
    let target = targets.swap_remove(0);
    let on_target = |visibility: &str, body: &str| {
        json!({"target_schema": "canonical", "target_table": "entities", "target_id": target,
               "visibility": visibility, "body": body})
    };
    for (visibility, body) in [("public", "one"), ("public", "two"), ("internal", "three")] {
        let r = app
            .post_as("/api/v1/notes", on_target(visibility, body), &key)
            .await;
        assert_eq!(r.status, 201, "{}", r.text);
    }
    for signal_type in ["confirm", "confirm", "reject"] {
        let r = app
            .post_as(
                "/api/v1/signals",
                json!({"signal_type": signal_type, "target_schema": "canonical",
                       "target_table": "entities", "target_id": target}),
                &key,
            )
            .await;
        assert_eq!(r.status, 201, "{}", r.text);
    }

    let document = "query($t: UUID!) {
        linkContributions(targetCanonicalId: $t, first: 1) { totalCount edges { node { id } } }
        notes(targetId: $t, first: 1) { totalCount edges { node { id } } }
        signals(targetId: $t, first: 1) { totalCount }
        otherNotes: notes(targetId: \"00000000-0000-0000-0000-000000000000\") { totalCount }
      }";
    let anonymous = app.graphql(document, json!({"t": target}), None).await;
    assert!(anonymous.body["errors"].is_null(), "{}", anonymous.text);
    assert_eq!(total(&anonymous.body, &["linkContributions"]), 2);
    assert_eq!(
        total(&anonymous.body, &["notes"]),
        2,
        "the internal note is hidden and not counted"
    );
    assert_eq!(total(&anonymous.body, &["signals"]), 3);
    assert_eq!(total(&anonymous.body, &["otherNotes"]), 0);
    let member = app
        .graphql(document, json!({"t": target}), Some(&key))
        .await;
    assert_eq!(total(&member.body, &["notes"]), 3, "{}", member.text);
    assert_eq!(
        member.body["data"]["notes"]["edges"]
            .as_array()
            .unwrap()
            .len(),
        1,
        "the page keeps its own size"
    );
}
