//! Entries, canonical records and provenance as a graph, over the same services as REST.

use crate::harness::{TestApp, entity_entry};
use serde_json::{Value, json};

#[tokio::test]
async fn the_provenance_graph_is_navigable_both_ways() {
    let app = TestApp::new().await;
    let admin = app.admin_key().await;
    let (agent_id, key) = app.register("Graph Scraper").await;
    let (_, other) = app.register("Second Source").await;
    let first = app
        .publish(
            &key,
            &admin,
            entity_entry(
                "Graph Ltd",
                51.5,
                -0.12,
                json!({"website_url": "https://graph.example"}),
            ),
        )
        .await;
    app.publish(
        &other,
        &admin,
        entity_entry(
            "Graph Ltd",
            51.5,
            -0.12,
            json!({"website_url": "https://graph.example", "phone": "020 7946 0958"}),
        ),
    )
    .await;
    let entity_id = first["canonical_id"].as_str().unwrap();

    let q = "query($id: UUID!) { entity(id: $id) { displayName phone contributions { linkType entry { id agent { displayName } } } } }";
    let r = app.graphql(q, json!({"id": entity_id}), None).await;
    let entity = &r.body["data"]["entity"];
    assert_eq!(entity["displayName"], "Graph Ltd", "{}", r.text);
    let contributions = entity["contributions"].as_array().unwrap();
    assert_eq!(contributions.len(), 2);
    assert_eq!(contributions[0]["linkType"], "CREATED");
    assert_eq!(
        contributions[0]["entry"]["agent"]["displayName"],
        "Graph Scraper"
    );
    assert_eq!(
        contributions[1]["entry"]["agent"]["displayName"],
        "Second Source"
    );

    let entry_id = first["space_time_entry_id"].as_str().unwrap();
    let q = "query($id: UUID!) { entry(id: $id) { status contributions { linkType entity { id displayName } target { ... on Entity { id } } } canonical { ... on Entity { displayName } } } }";
    let r = app.graphql(q, json!({"id": entry_id}), None).await;
    let entry = &r.body["data"]["entry"];
    assert_eq!(entry["status"], "PROCESSED", "{}", r.text);
    assert_eq!(entry["contributions"][0]["entity"]["id"], entity_id);
    assert_eq!(entry["contributions"][0]["target"]["id"], entity_id);
    assert_eq!(entry["canonical"]["displayName"], "Graph Ltd");

    let q = "query($id: UUID!) { agent(id: $id) { entries(first: 10) { edges { node { id entryType } } } } }";
    let r = app.graphql(q, json!({"id": agent_id}), None).await;
    let edges = r.body["data"]["agent"]["entries"]["edges"]
        .as_array()
        .unwrap();
    assert_eq!(edges.len(), 1);
    assert_eq!(edges[0]["node"]["id"], entry_id);
}

#[tokio::test]
async fn rest_and_graphql_return_the_same_entry_and_contributions() {
    let app = TestApp::new().await;
    let admin = app.admin_key().await;
    let (_, key) = app.register("Same Answer").await;
    let result = app
        .publish(
            &key,
            &admin,
            entity_entry("Same Ltd", 51.5, -0.12, json!({})),
        )
        .await;
    let entry_id = result["space_time_entry_id"].as_str().unwrap();
    let rest = app
        .get(&format!("/api/v1/space-time-entries/{entry_id}"))
        .await
        .body;
    let q = "query($id: UUID!) { entry(id: $id) { id agentId latitude longitude geohash scoreConfidence canonicalId processingReason context contributions { id linkType informationPower transformerVersion } } }";
    let gql = app.graphql(q, json!({"id": entry_id}), None).await.body;
    let e = &gql["data"]["entry"];
    for (rest_field, gql_field) in [
        ("id", "id"),
        ("agent_id", "agentId"),
        ("latitude", "latitude"),
        ("longitude", "longitude"),
        ("geohash", "geohash"),
        ("score_confidence", "scoreConfidence"),
        ("canonical_id", "canonicalId"),
        ("processing_reason", "processingReason"),
        ("context", "context"),
    ] {
        assert_eq!(rest[rest_field], e[gql_field], "{rest_field}");
    }
    let links = app
        .get(&format!(
            "/api/v1/canonical-link-contributions?space_time_entry_id={entry_id}"
        ))
        .await
        .body;
    assert_eq!(links[0]["id"], e["contributions"][0]["id"]);
    assert_eq!(
        links[0]["information_power"],
        e["contributions"][0]["informationPower"]
    );
    assert_eq!(
        links[0]["transformer_version"],
        e["contributions"][0]["transformerVersion"]
    );
}

