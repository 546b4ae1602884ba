//! `f=geojson` wherever REST offers GeoJSON (lists and search), as well as the `Accept` header;
//! `f` wins over `Accept`, and an unknown `f` is a 422 at `query.f`, never silently ignored.

use crate::harness::{TestApp, entity_entry};
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use serde_json::json;

fn content_type(r: &crate::harness::TestResponse) -> &str {
    r.headers[header::CONTENT_TYPE].to_str().unwrap()
}

#[tokio::test]
async fn f_geojson_gives_a_feature_collection_on_every_list_and_search() {
    let app = TestApp::new().await;
    let (_, key) = app.register("Format Publisher").await;
    let admin = app.admin_key().await;
    app.publish(
        &key,
        &admin,
        entity_entry("Format Bakery", 53.48, -2.24, json!({})),
    )
    .await;
    for path in [
        "/api/v1/entities?f=geojson",
        "/api/v1/listings?f=geojson",
        "/api/v1/requests?f=geojson",
        "/api/v1/space-time-entries?f=geojson",
        "/api/v1/entities?f=geojson&bbox=-2.3,53.4,-2.2,53.5",
        "/api/v1/search?query=bakery&f=geojson",
    ] {
        let r = app.get(path).await;
        assert_eq!(r.status, StatusCode::OK, "{path}: {}", r.text);
        assert_eq!(content_type(&r), "application/geo+json", "{path}");
        assert_eq!(r.body["type"], "FeatureCollection", "{path}");
    }
    let entities = app.get("/api/v1/entities?f=geojson").await;
    assert_eq!(
        entities.body["features"][0]["properties"]["display_name"],
        "Format Bakery"
    );

    // `f=json` wins over an Accept that asks for GeoJSON.
    let request = Request::get("/api/v1/entities?f=json")
        .header(header::ACCEPT, "application/geo+json")
        .body(Body::empty())
        .unwrap();
    let r = app.send(request).await;
    assert_eq!(content_type(&r), "application/json");
    assert!(r.body.is_array());
}

#[tokio::test]
async fn an_unknown_f_is_refused_with_its_loc() {
    let app = TestApp::new().await;
    for path in [
        "/api/v1/entities?f=xml",
        "/api/v1/listings?f=GeoJSON",
        "/api/v1/space-time-entries?f=csv",
        "/api/v1/search?query=bakery&f=kml",
    ] {
        assert_eq!(app.refused_at(path).await, ["query.f"], "{path}");
    }
}
