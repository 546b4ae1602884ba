//! The bulk export as analysts' tools read it: each format's body parses with that format's own
//! reader (the parquet crate, the flatgeobuf crate, line by line, the csv crate) and holds every
//! record with its sources; the filters narrow the rows; bad filters are 422 with their `loc`;
//! the order is by id and stable; merged and withdrawn records are exported with their status,
//! as the REST lists show them; an export longer than one read streams through every chunk.

use crate::harness::{TestApp, TestResponse, entity_entry, locs, texts};
use arrow_array::cast::AsArray;
use arrow_array::types::Float64Type;
use arrow_array::{Array, ArrayRef, PrimitiveArray, RecordBatch};
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use bytes::Bytes;
use flatgeobuf::{FallibleStreamingIterator, FeatureProperties, FgbReader};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use serde_json::{Value, json};

/// Far enough apart and unlike enough that the transformer keeps them apart.
const PLACES: [(&str, f64, f64, &str); 5] = [
    ("Ardwick Lantern Works", 53.470, -2.220, "lighting"),
    ("Burnage Bicycle Exchange", 53.430, -2.200, "bicycles"),
    ("Chorlton Ceramic Studio", 53.440, -2.280, "pottery"),
    ("Didsbury Quill Bindery", 53.415, -2.230, "bookbinding"),
    ("Southwark Harbour Chandlery", 51.500, -0.090, "chandlery"),
];

/// The five places (the last one in London), each with its own category; their ids.
async fn publish_places(app: &TestApp) -> Vec<String> {
    let (_, key) = app.register("Export Publisher").await;
    let admin = app.admin_key().await;
    let mut ids = Vec::new();
    for (name, lat, lng, category) in PLACES {
        let processed = app
            .publish(
                &key,
                &admin,
                entity_entry(name, lat, lng, json!({"categories": [category]})),
            )
            .await;
        assert_eq!(processed["link_type"], "created", "{processed}");
        ids.push(processed["canonical_id"].as_str().unwrap().to_string());
    }
    ids
}

async fn export(app: &TestApp, path: &str) -> TestResponse {
    let r = app.get(path).await;
    assert_eq!(r.status, StatusCode::OK, "{path}: {}", r.text);
    r
}

fn content_type(r: &TestResponse) -> &str {
    r.headers[header::CONTENT_TYPE].to_str().unwrap()
}

/// The features of a GeoJSON sequence, RS bytes or not.
fn features(r: &TestResponse) -> Vec<Value> {
    r.text
        .lines()
        .map(|line| serde_json::from_str(line.trim_start_matches('\u{1e}')).unwrap())
        .collect()
}

fn feature_ids(r: &TestResponse) -> Vec<String> {
    features(r)
        .iter()
        .map(|f| f["id"].as_str().unwrap().to_string())
        .collect()
}

fn parquet_batches(r: &TestResponse) -> (Value, Vec<RecordBatch>) {
    let builder = ParquetRecordBatchReaderBuilder::try_new(Bytes::from(r.bytes.clone())).unwrap();
    let geo = builder
        .metadata()
        .file_metadata()
        .key_value_metadata()
        .and_then(|kv| kv.iter().find(|kv| kv.key == "geo"))
        .and_then(|kv| kv.value.as_deref())
        .map(|text| serde_json::from_str(text).unwrap())
        .expect("a geo metadata entry");
    let batches = builder
        .build()
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    (geo, batches)
}

fn csv_rows(r: &TestResponse) -> (Vec<String>, Vec<Vec<String>>) {
    let mut reader = csv::Reader::from_reader(r.bytes.as_slice());
    let headers = reader
        .headers()
        .unwrap()
        .iter()
        .map(str::to_string)
        .collect();
    let rows = reader
        .records()
        .map(|record| record.unwrap().iter().map(str::to_string).collect())
        .collect();
    (headers, rows)
}

fn column<'a>(headers: &[String], row: &'a [String], name: &str) -> &'a str {
    let at = headers.iter().position(|h| h == name).unwrap();
    &row[at]
}

