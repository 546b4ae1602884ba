//! GET /api/v1/search and GraphQL search: one service, the same answers.

use crate::harness::{TestApp, east, entity_entry, locs};
use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::{Value, json};
use spacetime_records::domain::geo::circle_box;

const MAN: (f64, f64) = (53.4808, -2.2426);

struct World {
    app: TestApp,
    northern: String,
}

fn cid(v: &Value) -> String {
    v["canonical_id"]
        .as_str()
        .unwrap_or_else(|| panic!("{v}"))
        .to_string()
}

async fn world() -> World {
    let app = TestApp::new().await;
    let admin = app.admin_key().await;
    let (_, key) = app.register("Search Seeder").await;
    let publish = |body: Value| {
        let (app, key, admin) = (&app, key.clone(), admin.clone());
        async move { app.publish(&key, &admin, body).await }
    };
    let northern = cid(&publish(entity_entry("Northern Plumbing Ltd", MAN.0, MAN.1, json!({"categories": ["plumber"], "phone": "0161 496 0000", "website_url": "https://northern-plumbing.example"}))).await);
    let (lat, lng) = east(MAN.0, MAN.1, 800.0);
    publish(entity_entry(
        "Pennine Plumbing & Heating",
        lat,
        lng,
        json!({"categories": ["plumber", "heating"]}),
    ))
    .await;
    let (lat, lng) = east(MAN.0, MAN.1, 300.0);
    publish(entity_entry(
        "Manchester Bakery",
        lat,
        lng,
        json!({"categories": ["bakery"], "phone": "0161 496 0011"}),
    ))
    .await;
    let (lat, lng) = east(MAN.0, MAN.1, 5_000.0);
    publish(entity_entry(
        "Quick Fix Electricians",
        lat,
        lng,
        json!({"categories": ["electrician"]}),
    ))
    .await;
    publish(json!({"entry_type": "entity", "latitude": 53.8008, "longitude": -1.5491, "context": {"display_name": "Leeds Plumbing Co", "city": "Leeds", "country_code": "GB", "categories": ["plumber"], "phone": "0113 496 0000"}})).await;
    publish(json!({"entry_type": "entity", "latitude": 53.3498, "longitude": -6.2603, "context": {"display_name": "Dublin Plumbers", "city": "Dublin", "country_code": "IE", "categories": ["plumber"]}})).await;
    let (lat, lng) = east(MAN.0, MAN.1, 100.0);
    let old = cid(&publish(entity_entry(
        "Old Plumbing Shop",
        lat,
        lng,
        json!({"categories": ["plumber"]}),
    ))
    .await);
    publish(json!({"entry_type": "entity", "latitude": lat, "longitude": lng, "entry_intent": "withdraw", "idempotency_key": "withdraw-old",
        "target_canonical_table": "canonical.entities", "target_canonical_id": old})).await;
    publish(json!({"entry_type": "listing", "latitude": MAN.0, "longitude": MAN.1, "context": {"title": "Boiler service by a plumber", "price_amount": 80, "currency_code": "GBP", "provider_entity_id": northern, "city": "Manchester", "country_code": "GB"}})).await;
    publish(json!({"entry_type": "request", "latitude": MAN.0, "longitude": MAN.1, "context": {"title": "Need a plumber for a leaking pipe", "budget_amount": 150, "currency_code": "GBP", "city": "Manchester", "country_code": "GB"}})).await;
    World { app, northern }
}

async fn search(app: &TestApp, query: &str) -> Value {
    let r = app.get(&format!("/api/v1/search?{query}")).await;
    assert_eq!(r.status, StatusCode::OK, "{query}: {}", r.text);
    r.body
}

