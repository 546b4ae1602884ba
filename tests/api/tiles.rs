//! Map tiles: `GET /tiles/{z}/{x}/{y}.mvt` decoded with mvt-reader (features, properties, where
//! they fall in the tile), clustering of dense tiles within the documented size bound, filters,
//! records that never show, cache headers, bad input, and `GET /tiles/{tileset}.json`.

use crate::harness::{TestApp, east, entity_entry, locs, texts};
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use mvt_reader::Reader;
use mvt_reader::feature::Value as MvtValue;
use serde_json::json;
use spacetime_records::db::tile_density::{self, Caller, Refreshed};
use std::collections::HashMap;

const MAN: (f64, f64) = (53.4808, -2.2426);
const EXTENT: f64 = 4096.0;

/// The tile holding (lat, lng) at zoom z, and the point's position inside it (0 to 4096).
fn tile_of(lat: f64, lng: f64, z: u32) -> (u32, u32, f64, f64) {
    let n = f64::from(1u32 << z);
    let x = (lng + 180.0) / 360.0 * n;
    let lat = lat.to_radians();
    let y = (1.0 - (lat.tan() + 1.0 / lat.cos()).ln() / std::f64::consts::PI) / 2.0 * n;
    (
        x.floor() as u32,
        y.floor() as u32,
        x.fract() * EXTENT,
        y.fract() * EXTENT,
    )
}

/// The centre of the zoom-z tile holding (lat, lng): records placed within a few hundred metres
/// of it stay in that tile (a zoom-14 tile is about 1.4 km wide at Manchester's latitude).
fn centre(lat: f64, lng: f64, z: u32) -> (f64, f64) {
    let (x, y, _, _) = tile_of(lat, lng, z);
    let n = f64::from(1u32 << z);
    let lng = (f64::from(x) + 0.5) / n * 360.0 - 180.0;
    let lat = (std::f64::consts::PI * (1.0 - 2.0 * (f64::from(y) + 0.5) / n))
        .sinh()
        .atan()
        .to_degrees();
    (lat, lng)
}

/// One decoded feature: its point in tile coordinates and its properties as text.
#[derive(Debug, Clone)]
struct Point {
    x: f64,
    y: f64,
    properties: HashMap<String, String>,
}

impl Point {
    fn get(&self, name: &str) -> Option<&str> {
        self.properties.get(name).map(String::as_str)
    }
}

fn text(value: &MvtValue) -> String {
    match value {
        MvtValue::String(s) => s.clone(),
        MvtValue::Float(f) => f.to_string(),
        MvtValue::Double(f) => f.to_string(),
        MvtValue::Int(i) | MvtValue::SInt(i) => i.to_string(),
        MvtValue::UInt(u) => u.to_string(),
        MvtValue::Bool(b) => b.to_string(),
        MvtValue::Null => "null".into(),
    }
}

/// Layer name → its features, decoded from the tile's bytes.
fn decode(bytes: &[u8]) -> HashMap<String, Vec<Point>> {
    let mut layers = HashMap::new();
    if bytes.is_empty() {
        return layers;
    }
    let reader = Reader::new(bytes.to_vec()).expect("a valid MVT");
    for layer in reader.get_layer_metadata().unwrap() {
        assert_eq!(layer.extent, 4096, "{}", layer.name);
        let features = reader.get_features(layer.layer_index).unwrap();
        let points = features
            .into_iter()
            .map(|feature| {
                let point = match feature.geometry {
                    geo_types::Geometry::Point(p) => p,
                    geo_types::Geometry::MultiPoint(mp) => mp.0[0],
                    other => panic!("a point, not {other:?}"),
                };
                Point {
                    x: f64::from(point.x()),
                    y: f64::from(point.y()),
                    properties: feature
                        .properties
                        .unwrap_or_default()
                        .iter()
                        .map(|(k, v)| (k.clone(), text(v)))
                        .collect(),
                }
            })
            .collect();
        layers.insert(layer.name, points);
    }
    layers
}

async fn tile(app: &TestApp, path: &str) -> HashMap<String, Vec<Point>> {
    let r = app.get(path).await;
    assert_eq!(r.status, StatusCode::OK, "{path}: {}", r.text);
    assert_eq!(
        r.headers[header::CONTENT_TYPE],
        "application/vnd.mapbox-vector-tile"
    );
    decode(&r.bytes)
}

