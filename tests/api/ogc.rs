//! OGC API – Features over the canonical records, as QGIS and GDAL read it: the landing page's
//! links, the conformance classes, three collections with their extent, pages of GeoJSON features
//! that page to the end both ways, `bbox` and `datetime` filters, single features, HTML, and a
//! 400 or 404 (never a 500, never a silently ignored parameter) for what it cannot answer.

use crate::harness::{TestApp, TestResponse, entity_entry};
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use serde_json::{Value, json};
use std::collections::BTreeSet;

/// Far enough apart and unlike enough that the transformer keeps them apart.
const PLACES: [(&str, f64, f64); 5] = [
    ("Ardwick Lantern Works", 53.470, -2.220),
    ("Burnage Bicycle Exchange", 53.430, -2.200),
    ("Chorlton Ceramic Studio", 53.440, -2.280),
    ("Didsbury Quill Bindery", 53.415, -2.230),
    ("Southwark Harbour Chandlery", 51.500, -0.090),
];

async fn publish_places(app: &TestApp) -> Vec<String> {
    let (_, key) = app.register("OGC Publisher").await;
    let admin = app.admin_key().await;
    let mut ids = Vec::new();
    for (name, lat, lng) in PLACES {
        let processed = app
            .publish(&key, &admin, entity_entry(name, lat, lng, json!({})))
            .await;
        assert_eq!(processed["link_type"], "created", "{processed}");
        ids.push(processed["canonical_id"].as_str().unwrap().to_string());
    }
    ids
}

async fn get_with(app: &TestApp, path: &str, accept: &str) -> TestResponse {
    let request = Request::get(path)
        .header(header::HOST, "gis.test")
        .header(header::ACCEPT, accept)
        .body(Body::empty())
        .unwrap();
    app.send(request).await
}

fn content_type(r: &TestResponse) -> &str {
    r.headers[header::CONTENT_TYPE].to_str().unwrap()
}

fn link<'a>(body: &'a Value, rel: &str) -> Option<&'a str> {
    body["links"]
        .as_array()?
        .iter()
        .find(|l| l["rel"] == rel)
        .and_then(|l| l["href"].as_str())
}

/// The path and query of an absolute link (the test app is driven in-process).
fn local(href: &str) -> String {
    href.strip_prefix("http://gis.test")
        .unwrap_or(href)
        .to_string()
}