fn labels(body: &Value) -> Vec<String> {
    body["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["label"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn text_search_finds_names_categories_misspellings_and_partial_names() {
    let w = world().await;
    let exact = search(&w.app, "query=Northern%20Plumbing").await;
    assert_eq!(exact["results"][0]["id"], w.northern);
    assert_eq!(exact["results"][0]["canonical_type"], "entity");
    assert_eq!(
        exact["results"][0]["record"]["display_name"],
        "Northern Plumbing Ltd"
    );
    let category = labels(&search(&w.app, "query=plumber&canonical_type=entity").await);
    for name in [
        "Northern Plumbing Ltd",
        "Pennine Plumbing & Heating",
        "Leeds Plumbing Co",
        "Dublin Plumbers",
    ] {
        assert!(
            category.contains(&name.to_string()),
            "{name} missing from {category:?}"
        );
    }
    assert!(!category.contains(&"Manchester Bakery".to_string()));
    let misspelt = labels(&search(&w.app, "query=Nothern%20Plumbng").await);
    assert_eq!(
        misspelt.first().map(String::as_str),
        Some("Northern Plumbing Ltd"),
        "{misspelt:?}"
    );
    assert_eq!(
        search(&w.app, "query=plumber&canonical_type=entity&max_results=2").await["query"]["text_matching"],
        "exact"
    );
    assert_eq!(
        search(&w.app, "query=Nothern%20Plumbng").await["query"]["text_matching"],
        "fuzzy"
    );
    let partial = labels(&search(&w.app, "query=Pennin").await);
    assert_eq!(
        partial.first().map(String::as_str),
        Some("Pennine Plumbing & Heating"),
        "{partial:?}"
    );
}

#[tokio::test]
async fn fuzzy_search_corrects_each_word_and_needs_half_of_them() {
    let w = world().await;
    // "qzxwv" has no close spelling: two of the three words still find the record.
    let body = search(&w.app, "query=Nothern%20Plumbng%20qzxwv").await;
    assert_eq!(body["query"]["text_matching"], "fuzzy");
    assert_eq!(body["results"][0]["id"], w.northern, "{body}");
    // A misspelt category is corrected too, not only names.
    let category = labels(&search(&w.app, "query=plumbr&canonical_type=entity").await);
    for name in [
        "Northern Plumbing Ltd",
        "Leeds Plumbing Co",
        "Dublin Plumbers",
    ] {
        assert!(category.contains(&name.to_string()), "{name}: {category:?}");
    }
    assert!(!category.contains(&"Manchester Bakery".to_string()));
    // Nothing close: an empty answer, not an error.
    let none = search(&w.app, "query=qzxwv%20vvkpq").await;
    assert_eq!(none["results"], json!([]));
    assert_eq!(none["query"]["text_matching"], "fuzzy");
    // No word at all (punctuation only): no results either.
    let punctuation = search(&w.app, "query=%21%21%21%20%26%7C").await;
    assert_eq!(punctuation["results"], json!([]));
}

#[tokio::test]
async fn words_of_new_and_changed_records_join_the_vocabulary() {
    let w = world().await;
    let pool = w.app.pool();
    let count = |word: &'static str| async move {
        sqlx::query_scalar::<_, i64>("SELECT count(*) FROM canonical.search_words WHERE word = $1")
            .bind(word)
            .fetch_one(pool)
            .await
            .unwrap()
    };
    // Inserted by the transformer: each word once, whatever the number of records using it.
    assert_eq!(count("northern").await, 1);
    assert_eq!(count("plumbing").await, 1);
    assert_eq!(count("zephyrine").await, 0);
    sqlx::query("UPDATE canonical.entities SET description = 'Zephyrine boiler specialists' WHERE id = $1::uuid")
        .bind(&w.northern)
        .execute(pool)
        .await
        .unwrap();
    assert_eq!(count("zephyrine").await, 1);
    let found = search(&w.app, "query=zephyrin%20boilers").await;
    assert_eq!(found["query"]["text_matching"], "fuzzy");
    assert_eq!(found["results"][0]["id"], w.northern, "{found}");
}