fn ids(points: Option<&Vec<Point>>) -> Vec<String> {
    let mut ids: Vec<String> = points
        .into_iter()
        .flatten()
        .filter_map(|p| p.get("id").map(str::to_string))
        .collect();
    ids.sort();
    ids
}

#[tokio::test]
async fn a_tile_carries_each_record_as_a_point_with_its_properties_in_its_kind_layer() {
    let app = TestApp::new().await;
    let admin = app.admin_key().await;
    let (_, key) = app.register("Tile Source").await;
    let here = centre(MAN.0, MAN.1, 14);
    let entity = app
        .publish(
            &key,
            &admin,
            entity_entry(
                "Tile Plumbing",
                here.0,
                here.1,
                json!({"categories": ["plumber", "heating"]}),
            ),
        )
        .await["canonical_id"]
        .as_str()
        .unwrap()
        .to_string();
    let (lat, lng) = east(here.0, here.1, 300.0);
    let listing = app.publish(&key, &admin, json!({"entry_type": "listing", "latitude": lat, "longitude": lng,
        "context": {"title": "Boiler service", "price_amount": 90, "currency_code": "GBP", "categories": ["heating"]}}))
        .await["canonical_id"].as_str().unwrap().to_string();
    let request = app
        .publish(
            &key,
            &admin,
            json!({"entry_type": "request", "latitude": here.0 - 0.002, "longitude": here.1,
        "context": {"title": "Leaking pipe", "budget_amount": 150, "currency_code": "GBP"}}),
        )
        .await["canonical_id"]
        .as_str()
        .unwrap()
        .to_string();

    let (x, y, px, py) = tile_of(here.0, here.1, 14);
    let path = format!("/tiles/14/{x}/{y}.mvt");
    let r = app.get(&path).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.headers[header::CACHE_CONTROL], "public, max-age=60");
    let etag = r.headers[header::ETAG].to_str().unwrap().to_string();
    assert!(etag.starts_with('"') && etag.ends_with('"'), "{etag}");
    let layers = decode(&r.bytes);

    let entities = &layers["entities"];
    assert_eq!(entities.len(), 1, "{entities:?}");
    let plumber = &entities[0];
    assert_eq!(plumber.get("id"), Some(entity.as_str()));
    assert_eq!(plumber.get("kind"), Some("entity"));
    assert_eq!(plumber.get("name"), Some("Tile Plumbing"));
    assert_eq!(plumber.get("category"), Some("plumber"));
    let confidence: f64 = plumber.get("confidence").unwrap().parse().unwrap();
    assert!((0.0..=1.0).contains(&confidence), "{confidence}");
    assert_eq!(plumber.get("count"), None, "a record is not a cluster");
    // The point is where the record is, to within a tile unit's rounding.
    assert!(
        (plumber.x - px).abs() <= 1.0 && (plumber.y - py).abs() <= 1.0,
        "({}, {}) is not ({px}, {py})",
        plumber.x,
        plumber.y
    );
    assert_eq!(ids(layers.get("listings")), std::slice::from_ref(&listing));
    assert_eq!(layers["listings"][0].get("kind"), Some("listing"));
    assert_eq!(layers["listings"][0].get("name"), Some("Boiler service"));
    assert_eq!(ids(layers.get("requests")), [request]);
    assert_eq!(layers["requests"][0].get("kind"), Some("request"));

    // The same tile again is the same ETag, and If-None-Match answers 304 without a body.
    let again = app
        .send(
            Request::get(&path)
                .header(header::IF_NONE_MATCH, &etag)
                .body(Body::empty())
                .unwrap(),
        )
        .await;
    assert_eq!(again.status, StatusCode::NOT_MODIFIED);
    assert!(again.bytes.is_empty());
    assert_eq!(again.headers[header::ETAG], etag.as_str());

    // Only the asked kinds, one layer each.
    let only = tile(&app, &format!("{path}?kind=listing")).await;
    assert_eq!(only.keys().collect::<Vec<_>>(), ["listings"]);
    // A tile where nothing is: an empty body.
    let (x, y, _, _) = tile_of(-33.86, 151.2, 14);
    let empty = app.get(&format!("/tiles/14/{x}/{y}.mvt")).await;
    assert_eq!(empty.status, StatusCode::OK);
    assert!(empty.bytes.is_empty());
    // A record changed is a new tile and a new ETag.
    sqlx::query("UPDATE canonical.listings SET title = 'Boiler repair' WHERE id = $1::uuid")
        .bind(&listing)
        .execute(app.pool())
        .await
        .unwrap();
    let changed = app.get(&path).await;
    assert_ne!(changed.headers[header::ETAG], etag.as_str());
    assert_eq!(
        decode(&changed.bytes)["listings"][0].get("name"),
        Some("Boiler repair")
    );
}