/// A text column of a parquet batch (or of a struct in one), every value present.
fn strings(column: Option<&ArrayRef>) -> Vec<&str> {
    column
        .unwrap()
        .as_string::<i32>()
        .iter()
        .map(Option::unwrap)
        .collect()
}

/// A number column of a parquet batch (or of a struct in one).
fn numbers(column: Option<&ArrayRef>) -> &PrimitiveArray<Float64Type> {
    column.unwrap().as_primitive::<Float64Type>()
}

#[tokio::test]
async fn geoparquet_holds_one_row_per_record_with_the_geo_metadata_and_nested_sources() {
    let app = TestApp::new().await;
    publish_places(&app).await;
    let r = export(&app, "/api/v1/exports/entities.parquet").await;
    assert_eq!(content_type(&r), "application/vnd.apache.parquet");
    assert!(
        r.headers[header::CONTENT_DISPOSITION]
            .to_str()
            .unwrap()
            .contains("entities.parquet")
    );
    let (geo, batches) = parquet_batches(&r);
    assert_eq!(geo["version"], "1.1.0");
    assert_eq!(geo["primary_column"], "geometry");
    assert_eq!(geo["columns"]["geometry"]["encoding"], "WKB");
    assert_eq!(
        geo["columns"]["geometry"]["covering"]["bbox"]["xmin"],
        json!(["bbox", "xmin"])
    );
    let bbox = geo["columns"]["geometry"]["bbox"].as_array().unwrap();
    assert_eq!(bbox[0].as_f64(), Some(-2.28));
    assert_eq!(bbox[3].as_f64(), Some(53.47));

    let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
    assert_eq!(rows, PLACES.len());
    let batch = &batches[0];
    let confidence = numbers(batch.column_by_name("score_confidence"));
    assert!((0.0..=1.0).contains(&confidence.value(0)));
    let bbox = batch.column_by_name("bbox").unwrap().as_struct();
    let xmin = numbers(bbox.column_by_name("xmin"));
    let lng = numbers(batch.column_by_name("location_lng"));
    assert_eq!(xmin.value(0), lng.value(0));
    let geometry = batch.column_by_name("geometry").unwrap().as_binary::<i32>();
    assert_eq!(geometry.value(0).len(), 21, "a WKB point");

    // Sources: a list of structs naming the field, the entry, the agent and the confidence.
    let sources = batch.column_by_name("sources").unwrap().as_list::<i32>();
    let first = sources.value(0);
    let first = first.as_struct();
    let fields = strings(first.column_by_name("field"));
    assert!(fields.contains(&"display_name"), "{fields:?}");
    let source_confidence = numbers(first.column_by_name("score_confidence"));
    assert!(source_confidence.value(0) > 0.0);
    let categories = batch.column_by_name("categories").unwrap().as_list::<i32>();
    assert_eq!(categories.value(0).len(), 1);
}

