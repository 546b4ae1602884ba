//! Where the map opens: the TileJSON's `bounds` and `center` come from the records of the
//! tileset's kinds (the database's statistics after ANALYZE, the rows themselves before), and
//! `GET /tiles/metadata.json` describes the tiles for GDAL's MVT driver.

use crate::harness::{TestApp, texts};
use axum::http::StatusCode;
use serde_json::{Value, json};

fn numbers(value: &Value) -> Vec<f64> {
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect()
}

fn close(actual: &[f64], expected: &[f64], tolerance: f64) -> bool {
    actual.len() == expected.len()
        && actual
            .iter()
            .zip(expected)
            .all(|(a, e)| (a - e).abs() <= tolerance)
}

async fn insert_entity(app: &TestApp, name: &str, lat: f64, lng: f64) {
    sqlx::query(
        "INSERT INTO canonical.entities (id, display_name, location_lat, location_lng, name_key)
         VALUES (gen_random_uuid(), $1, $2, $3, lower($1))",
    )
    .bind(name)
    .bind(lat)
    .bind(lng)
    .execute(app.pool())
    .await
    .unwrap();
}

#[tokio::test]
async fn tilejson_bounds_and_center_are_where_the_records_are_and_the_world_when_there_are_none() {
    let app = TestApp::new().await;
    let empty = app.get("/tiles/records.json").await;
    assert_eq!(empty.status, StatusCode::OK, "{}", empty.text);
    assert!(close(
        &numbers(&empty.body["bounds"]),
        &[-180.0, -85.051_128_779_806_6, 180.0, 85.051_128_779_806_6],
        1e-9
    ));
    assert_eq!(empty.body["center"], json!([0.0, 20.0, 1.0]));

    // Not analysed yet: the rows themselves are measured.
    insert_entity(&app, "Manchester Joinery", 53.4808, -2.2426).await;
    insert_entity(&app, "London Bakery", 51.5072, -0.1276).await;
    let (_, key) = app.register("Extent Agent").await;
    let admin = app.admin_key().await;
    let listing = app
        .publish(
            &key,
            &admin,
            json!({"entry_type": "listing", "latitude": 53.3498, "longitude": -6.2603,
                   "observed_at_tstamp_utc": "2026-11-01T10:00:00Z",
                   "context": {"title": "Boiler service in Dublin", "price_amount": 80, "currency_code": "EUR"}}),
        )
        .await;
    assert_eq!(
        listing["canonical_table"], "canonical.listings",
        "{listing}"
    );

    let records = app.get("/tiles/records.json").await;
    let bounds = numbers(&records.body["bounds"]);
    assert!(
        close(&bounds, &[-6.2603, 51.5072, -0.1276, 53.4808], 1e-6),
        "{bounds:?}"
    );
    let center = numbers(&records.body["center"]);
    assert!(
        (center[0] - (-6.2603 - 0.1276) / 2.0).abs() < 1e-6,
        "{center:?}"
    );
    assert!(center[1] > 51.5072 && center[1] < 53.4808, "{center:?}");
    // Six degrees wide: a 512-pixel map shows it at zoom 5.
    assert_eq!(center[2], 5.0, "{center:?}");

    // A tileset of one kind looks at that kind only.
    let entities = app.get("/tiles/entities.json").await;
    assert!(
        close(
            &numbers(&entities.body["bounds"]),
            &[-2.2426, 51.5072, -0.1276, 53.4808],
            1e-6
        ),
        "{}",
        entities.body["bounds"]
    );
    let listings = app.get("/tiles/listings.json").await;
    let one = numbers(&listings.body["bounds"]);
    assert!(
        close(&one, &[-6.2603, 53.3498, -6.2603, 53.3498], 1e-6),
        "{one:?}"
    );
    // One record alone: street level, not closer.
    assert_eq!(numbers(&listings.body["center"])[2], 14.0);
}

#[tokio::test]
async fn after_analyze_the_bounds_come_from_the_statistics_without_reading_the_rows() {
    let app = TestApp::new().await;
    app.execute("INSERT INTO canonical.entities (id, display_name, location_lat, location_lng, name_key)
         SELECT gen_random_uuid(), 'Spread ' || i, 53.0 + i * 0.0003, -3.0 + ((i * 7) % 3000) * 0.0006,
                'spread ' || i
         FROM generate_series(0, 2999) AS i").await;
    app.execute("ANALYZE canonical.entities").await;
    // Added after the statistics were taken: not in the bounds until the next ANALYZE (what
    // docs/explorer.md says of the bounds' freshness).
    insert_entity(&app, "Sydney Surf Shop", -33.86, 151.2).await;

    let r = app.get("/tiles/entities.json").await;
    let bounds = numbers(&r.body["bounds"]);
    // 3,000 rows are under ANALYZE's sample size: the sample is every row, and with distinct
    // coordinates (as real places have) the histogram's ends are the smallest and largest.
    assert!(
        close(
            &bounds,
            &[-3.0, 53.0, -3.0 + 2999.0 * 0.0006, 53.0 + 2999.0 * 0.0003],
            1e-6
        ),
        "{bounds:?}"
    );
    app.execute("ANALYZE canonical.entities").await;
    let after = numbers(&app.get("/tiles/entities.json").await.body["bounds"]);
    assert!(
        close(&after, &[-3.0, -33.86, 151.2, 53.0 + 2999.0 * 0.0003], 1e-6),
        "{after:?}"
    );
}

#[tokio::test]
async fn metadata_json_describes_the_tiles_as_gdal_reads_them() {
    let app = TestApp::new().await;
    insert_entity(&app, "Manchester Joinery", 53.4808, -2.2426).await;
    insert_entity(&app, "London Bakery", 51.5072, -0.1276).await;
    let r = app.get("/tiles/metadata.json").await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.headers["cache-control"], "public, max-age=300");
    assert_eq!(r.body["format"], "pbf");
    assert_eq!(r.body["name"], "records");
    assert_eq!(r.body["minzoom"], "0");
    assert_eq!(r.body["maxzoom"], "18");
    let bounds: Vec<f64> = r.body["bounds"]
        .as_str()
        .unwrap()
        .split(',')
        .map(|v| v.parse().unwrap())
        .collect();
    assert!(
        close(&bounds, &[-2.2426, 51.5072, -0.1276, 53.4808], 1e-6),
        "{bounds:?}"
    );
    assert_eq!(r.body["center"].as_str().unwrap().split(',').count(), 3);
    let json: Value = serde_json::from_str(r.body["json"].as_str().unwrap()).unwrap();
    let layers = texts(&json["vector_layers"], "id");
    assert_eq!(layers, ["entities", "listings", "requests"]);
    assert_eq!(
        json["vector_layers"][0]["fields"],
        json!({"id": "String", "kind": "String", "name": "String", "category": "String",
               "confidence": "Number", "count": "Number"})
    );
    assert_eq!(json["tilestats"]["layers"][1]["geometry"], "Point");
    // The TileJSON route beside it keeps its four tilesets.
    assert_eq!(
        app.get("/tiles/nope.json").await.status,
        StatusCode::NOT_FOUND
    );
}