#[tokio::test]
async fn merged_records_never_show_and_archived_ones_only_when_asked_for() {
    let app = TestApp::new().await;
    let admin = app.admin_key().await;
    let (_, key) = app.register("Tile Source").await;
    let here = centre(MAN.0, MAN.1, 13);
    let mut ids_by_name = HashMap::new();
    for (name, metres) in [
        ("Survivor Bakery", 0.0),
        ("Duplicate Bakery", 40.0),
        ("Archived Bakery", 400.0),
        ("Withdrawn Bakery", 800.0),
    ] {
        let (lat, lng) = east(here.0, here.1, metres - 400.0);
        let r = app
            .publish(
                &key,
                &admin,
                entity_entry(name, lat, lng, json!({"categories": ["bakery"]})),
            )
            .await;
        ids_by_name.insert(name, r["canonical_id"].as_str().unwrap().to_string());
    }
    let merged = app
        .request(
            "POST",
            &format!("/api/v1/entities/{}/merge", ids_by_name["Survivor Bakery"]),
            Some(json!({"merged_id": ids_by_name["Duplicate Bakery"]})),
            Some(&admin),
        )
        .await;
    assert_eq!(merged.status, StatusCode::OK, "{}", merged.text);
    for (name, status) in [
        ("Archived Bakery", "archived"),
        ("Withdrawn Bakery", "withdrawn"),
    ] {
        sqlx::query("UPDATE canonical.entities SET status = $2 WHERE id = $1::uuid")
            .bind(&ids_by_name[name])
            .bind(status)
            .execute(app.pool())
            .await
            .unwrap();
    }
    let (x, y, _, _) = tile_of(here.0, here.1, 13);
    let path = format!("/tiles/13/{x}/{y}.mvt");
    assert_eq!(
        ids(tile(&app, &path).await.get("entities")),
        [ids_by_name["Survivor Bakery"].clone()]
    );
    assert_eq!(
        ids(tile(&app, &format!("{path}?status=archived"))
            .await
            .get("entities")),
        [ids_by_name["Archived Bakery"].clone()]
    );
    // However dense the tile, a merged record is not counted in a cluster either.
    let world = tile(&app, "/tiles/0/0/0.mvt").await;
    assert_eq!(world["entities"].len(), 1);
    let refused = app.get(&format!("{path}?status=merged")).await;
    assert_eq!(refused.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(locs(&refused.body), ["query.status"]);
}

#[tokio::test]
async fn filters_select_records_by_category_status_and_contributing_agent() {
    let app = TestApp::new().await;
    let admin = app.admin_key().await;
    let (alice_id, alice) = app.register("Alice Directory").await;
    let (bob_id, bob) = app.register("Bob Directory").await;
    let here = centre(MAN.0, MAN.1, 12);
    let plumber = app
        .publish(
            &alice,
            &admin,
            entity_entry(
                "Filter Plumbing",
                here.0,
                here.1,
                json!({"categories": ["plumber"]}),
            ),
        )
        .await["canonical_id"]
        .as_str()
        .unwrap()
        .to_string();
    let (lat, lng) = east(here.0, here.1, 500.0);
    let baker = app
        .publish(
            &bob,
            &admin,
            entity_entry("Filter Bakery", lat, lng, json!({"categories": ["bakery"]})),
        )
        .await["canonical_id"]
        .as_str()
        .unwrap()
        .to_string();
    let (x, y, _, _) = tile_of(here.0, here.1, 12);
    let path = format!("/tiles/12/{x}/{y}.mvt");
    let all = ids(tile(&app, &path).await.get("entities"));
    let mut both = vec![plumber.clone(), baker.clone()];
    both.sort();
    assert_eq!(all, both);
    assert_eq!(
        ids(tile(&app, &format!("{path}?category=plumber"))
            .await
            .get("entities")),
        std::slice::from_ref(&plumber)
    );
    assert_eq!(
        ids(tile(&app, &format!("{path}?agent={bob_id}"))
            .await
            .get("entities")),
        std::slice::from_ref(&baker)
    );
    assert_eq!(
        ids(
            tile(&app, &format!("{path}?agent={alice_id}&category=bakery"))
                .await
                .get("entities")
        ),
        Vec::<String>::new()
    );
    // Bob adds evidence to Alice's plumber: it is his record too now.
    app.publish(
        &bob,
        &admin,
        entity_entry(
            "Filter Plumbing",
            here.0,
            here.1,
            json!({"categories": ["plumber"]}),
        ),
    )
    .await;
    assert_eq!(
        ids(tile(&app, &format!("{path}?agent={bob_id}"))
            .await
            .get("entities")),
        both
    );
    assert_eq!(
        ids(tile(&app, &format!("{path}?status=review_required"))
            .await
            .get("entities")),
        Vec::<String>::new()
    );
}

/// 3,000 plumbers named `{prefix} 1` to `{prefix} 3000`, at random within half of `spread`
/// (degrees of latitude, longitude) of `around`, straight into the table: the transformer is not
/// what the tile tests are about.
async fn scatter(app: &TestApp, prefix: &str, around: (f64, f64), spread: (f64, f64)) {
    sqlx::query(
        "INSERT INTO canonical.entities (id, display_name, categories, location_lat, location_lng, name_key, score_confidence)
         SELECT gen_random_uuid(), $1 || ' ' || i, ARRAY['plumber'], $2 + (random() - 0.5) * $4,
                $3 + (random() - 0.5) * $5, lower($1) || ' ' || i, 0.5
         FROM generate_series(1, 3000) AS i",
    )
    .bind(prefix)
    .bind(around.0)
    .bind(around.1)
    .bind(spread.0)
    .bind(spread.1)
    .execute(app.pool())
    .await
    .unwrap();
}

#[tokio::test]
async fn a_dense_tile_is_clustered_within_the_documented_bound() {
    let app = TestApp::new().await;
    // 3,000 entities around Manchester and one alone in Sydney.
    scatter(&app, "Dense", (53.48, -2.24), (0.4, 0.6)).await;
    let lonely: String = sqlx::query_scalar(
        "INSERT INTO canonical.entities (id, display_name, categories, location_lat, location_lng, name_key)
         VALUES (gen_random_uuid(), 'Lonely Surf Shop', ARRAY['surf'], -33.86, 151.2, 'lonely') RETURNING id::text",
    )
    .fetch_one(app.pool())
    .await
    .unwrap();

    for z in [0, 3, 7] {
        let (x, y, _, _) = tile_of(MAN.0, MAN.1, z);
        let r = app.get(&format!("/tiles/{z}/{x}/{y}.mvt")).await;
        assert_eq!(r.status, StatusCode::OK);
        let layers = decode(&r.bytes);
        let features = &layers["entities"];
        assert!(features.len() <= 256, "z{z}: {} features", features.len());
        let clusters: Vec<&Point> = features
            .iter()
            .filter(|f| f.get("count").is_some())
            .collect();
        assert!(!clusters.is_empty(), "z{z} is clustered");
        for cluster in &clusters {
            assert_eq!(cluster.get("kind"), Some("entity"));
            assert_eq!(cluster.get("id"), None, "a cluster is no record");
            assert!(
                cluster.x >= 0.0 && cluster.x <= EXTENT && cluster.y >= 0.0 && cluster.y <= EXTENT
            );
        }
        // Every record in view is counted once: in a cluster or as itself.
        let counted: u64 = features
            .iter()
            .map(|f| f.get("count").map_or(1, |c| c.parse::<u64>().unwrap()))
            .sum();
        let expected = if z == 0 { 3001 } else { 3000 };
        assert_eq!(counted, expected, "z{z}");
        assert!(r.bytes.len() < 16 * 1024, "z{z}: {} bytes", r.bytes.len());
    }
    // At zoom 0 the Sydney shop has a cell of its own: it is drawn as the record it is.
    let world = tile(&app, "/tiles/0/0/0.mvt").await;
    let alone: Vec<&Point> = world["entities"]
        .iter()
        .filter(|f| f.get("id") == Some(lonely.as_str()))
        .collect();
    assert_eq!(alone.len(), 1);
    assert_eq!(alone[0].get("name"), Some("Lonely Surf Shop"));
    assert_eq!(alone[0].get("category"), Some("surf"));

    // Zoomed in, fewer than 400 are in view: every one is a record, nothing is clustered.
    let (x, y, _, _) = tile_of(MAN.0, MAN.1, 15);
    let close = tile(&app, &format!("/tiles/15/{x}/{y}.mvt")).await;
    let features = close.get("entities").cloned().unwrap_or_default();
    assert!(
        features
            .iter()
            .all(|f| f.get("id").is_some() && f.get("count").is_none())
    );
}

/// Records in view counted once each: in a cluster's `count`, or as a record of its own.
fn counted(layers: &HashMap<String, Vec<Point>>) -> u64 {
    layers
        .get("entities")
        .map(|features| {
            features
                .iter()
                .map(|f| f.get("count").map_or(1, |c| c.parse::<u64>().unwrap()))
                .sum()
        })
        .unwrap_or(0)
}

/// Dense tiles of zoom 11 or less are drawn from counts per grid cell once the counts are built
/// (docs/explorer.md, "Density"): the first such tile starts the rebuild in the background and is
/// drawn from the records; afterwards the same records are counted from the counts, a change
/// shows only after the next rebuild, and a filtered tile still reads the records.
#[tokio::test]
async fn low_zoom_tiles_are_drawn_from_counts_per_cell_once_built() {
    let app = TestApp::new().await;
    // 3,000 entities within about 2 km of the centre of a zoom-11 tile, so every tile of zoom
    // 11 or less holding that centre holds them all.
    let here = centre(MAN.0, MAN.1, 11);
    scatter(&app, "Counted", here, (0.04, 0.06)).await;
    let path = |z: u32, filter: &str| {
        let (x, y, _, _) = tile_of(here.0, here.1, z);
        format!("/tiles/{z}/{x}/{y}.mvt{filter}")
    };
    let refreshed_at = || async {
        sqlx::query_scalar::<_, Option<chrono::DateTime<chrono::Utc>>>(
            "SELECT refreshed_at FROM canonical.tile_density_state",
        )
        .fetch_one(app.pool())
        .await
        .unwrap()
    };
    assert_eq!(refreshed_at().await, None);
    assert_eq!(counted(&tile(&app, &path(7, "")).await), 3000);
    let mut waited = 0;
    while refreshed_at().await.is_none() {
        assert!(
            waited < 200,
            "the first low-zoom tile did not start a rebuild"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        waited += 1;
    }
    let per_level: Vec<(i16, i64)> = sqlx::query_as(
        "SELECT level, sum(records)::int8 FROM canonical.tile_density
         WHERE canonical_table = 'canonical.entities' GROUP BY level ORDER BY level",
    )
    .fetch_all(app.pool())
    .await
    .unwrap();
    use spacetime_records::db::tile_density::{COARSEST_LEVEL, FINEST_LEVEL};
    let every_level: Vec<(i16, i64)> = (COARSEST_LEVEL..=FINEST_LEVEL)
        .map(|level| (level, 3000))
        .collect();
    assert_eq!(per_level, every_level);
    for z in [0, 4, 7, 10, 11] {
        let layers = tile(&app, &path(z, "")).await;
        assert_eq!(counted(&layers), 3000, "z{z} from the counts");
        assert!(layers["entities"].len() <= 256, "z{z}");
        assert!(
            layers["entities"].iter().any(|f| f.get("count").is_some()),
            "z{z} is clustered"
        );
    }
    // Fresh counts are not rebuilt again.
    assert_eq!(refresh(&app, 300.0, Caller::Tile).await, None);

    // A third of them archived: the counts still hold them until the next refresh; a filtered
    // tile reads the records.
    app.execute(
        "UPDATE canonical.entities SET status = 'archived' WHERE display_name <= 'Counted 1999'",
    )
    .await;
    let archived: i64 =
        sqlx::query_scalar("SELECT count(*) FROM canonical.entities WHERE status = 'archived'")
            .fetch_one(app.pool())
            .await
            .unwrap();
    assert!(archived > 0);
    assert_eq!(counted(&tile(&app, &path(7, "")).await), 3000);
    assert_eq!(
        counted(&tile(&app, &path(7, "?category=plumber")).await),
        3000 - archived as u64
    );
    assert!(matches!(
        refresh(&app, 0.0, Caller::Tile).await,
        Some(Refreshed::Changed { .. })
    ));
    assert_eq!(
        counted(&tile(&app, &path(7, "")).await),
        3000 - archived as u64
    );
    // Past zoom 11 the tile reads the records: the change shows at once.
    let close = tile(&app, &path(12, "")).await;
    assert!(counted(&close) <= 3000 - archived as u64);
}

async fn refresh(app: &TestApp, max_age_secs: f64, caller: Caller) -> Option<Refreshed> {
    tile_density::refresh_if_due(app.pool(), max_age_secs, caller)
        .await
        .unwrap()
}

/// Every stored count, in key order: kind, level, cell, records and the sums of the positions.
type Cell = (String, i16, i32, i32, i32, f64, f64);

async fn stored_counts(app: &TestApp) -> Vec<Cell> {
    sqlx::query_as(
        "SELECT canonical_table, level, cell_y, cell_x, records, sum_lng, sum_lat
         FROM canonical.tile_density ORDER BY 1, 2, 3, 4",
    )
    .fetch_all(app.pool())
    .await
    .unwrap()
}

async fn notes(app: &TestApp) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM canonical.tile_density_changes")
        .fetch_one(app.pool())
        .await
        .unwrap()
}

/// A refresh recounts only the cells where records changed, from the notes their writes leave
/// (migration 0037), and ends with the counts a whole rebuild groups from every record: after
/// new records, moves, status changes and deletions, of entities and listings alike
/// (docs/explorer.md, "Freshness").
#[tokio::test]
async fn a_refresh_recounts_the_changed_cells_to_what_a_whole_rebuild_counts() {
    let app = TestApp::new().await;
    scatter(&app, "Noted", MAN, (0.4, 0.6)).await;
    assert_eq!(notes(&app).await, 3000, "one note a new record's place");
    // Counts never built: the keeper drops the notes (the first build groups every record).
    assert_eq!(refresh(&app, 300.0, Caller::Keeper).await, None);
    assert_eq!(notes(&app).await, 0);
    assert_eq!(
        refresh(&app, 300.0, Caller::Tile).await,
        Some(Refreshed::Whole)
    );
    // Fresh: neither caller refreshes again, and the keeper keeps the notes for the next one.
    assert_eq!(refresh(&app, 300.0, Caller::Keeper).await, None);

    // An update that leaves place and status alone (most merges) leaves no note.
    app.execute(
        "UPDATE canonical.entities SET description = 'renamed' WHERE display_name LIKE 'Noted 1%'",
    )
    .await;
    assert_eq!(notes(&app).await, 0);
    // New records in another city, moves, a status that hides, deletions, and listings.
    scatter(&app, "Leeds", (53.80, -1.55), (0.1, 0.1)).await;
    app.execute(
        "UPDATE canonical.entities SET location_lat = location_lat + 0.013, location_lng = location_lng - 0.021
         WHERE display_name LIKE 'Noted 2%'",
    )
    .await;
    app.execute(
        "UPDATE canonical.entities SET status = 'withdrawn' WHERE display_name LIKE 'Noted 3%'",
    )
    .await;
    app.execute("DELETE FROM canonical.entities WHERE display_name LIKE 'Noted 4%'")
        .await;
    app.execute(
        "INSERT INTO canonical.listings (id, listing_type, title, location_lat, location_lng)
         SELECT gen_random_uuid(), 'service', 'Listed ' || i, 53.48 + (random() - 0.5) * 0.2,
                -2.24 + (random() - 0.5) * 0.2
         FROM generate_series(1, 500) AS i",
    )
    .await;
    app.execute("UPDATE canonical.listings SET status = 'archived' WHERE title LIKE 'Listed 1%'")
        .await;
    assert!(notes(&app).await > 3000);

    let Some(Refreshed::Changed { cells }) = refresh(&app, 0.0, Caller::Keeper).await else {
        panic!("the keeper recounts the changed cells of built counts");
    };
    assert!(cells > 1000, "{cells} finest cells recounted");
    assert_eq!(notes(&app).await, 0, "the refresh took every note");
    let recounted = stored_counts(&app).await;

    // The same counts grouped whole from the records.
    app.execute("UPDATE canonical.tile_density_state SET changes_noted = false")
        .await;
    assert_eq!(
        refresh(&app, 0.0, Caller::Tile).await,
        Some(Refreshed::Whole)
    );
    let rebuilt = stored_counts(&app).await;
    assert_eq!(recounted.len(), rebuilt.len());
    for (a, b) in recounted.iter().zip(&rebuilt) {
        assert_eq!((&a.0, a.1, a.2, a.3, a.4), (&b.0, b.1, b.2, b.3, b.4));
        // Sums of the same positions, added in another order.
        assert!(
            (a.5 - b.5).abs() < 1e-6 && (a.6 - b.6).abs() < 1e-6,
            "{a:?} against {b:?}"
        );
    }
    let visible: i64 = sqlx::query_scalar(
        "SELECT (SELECT count(*) FROM canonical.entities WHERE status NOT IN ('archived', 'withdrawn', 'merged'))
              + (SELECT count(*) FROM canonical.listings WHERE status NOT IN ('archived', 'withdrawn', 'merged'))",
    )
    .fetch_one(app.pool())
    .await
    .unwrap();
    let coarsest: i64 = rebuilt
        .iter()
        .filter(|cell| cell.1 == tile_density::COARSEST_LEVEL)
        .map(|cell| i64::from(cell.4))
        .sum();
    assert_eq!(coarsest, visible);

    // Again, from the counts a whole rebuild left (the refresh's statements name a temporary
    // table that each refresh creates anew).
    app.execute(
        "UPDATE canonical.entities SET location_lat = location_lat - 0.05 WHERE display_name LIKE 'Leeds 1%'",
    )
    .await;
    assert!(matches!(
        refresh(&app, 0.0, Caller::Keeper).await,
        Some(Refreshed::Changed { .. })
    ));
    let moved: i64 = stored_counts(&app)
        .await
        .iter()
        .filter(|cell| cell.1 == tile_density::COARSEST_LEVEL)
        .map(|cell| i64::from(cell.4))
        .sum();
    assert_eq!(
        moved, visible,
        "a move changes where records are counted, not how many"
    );

    // More notes than recounting cell by cell is worth (past a thirty-second of the stored
    // cells, and at least 10,000): a whole rebuild.
    app.execute(
        "INSERT INTO canonical.entities (id, display_name, location_lat, location_lng, name_key)
         SELECT gen_random_uuid(), 'Many ' || i, 50 + random() * 5, -5 + random() * 5, 'many ' || i
         FROM generate_series(1, 10001) AS i",
    )
    .await;
    assert_eq!(
        refresh(&app, 0.0, Caller::Keeper).await,
        Some(Refreshed::Whole)
    );
    assert_eq!(notes(&app).await, 0);
}

/// The keeper every serving process runs (`services::tile_counts`) refreshes built counts once
/// they are due, with no tile asked for: the service binary over the test's database.
#[tokio::test]
async fn a_serving_process_keeps_built_counts_fresh_without_a_tile() {
    let app = TestApp::new().await;
    scatter(&app, "Kept", MAN, (0.4, 0.6)).await;
    assert_eq!(
        refresh(&app, 10.0, Caller::Tile).await,
        Some(Refreshed::Whole)
    );
    scatter(&app, "Later", (53.80, -1.55), (0.1, 0.1)).await;
    assert_eq!(notes(&app).await, 3000);
    let data_dir = crate::harness::tmp_dir().join(format!("process-{}", uuid::Uuid::new_v4()));
    let _server = crate::processes::spawn(
        app.database_url(),
        &[],
        data_dir,
        &[("STRS_TILE_COUNTS_MAX_AGE_SECS", "10")],
    )
    .await;
    let counted = || async {
        let coarsest: i64 = sqlx::query_scalar(
            "SELECT coalesce(sum(records), 0)::int8 FROM canonical.tile_density WHERE level = $1",
        )
        .bind(tile_density::COARSEST_LEVEL)
        .fetch_one(app.pool())
        .await
        .unwrap();
        coarsest
    };
    let started = std::time::Instant::now();
    while notes(&app).await > 0 || counted().await != 6000 {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(45),
            "the keeper did not refresh the counts within 45 s (period 10 s)"
        );
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
    }
}