#[tokio::test]
async fn flatgeobuf_geojson_sequences_and_csv_hold_every_record_with_its_sources() {
    let app = TestApp::new().await;
    let ids = publish_places(&app).await;

    let r = export(&app, "/api/v1/exports/entities.fgb").await;
    assert_eq!(content_type(&r), "application/flatgeobuf");
    let mut cursor = std::io::Cursor::new(r.bytes.clone());
    let reader = FgbReader::open(&mut cursor).unwrap();
    assert_eq!(
        reader.header().features_count(),
        0,
        "streamed: count unknown"
    );
    let mut fgb = reader.select_all_seq().unwrap();
    let mut names = Vec::new();
    while let Some(feature) = fgb.next().unwrap() {
        names.push(feature.property::<String>("display_name").unwrap());
        assert!(feature.property::<f64>("score_confidence").unwrap() > 0.0);
        let sources: Value =
            serde_json::from_str(&feature.property::<String>("sources").unwrap()).unwrap();
        assert!(texts(&sources, "field").contains(&"display_name"));
    }
    assert_eq!(names.len(), PLACES.len());

    for (path, media_type, rs) in [
        (
            "/api/v1/exports/entities.geojsons",
            "application/geo+json-seq",
            true,
        ),
        (
            "/api/v1/exports/entities.geojsonl",
            "application/x-ndjson",
            false,
        ),
    ] {
        let r = export(&app, path).await;
        assert_eq!(content_type(&r), media_type);
        assert_eq!(r.text.starts_with('\u{1e}'), rs, "{path}");
        let features = features(&r);
        assert_eq!(features.len(), PLACES.len());
        let f = &features[0];
        assert_eq!(f["type"], "Feature");
        assert_eq!(f["geometry"]["type"], "Point");
        assert!(f["properties"]["score_confidence"].is_number(), "{f}");
        assert!(f["properties"]["categories"].is_array(), "{f}");
        assert!(f["properties"]["sources"][0]["agent_id"].is_string(), "{f}");
        assert!(
            f["properties"].get("id").is_none(),
            "the id is the feature's own"
        );
    }

    let r = export(&app, "/api/v1/exports/entities.csv").await;
    assert_eq!(content_type(&r), "text/csv; charset=utf-8");
    let (headers, rows) = csv_rows(&r);
    assert_eq!(headers[0], "wkt");
    assert_eq!(headers.last().unwrap(), "sources");
    assert_eq!(rows.len(), PLACES.len());
    let mut exported: Vec<&str> = rows.iter().map(|row| column(&headers, row, "id")).collect();
    exported.sort_unstable();
    let mut published: Vec<&str> = ids.iter().map(String::as_str).collect();
    published.sort_unstable();
    assert_eq!(exported, published);
    let row = &rows[0];
    assert!(column(&headers, row, "wkt").starts_with("POINT ("));
    column(&headers, row, "score_confidence")
        .parse::<f64>()
        .unwrap();
    let sources: Value = serde_json::from_str(column(&headers, row, "sources")).unwrap();
    assert!(texts(&sources, "field").contains(&"display_name"));
}

#[tokio::test]
async fn an_export_with_no_rows_is_still_a_whole_file() {
    let app = TestApp::new().await;
    let r = export(&app, "/api/v1/exports/requests.parquet").await;
    let (_, batches) = parquet_batches(&r);
    assert_eq!(batches.iter().map(RecordBatch::num_rows).sum::<usize>(), 0);
    let r = export(&app, "/api/v1/exports/listings.csv").await;
    let (headers, rows) = csv_rows(&r);
    assert!(headers.contains(&"price_amount".to_string()));
    assert!(rows.is_empty());
    let r = export(&app, "/api/v1/exports/listings.fgb").await;
    let mut cursor = std::io::Cursor::new(r.bytes.clone());
    let mut fgb = FgbReader::open(&mut cursor)
        .unwrap()
        .select_all_seq()
        .unwrap();
    assert!(fgb.next().unwrap().is_none());
    let r = export(&app, "/api/v1/exports/requests.geojsonl").await;
    assert!(r.bytes.is_empty());
}

#[tokio::test]
async fn the_filters_narrow_the_rows() {
    let app = TestApp::new().await;
    let ids = publish_places(&app).await;
    let count = |path: String| {
        let app = &app;
        async move { features(&export(app, &path).await).len() }
    };
    let base = "/api/v1/exports/entities.geojsonl";
    assert_eq!(
        count(format!("{base}?bbox=-2.30,53.40,-2.19,53.50")).await,
        4
    );
    assert_eq!(count(format!("{base}?country=GB")).await, 5);
    assert_eq!(count(format!("{base}?country=fr,ie")).await, 0);
    assert_eq!(count(format!("{base}?category=pottery,chandlery")).await, 2);
    assert_eq!(
        count(format!("{base}?updated_since=2000-01-01T00:00:00Z")).await,
        5
    );
    assert_eq!(
        count(format!("{base}?updated_since=2999-01-01T00:00:00Z")).await,
        0
    );
    assert_eq!(
        count(format!(
            "{base}?bbox=-2.30,53.40,-2.19,53.50&category=pottery&country=GB"
        ))
        .await,
        1
    );

    // Only what changed since a moment: a mirror's incremental pull.
    let since = chrono::Utc::now();
    sqlx::query("UPDATE canonical.entities SET description = 'Reopened' WHERE id = $1::uuid")
        .bind(&ids[2])
        .execute(app.pool())
        .await
        .unwrap();
    let since = since.to_rfc3339_opts(chrono::SecondsFormat::Micros, true);
    let changed = export(
        &app,
        &format!("{base}?updated_since={}", since.replace('+', "%2B")),
    )
    .await;
    assert_eq!(feature_ids(&changed), [ids[2].clone()]);
    assert_eq!(
        features(&changed)[0]["properties"]["description"],
        "Reopened"
    );
}

