//! Compiled plans (`src/graphql/machinery/compiled.rs`, docs/graphql.md): a read by id of plain fields is
//! answered without async-graphql's executor once its document has a plan, and the answer is
//! byte for byte the executor's. The executor's answer to the same selection is obtained by
//! wrapping it in an inline fragment, which never compiles.

use crate::harness::{TestApp, entity_entry};
use serde_json::{Value, json};

/// Every argument-free field of a GraphQL object type whose type is a scalar, plus the object
/// fields made of scalars (`linkUrls`), as a selection; read from the schema itself, so a field
/// added to a record is covered here.
async fn plain_selection(app: &TestApp, type_name: &str) -> String {
    let mut selection = vec!["__typename".to_string()];
    for (name, kind, named) in app.plain_fields(type_name).await {
        match (kind.as_str(), named.as_str()) {
            ("SCALAR", _) if name != "geojson" => selection.push(name),
            ("OBJECT", "LinkUrl") => {
                selection.push(format!("{name} {{ url label description __typename }}"));
            }
            _ => {}
        }
    }
    assert!(selection.len() > 20, "{type_name}: {selection:?}");
    selection.join(" ")
}

fn compiled_answers(metrics: &str) -> u64 {
    metrics
        .lines()
        .find_map(|line| line.strip_prefix("strs_graphql_compiled_answers_total "))
        .map_or(0, |n| n.trim().parse().unwrap())
}

async fn compiled_so_far(app: &TestApp) -> u64 {
    compiled_answers(&app.get("/metrics").await.text)
}

/// The answer of the plan (or of the executor while the document has none) and of the
/// executor, as sent.
async fn both(app: &TestApp, root: &str, selection: &str, id: &str) -> (String, String) {
    let plain = format!("query($id: UUID!) {{ {root}(id: $id) {{ {selection} }} }}");
    let fragment = format!("query($id: UUID!) {{ {root}(id: $id) {{ ... {{ {selection} }} }} }}");
    let ours = app.graphql(&plain, json!({"id": id}), None).await;
    let executor = app.graphql(&fragment, json!({"id": id}), None).await;
    assert_eq!(ours.status, 200, "{}", ours.text);
    assert_eq!(
        ours.headers["content-type"], executor.headers["content-type"],
        "{root}"
    );
    (ours.text, executor.text)
}