#[tokio::test]
async fn the_largest_possible_layer_stays_under_the_documented_byte_bound() {
    let app = TestApp::new().await;
    // 400 records (the most a layer sends one by one) with the longest names and categories the
    // table allows, in four-byte characters: the worst case of docs/explorer.md.
    let here = centre(MAN.0, MAN.1, 14);
    sqlx::query(
        "INSERT INTO canonical.entities (id, display_name, categories, location_lat, location_lng, name_key, score_confidence)
         SELECT gen_random_uuid(), lpad(i::text, 3, '0') || repeat('𝔘', 297), ARRAY[lpad(i::text, 3, '0') || repeat('𝔠', 97)], $1 + (i % 20) * 0.0001,
                $2 + (i / 20) * 0.0001, 'long ' || i, (i % 100) / 100.0
         FROM generate_series(1, 400) AS i",
    )
    .bind(here.0 - 0.001)
    .bind(here.1 - 0.001)
    .execute(app.pool())
    .await
    .unwrap();
    let (x, y, _, _) = tile_of(here.0, here.1, 14);
    let r = app.get(&format!("/tiles/14/{x}/{y}.mvt")).await;
    let layers = decode(&r.bytes);
    assert_eq!(layers["entities"].len(), 400, "sent one by one");
    for f in &layers["entities"] {
        assert_eq!(f.get("name").unwrap().chars().count(), 48);
        assert_eq!(f.get("category").unwrap().chars().count(), 32);
    }
    assert!(
        r.bytes.len() <= 160 * 1024,
        "{} bytes: over the bound of docs/explorer.md",
        r.bytes.len()
    );
}