#[tokio::test]
async fn bad_filters_are_422_at_their_parameter_and_unknown_files_are_404() {
    let app = TestApp::new().await;
    for (query, loc) in [
        ("bbox=1,2,3", "query.bbox"),
        ("bbox=10,95,20,96", "query.bbox"),
        ("country=GBR", "query.country"),
        ("country=G1", "query.country"),
        ("updated_since=yesterday", "query.updated_since"),
        ("status=", "query.status"),
    ] {
        let r = app
            .get(&format!("/api/v1/exports/entities.csv?{query}"))
            .await;
        assert_eq!(
            r.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{query}: {}",
            r.text
        );
        assert!(
            locs(&r.body)
                .iter()
                .any(|l| l == loc || l.starts_with(&format!("{loc}."))),
            "{query}: {:?}",
            locs(&r.body)
        );
    }
    let r = app.get("/api/v1/exports/entities.csv?bbbox=1,2,3,4").await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
    for path in [
        "/api/v1/exports/entities.xlsx",
        "/api/v1/exports/agents.csv",
        "/api/v1/exports/entities",
    ] {
        let r = app.get(path).await;
        assert_eq!(r.status, StatusCode::NOT_FOUND, "{path}: {}", r.text);
    }
}

#[tokio::test]
async fn the_order_is_by_id_and_the_same_in_every_format_and_every_time() {
    let app = TestApp::new().await;
    let mut ids = publish_places(&app).await;
    ids.sort_unstable();
    let first = feature_ids(&export(&app, "/api/v1/exports/entities.geojsonl").await);
    assert_eq!(first, ids);
    let again = feature_ids(&export(&app, "/api/v1/exports/entities.geojsons").await);
    assert_eq!(again, ids);
    let (headers, rows) = csv_rows(&export(&app, "/api/v1/exports/entities.csv").await);
    let csv_ids: Vec<&str> = rows.iter().map(|row| column(&headers, row, "id")).collect();
    assert_eq!(csv_ids, ids);
    let (_, batches) = parquet_batches(&export(&app, "/api/v1/exports/entities.parquet").await);
    let parquet_ids = strings(batches[0].column_by_name("id"));
    assert_eq!(parquet_ids, ids);
}

#[tokio::test]
async fn merged_and_withdrawn_records_are_exported_with_their_status_as_the_rest_lists_show_them() {
    let app = TestApp::new().await;
    let ids = publish_places(&app).await;
    let admin = app.admin_key().await;
    let merged = app
        .request(
            "POST",
            &format!("/api/v1/entities/{}/merge", ids[0]),
            Some(json!({"merged_id": ids[1]})),
            Some(&admin),
        )
        .await;
    assert_eq!(merged.status, StatusCode::OK, "{}", merged.text);
    sqlx::query("UPDATE canonical.entities SET status = 'withdrawn' WHERE id = $1::uuid")
        .bind(&ids[2])
        .execute(app.pool())
        .await
        .unwrap();

    let listed = app.get("/api/v1/entities?limit=100").await;
    let all = features(&export(&app, "/api/v1/exports/entities.geojsonl").await);
    assert_eq!(all.len(), listed.body.as_array().unwrap().len());
    let status_of = |id: &str| {
        all.iter()
            .find(|f| f["id"] == id)
            .map(|f| f["properties"]["status"].clone())
    };
    assert_eq!(status_of(&ids[1]), Some(json!("merged")));
    assert_eq!(status_of(&ids[2]), Some(json!("withdrawn")));
    let redirect = all.iter().find(|f| f["id"] == ids[1].as_str()).unwrap();
    assert_eq!(redirect["properties"]["merged_into_id"], ids[0].as_str());

    let active = features(&export(&app, "/api/v1/exports/entities.geojsonl?status=active").await);
    assert_eq!(active.len(), 3);
    assert!(active.iter().all(|f| f["properties"]["status"] == "active"));
}