#[tokio::test]
async fn entries_are_created_and_processed_through_graphql_mutations() {
    let app = TestApp::new().await;
    let admin = app.admin_key().await;
    let (_, key) = app.register("Gql Writer").await;
    let m = "mutation($input: SpaceTimeEntryInput!) { createSpaceTimeEntry(input: $input) { id status } }";
    let input = json!({"entryType": "ENTITY", "latitude": "51.5", "longitude": "-0.12", "context": {"name": "Mutation Ltd"}, "idempotencyKey": "gql-1"});
    let created = app.graphql(m, json!({"input": input}), Some(&key)).await;
    let id = created.body["data"]["createSpaceTimeEntry"]["id"]
        .as_str()
        .unwrap_or_else(|| panic!("{}", created.text))
        .to_string();
    let dup = app.graphql(m, json!({"input": input}), Some(&key)).await;
    assert_eq!(dup.body["errors"][0]["extensions"]["code"], "CONFLICT");
    assert_eq!(dup.body["errors"][0]["extensions"]["existing_id"], id);
    let bad = app
        .graphql(
            m,
            json!({"input": {"entryType": "ENTITY", "latitude": "95", "longitude": "0"}}),
            Some(&key),
        )
        .await;
    assert_eq!(
        bad.body["errors"][0]["extensions"]["detail"][0]["loc"],
        json!(["input", "latitude"])
    );
    let forbidden = app
        .graphql(
            "mutation($id: UUID!) { processEntry(id: $id) { status } }",
            json!({"id": id}),
            Some(&key),
        )
        .await;
    assert_eq!(
        forbidden.body["errors"][0]["extensions"]["code"],
        "FORBIDDEN"
    );
    let processed = app
        .graphql(
            "mutation($id: UUID!) { processEntry(id: $id) { status linkType canonicalId } }",
            json!({"id": id}),
            Some(&admin),
        )
        .await;
    let result = &processed.body["data"]["processEntry"];
    assert_eq!(result["linkType"], "CREATED", "{}", processed.text);
    let ranked = app
        .graphql(
            "mutation($id: UUID!) { runRanker(entityId: $id) { entityId scoreConfidence } }",
            json!({"id": result["canonicalId"]}),
            Some(&admin),
        )
        .await;
    assert_eq!(
        ranked.body["data"]["runRanker"]["entityId"],
        result["canonicalId"]
    );
    let pending = app
        .graphql(
            "mutation { processPending(limit: 10) { processed } }",
            json!({}),
            Some(&admin),
        )
        .await;
    assert_eq!(pending.body["data"]["processPending"]["processed"], 0);
    let listed = app.graphql("{ entities { edges { node { displayName scoreDataRichness } } } linkContributions { edges { node { linkType } } } }", json!({}), None).await;
    assert_eq!(
        listed.body["data"]["entities"]["edges"][0]["node"]["displayName"],
        "Mutation Ltd"
    );
    assert_eq!(
        listed.body["data"]["linkContributions"]["edges"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

#[tokio::test]
async fn node_answers_what_an_id_names_with_its_own_visibility() {
    let app = TestApp::new().await;
    let admin = app.admin_key().await;
    let (agent_id, key) = app.register("Node Source").await;
    let (reader_id, reader) = app.register("Node Reader").await;
    let (_, outsider) = app.register("Node Outsider").await;
    let published = app
        .publish(
            &key,
            &admin,
            entity_entry("Node Joinery", 51.5, -0.12, json!({})),
        )
        .await;
    let entity_id = published["canonical_id"].as_str().unwrap();
    let entry_id = published["space_time_entry_id"].as_str().unwrap();
    let sent = app
        .post_as(
            "/api/v1/messages",
            json!({"recipient_agent_id": reader_id, "message_content": "private"}),
            &key,
        )
        .await;
    let message_id = sent.body["id"].as_str().unwrap();

    let q = "query($id: UUID!) { node(id: $id) { __typename
        ... on Entity { displayName } ... on SpaceTimeEntry { status agent { id } }
        ... on Agent { displayName } ... on Message { messageContent } }
        canonicalRecord(id: $id) { __typename ... on Entity { id } } }";
    let node = |id: &str, key: Option<&str>| {
        let (q, id, key) = (q, id.to_string(), key.map(str::to_string));
        let app = &app;
        async move {
            let r = app.graphql(q, json!({"id": id}), key.as_deref()).await;
            assert!(r.body["errors"].is_null(), "{}", r.text);
            r.body["data"].clone()
        }
    };
    let data = node(entity_id, None).await;
    assert_eq!(data["node"]["__typename"], "Entity");
    assert_eq!(data["node"]["displayName"], "Node Joinery");
    assert_eq!(data["canonicalRecord"]["id"], entity_id);
    let data = node(entry_id, None).await;
    assert_eq!(data["node"]["__typename"], "SpaceTimeEntry");
    assert_eq!(data["node"]["agent"]["id"], agent_id.to_string());
    assert!(
        data["canonicalRecord"].is_null(),
        "an entry is no canonical record"
    );
    let data = node(&agent_id.to_string(), None).await;
    assert_eq!(data["node"]["displayName"], "Node Source");
    // A message is shown to its two parties only.
    assert_eq!(
        node(message_id, Some(&reader)).await["node"]["messageContent"],
        "private"
    );
    assert_eq!(
        node(message_id, Some(&key)).await["node"]["__typename"],
        "Message"
    );
    assert!(node(message_id, Some(&outsider)).await["node"].is_null());
    assert!(node(message_id, None).await["node"].is_null());
    let unknown = node(&uuid::Uuid::now_v7().to_string(), None).await;
    assert!(unknown["node"].is_null() && unknown["canonicalRecord"].is_null());
}

#[tokio::test]
async fn entities_near_a_point_come_nearest_first_in_pages_with_their_distance() {
    let app = TestApp::new().await;
    let admin = app.admin_key().await;
    let (_, key) = app.register("Near Source").await;
    let (lat, lng) = (53.4808, -2.2426);
    let mut ids = Vec::new();
    for (name, metres) in [
        ("Alpha Plumbing", 100.0),
        ("Bravo Bakery", 300.0),
        ("Charlie Cycles", 600.0),
        ("Delta Dentist", 900.0),
        ("Echo Electricals", 3000.0),
        ("Foxtrot Florist", 50.0),
    ] {
        let (a, b) = crate::harness::east(lat, lng, metres);
        let r = app
            .publish(&key, &admin, entity_entry(name, a, b, json!({})))
            .await;
        ids.push(r["canonical_id"].as_str().unwrap().to_string());
    }
    // An archived record is left out, as search leaves it out.
    sqlx::query("UPDATE canonical.entities SET status = 'archived' WHERE id = $1::uuid")
        .bind(&ids[5])
        .execute(app.pool())
        .await
        .unwrap();
    app.publish(&key, &admin, json!({"entry_type": "listing", "latitude": lat, "longitude": lng,
        "observed_at_tstamp_utc": "2026-11-01T10:00:00Z",
        "context": {"title": "Boiler service", "price_amount": 80, "currency_code": "GBP", "provider_entity_id": ids[0]}}))
        .await;

    let q = "query($after: String) { entitiesNear(latitude: 53.4808, longitude: -2.2426, radiusMeters: 1000, first: 2, after: $after) {
        edges { cursor distanceMeters node { displayName } } pageInfo { hasNextPage endCursor } } }";
    let page = |after: Value| {
        let app = &app;
        async move {
            let r = app.graphql(q, json!({"after": after}), None).await;
            assert!(r.body["errors"].is_null(), "{}", r.text);
            r.body["data"]["entitiesNear"].clone()
        }
    };
    let first = page(Value::Null).await;
    let names = |p: &Value| -> Vec<String> {
        p["edges"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["node"]["displayName"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(names(&first), ["Alpha Plumbing", "Bravo Bakery"]);
    let distance = first["edges"][1]["distanceMeters"].as_f64().unwrap();
    assert!((distance - 300.0).abs() < 1.0, "{distance}");
    assert_eq!(first["pageInfo"]["hasNextPage"], true);
    let second = page(first["pageInfo"]["endCursor"].clone()).await;
    assert_eq!(names(&second), ["Charlie Cycles", "Delta Dentist"]);
    assert_eq!(second["pageInfo"]["hasNextPage"], false);

    let listings = app
        .graphql(
            "{ listingsNear(latitude: 53.4808, longitude: -2.2426, radiusMeters: 10) { edges { distanceMeters node { title geojson provider { displayName geojson } } } } }",
            json!({}),
            None,
        )
        .await;
    let edges = &listings.body["data"]["listingsNear"]["edges"];
    assert_eq!(
        edges[0]["node"]["title"], "Boiler service",
        "{}",
        listings.text
    );
    assert_eq!(
        edges[0]["node"]["provider"]["displayName"],
        "Alpha Plumbing"
    );

    let refused = app
        .graphql(
            "{ requestsNear(latitude: 91, longitude: 0, radiusMeters: 100001, after: \"x\") { edges { cursor } } }",
            json!({}),
            None,
        )
        .await;
    let error = &refused.body["errors"][0];
    assert_eq!(
        error["extensions"]["code"], "VALIDATION_ERROR",
        "{}",
        refused.text
    );
    assert_eq!(error["extensions"]["detail"].as_array().unwrap().len(), 3);
}

/// Records at one place (a building of many businesses) are at one distance: pages cut through
/// them by id, each record once, and a page is read nearest first (KNN) without losing one.
#[tokio::test]
async fn records_tied_at_one_distance_are_paged_by_id_each_once() {
    let app = TestApp::new().await;
    let (lat, lng) = (53.4808, -2.2426);
    let place = |name: String, metres: f64| {
        let (a, b) = crate::harness::east(lat, lng, metres);
        (name, a, b)
    };
    let mut records: Vec<(String, f64, f64)> = [50.0, 100.0, 150.0]
        .iter()
        .enumerate()
        .map(|(i, m)| place(format!("Near {i}"), *m))
        .collect();
    records.extend((0..7).map(|i| place(format!("Tied {i}"), 400.0)));
    records.extend(
        [800.0, 900.0]
            .iter()
            .enumerate()
            .map(|(i, m)| place(format!("Far {i}"), *m)),
    );
    records.push(place("Outside".into(), 1500.0));
    let mut ids = std::collections::HashMap::new();
    for (name, a, b) in &records {
        let id: String = sqlx::query_scalar(
            "INSERT INTO canonical.entities (id, display_name, location_lat, location_lng, name_key)
             VALUES (gen_random_uuid(), $1, $2, $3, lower($1)) RETURNING id::text",
        )
        .bind(name)
        .bind(a)
        .bind(b)
        .fetch_one(app.pool())
        .await
        .unwrap();
        ids.insert(name.clone(), id);
    }
    let mut tied: Vec<&String> = (0..7).map(|i| &ids[&format!("Tied {i}")]).collect();
    tied.sort();
    let expected: Vec<&String> = ["Near 0", "Near 1", "Near 2"]
        .iter()
        .map(|n| &ids[*n])
        .chain(tied)
        .chain(["Far 0", "Far 1"].iter().map(|n| &ids[*n]))
        .collect();

    let q = "query($after: String) { entitiesNear(latitude: 53.4808, longitude: -2.2426, radiusMeters: 1000, first: 3, after: $after) {
        edges { distanceMeters node { id } } pageInfo { hasNextPage endCursor } } }";
    let mut seen = Vec::new();
    let mut after = Value::Null;
    for _ in 0..10 {
        let r = app.graphql(q, json!({"after": after}), None).await;
        assert!(r.body["errors"].is_null(), "{}", r.text);
        let page = &r.body["data"]["entitiesNear"];
        for edge in page["edges"].as_array().unwrap() {
            seen.push(edge["node"]["id"].as_str().unwrap().to_string());
        }
        if page["pageInfo"]["hasNextPage"] != true {
            break;
        }
        after = page["pageInfo"]["endCursor"].clone();
    }
    assert_eq!(seen.iter().collect::<Vec<_>>(), expected);
}

