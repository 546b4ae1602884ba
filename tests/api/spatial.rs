//! Records inside an area: GraphQL `entitiesWithin` (box and polygon) and the REST lists' `bbox`,
//! and GeoJSON answers (`Accept: application/geo+json`) on the REST lists.

use crate::harness::{TestApp, east, entity_entry};
use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::{Value, json};

const MAN: (f64, f64) = (53.4808, -2.2426);

/// Publishes an entity per (name, latitude, longitude) and returns their ids in that order.
async fn seed(app: &TestApp, places: &[(&str, f64, f64)]) -> Vec<String> {
    let admin = app.admin_key().await;
    let (_, key) = app.register("Area Source").await;
    let mut ids = Vec::new();
    for (name, lat, lng) in places {
        let r = app
            .publish(&key, &admin, entity_entry(name, *lat, *lng, json!({})))
            .await;
        ids.push(r["canonical_id"].as_str().unwrap().to_string());
    }
    ids
}

fn names(connection: &Value) -> Vec<String> {
    let mut names: Vec<String> = connection["edges"]
        .as_array()
        .unwrap_or_else(|| panic!("no edges in {connection}"))
        .iter()
        .map(|e| e["node"]["displayName"].as_str().unwrap().to_string())
        .collect();
    names.sort();
    names
}

async fn within(app: &TestApp, arguments: &str) -> Value {
    let q = format!(
        "{{ entitiesWithin({arguments}) {{ edges {{ cursor node {{ id displayName }} }} pageInfo {{ hasNextPage endCursor }} }} }}"
    );
    let r = app.graphql(&q, json!({}), None).await;
    assert!(r.body["errors"].is_null(), "{}", r.text);
    r.body["data"]["entitiesWithin"].clone()
}

#[tokio::test]
async fn a_box_or_a_polygon_selects_the_records_inside_it() {
    let app = TestApp::new().await;
    let (north_lat, north_lng) = (MAN.0 + 0.02, MAN.1);
    let (far_lat, far_lng) = east(MAN.0, MAN.1, 20_000.0);
    let ids = seed(
        &app,
        &[
            ("Centre Cafe", MAN.0, MAN.1),
            ("Northern Quarter Deli", north_lat, north_lng),
            ("Far East Garage", far_lat, far_lng),
            ("Fiji Dive Shop", -17.8, 179.9),
            ("Samoa Surf School", -13.8, -171.8),
            ("Archived Arcade", MAN.0 + 0.001, MAN.1),
        ],
    )
    .await;
    sqlx::query("UPDATE canonical.entities SET status = 'archived' WHERE id = $1::uuid")
        .bind(&ids[5])
        .execute(app.pool())
        .await
        .unwrap();

    let city = "bbox: {west: -2.30, south: 53.45, east: -2.20, north: 53.51}";
    assert_eq!(
        names(&within(&app, city).await),
        ["Centre Cafe", "Northern Quarter Deli"]
    );
    // Archived records only when asked for by status.
    assert_eq!(
        names(&within(&app, &format!("{city}, status: \"archived\"")).await),
        ["Archived Arcade"]
    );
    // West greater than east: the box crosses the antimeridian and holds both islands.
    let pacific = "bbox: {west: 170, south: -25, east: -165, north: -10}";
    assert_eq!(
        names(&within(&app, pacific).await),
        ["Fiji Dive Shop", "Samoa Surf School"]
    );
    // A triangle around the centre that leaves the northern deli outside.
    let triangle = json!({"type": "Polygon", "coordinates": [[
        [-2.26, 53.47], [-2.22, 53.47], [-2.24, 53.49], [-2.26, 53.47]]]});
    let r = app
        .graphql(
            "query($p: JSON) { entitiesWithin(polygon: $p) { edges { node { displayName } } } }",
            json!({"p": triangle}),
            None,
        )
        .await;
    assert_eq!(
        names(&r.body["data"]["entitiesWithin"]),
        ["Centre Cafe"],
        "{}",
        r.text
    );

    // Pages of one, newest first, joined by the cursor.
    let first = within(&app, &format!("{city}, first: 1")).await;
    assert_eq!(first["pageInfo"]["hasNextPage"], true);
    let after = first["pageInfo"]["endCursor"].as_str().unwrap();
    let second = within(&app, &format!("{city}, first: 1, after: \"{after}\"")).await;
    assert_eq!(second["pageInfo"]["hasNextPage"], false);
    let mut both = [names(&first), names(&second)].concat();
    both.sort();
    assert_eq!(both, ["Centre Cafe", "Northern Quarter Deli"]);
    assert_eq!(first["edges"][0]["node"]["id"], ids[1], "newest first");

    // The REST list's bbox is the same question.
    let rest = app
        .get("/api/v1/entities?bbox=-2.30,53.45,-2.20,53.51")
        .await;
    assert_eq!(rest.status, StatusCode::OK, "{}", rest.text);
    let mut rest_ids: Vec<&str> = rest
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_str().unwrap())
        .collect();
    rest_ids.sort();
    let mut expected = vec![ids[0].as_str(), ids[1].as_str()];
    expected.sort();
    assert_eq!(rest_ids, expected);
}