#[tokio::test]
async fn plans_answer_reads_by_id_exactly_as_the_executor_does() {
    let app = TestApp::new().await;
    let admin = app.admin_key().await;
    let (_, key) = app.register("Compiled Source").await;
    let rich = app
        .publish(
            &key,
            &admin,
            entity_entry(
                "Plan Joinery \"Ltd\" ü ✓",
                53.4808,
                -2.2426,
                json!({"website_url": "https://plan-joinery.example", "phone": "+44 161 496 0100",
                       "email": "hello@plan-joinery.example", "description": "Stairs\nand \\ doors",
                       "categories": ["joiner", "carpenter"], "tags": ["oak"],
                       "link_urls": [{"url": "https://plan-joinery.example/gallery", "label": "Gallery"}],
                       "opening_hours": "Mo-Fr 08:00-17:00", "employees": 12, "rating": 4.75}),
            ),
        )
        .await;
    let bare = app
        .publish(
            &key,
            &admin,
            entity_entry("Bare Plan Shop", 51.5, -0.12, json!({})),
        )
        .await;
    let listing = app
        .publish(&key, &admin, json!({"entry_type": "listing", "latitude": 53.4808, "longitude": -2.2426,
            "observed_at_tstamp_utc": "2026-11-01T10:00:00Z",
            "context": {"title": "Kitchen fitting", "price_amount": "450.50", "currency_code": "GBP",
                        "valid_from_tstamp_utc": "2026-12-01T09:30:00.123Z",
                        "provider_entity_id": rich["canonical_id"]}}))
        .await;
    let request = app
        .publish(&key, &admin, json!({"entry_type": "request", "latitude": 53.48, "longitude": -2.24,
            "observed_at_tstamp_utc": "2026-11-01T10:00:00Z",
            "context": {"title": "Need a staircase built", "request_type": "quote", "budget_amount": 2000,
                        "currency_code": "GBP"}}))
        .await;
    let id = |v: &Value| v["canonical_id"].as_str().unwrap().to_string();

    let before = compiled_so_far(&app).await;
    let mut planned = 0;
    for (root, type_name, ids) in [
        ("entity", "Entity", vec![id(&rich), id(&bare)]),
        ("listing", "Listing", vec![id(&listing)]),
        ("request", "CanonicalRequest", vec![id(&request)]),
    ] {
        let selection = plain_selection(&app, type_name).await;
        // The first answer teaches the plan; every later one is the plan's.
        let (first, executor) = both(&app, root, &selection, &ids[0]).await;
        assert_eq!(first, executor);
        for id in ids.iter().chain(ids.iter()) {
            let (ours, executor) = both(&app, root, &selection, id).await;
            assert_eq!(ours, executor, "{root} {id}");
            assert!(ours.contains(id.as_str()), "{ours}");
            planned += 1;
        }
    }
    let rich_answer = both(
        &app,
        "entity",
        "displayName linkUrls { url label }",
        &id(&rich),
    )
    .await;
    assert!(
        rich_answer
            .0
            .contains(r#""displayName":"Plan Joinery \"Ltd\" ü ✓""#),
        "{}",
        rich_answer.0
    );
    assert!(compiled_so_far(&app).await >= before + planned);
}

#[tokio::test]
async fn aliases_literals_and_several_roots_compile_and_anything_unusual_falls_back() {
    let app = TestApp::new().await;
    let admin = app.admin_key().await;
    let (_, key) = app.register("Fallback Source").await;
    let a = app
        .publish(
            &key,
            &admin,
            entity_entry(
                "Alias Bakery",
                53.48,
                -2.24,
                json!({"phone": "+44 161 496 0101"}),
            ),
        )
        .await["canonical_id"]
        .as_str()
        .unwrap()
        .to_string();
    let b = app
        .publish(
            &key,
            &admin,
            entity_entry("Literal Books", 53.49, -2.25, json!({})),
        )
        .await["canonical_id"]
        .as_str()
        .unwrap()
        .to_string();

    let several = format!(
        r#"{{ first: entity(id: "{a}") {{ name: displayName kind: __typename at: updatedAtTstampUtc }}
             second: entity(id: "{b}") {{ id createdAtTstampUtc }} }}"#
    );
    let taught = app.graphql(&several, json!({}), None).await;
    let before = compiled_so_far(&app).await;
    let planned = app.graphql(&several, json!({}), None).await;
    assert_eq!(planned.text, taught.text);
    assert_eq!(planned.body["data"]["first"]["name"], "Alias Bakery");
    assert_eq!(planned.body["data"]["first"]["kind"], "Entity");
    let at = planned.body["data"]["first"]["at"].as_str().unwrap();
    assert!(at.ends_with("+00:00"), "GraphQL's DateTime form: {at}");
    assert!(compiled_so_far(&app).await > before);

    // The plan steps aside for what it cannot answer exactly; the executor's answers stand.
    let document = "query($id: UUID!) { entity(id: $id) { id displayName } }";
    let known = app.graphql(document, json!({"id": a}), None).await;
    assert_eq!(known.body["data"]["entity"]["id"], a.as_str());
    let unknown = app
        .graphql(
            document,
            json!({"id": "01890000-0000-7000-8000-000000000000"}),
            None,
        )
        .await;
    assert_eq!(unknown.status, 200);
    assert_eq!(unknown.body, json!({"data": {"entity": null}}));
    for variables in [json!({}), json!({"id": "not-a-uuid"}), json!({"id": 12})] {
        let refused = app.graphql(document, variables.clone(), None).await;
        assert_eq!(refused.status, 200, "{}", refused.text);
        assert!(
            refused.body["data"].is_null(),
            "{variables}: {}",
            refused.text
        );
        let message = refused.body["errors"][0]["message"].as_str().unwrap();
        let slow = app
            .graphql(
                "query($id: UUID!) { entity(id: $id) { ... { id displayName } } }",
                variables.clone(),
                None,
            )
            .await;
        assert_eq!(message, slow.body["errors"][0]["message"], "{variables}");
        assert_eq!(
            refused.body["errors"][0]["extensions"], slow.body["errors"][0]["extensions"],
            "{variables}"
        );
    }

    // An operation name the anonymous document does not have is the executor's error, plan or not.
    let named = app
        .post(
            "/graphql",
            json!({"query": document, "variables": {"id": a}, "operationName": "Other"}),
        )
        .await;
    assert_eq!(named.status, 200, "{}", named.text);
    assert!(named.body["data"].is_null(), "{}", named.text);
    assert_eq!(
        named.body["errors"][0]["message"],
        "Unknown operation named \"Other\""
    );

    // Bodies the plan's reading must not take for plain ones: an array is refused, and
    // extensions or an explicit null operation name answer as the executor does.
    let array = app.post("/graphql", json!([document, {"id": a}])).await;
    assert_eq!(array.status, 400, "{}", array.text);
    for body in [
        json!({"query": document, "variables": {"id": a}, "operationName": null}),
        json!({"query": document, "variables": {"id": a}, "extensions": {}}),
    ] {
        let answer = app.post("/graphql", body.clone()).await;
        assert_eq!(answer.status, 200, "{body}: {}", answer.text);
        assert_eq!(answer.text, known.text, "{body}");
    }
    // A variable given twice is its last value, as in the executor's map.
    let twice = format!(
        r#"{{"query": {}, "variables": {{"id": "not an id", "id": "{a}"}}}}"#,
        json!(document)
    );
    let answer = app
        .send(
            axum::http::Request::post("/graphql")
                .header("content-type", "application/json")
                .body(axum::body::Body::from(twice))
                .unwrap(),
        )
        .await;
    assert_eq!(answer.text, known.text);

    // A merged record's id answers with its survivor, through the plan as through REST.
    let merged = app
        .post_as(
            &format!("/api/v1/entities/{a}/merge"),
            json!({"merged_id": b}),
            &admin,
        )
        .await;
    assert_eq!(merged.status, 200, "{}", merged.text);
    let redirected = app.graphql(document, json!({"id": b}), None).await;
    assert_eq!(redirected.body["data"]["entity"]["id"], a.as_str());
    let executor = app
        .graphql(
            "query($id: UUID!) { entity(id: $id) { ... { id displayName } } }",
            json!({"id": b}),
            None,
        )
        .await;
    assert_eq!(redirected.text, executor.text);
}