/// A circle across the antimeridian holds the records on both sides, nearest first: the nearest
/// is across the line, 360 degrees of longitude away from the origin on a flat map.
#[tokio::test]
async fn records_near_the_antimeridian_are_found_on_both_sides() {
    let app = TestApp::new().await;
    for (name, lng) in [
        ("West Side", -179.9995),
        ("East Side", 179.9990),
        ("Far East", 170.0),
    ] {
        app.execute(&format!(
            "INSERT INTO canonical.entities (id, display_name, location_lat, location_lng, name_key)
             VALUES (gen_random_uuid(), '{name}', -16.5, {lng}, lower('{name}'))"
        ))
        .await;
    }
    let r = app
        .graphql(
            "{ entitiesNear(latitude: -16.5, longitude: 179.9999, radiusMeters: 1000, first: 1) {
                edges { distanceMeters node { displayName } } pageInfo { hasNextPage endCursor } } }",
            json!({}),
            None,
        )
        .await;
    let page = &r.body["data"]["entitiesNear"];
    assert_eq!(
        page["edges"][0]["node"]["displayName"], "West Side",
        "{}",
        r.text
    );
    let next = app
        .graphql(
            "query($after: String) { entitiesNear(latitude: -16.5, longitude: 179.9999, radiusMeters: 1000, after: $after) {
                edges { distanceMeters node { displayName } } pageInfo { hasNextPage } } }",
            json!({"after": page["pageInfo"]["endCursor"]}),
            None,
        )
        .await;
    let edges = next.body["data"]["entitiesNear"]["edges"]
        .as_array()
        .unwrap();
    assert_eq!(edges.len(), 1, "{}", next.text);
    assert_eq!(edges[0]["node"]["displayName"], "East Side");
    let distance = edges[0]["distanceMeters"].as_f64().unwrap();
    assert!((distance - 96.0).abs() < 2.0, "{distance}");
}