fn ids(page: &Value) -> Vec<String> {
    page["features"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn the_landing_page_links_the_conformance_classes_the_collections_and_the_openapi_document() {
    let app = TestApp::new().await;
    let r = get_with(&app, "/", "application/json").await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(
        link(&r.body, "conformance"),
        Some("http://gis.test/conformance")
    );
    assert_eq!(link(&r.body, "data"), Some("http://gis.test/collections"));
    assert_eq!(
        link(&r.body, "service-desc"),
        Some("http://gis.test/openapi.json")
    );
    assert_eq!(
        link(&r.body, "service-doc"),
        Some("http://gis.test/api-docs")
    );
    assert!(link(&r.body, "self").is_some());

    let r = app.get("/conformance").await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(content_type(&r), "application/json");
    let classes: Vec<&str> = r.body["conformsTo"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    for class in ["core", "geojson", "html", "oas30"] {
        let uri = format!("http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/{class}");
        assert!(classes.contains(&uri.as_str()), "{classes:?}");
    }
}

#[tokio::test]
async fn the_three_collections_carry_the_extent_of_their_records() {
    let app = TestApp::new().await;
    let empty = get_with(&app, "/collections", "application/json").await;
    assert_eq!(empty.status, StatusCode::OK);
    let names: Vec<&str> = empty.body["collections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["entities", "listings", "requests"]);
    // No records yet: the whole world, an open time span.
    let entities = &empty.body["collections"][0];
    assert_eq!(
        entities["extent"]["spatial"]["bbox"][0],
        json!([-180.0, -90.0, 180.0, 90.0])
    );
    assert_eq!(
        entities["extent"]["temporal"]["interval"][0],
        json!([null, null])
    );

    publish_places(&app).await;
    let r = get_with(&app, "/collections/entities", "application/json").await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.body["id"], "entities");
    assert_eq!(r.body["itemType"], "feature");
    assert_eq!(
        r.body["extent"]["spatial"]["crs"],
        "http://www.opengis.net/def/crs/OGC/1.3/CRS84"
    );
    let bbox: Vec<f64> = r.body["extent"]["spatial"]["bbox"][0]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    let expected = [-2.280, 51.500, -0.090, 53.470];
    for (got, want) in bbox.iter().zip(expected) {
        assert!((got - want).abs() < 1e-6, "{bbox:?}");
    }
    assert!(r.body["extent"]["temporal"]["interval"][0][0].is_string());
    let items = link(&r.body, "items").unwrap();
    assert_eq!(items, "http://gis.test/collections/entities/items");
}

#[tokio::test]
async fn items_page_to_the_end_and_back_with_next_and_prev_links() {
    let app = TestApp::new().await;
    let published = publish_places(&app).await;
    let mut seen = Vec::new();
    let mut pages = Vec::new();
    let mut next = Some("/collections/entities/items?limit=2".to_string());
    while let Some(path) = next {
        let r = get_with(&app, &path, "application/geo+json").await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.text);
        assert_eq!(content_type(&r), "application/geo+json");
        assert_eq!(r.body["type"], "FeatureCollection");
        assert_eq!(
            r.body["numberReturned"],
            r.body["features"].as_array().unwrap().len()
        );
        assert!(r.body["timeStamp"].is_string());
        assert!(link(&r.body, "self").unwrap().contains("limit=2"));
        seen.extend(ids(&r.body));
        next = link(&r.body, "next").map(local);
        pages.push(r.body);
        assert!(pages.len() <= 3, "paging does not end");
    }
    assert_eq!(
        pages.iter().map(|p| ids(p).len()).collect::<Vec<_>>(),
        [2, 2, 1]
    );
    // Newest first, every record once.
    let mut newest_first = published.clone();
    newest_first.reverse();
    assert_eq!(seen, newest_first);
    assert!(link(&pages[0], "prev").is_none());
    // Back from the last page: the pages come again, the same records in the same order.
    let back = local(link(&pages[2], "prev").unwrap());
    let r = get_with(&app, &back, "application/geo+json").await;
    assert_eq!(ids(&r.body), ids(&pages[1]));
    let back = local(link(&r.body, "prev").unwrap());
    let r = get_with(&app, &back, "application/geo+json").await;
    assert_eq!(ids(&r.body), ids(&pages[0]));
    assert!(link(&r.body, "prev").is_none(), "{}", r.text);
    assert!(link(&r.body, "next").is_some());
}

#[tokio::test]
async fn a_feature_has_its_id_outside_its_properties_and_numbers_for_scores() {
    let app = TestApp::new().await;
    let published = publish_places(&app).await;
    let r = app.get("/collections/entities/items?limit=1").await;
    let feature = &r.body["features"][0];
    assert_eq!(feature["type"], "Feature");
    assert_eq!(feature["geometry"]["type"], "Point");
    assert!(feature["properties"].get("id").is_none());
    assert!(
        feature["properties"]["score_confidence"].is_f64(),
        "{feature}"
    );
    assert!(
        feature["properties"]["score_data_richness"].is_f64(),
        "{feature}"
    );
    assert_eq!(
        feature["properties"]["display_name"],
        "Southwark Harbour Chandlery"
    );
    // REST keeps the specification's decimal strings.
    let rest = app.get(&format!("/api/v1/entities/{}", published[4])).await;
    assert!(rest.body["score_confidence"].is_string());

    let path = format!("/collections/entities/items/{}", published[0]);
    let one = get_with(&app, &path, "application/geo+json").await;
    assert_eq!(one.status, StatusCode::OK, "{}", one.text);
    assert_eq!(content_type(&one), "application/geo+json");
    assert_eq!(one.body["id"], published[0].as_str());
    assert_eq!(one.body["geometry"]["coordinates"], json!([-2.220, 53.470]));
    assert_eq!(
        link(&one.body, "collection"),
        Some("http://gis.test/collections/entities")
    );
    // An entity is not a listing.
    let wrong = app
        .get(&format!("/collections/listings/items/{}", published[0]))
        .await;
    assert_eq!(wrong.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn bbox_and_datetime_filter_the_features() {
    let app = TestApp::new().await;
    let published = publish_places(&app).await;
    let manchester = app
        .get("/collections/entities/items?bbox=-2.30,53.40,-2.19,53.48")
        .await;
    assert_eq!(manchester.status, StatusCode::OK, "{}", manchester.text);
    let found: BTreeSet<String> = ids(&manchester.body).into_iter().collect();
    assert_eq!(found, published[..4].iter().cloned().collect());
    assert!(
        link(&manchester.body, "self")
            .unwrap()
            .contains("bbox=-2.30%2C53.40%2C-2.19%2C53.48")
    );
    // The 3D form, heights ignored.
    let london = app
        .get("/collections/entities/items?bbox=-0.2,51.4,0,0.0,51.6,100")
        .await;
    assert_eq!(ids(&london.body), [published[4].clone()]);

    for (datetime, count) in [
        ("2000-01-01T00:00:00Z/..", 5),
        ("../2000-01-01T00:00:00Z", 0),
        ("2000-01-01/2000-12-31", 0),
        ("2000-01-01T00:00:00Z/2999-01-01T00:00:00Z", 5),
        ("1999-12-31", 0),
    ] {
        let r = app
            .get(&format!("/collections/entities/items?datetime={datetime}"))
            .await;
        assert_eq!(r.status, StatusCode::OK, "{datetime}: {}", r.text);
        assert_eq!(r.body["numberReturned"], count, "{datetime}");
    }
}

#[tokio::test]
async fn what_cannot_be_answered_is_a_400_or_a_404_with_a_json_body() {
    let app = TestApp::new().await;
    for query in [
        "bbox=1,2,3",
        "bbox=-2,53,-3,52",
        "bbox=a,b,c,d",
        "datetime=yesterday",
        "datetime=2026-11-02/2026-11-01",
        "limit=0",
        "limit=ten",
        "cursor=not-a-cursor",
        "f=xml",
        "colour=red",
        "limit=5&limit=6",
    ] {
        let r = app
            .get(&format!("/collections/entities/items?{query}"))
            .await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{query}: {}", r.text);
        assert_eq!(r.body["code"], "BAD_REQUEST", "{query}");
        assert!(
            r.body["detail"].as_str().unwrap().contains(':'),
            "{query}: {}",
            r.text
        );
    }
    for path in [
        "/conformance?f=xml",
        "/collections?f=geojson",
        "/collections/entities?x=1",
    ] {
        assert_eq!(
            app.get(path).await.status,
            StatusCode::BAD_REQUEST,
            "{path}"
        );
    }
    // Past the maximum, the page is lowered to it rather than refused.
    let r = app.get("/collections/entities/items?limit=5000").await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(link(&r.body, "self").unwrap().contains("limit=1000"));

    for path in [
        "/collections/parcels",
        "/collections/parcels/items",
        "/collections/entities/items/018f0000-0000-7000-8000-000000000000",
        "/collections/entities/items/not-a-uuid",
        "/collections/parcels/items/018f0000-0000-7000-8000-000000000000",
    ] {
        let r = app.get(path).await;
        assert_eq!(r.status, StatusCode::NOT_FOUND, "{path}: {}", r.text);
        assert_eq!(r.body["code"], "NOT_FOUND", "{path}");
    }
}

#[tokio::test]
async fn a_browser_gets_html_and_f_chooses_over_accept() {
    let app = TestApp::new().await;
    let published = publish_places(&app).await;
    let browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
    let item = format!("/collections/entities/items/{}", published[0]);
    for path in [
        "/conformance",
        "/collections",
        "/collections/entities",
        "/collections/entities/items",
        &item,
    ] {
        let r = get_with(&app, path, browser).await;
        assert_eq!(r.status, StatusCode::OK, "{path}");
        assert!(content_type(&r).starts_with("text/html"), "{path}");
        assert!(r.headers[header::VARY].to_str().unwrap().contains("accept"));
        let json = get_with(&app, &format!("{path}?f=json"), browser).await;
        assert!(content_type(&json).contains("json"), "{path}");
    }
    let page = get_with(
        &app,
        "/collections/entities/items?f=html",
        "application/json",
    )
    .await;
    assert!(page.text.contains("Ardwick Lantern Works"));
    assert!(page.text.contains(&format!(
        "/collections/entities/items/{}?f=html",
        published[0]
    )));
    let geojson = get_with(&app, "/collections/entities/items?f=geojson", browser).await;
    assert_eq!(content_type(&geojson), "application/geo+json");
}

#[tokio::test]
async fn each_collection_describes_its_features_with_a_json_schema_gis_clients_type_columns_from() {
    let app = TestApp::new().await;
    let collection = get_with(&app, "/collections/listings", "application/json").await;
    let described = collection.body["links"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["rel"] == "describedBy")
        .unwrap();
    assert_eq!(described["type"], "application/schema+json");
    for (kind, amount) in [
        ("entities", None),
        ("listings", Some("price_amount")),
        ("requests", Some("budget_amount")),
    ] {
        let r = app.get(&format!("/collections/{kind}/schema")).await;
        assert_eq!(r.status, StatusCode::OK, "{kind}");
        assert_eq!(content_type(&r), "application/schema+json");
        let fields = &r.body["properties"]["properties"]["properties"];
        for number in [
            "score_confidence",
            "score_signal",
            "score_data_richness",
            "location_lat",
        ] {
            assert_eq!(
                fields[number]["type"], "number",
                "{kind} {number}: {fields}"
            );
        }
        if let Some(amount) = amount {
            assert_eq!(fields[amount]["type"], "number", "{kind}");
        }
        assert_eq!(
            fields["updated_at_tstamp_utc"],
            json!({"type": "string", "format": "date-time"})
        );
        assert_eq!(
            fields["categories"],
            json!({"type": "array", "items": {"type": "string"}})
        );
        assert_eq!(fields["context_l1_common"]["type"], "object");
        assert!(fields.get("id").is_none());
    }
    assert_eq!(
        app.get("/collections/parcels/schema").await.status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        app.get("/collections/entities/schema?f=json").await.status,
        StatusCode::BAD_REQUEST
    );
}