#[tokio::test]
async fn an_export_longer_than_one_read_streams_every_chunk_in_order() {
    let app = TestApp::new().await;
    let rows = 2 * chunk_rows() + 7;
    // Rows differ in which cells are null and in their sources, so a row written over a row of
    // an earlier chunk (the reads reuse them) keeps none of that row's values.
    sqlx::query(
        "INSERT INTO canonical.entities
           (id, display_name, legal_name, location_lat, location_lng, country_code, categories, field_evidence)
         SELECT gen_random_uuid(), 'Bulk ' || n, CASE WHEN n % 2 = 1 THEN 'Legal ' || n END,
                50 + (n % 100) / 100.0, (n % 360) - 180, 'FR', ARRAY['bulk'],
                CASE WHEN n % 3 = 0 THEN jsonb_build_object('legal_name', jsonb_build_object(
                    'entry_id', gen_random_uuid(), 'agent_id', gen_random_uuid(),
                    'observed_at', NULL, 'confidence', 0.5)) ELSE '{}' END
         FROM generate_series(1, $1) AS n",
    )
    .bind(i32::try_from(rows).unwrap())
    .execute(app.pool())
    .await
    .unwrap();

    let (headers, csv) = csv_rows(&export(&app, "/api/v1/exports/entities.csv").await);
    assert_eq!(csv.len(), rows);
    let ids: Vec<&str> = csv.iter().map(|row| column(&headers, row, "id")).collect();
    assert!(
        ids.windows(2).all(|w| w[0] < w[1]),
        "ids ascend across chunks"
    );
    for row in &csv {
        let name = column(&headers, row, "display_name");
        let n: u32 = name.trim_start_matches("Bulk ").parse().unwrap();
        let legal = column(&headers, row, "legal_name");
        let expected = if n % 2 == 1 {
            format!("Legal {n}")
        } else {
            String::new()
        };
        assert_eq!(legal, expected, "{name}");
        let sources: Vec<Value> = serde_json::from_str(column(&headers, row, "sources")).unwrap();
        assert_eq!(
            sources.len(),
            usize::from(n.is_multiple_of(3)),
            "{name}: {sources:?}"
        );
    }

    let (_, batches) = parquet_batches(&export(&app, "/api/v1/exports/entities.parquet").await);
    assert_eq!(
        batches.iter().map(RecordBatch::num_rows).sum::<usize>(),
        rows
    );
    let r = export(&app, "/api/v1/exports/entities.fgb").await;
    let mut cursor = std::io::Cursor::new(r.bytes.clone());
    let mut fgb = FgbReader::open(&mut cursor)
        .unwrap()
        .select_all_seq()
        .unwrap();
    let mut count = 0;
    while fgb.next().unwrap().is_some() {
        count += 1;
    }
    assert_eq!(count, rows);
}

fn chunk_rows() -> usize {
    usize::try_from(spacetime_records::services::exports::CHUNK_ROWS).unwrap()
}

#[tokio::test]
async fn an_export_answers_a_page_on_another_origin() {
    let app = TestApp::new().await;
    let request = Request::get("/api/v1/exports/entities.csv")
        .header(header::ORIGIN, "https://notebook.example.org")
        .body(Body::empty())
        .unwrap();
    let r = app.send(request).await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(
        r.headers.get(header::ACCESS_CONTROL_ALLOW_ORIGIN).is_some(),
        "{:?}",
        r.headers
    );
    assert!(!r.bytes.is_empty());
}
