//! The provenance explorer at `GET /explore`: the page and its bundle come from this server
//! only, and every GraphQL document the page sends (web/explorer/src/graphql/) runs against
//! seeded data within the GraphQL limits, operators' mutations included. The page itself is
//! driven in a real browser by tests/browser/explorer.sh.

use crate::harness::{TestApp, east, entity_entry};
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use serde_json::{Value, json};

const LAT: f64 = 53.4808;
const LNG: f64 = -2.2426;

#[tokio::test]
async fn the_explorer_page_and_its_bundle_come_from_this_server_only() {
    let app = TestApp::new().await;
    let page = app.get("/explore").await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(
        page.headers[header::CONTENT_TYPE]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    let policy = page.headers[header::CONTENT_SECURITY_POLICY]
        .to_str()
        .unwrap();
    assert!(policy.starts_with("default-src 'self';") && policy.contains("connect-src 'self'"));
    assert!(
        page.text.contains("/explore/explorer.js") && page.text.contains("/explore/explorer.css")
    );
    assert!(
        !page.text.contains("http://") && !page.text.contains("https://"),
        "the page names no other host"
    );
    for (file, media, at_least) in [
        ("explorer.js", "text/javascript", 500_000),
        ("explorer.css", "text/css", 10_000),
        ("maplibre-gl-worker.mjs", "text/javascript", 100_000),
        ("countries-10m.json", "application/json", 2_000_000),
        ("places.json", "application/json", 500_000),
    ] {
        let asset = app.get(&format!("/explore/{file}")).await;
        assert_eq!(asset.status, StatusCode::OK, "{file}");
        let content_type = asset.headers[header::CONTENT_TYPE].to_str().unwrap();
        assert!(content_type.starts_with(media), "{file}: {content_type}");
        assert!(asset.bytes.len() > at_least, "{file} is the real bundle");
        // No version in the names: every use revalidates, and an unchanged file is a 304.
        assert_eq!(asset.headers[header::CACHE_CONTROL], "no-cache");
        let etag = asset.headers[header::ETAG].clone();
        let again = app
            .send(
                Request::get(format!("/explore/{file}"))
                    .header(header::IF_NONE_MATCH, etag)
                    .body(Body::empty())
                    .unwrap(),
            )
            .await;
        assert_eq!(again.status, StatusCode::NOT_MODIFIED, "{file}");
    }
    // The basemap: world-atlas's Natural Earth 1:10m countries (TopoJSON) and the places, each
    // `[longitude, latitude, population, name]`, most populous first.
    let places = app.get("/explore/places.json").await;
    let list = places.body["places"].as_array().unwrap();
    assert!(list.len() > 10_000, "{}", list.len());
    assert!(list[0][2].as_i64().unwrap() >= list[1][2].as_i64().unwrap());
    assert!(
        list.iter().any(|p| p[3] == "Manchester"),
        "Manchester is a place"
    );
    let countries = app.get("/explore/countries-10m.json").await;
    assert_eq!(countries.body["type"], "Topology");
    assert!(
        countries.body["objects"]["countries"]["geometries"]
            .as_array()
            .unwrap()
            .len()
            > 200
    );
    assert_eq!(
        app.get("/explore/nope.js").await.status,
        StatusCode::NOT_FOUND
    );
    // No basemap style configured: the page names none and the policy allows no other origin.
    assert!(
        page.text
            .contains(r#"<meta name="strs-basemap-style" content="">"#)
    );
    assert!(
        policy.contains("connect-src 'self';") && policy.contains("img-src 'self' data: blob:;")
    );
}

#[tokio::test]
async fn a_configured_basemap_style_is_named_in_the_page_and_its_origin_allowed_by_the_policy() {
    let style = "https://tiles.example.org:8443/styles/basic.json?key=a&lang=en";
    let app = TestApp::with_config(|c| c.basemap_style = Some(style.into())).await;
    let page = app.get("/explore").await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(
        page.text.contains(
            r#"<meta name="strs-basemap-style" content="https://tiles.example.org:8443/styles/basic.json?key=a&amp;lang=en">"#
        ),
        "{}",
        page.text
    );
    for response in [&page, &app.get("/explore/maplibre-gl-worker.mjs").await] {
        let policy = response.headers[header::CONTENT_SECURITY_POLICY]
            .to_str()
            .unwrap();
        assert!(
            policy.contains("connect-src 'self' https://tiles.example.org:8443;")
                && policy.contains("img-src 'self' data: blob: https://tiles.example.org:8443;")
                && policy.contains("script-src 'self';"),
            "{policy}"
        );
    }
    // A URL that is not an absolute http(s) one stops the configuration.
    for bad in [
        "/styles/basic.json",
        "ftp://tiles.example.org/s.json",
        "not a url",
    ] {
        let mut config = spacetime_records::config::Config::for_data_dir("/tmp".into());
        config.basemap_style = Some(bad.into());
        assert!(config.validate().is_err(), "{bad}");
    }
}

#[tokio::test]
async fn a_graphiql_link_opens_the_ide_in_a_browser_and_still_answers_clients() {
    let app = TestApp::new().await;
    let link = "/graphql?query=%7B%20__typename%20%7D&variables=%7B%7D";
    let browser = app
        .send(
            Request::get(link)
                .header(header::ACCEPT, "text/html,application/xhtml+xml")
                .body(Body::empty())
                .unwrap(),
        )
        .await;
    assert_eq!(browser.status, StatusCode::OK);
    assert!(
        browser.text.contains("/graphiql/graphiql.js"),
        "the IDE, which reads the query from its address"
    );
    let client = app.get(link).await;
    assert_eq!(client.status, StatusCode::OK);
    assert_eq!(client.body["data"]["__typename"], "Query");
}

/// The ids the documents run on: a plumber three agents described, its listing, a duplicate
/// report, a note and a signal, and an entry left for review.
struct World {
    app: TestApp,
    admin: String,
    agent: String,
    plumber: String,
    listing: String,
    twin: String,
    review: String,
    contributed_at: String,
}

async fn world() -> World {
    let app = TestApp::new().await;
    let admin = app.admin_key().await;
    let (agent, directory) = app.register("Explorer Directory").await;
    let (_, chamber) = app.register("Explorer Chamber").await;
    let plumber = app
        .publish(
            &directory,
            &admin,
            entity_entry(
                "Explorer Plumbing",
                LAT,
                LNG,
                json!({"categories": ["plumber"], "phone": "0161 496 0123"}),
            ),
        )
        .await["canonical_id"]
        .as_str()
        .unwrap()
        .to_owned();
    app.publish(
        &chamber,
        &admin,
        entity_entry(
            "Explorer Plumbing",
            LAT,
            LNG,
            json!({"categories": ["plumber"], "phone": "0161 496 0123", "email": "office@explorer-plumbing.example"}),
        ),
    )
    .await;
    let listing = app.publish(&chamber, &admin, json!({"entry_type": "listing", "latitude": LAT, "longitude": LNG,
        "context": {"title": "Boiler service", "price_amount": 90, "currency_code": "GBP", "provider_entity_id": plumber}}))
        .await["canonical_id"].as_str().unwrap().to_owned();
    let (lat, lng) = east(LAT, LNG, 30.0);
    let twin = app
        .publish(
            &chamber,
            &admin,
            entity_entry(
                "Oldham Street Plumbers",
                lat,
                lng,
                json!({"phone": "0161 496 0999"}),
            ),
        )
        .await["canonical_id"]
        .as_str()
        .unwrap()
        .to_owned();
    for body in [
        json!({"signal_type": "duplicate", "target_schema": "canonical", "target_table": "entities",
               "target_id": twin, "duplicate_of_id": plumber}),
        json!({"signal_type": "confirm", "target_schema": "canonical", "target_table": "entities",
               "target_id": plumber}),
    ] {
        let r = app.post_as("/api/v1/signals", body, &directory).await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    }
    let note = app
        .post_as(
            "/api/v1/notes",
            json!({"target_schema": "canonical", "target_table": "entities", "target_id": plumber,
                   "body": "Van seen on Sunday", "visibility": "public"}),
            &directory,
        )
        .await;
    assert_eq!(note.status, StatusCode::CREATED, "{}", note.text);
    // Acme's name with Bolt's phone, between the two: left for review.
    let (lat, lng) = east(LAT, LNG, 600.0);
    app.publish(
        &directory,
        &admin,
        entity_entry(
            "Acme Heating",
            lat,
            lng,
            json!({"website_url": "https://acme-explorer.example"}),
        ),
    )
    .await;
    let (bolt_lat, bolt_lng) = east(LAT, LNG, 640.0);
    app.publish(
        &directory,
        &admin,
        entity_entry(
            "Bolt Gas",
            bolt_lat,
            bolt_lng,
            json!({"phone": "0161 496 0777"}),
        ),
    )
    .await;
    let (lat, lng) = east(LAT, LNG, 620.0);
    let split = app
        .publish(
            &chamber,
            &admin,
            entity_entry("Acme Heating", lat, lng, json!({"phone": "0161 496 0777"})),
        )
        .await;
    assert_eq!(split["status"], "review_required", "{split}");
    let contributed_at: String = sqlx::query_scalar(
        "SELECT to_char(min(created_at_tstamp_utc) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')
         FROM canonical_link_contributions WHERE target_canonical_id = $1::uuid",
    )
    .bind(&plumber)
    .fetch_one(app.pool())
    .await
    .unwrap();
    World {
        app,
        admin,
        agent: agent.to_string(),
        plumber,
        listing,
        twin,
        review: split["space_time_entry_id"].as_str().unwrap().to_owned(),
        contributed_at,
    }
}

fn operation_name(document: &str) -> String {
    document
        .lines()
        .find_map(|line| {
            let line = line.trim_start();
            line.strip_prefix("query ")
                .or_else(|| line.strip_prefix("mutation "))
                .map(|rest| rest.split(['(', ' ', '{']).next().unwrap().to_string())
        })
        .expect("a named operation")
}

#[tokio::test]
async fn every_graphql_document_of_the_explorer_runs_against_seeded_data() {
    let w = world().await;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("web/explorer/src/graphql");
    let mut documents: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .map(|text| (operation_name(&text), text))
        .collect();
    // Reads first, then the operators' mutations, which change what the reads would see.
    documents.sort_by_key(|(name, _)| {
        (
            name.contains("Resolve") || name.contains("Merge") || name.contains("Dismiss"),
            name.clone(),
        )
    });
    assert!(
        documents.len() >= 10,
        "{:?}",
        documents.iter().map(|d| &d.0).collect::<Vec<_>>()
    );
    let pair: String =
        sqlx::query_scalar("SELECT id::text FROM duplicate_candidates WHERE record_id = $1::uuid")
            .bind(&w.twin)
            .fetch_one(w.app.pool())
            .await
            .unwrap();
    let entry: String = sqlx::query_scalar(
        "SELECT source_space_time_entry_id::text FROM canonical_link_contributions WHERE target_canonical_id = $1::uuid LIMIT 1",
    )
    .bind(&w.plumber)
    .fetch_one(w.app.pool())
    .await
    .unwrap();
    for (name, document) in documents {
        let (variables, operator): (Value, bool) = match name.as_str() {
            "ExplorerRecord" => (json!({"id": w.plumber, "table": "entities"}), false),
            "ExplorerRecordAsOf" => (json!({"id": w.plumber, "asOf": w.contributed_at}), false),
            "ExplorerExpandRecord" => (json!({"id": w.listing}), false),
            "ExplorerExpandEntry" => (json!({"id": entry}), false),
            "ExplorerAgent" => (json!({"id": w.agent}), false),
            "ExplorerAgentRecords" => (json!({"id": w.agent}), false),
            "ExplorerReviewQueue" => (json!({}), false),
            "ExplorerOperator" => (json!({}), true),
            "ExplorerResolveReview" => (
                json!({"entryId": w.review, "input": {"resolution": "IS_NEW"}}),
                true,
            ),
            "ExplorerDismissDuplicate" => (json!({"id": pair}), true),
            "ExplorerMergeEntities" => (json!({"survivorId": w.plumber, "mergedId": w.twin}), true),
            other => panic!("{other}: give the explorer's new document its variables here"),
        };
        let key = operator.then_some(w.admin.as_str());
        let r = w.app.graphql(&document, variables, key).await;
        assert!(r.body.get("errors").is_none(), "{name}: {}", r.text);
        let data = r.body["data"]
            .as_object()
            .unwrap_or_else(|| panic!("{name}: {}", r.text));
        assert!(data.values().all(|v| !v.is_null()), "{name}: {}", r.text);
        check(&name, &r.body["data"], &w);
    }
}

/// What each document must show for the page to work.
fn check(name: &str, data: &Value, w: &World) {
    match name {
        "ExplorerRecord" => {
            let record = &data["canonicalRecord"];
            assert_eq!(record["__typename"], "Entity");
            let fields = record["provenance"]["fields"].as_array().unwrap();
            let email = fields
                .iter()
                .find(|f| f["field"] == "email")
                .expect("email's source");
            assert_eq!(email["agent"]["displayName"], "Explorer Chamber");
            assert!(email["entry"]["id"].is_string() && email["observedAtTstampUtc"].is_string());
            // Each contribution's entry carries its context: the page finds there which entry
            // brought each category.
            let first = &record["provenance"]["contributions"][0];
            assert_eq!(first["linkType"], "CREATED");
            assert_eq!(first["entry"]["context"]["categories"], json!(["plumber"]));
            assert!(
                record["provenance"]["contributions"]
                    .as_array()
                    .unwrap()
                    .len()
                    >= 2
            );
            assert_eq!(
                data["notes"]["edges"][0]["node"]["body"],
                "Van seen on Sunday"
            );
            assert_eq!(data["signals"]["edges"].as_array().unwrap().len(), 1);
            assert_eq!(
                data["duplicateCandidates"]["edges"][0]["node"]["record"]["id"],
                w.twin
            );
        }
        "ExplorerRecordAsOf" => {
            // As of its first contribution the plumber had no email yet.
            assert_eq!(data["entity"]["displayName"], "Explorer Plumbing");
            assert!(data["entity"]["email"].is_null(), "{data}");
        }
        "ExplorerExpandRecord" => {
            let contributions = data["canonicalRecord"]["provenance"]["contributions"]
                .as_array()
                .unwrap();
            assert_eq!(
                contributions[0]["entry"]["agent"]["displayName"],
                "Explorer Chamber"
            );
        }
        "ExplorerExpandEntry" => {
            assert!(data["entry"]["agent"]["id"].is_string());
            assert_eq!(data["entry"]["contributions"][0]["target"]["id"], w.plumber);
        }
        "ExplorerAgentRecords" => {
            // The directory's entries: the plumber, Acme and Bolt, each with where it is.
            let entries = &data["agent"]["entries"];
            assert_eq!(entries["totalCount"], 3, "{data}");
            assert_eq!(entries["pageInfo"]["hasNextPage"], false);
            let records: Vec<&Value> = entries["edges"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| &e["node"]["canonical"])
                .collect();
            assert!(records.iter().any(|r| r["id"] == w.plumber));
            assert!(
                records
                    .iter()
                    .filter(|r| !r.is_null())
                    .all(|r| r["locationLat"].is_f64() && r["locationLng"].is_f64())
            );
        }
        "ExplorerAgent" => {
            assert_eq!(data["agent"]["entries"]["totalCount"], 3, "{data}");
            assert!(data["agent"]["influence"]["created"].as_i64().unwrap() >= 1);
            assert!(
                !data["agent"]["entries"]["edges"]
                    .as_array()
                    .unwrap()
                    .is_empty()
            );
        }
        "ExplorerReviewQueue" => {
            let items = data["reviewQueue"]["edges"].as_array().unwrap();
            assert!(
                items
                    .iter()
                    .any(|i| i["node"]["spaceTimeEntryId"] == w.review)
            );
            assert_eq!(items[0]["node"]["candidates"].as_array().unwrap().len(), 2);
        }
        "ExplorerOperator" => {
            let keys = data["myApiKeys"].as_array().unwrap();
            assert!(
                keys.iter()
                    .any(|k| k["scopes"].as_array().unwrap().contains(&json!("admin")))
            );
        }
        "ExplorerResolveReview" => assert_eq!(data["resolveReview"]["linkType"], "CREATED"),
        "ExplorerDismissDuplicate" => {
            assert_eq!(data["dismissDuplicateCandidate"]["status"], "dismissed");
        }
        "ExplorerMergeEntities" => assert_eq!(data["mergeEntities"]["id"], w.plumber),
        _ => {}
    }
}