/// Answers of ids that name no record (`null`, which no plan gives) say nothing of a document's
/// plan: the first answer with a record teaches it. (A document once stayed on the executor for
/// good when its first request asked for a missing record.)
#[tokio::test]
async fn reads_of_missing_records_first_do_not_keep_a_document_from_its_plan() {
    let app = TestApp::new().await;
    let admin = app.admin_key().await;
    let (_, key) = app.register("Missing First").await;
    let shop = app
        .publish(
            &key,
            &admin,
            entity_entry("Plan After Nothing", 53.4808, -2.2426, json!({})),
        )
        .await;
    let id = shop["canonical_id"].as_str().unwrap();
    let document = "query($id: UUID!) { entity(id: $id) { id displayName createdAtTstampUtc } }";
    for _ in 0..3 {
        let missing = app
            .graphql(document, json!({"id": uuid::Uuid::now_v7()}), None)
            .await;
        assert_eq!(
            missing.body,
            json!({"data": {"entity": null}}),
            "{}",
            missing.text
        );
    }
    let taught = app.graphql(document, json!({"id": id}), None).await;
    assert_eq!(
        taught.body["data"]["entity"]["displayName"],
        "Plan After Nothing"
    );
    // Many answers, so that other tests' plans running meanwhile cannot make up the count.
    let before = compiled_so_far(&app).await;
    for _ in 0..100 {
        let planned = app.graphql(document, json!({"id": id}), None).await;
        assert_eq!(planned.text, taught.text);
    }
    assert!(compiled_so_far(&app).await >= before + 100);
    // A missing record is still the executor's `null`.
    let missing = app
        .graphql(document, json!({"id": uuid::Uuid::now_v7()}), None)
        .await;
    assert_eq!(missing.body, json!({"data": {"entity": null}}));
}
