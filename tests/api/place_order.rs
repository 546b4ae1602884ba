//! `admin order-by-place`: the canonical tables are rewritten in geohash order (migration 0035),
//! every record kept as it was, and the reported correlation says how well the order held.

use crate::harness::{TestApp, entity_entry};
use serde_json::{Value, json};

/// Two cities far apart, alternated so that the rows' written order is no place order at all.
const CITIES: [(f64, f64); 2] = [(53.4808, -2.2426), (-33.8688, 151.2093)];

fn order_by_place(app: &TestApp, args: &[&str]) -> std::process::Output {
    let args: Vec<&str> = ["order-by-place"]
        .into_iter()
        .chain(args.iter().copied())
        .collect();
    app.admin_cli_output("", &format!("place-{}", uuid::Uuid::now_v7()), &args)
}

/// The place keys in the order the table holds its rows.
async fn keys_in_row_order(app: &TestApp) -> Vec<String> {
    sqlx::query_scalar(
        "SELECT ST_GeoHash(location::geometry, 8) FROM canonical.entities ORDER BY ctid",
    )
    .fetch_all(app.pool())
    .await
    .unwrap()
}

#[tokio::test]
async fn the_tables_are_rewritten_in_place_order_and_every_record_is_kept() {
    let app = TestApp::new().await;
    let admin = app.admin_key().await;
    let (_, key) = app.register("Place Order Directory").await;
    let mut ids = Vec::new();
    for i in 0..16 {
        let (lat, lng) = CITIES[i % 2];
        // About 100 m apart within each city, so every record is its own.
        let lat = lat + 0.001 * (i / 2) as f64;
        let r = app
            .publish(
                &key,
                &admin,
                entity_entry(&format!("Place Order Shop {i}"), lat, lng, json!({})),
            )
            .await;
        ids.push(r["canonical_id"].as_str().unwrap().to_owned());
    }
    let before = keys_in_row_order(&app).await;
    let mut sorted = before.clone();
    sorted.sort();
    assert_ne!(before, sorted, "the rows were written in no place order");
    let records_before = app.get("/api/v1/entities?limit=100").await.body;

    let output = order_by_place(&app, &[]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let lines: Vec<Value> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines.len(), 3, "{lines:?}");
    let entities = &lines[0];
    assert_eq!(entities["table"], "canonical.entities");
    assert_eq!(entities["records"], 16);
    assert!(
        entities["correlation_before"].as_f64().unwrap() < 0.9,
        "{entities}"
    );
    assert!(
        entities["correlation_after"].as_f64().unwrap() > 0.999,
        "{entities}"
    );
    assert!(entities["seconds"].as_f64().unwrap() >= 0.0);
    for empty in &lines[1..] {
        assert_eq!(empty["records"], 0, "{empty}");
        assert_eq!(empty["correlation_after"], Value::Null, "{empty}");
    }
    assert_eq!(keys_in_row_order(&app).await, sorted);
    // The new copy was vacuumed: index-only scans need not visit its pages (CLUSTER leaves the
    // visibility map empty).
    let (pages, all_visible): (i32, i32) = sqlx::query_as(
        "SELECT relpages, relallvisible FROM pg_class WHERE oid = 'canonical.entities'::regclass",
    )
    .fetch_one(app.pool())
    .await
    .unwrap();
    assert!(pages > 0);
    assert_eq!(all_visible, pages);

    // Nothing about a record changed: same list, each readable by id, found by place.
    assert_eq!(
        app.get("/api/v1/entities?limit=100").await.body,
        records_before
    );
    for id in &ids {
        assert_eq!(app.get(&format!("/api/v1/entities/{id}")).await.status, 200);
    }
    let (lat, lng) = CITIES[1];
    let found = app
        .get(&format!(
            "/api/v1/search?query=place%20order%20shop&latitude={lat}&longitude={lng}&radius_meters=2000&max_results=50"
        ))
        .await;
    assert_eq!(found.status, 200, "{}", found.body);
    assert_eq!(found.body["results"].as_array().unwrap().len(), 8);
}

#[tokio::test]
async fn an_unknown_table_is_refused_and_nothing_is_rewritten() {
    let app = TestApp::new().await;
    let output = order_by_place(&app, &["--table", "agents"]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--table must be entities, listings or requests"),
        "{stderr}"
    );
    let clustered: bool = sqlx::query_scalar(
        "SELECT bool_or(indisclustered) FROM pg_index
         WHERE indrelid = ANY('{canonical.entities,canonical.listings,canonical.requests}'::regclass[])",
    )
    .fetch_one(app.pool())
    .await
    .unwrap();
    assert!(!clustered);
}

/// A table another transaction holds (here a reader's lock) is given up on after the lock wait,
/// with nothing rewritten, rather than queueing every request behind the rewrite.
#[tokio::test]
async fn a_table_in_use_is_given_up_on_after_the_lock_wait() {
    let app = TestApp::new().await;
    let mut reader = app.pool().begin().await.unwrap();
    sqlx::query("LOCK TABLE canonical.entities IN ACCESS SHARE MODE")
        .execute(&mut *reader)
        .await
        .unwrap();
    let started = std::time::Instant::now();
    let output = order_by_place(&app, &["--table", "entities", "--lock-wait-secs", "1"]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("canonical.entities is in use"), "{stderr}");
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
    reader.rollback().await.unwrap();

    let output = order_by_place(&app, &["--table", "entities", "--lock-wait-secs", "1"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let output = order_by_place(&app, &["--lock-wait-secs", "-1"]);
    assert!(!output.status.success());
}