#[tokio::test]
async fn an_agent_sees_its_own_api_keys_on_the_graph_and_nobody_else_does() {
    let app = TestApp::new().await;
    let (me, key) = app.register("Key Holder").await;
    let (other, other_key) = app.register("Key Onlooker").await;
    let created = app
        .post_as(
            "/api/v1/agents/me/api-keys",
            json!({"scopes": ["space_time_entries:write"]}),
            &key,
        )
        .await;
    assert_eq!(created.status, 201, "{}", created.text);
    let document = "query($id: UUID!) { agent(id: $id) { id apiKeys { id status scopes } } }";

    let own = app.graphql(document, json!({"id": me}), Some(&key)).await;
    let keys = own.body["data"]["agent"]["apiKeys"]
        .as_array()
        .unwrap_or_else(|| panic!("{}", own.text));
    assert_eq!(keys.len(), 2, "{}", own.text);
    assert_eq!(keys[0]["id"], created.body["key"]["id"], "newest first");
    assert!(!own.text.contains("str_"), "never a raw key: {}", own.text);
    let rest = app.get_as("/api/v1/agents/me/api-keys", &key).await;
    let rest_ids: Vec<&Value> = rest
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|k| &k["id"])
        .collect();
    let graph_ids: Vec<&Value> = keys.iter().map(|k| &k["id"]).collect();
    assert_eq!(rest_ids, graph_ids);

    for (asker, bearer) in [(other, Some(other_key.as_str())), (me, None)] {
        let answer = app
            .graphql(
                document,
                json!({"id": if bearer.is_some() { me } else { asker }}),
                bearer,
            )
            .await;
        assert!(answer.body["errors"].is_null(), "{}", answer.text);
        assert!(
            answer.body["data"]["agent"]["apiKeys"].is_null(),
            "{}",
            answer.text
        );
    }
}