#[tokio::test]
async fn writers_adding_the_same_new_word_never_wait_on_each_other() {
    let w = world().await;
    let pool = w.app.pool();
    let other: String = sqlx::query_scalar(
        "SELECT id::text FROM canonical.entities WHERE id <> $1::uuid ORDER BY id LIMIT 1",
    )
    .bind(&w.northern)
    .fetch_one(pool)
    .await
    .unwrap();
    let describe =
        "UPDATE canonical.entities SET description = 'Quixotry experts' WHERE id = $1::uuid";
    let mut first = pool.begin().await.unwrap();
    sqlx::query(describe)
        .bind(&w.northern)
        .execute(&mut *first)
        .await
        .unwrap();
    // The first transaction has added "quixotry" and not committed: a unique index would make
    // the second wait here until the first ends.
    let mut second = pool.begin().await.unwrap();
    sqlx::query("SET LOCAL lock_timeout = '2s'")
        .execute(&mut *second)
        .await
        .unwrap();
    sqlx::query(describe)
        .bind(&other)
        .execute(&mut *second)
        .await
        .unwrap();
    second.commit().await.unwrap();
    first.commit().await.unwrap();
    let stored: i64 =
        sqlx::query_scalar("SELECT count(*) FROM canonical.search_words WHERE word = 'quixotry'")
            .fetch_one(pool)
            .await
            .unwrap();
    assert_eq!(
        stored, 2,
        "each transaction added the word it could not see"
    );
    let spellings = spacetime_records::search::spelling::lookup(pool, "quixotri")
        .await
        .unwrap();
    assert_eq!(spellings.len(), 1);
    assert_eq!(spellings[0].word, "quixotri");
    assert_eq!(spellings[0].spellings, vec!["quixotry".to_string()]);
}

#[tokio::test]
async fn corrected_queries_take_every_spelling_literally() {
    let app = TestApp::new().await;
    for lexeme in ["o'brien", r"back\slash", "a&b|c", "(x)", "it's:*"] {
        let tsquery = spacetime_records::search::spelling::corrected_query(
            &[vec![lexeme.to_string()]],
            spacetime_records::search::Need::Half,
        )
        .unwrap()
        .tsquery;
        let matches: bool =
            sqlx::query_scalar("SELECT array_to_tsvector(ARRAY[$1]) @@ ($2)::tsquery")
                .bind(lexeme)
                .bind(&tsquery)
                .fetch_one(app.pool())
                .await
                .unwrap_or_else(|e| panic!("{lexeme}: {tsquery}: {e}"));
        assert!(matches, "{lexeme}: {tsquery}");
        let other: bool =
            sqlx::query_scalar("SELECT array_to_tsvector(ARRAY['x', 'b']) @@ ($1)::tsquery")
                .bind(&tsquery)
                .fetch_one(app.pool())
                .await
                .unwrap();
        assert!(!other, "{lexeme}: {tsquery}");
    }
}