#[tokio::test]
async fn bad_tile_coordinates_and_filters_answer_422_with_their_loc() {
    let app = TestApp::new().await;
    for (path, expected) in [
        ("/tiles/23/0/0.mvt", vec!["path.z"]),
        ("/tiles/-1/0/0.mvt", vec!["path.z"]),
        ("/tiles/a/0/0.mvt", vec!["path.z"]),
        ("/tiles/2/4/0.mvt", vec!["path.x"]),
        ("/tiles/2/0/4.mvt", vec!["path.y"]),
        ("/tiles/2/1.5/x.mvt", vec!["path.x", "path.y"]),
        ("/tiles/0/0/0.mvt?status=open", vec!["query.status"]),
        ("/tiles/0/0/0.mvt?status=merged", vec!["query.status"]),
        ("/tiles/0/0/0.mvt?agent=me", vec!["query.agent"]),
        ("/tiles/0/0/0.mvt?kind=entity,place", vec!["query.kind"]),
        ("/tiles/0/0/0.mvt?category=", vec!["query.category"]),
        (
            "/tiles/0/0/9.mvt?kind=&agent=1",
            vec!["path.y", "query.kind", "query.agent"],
        ),
        ("/tiles/records.json?status=nope", vec!["query.status"]),
        ("/tiles/entities.json?kind=listing", vec!["query.kind"]),
    ] {
        assert_eq!(app.refused_at(path).await, expected, "{path}");
    }
    for path in [
        "/tiles/0/0/0",
        "/tiles/0/0/0.png",
        "/tiles/roads.json",
        "/tiles/records",
    ] {
        assert_eq!(app.get(path).await.status, StatusCode::NOT_FOUND, "{path}");
    }
}