#[tokio::test]
async fn bad_areas_are_refused_at_their_argument() {
    let app = TestApp::new().await;
    let cases = [
        ("first: 1", "[\"bbox\"]"),
        (
            "bbox: {west: 0, south: 0, east: 1, north: 1}, polygon: {type: \"Polygon\"}",
            "[\"bbox\"]",
        ),
        (
            "bbox: {west: 0, south: 10, east: 1, north: 5}",
            "[\"bbox\",\"north\"]",
        ),
        (
            "bbox: {west: 0, south: 0, east: 181, north: 1}",
            "[\"bbox\",\"east\"]",
        ),
        (
            "polygon: {type: \"Point\", coordinates: [0, 0]}",
            "[\"polygon\"]",
        ),
        (
            "polygon: {type: \"Polygon\", coordinates: [[[0, 0], [1, 0], [0, 0]]]}",
            "[\"polygon\"]",
        ),
    ];
    for (arguments, loc) in cases {
        let q = format!("{{ entitiesWithin({arguments}) {{ edges {{ cursor }} }} }}");
        let r = app.graphql(&q, json!({}), None).await;
        let error = &r.body["errors"][0];
        assert_eq!(
            error["extensions"]["code"], "VALIDATION_ERROR",
            "{arguments}: {}",
            r.text
        );
        assert_eq!(
            serde_json::to_string(&error["extensions"]["detail"][0]["loc"]).unwrap(),
            loc,
            "{arguments}: {}",
            r.text
        );
    }
    for bbox in ["1,2,3", "a,b,c,d", "0,10,1,5"] {
        let r = app.get(&format!("/api/v1/listings?bbox={bbox}")).await;
        assert_eq!(
            r.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{bbox}: {}",
            r.text
        );
        assert_eq!(r.body["detail"][0]["loc"][0], "query", "{}", r.text);
        assert_eq!(r.body["detail"][0]["loc"][1], "bbox", "{}", r.text);
    }
}

async fn get_geojson(app: &TestApp, path: &str) -> Value {
    let r = app
        .send(
            Request::get(path)
                .header("accept", "application/geo+json")
                .body(Body::empty())
                .unwrap(),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{path}: {}", r.text);
    assert_eq!(r.headers["content-type"], "application/geo+json");
    r.body
}

#[tokio::test]
async fn lists_answer_geojson_feature_collections_of_the_same_records() {
    let app = TestApp::new().await;
    let ids = seed(&app, &[("Geo Grocer", MAN.0, MAN.1)]).await;
    let admin = app.admin_key().await;
    let (_, key) = app.register("Offer Source").await;
    app.publish(&key, &admin, json!({"entry_type": "listing", "latitude": MAN.0, "longitude": MAN.1,
        "observed_at_tstamp_utc": "2026-11-01T10:00:00Z",
        "context": {"title": "Fresh bread", "price_amount": 3, "currency_code": "GBP", "provider_entity_id": ids[0]}}))
        .await;

    // `send` validates every body against the schema /openapi.json gives its media type.
    for path in [
        "/api/v1/entities",
        "/api/v1/entities?bbox=-2.3,53.4,-2.2,53.5",
        "/api/v1/listings",
        "/api/v1/requests",
        "/api/v1/space-time-entries",
    ] {
        let plain = app.get(path).await;
        let geo = get_geojson(&app, path).await;
        assert_eq!(geo["type"], "FeatureCollection", "{path}");
        let features = geo["features"].as_array().unwrap();
        let array = plain.body.as_array().unwrap();
        assert_eq!(features.len(), array.len(), "{path}");
        for (feature, record) in features.iter().zip(array) {
            assert_eq!(feature["id"], record["id"]);
            assert_eq!(
                &feature["properties"], record,
                "properties are the record as JSON"
            );
            let coordinates = &feature["geometry"]["coordinates"];
            let (lat, lng) = if path.contains("entries") {
                (&record["latitude"], &record["longitude"])
            } else {
                (&record["location_lat"], &record["location_lng"])
            };
            assert_eq!(coordinates, &json!([lng, lat]), "longitude first");
        }
    }
    let entities = get_geojson(&app, "/api/v1/entities").await;
    assert_eq!(
        entities["features"][0]["properties"]["display_name"],
        "Geo Grocer"
    );

    let search = get_geojson(&app, "/api/v1/search?query=grocer").await;
    assert_eq!(search["features"][0]["id"], ids[0], "{search}");
    assert_eq!(search["query"]["query"], "grocer");
}