#[tokio::test]
async fn a_point_and_radius_keep_results_inside_and_sort_distance_is_nearest_first() {
    let w = world().await;
    let body = search(
        &w.app,
        &format!(
            "query=plumber&latitude={}&longitude={}&radius_meters=1000&canonical_type=entity",
            MAN.0, MAN.1
        ),
    )
    .await;
    let names = labels(&body);
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(
        names.contains(&"Northern Plumbing Ltd".to_string())
            && names.contains(&"Pennine Plumbing & Heating".to_string())
    );
    for r in body["results"].as_array().unwrap() {
        assert!(r["distance_meters"].as_f64().unwrap() <= 1000.0);
        assert!(r["score_parts"]["distance"].as_f64().is_some());
    }
    assert_eq!(body["query"]["radius_meters"], 1000);
    let nearest = search(
        &w.app,
        &format!(
            "query=plumber&latitude={}&longitude={}&sort=distance&canonical_type=entity",
            MAN.0, MAN.1
        ),
    )
    .await;
    let distances: Vec<f64> = nearest["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["distance_meters"].as_f64().unwrap())
        .collect();
    assert!(distances.windows(2).all(|w| w[0] <= w[1]), "{distances:?}");
    assert_eq!(distances.len(), 4);
}

#[tokio::test]
async fn filters_narrow_results_and_bad_filters_are_422() {
    let w = world().await;
    assert_eq!(
        labels(&search(&w.app, "query=plumber&filters=country_code:IE").await),
        ["Dublin Plumbers"]
    );
    assert_eq!(
        labels(&search(&w.app, "query=plumber&filters=city:leeds").await),
        ["Leeds Plumbing Co"]
    );
    assert_eq!(
        labels(&search(&w.app, "query=plumber&filters=categories:heating").await),
        ["Pennine Plumbing %26 Heating".replace("%26", "&")]
    );
    let both = labels(
        &search(
            &w.app,
            "query=plumber&filters=country_code:GB|IE,categories:plumber&canonical_type=entity",
        )
        .await,
    );
    assert_eq!(both.len(), 4);
    for bad in ["colour:red", "city", "city:", "categories:a,,status"] {
        let r = w
            .app
            .get(&format!("/api/v1/search?query=plumber&filters={bad}"))
            .await;
        assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{bad}");
        assert_eq!(locs(&r.body), ["query.filters"]);
    }
}

#[tokio::test]
async fn required_dimensions_filter_and_each_result_lists_its_dimensions() {
    let w = world().await;
    let body = search(
        &w.app,
        "query=plumber&response_must_include_dimensions=phone",
    )
    .await;
    let names = labels(&body);
    assert_eq!(names.len(), 2, "{names:?}");
    for r in body["results"].as_array().unwrap() {
        assert!(
            r["dimensions_present"]
                .as_array()
                .unwrap()
                .contains(&json!("phone"))
        );
    }
    let priced = search(
        &w.app,
        "query=plumber&response_must_include_dimensions=price_amount",
    )
    .await;
    assert_eq!(labels(&priced), ["Boiler service by a plumber"]);
    assert_eq!(
        locs(
            &w.app
                .get("/api/v1/search?query=x&response_must_include_dimensions=shoe")
                .await
                .body
        ),
        ["query.response_must_include_dimensions"]
    );
}

#[tokio::test]
async fn withdrawn_records_are_excluded_unless_asked_for() {
    let w = world().await;
    assert!(
        !labels(&search(&w.app, "query=Old%20Plumbing%20Shop").await)
            .contains(&"Old Plumbing Shop".to_string())
    );
    let asked = search(
        &w.app,
        "query=Old%20Plumbing%20Shop&filters=status:withdrawn",
    )
    .await;
    assert_eq!(labels(&asked), ["Old Plumbing Shop"]);
}

#[tokio::test]
async fn canonical_type_selects_kinds_and_mixed_is_the_default() {
    let w = world().await;
    let mixed = search(&w.app, "query=plumber&max_results=50").await;
    let kinds: std::collections::BTreeSet<String> = mixed["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["canonical_type"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        kinds.into_iter().collect::<Vec<_>>(),
        ["entity", "listing", "request"]
    );
    assert_eq!(mixed["query"]["canonical_type"], "mixed");
    let listings = search(&w.app, "query=plumber&canonical_type=listing").await;
    assert_eq!(labels(&listings), ["Boiler service by a plumber"]);
    assert_eq!(listings["results"][0]["record"]["price_amount"], "80");
    let listing_id = listings["results"][0]["id"].as_str().unwrap();
    let read = w
        .app
        .get(&format!("/api/v1/listings/{listing_id}"))
        .await
        .body;
    assert_eq!(
        listings["results"][0]["record"], read,
        "a search hit carries exactly the record REST returns"
    );
    let entity = search(&w.app, "query=Northern%20Plumbing").await;
    let read = w
        .app
        .get(&format!("/api/v1/entities/{}", w.northern))
        .await
        .body;
    assert_eq!(entity["results"][0]["record"], read);
    let requests = search(&w.app, "query=plumber&canonical_type=request").await;
    assert_eq!(
        requests["results"][0]["canonical_table"],
        "canonical.requests"
    );
    assert_eq!(
        search(&w.app, "query=plumber&max_results=2").await["results"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
}

#[tokio::test]
async fn geojson_is_a_feature_collection_of_the_same_hits() {
    let w = world().await;
    let req = Request::get(format!(
        "/api/v1/search?query=plumber&latitude={}&longitude={}&radius_meters=1000",
        MAN.0, MAN.1
    ))
    .header("accept", "application/geo+json")
    .body(Body::empty())
    .unwrap();
    let r = w.app.send(req).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.headers["content-type"], "application/geo+json");
    assert_eq!(r.body["type"], "FeatureCollection");
    let json_hits = search(
        &w.app,
        &format!(
            "query=plumber&latitude={}&longitude={}&radius_meters=1000",
            MAN.0, MAN.1
        ),
    )
    .await;
    let features = r.body["features"].as_array().unwrap();
    assert_eq!(
        features.len(),
        json_hits["results"].as_array().unwrap().len()
    );
    let first = &features[0];
    assert_eq!(first["type"], "Feature");
    assert_eq!(first["geometry"]["type"], "Point");
    assert_eq!(first["id"], json_hits["results"][0]["id"]);
    let coords = first["geometry"]["coordinates"].as_array().unwrap();
    assert!(
        (coords[0].as_f64().unwrap() - MAN.1).abs() < 0.05,
        "longitude first"
    );
    assert!((coords[1].as_f64().unwrap() - MAN.0).abs() < 0.05);
    assert!(first["properties"]["distance_meters"].is_number());
}

#[tokio::test]
async fn rest_and_graphql_give_the_same_answer() {
    let w = world().await;
    let rest = search(
        &w.app,
        &format!(
            "query=plumber&latitude={}&longitude={}&radius_meters=10000&max_results=5",
            MAN.0, MAN.1
        ),
    )
    .await;
    let q = "query($lat: Float, $lng: Float) { search(query: \"plumber\", latitude: $lat, longitude: $lng, radiusMeters: 10000, maxResults: 5) { query results { id canonicalType label score distanceMeters dimensionsPresent record { ... on Entity { displayName } ... on Listing { title } ... on CanonicalRequest { title } } } } }";
    let gql = w
        .app
        .graphql(q, json!({"lat": MAN.0, "lng": MAN.1}), None)
        .await;
    let results = gql.body["data"]["search"]["results"]
        .as_array()
        .unwrap_or_else(|| panic!("{}", gql.text));
    let rest_results = rest["results"].as_array().unwrap();
    assert_eq!(results.len(), rest_results.len());
    for (g, r) in results.iter().zip(rest_results) {
        assert_eq!(g["id"], r["id"]);
        assert_eq!(g["score"], r["score"]);
        assert_eq!(g["distanceMeters"], r["distance_meters"]);
        assert_eq!(g["dimensionsPresent"], r["dimensions_present"]);
    }
    assert_eq!(gql.body["data"]["search"]["query"], rest["query"]);
    let bad = w
        .app
        .graphql(
            "{ search(query: \"x\", maxResults: 99) { results { id } } }",
            json!({}),
            None,
        )
        .await;
    assert_eq!(
        bad.body["errors"][0]["extensions"]["detail"][0]["loc"],
        json!(["max_results"])
    );
}

#[tokio::test]
async fn every_parameter_outside_its_limits_is_422_at_its_location() {
    let app = TestApp::new().await;
    let cases = [
        ("", "query.query"),
        ("query=", "query.query"),
        ("query=x&latitude=50", "query.longitude"),
        ("query=x&longitude=1", "query.latitude"),
        ("query=x&latitude=abc&longitude=1", "query.latitude"),
        ("query=x&latitude=91&longitude=1", "query.latitude"),
        ("query=x&latitude=1&longitude=181", "query.longitude"),
        ("query=x&radius_meters=10", "query.radius_meters"),
        (
            "query=x&latitude=1&longitude=1&radius_meters=0",
            "query.radius_meters",
        ),
        (
            "query=x&latitude=1&longitude=1&radius_meters=100001",
            "query.radius_meters",
        ),
        ("query=x&canonical_type=thing", "query.canonical_type"),
        ("query=x&max_results=0", "query.max_results"),
        ("query=x&max_results=51", "query.max_results"),
        ("query=x&sort=distance", "query.sort"),
        ("query=x&sort=random", "query.sort"),
    ];
    for (query, loc) in cases {
        let r = app.get(&format!("/api/v1/search?{query}")).await;
        assert_eq!(
            r.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{query}: {}",
            r.text
        );
        assert_eq!(locs(&r.body), [loc], "{query}");
    }
    let empty = app.get("/api/v1/search?query=anything").await;
    assert_eq!(empty.status, StatusCode::OK);
    assert_eq!(empty.body["results"], json!([]));
}

#[tokio::test]
async fn every_search_shape_can_be_answered_from_the_gist_and_gin_indexes() {
    let app = TestApp::new().await;
    app.execute("INSERT INTO canonical.entities (id, display_name, categories, city, country_code, location_lat, location_lng, name_key)
         SELECT gen_random_uuid(), initcap(substr(md5(i::text), 1, 6)) || ' ' || initcap(substr(md5((i * 7)::text), 3, 7))
                || (ARRAY[' Plumbing',' Bakery',' Dental',' Electrics'])[1 + i % 4],
                ARRAY[(ARRAY['plumber','bakery','dentist','electrician'])[1 + i % 4]],
                (ARRAY['Manchester','Leeds','Dublin','Berlin'])[1 + i % 4], (ARRAY['GB','GB','IE','DE'])[1 + i % 4],
                (ARRAY[53.48, 53.80, 53.35, 52.52])[1 + i % 4] + (random() - 0.5) * 0.5,
                (ARRAY[-2.24, -1.55, -6.26, 13.40])[1 + i % 4] + (random() - 0.5) * 0.8, 'business ' || i
         FROM generate_series(1, 20000) AS i").await;
    app.execute("ANALYZE canonical.entities").await;
    // At test scale a sequential scan is often cheaper; with it disabled, PostgreSQL must still find
    // an index plan for every predicate of every shape (at 1M rows it picks them by itself: see
    // docs/bench-log/search.md).
    let mut conn = app.pool().acquire().await.unwrap();
    sqlx::query("SET enable_seqscan = off")
        .execute(&mut *conn)
        .await
        .unwrap();
    use spacetime_records::search::Need::{Every, Half};
    const EXACT: Option<spacetime_records::search::Need> = None;
    let shapes = [
        ("c4ca42 plumbing", Some(1_000), EXACT),
        ("c4ca42 plumbing", Some(1_000), Some(Half)),
        ("c4ca42 plumbing", Some(1_000), Some(Every)),
        ("plumber", Some(10_000), EXACT),
        ("dentist", Some(100_000), Some(Half)),
        ("c4ca4 8f14e4 Plumbng", None, Some(Half)),
        ("c4ca42 plumbng", None, Some(Every)),
        ("plumber", None, EXACT),
    ];
    for (query, radius, matching) in shapes {
        let input = spacetime_records::search::SearchInput {
            query: Some(query.into()),
            latitude: radius.map(|_| 53.48),
            longitude: radius.map(|_| -2.24),
            radius_meters: radius,
            canonical_type: Some("entity".into()),
            ..Default::default()
        };
        let request = spacetime_records::search::SearchRequest::validate(input, &["query"])
            .map_err(|e| e.public_message())
            .unwrap();
        let plan = spacetime_records::search::explain(&mut conn, &request, matching, "EXPLAIN")
            .await
            .unwrap();
        assert!(
            !plan.contains("Seq Scan on entities"),
            "{query} {radius:?}:\n{plan}"
        );
        assert!(
            plan.contains("entities_"),
            "{query}: no index of entities in\n{plan}"
        );
    }
}

#[tokio::test]
async fn searches_are_planned_for_their_values_and_other_statements_may_reuse_plans() {
    let app = TestApp::new().await;
    let show = "SHOW plan_cache_mode";
    let searches: String = sqlx::query_scalar(show)
        .fetch_one(&app.state.lean.searches)
        .await
        .unwrap();
    assert_eq!(searches, "force_custom_plan");
    let reads: String = sqlx::query_scalar(show)
        .fetch_one(&app.state.lean.general)
        .await
        .unwrap();
    assert_eq!(reads, "auto");
    let writes: String = sqlx::query_scalar(show)
        .fetch_one(app.pool())
        .await
        .unwrap();
    assert_eq!(writes, "auto");
}

#[tokio::test]
async fn a_radius_box_holds_its_whole_circle_near_the_poles_and_across_the_antimeridian() {
    let app = TestApp::new().await;
    // (latitude, longitude) of centres, then radii in metres; 72 points on each circle, a
    // millionth inside it, on the sphere ST_DWithin(..., false) measures on; the box must hold
    // every point ST_DWithin keeps.
    let centres = [
        (0.0, 0.0),
        (53.4808, -2.2426),
        (-33.9, 151.2),
        (89.5, 10.0),
        (-89.99, 0.0),
        (10.0, 179.95),
        (-10.0, -179.9),
        (65.0, 178.0),
    ];
    let radii = [1.0, 950.0, 100_000.0, 2_500_000.0, 19_000_000.0];
    for (lat, lng) in centres {
        for radius in radii {
            let (min_lng, min_lat, max_lng, max_lat) = circle_box(lat, lng, radius);
            let (outside, inside, points): (i64, i64, i64) = sqlx::query_as(
                "WITH c AS (SELECT radians($1) AS phi, radians($2) AS lambda,
                                   $3 * 0.999999 / 6371008.7714 AS delta),
                      q AS (SELECT c.*, asin(sin(phi) * cos(delta)
                                    + cos(phi) * sin(delta) * cos(radians(a))) AS phi2, a
                            FROM c, generate_series(0, 355, 5) AS a),
                      p AS (SELECT ST_SetSRID(ST_MakePoint(
                                degrees(lambda + atan2(sin(radians(a)) * sin(delta) * cos(phi),
                                                       cos(delta) - sin(phi) * sin(phi2))),
                                degrees(phi2)), 4326)::geography AS g FROM q)
                 SELECT count(*) FILTER (WHERE within AND NOT (g::geometry
                                    && ST_MakeEnvelope($4, $5, $6, $7, 4326))),
                        count(*) FILTER (WHERE within),
                        count(*)
                 FROM (SELECT g, ST_DWithin(g, ST_SetSRID(ST_MakePoint($2, $1), 4326)::geography, $3, false)
                              AS within FROM p) AS measured",
            )
            .bind(lat)
            .bind(lng)
            .bind(radius)
            .bind(min_lng)
            .bind(min_lat)
            .bind(max_lng)
            .bind(max_lat)
            .fetch_one(app.pool())
            .await
            .unwrap();
            assert_eq!(points, 72);
            // Rounding in the points' own trigonometry puts a few of them on the circle's
            // wrong side a metre from a pole; the box must hold each one ST_DWithin keeps.
            assert!(
                inside >= 48,
                "({lat}, {lng}) {radius} m: {inside} of 72 inside"
            );
            assert_eq!(
                outside, 0,
                "({lat}, {lng}) {radius} m: kept points outside the box"
            );
        }
    }
    // A small circle far from the poles and the antimeridian keeps a small box.
    let (min_lng, min_lat, max_lng, max_lat) = circle_box(53.4808, -2.2426, 10_000.0);
    let (width, height) = (max_lng - min_lng, max_lat - min_lat);
    assert!((0.29..0.31).contains(&width), "{width}");
    assert!((0.17..0.19).contains(&height), "{height}");
}

/// Every point of a circle is in one of the cells its box is covered with (`search::cells`, the
/// records' cells computed by `canonical.cells_at` in PostgreSQL), at every cell size, near the
/// poles and across the antimeridian; and a cover has at most 128 cells unless even the coarsest
/// size needs more.
#[tokio::test]
async fn the_cells_of_a_radius_hold_every_point_of_its_circle() {
    let app = TestApp::new().await;
    let centres = [
        (53.4808, -2.2426),
        (0.0, 179.999),
        (-33.87, 151.21),
        (89.9, 10.0),
        (-89.5, -120.0),
        (40.0, -180.0),
        (0.00001, -0.00001),
    ];
    let radii = [30.0, 400.0, 1000.0, 9000.0, 10000.0, 100000.0, 2000000.0];
    let mut all_points = 0;
    for (lat, lng) in centres {
        for radius in radii {
            let cover = spacetime_records::search::cells::radius_cells(lat, lng, radius);
            let coarsest = cover.iter().all(|cell| cell >> 40 == 4);
            assert!(
                cover.len() <= 128 || coarsest,
                "({lat}, {lng}) {radius} m: {} cells",
                cover.len()
            );
            let (points, missed): (i64, i64) = sqlx::query_as(
                "WITH centre AS (SELECT ST_SetSRID(ST_MakePoint($2, $1), 4326)::geography AS c),
                      point AS (SELECT c, ST_Project(c, $3 * sqrt(random()), radians(360 * random())) AS p
                                FROM centre, generate_series(1, 300))
                 SELECT count(*),
                        count(*) FILTER (WHERE NOT canonical.cells_at(ST_Y(p::geometry), ST_X(p::geometry)) && $4)
                 FROM point WHERE ST_Distance(p, c, false) <= $3",
            )
            .bind(lat)
            .bind(lng)
            .bind(radius)
            .bind(&cover)
            .fetch_one(app.pool())
            .await
            .unwrap();
            assert_eq!(
                missed, 0,
                "({lat}, {lng}) {radius} m: {missed} of {points} points outside"
            );
            all_points += points;
        }
    }
    assert!(all_points > 10_000, "{all_points} points");
}

/// The records' cells are plain arithmetic inlined into each statement (migration 0029): called
/// as a function, each candidate of a radius search cost 20 µs in the index's recheck.
#[tokio::test]
async fn a_radius_search_rechecks_the_cells_inline() {
    let app = TestApp::new().await;
    let input = spacetime_records::search::SearchInput {
        query: Some("plumber".into()),
        latitude: Some(53.48),
        longitude: Some(-2.24),
        radius_meters: Some(10_000),
        canonical_type: Some("entity".into()),
        ..Default::default()
    };
    let request = spacetime_records::search::SearchRequest::validate(input, &["query"])
        .map_err(|e| e.public_message())
        .unwrap();
    let mut conn = app.pool().acquire().await.unwrap();
    sqlx::query("SET enable_seqscan = off")
        .execute(&mut *conn)
        .await
        .unwrap();
    let plan = spacetime_records::search::explain(&mut conn, &request, None, "EXPLAIN")
        .await
        .unwrap();
    assert!(plan.contains("entities_search_cells_idx"), "{plan}");
    assert!(plan.contains("floor(location_lat"), "{plan}");
    assert!(!plan.contains("cells_at("), "{plan}");
}