#[tokio::test]
async fn tilejson_describes_the_layers_and_carries_the_filters_into_the_tile_url() {
    let app = TestApp::new().await;
    let get = |path: &str| {
        Request::get(path)
            .header(header::HOST, "maps.example:8080")
            .body(Body::empty())
            .unwrap()
    };
    let r = app.send(get("/tiles/records.json")).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.body["tilejson"], "3.0.0");
    assert_eq!(
        r.body["tiles"],
        json!(["http://maps.example:8080/tiles/{z}/{x}/{y}.mvt"])
    );
    let layers = texts(&r.body["vector_layers"], "id");
    assert_eq!(layers, ["entities", "listings", "requests"]);
    for field in ["id", "kind", "name", "category", "confidence", "count"] {
        assert!(
            r.body["vector_layers"][0]["fields"][field].is_string(),
            "{field}"
        );
    }
    let agent = uuid::Uuid::now_v7();
    let filtered = app
        .send(get(&format!(
            "/tiles/entities.json?category=plumber&status=active&agent={agent}"
        )))
        .await;
    assert_eq!(filtered.status, StatusCode::OK, "{}", filtered.text);
    assert_eq!(
        filtered.body["tiles"],
        json!([format!(
            "http://maps.example:8080/tiles/{{z}}/{{x}}/{{y}}.mvt?kind=entity&status=active&category=plumber&agent={agent}"
        )])
    );
    assert_eq!(filtered.body["vector_layers"].as_array().unwrap().len(), 1);
    // A Host header that is not a plain host is never written into a URL.
    let odd = app
        .send(
            Request::get("/tiles/listings.json")
                .header(header::HOST, "evil\"host")
                .body(Body::empty())
                .unwrap(),
        )
        .await;
    assert_eq!(
        odd.body["tiles"],
        json!(["/tiles/{z}/{x}/{y}.mvt?kind=listing"])
    );
}
