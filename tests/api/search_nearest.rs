//! `sort=distance`: the n nearest matches, by (distance, id), whether or not the bounded walk
//! before the statement (`search::nearest`) finds a distance that holds them.

use crate::harness::TestApp;
use axum::http::StatusCode;
use spacetime_records::search::{Param, SearchInput, SearchRequest, Statement};
use uuid::Uuid;

const MANCHESTER: (f64, f64) = (53.48, -2.24);
const DUBLIN: (f64, f64) = (53.35, -6.26);

/// 20,000 records around four cities, one trade each (a plumber is always in Manchester, a
/// dentist in Dublin), and 30 plumbers at exactly Manchester's point (a tie at distance 0).
async fn seeded() -> TestApp {
    let app = TestApp::new().await;
    app.execute(
        "INSERT INTO canonical.entities (id, display_name, categories, city, country_code, location_lat, location_lng, name_key)
         SELECT gen_random_uuid(), initcap(substr(md5(i::text), 1, 6)) || (ARRAY[' Plumbing',' Bakery',' Dental',' Electrics'])[1 + i % 4],
                ARRAY[(ARRAY['plumber','bakery','dentist','electrician'])[1 + i % 4]],
                (ARRAY['Manchester','Leeds','Dublin','Berlin'])[1 + i % 4], (ARRAY['GB','GB','IE','DE'])[1 + i % 4],
                (ARRAY[53.48, 53.80, 53.35, 52.52])[1 + i % 4] + (random() - 0.5) * 0.5,
                (ARRAY[-2.24, -1.55, -6.26, 13.40])[1 + i % 4] + (random() - 0.5) * 0.8, 'business ' || i
         FROM generate_series(1, 20000) AS i",
    )
    .await;
    app.execute(
        "INSERT INTO canonical.entities (id, display_name, categories, city, country_code, location_lat, location_lng, name_key)
         SELECT gen_random_uuid(), 'Corner Plumbing ' || i, ARRAY['plumber'], 'Manchester', 'GB', 53.48, -2.24, 'corner ' || i
         FROM generate_series(1, 30) AS i",
    )
    .await;
    app.execute("ANALYZE canonical.entities").await;
    app
}

/// The n nearest records having every word, by (sphere distance, id): the exact step's answer.
async fn nearest_by_sql(
    app: &TestApp,
    query: &str,
    (lat, lng): (f64, f64),
    radius: Option<f64>,
    n: i64,
) -> Vec<Uuid> {
    sqlx::query_scalar(
        "SELECT id FROM canonical.entities
         WHERE search_document @@ websearch_to_tsquery('simple', $1)
           AND status NOT IN ('archived', 'withdrawn', 'merged')
           AND ($4::float8 IS NULL OR ST_Distance(location, ST_SetSRID(ST_MakePoint($3, $2), 4326)::geography, false) <= $4)
         ORDER BY ST_Distance(location, ST_SetSRID(ST_MakePoint($3, $2), 4326)::geography, false), id
         LIMIT $5",
    )
    .bind(query)
    .bind(lat)
    .bind(lng)
    .bind(radius)
    .bind(n)
    .fetch_all(app.pool())
    .await
    .unwrap()
}

fn path(query: &str, (lat, lng): (f64, f64), radius: Option<i64>, n: i64) -> String {
    let radius = radius.map_or(String::new(), |r| format!("&radius_meters={r}"));
    format!(
        "/api/v1/search?query={query}&latitude={lat}&longitude={lng}{radius}&sort=distance&max_results={n}"
    )
}

async fn answered(app: &TestApp, path: &str) -> Vec<Uuid> {
    let r = app.get(path).await;
    assert_eq!(r.status, StatusCode::OK, "{path}: {}", r.text);
    r.body["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|hit| hit["id"].as_str().unwrap().parse().unwrap())
        .collect()
}

/// The n nearest entities having `query`'s words, with the statements the search ran.
async fn run_nearest(
    conn: &mut sqlx::PgConnection,
    query: &str,
    (lat, lng): (f64, f64),
    n: i64,
) -> (Vec<spacetime_records::search::Hit>, Vec<Statement>) {
    let input = SearchInput {
        query: Some(query.into()),
        latitude: Some(lat),
        longitude: Some(lng),
        sort: Some("distance".into()),
        max_results: Some(n),
        canonical_type: Some("entity".into()),
        ..Default::default()
    };
    let request = SearchRequest::validate(input, &["query"])
        .map_err(|e| e.public_message())
        .unwrap();
    let (hits, _, ran) = spacetime_records::search::run_recorded(conn, &request)
        .await
        .unwrap();
    (hits, ran)
}

/// Whether the search's statement read only the records within a bound it was given (no radius
/// was asked: the cells of a circle are the walk's bound), from the statements it ran.
async fn was_bounded(app: &TestApp, query: &str, point: (f64, f64), n: i64) -> bool {
    let mut conn = app.pool().acquire().await.unwrap();
    let (_, ran) = run_nearest(&mut conn, query, point, n).await;
    let walk = &ran[0];
    assert!(walk.sql.contains("location::geometry <->"), "{}", walk.sql);
    let plan = spacetime_records::search::explain_statement(&mut conn, walk, "EXPLAIN")
        .await
        .unwrap();
    assert!(plan.contains("entities_location_geometry_idx"), "{plan}");
    ran.last()
        .unwrap()
        .sql
        .contains("cells_at(location_lat, location_lng) &&")
}

#[tokio::test]
async fn nearest_first_answers_the_n_nearest_matches_whether_or_not_a_walk_bounds_them() {
    let app = seeded().await;
    let east_of_manchester = (53.48, -2.20);
    let cases = [
        // A trade of one record in four, from its own city: the walk bounds the search.
        ("plumber", MANCHESTER, None, 10),
        ("plumber", MANCHESTER, None, 50),
        ("plumber", east_of_manchester, None, 10),
        ("plumber", east_of_manchester, Some(3_000), 25),
        ("dentist", DUBLIN, None, 50),
        // Dentists are all in Dublin and bakers in Leeds: none among Manchester's nearest, so no
        // bound.
        ("dentist", MANCHESTER, None, 10),
        ("bakery", MANCHESTER, Some(100_000), 10),
    ];
    for (query, point, radius, n) in cases {
        let expected = nearest_by_sql(&app, query, point, radius.map(|r| r as f64), n).await;
        assert_eq!(expected.len() as i64, n, "{query} {point:?} {radius:?}");
        let got = answered(&app, &path(query, point, radius, n)).await;
        assert_eq!(got, expected, "{query} {point:?} {radius:?} {n}");
    }
    // Ties at distance 0: the 30 plumbers at Manchester's point, the first ten by id.
    let corner: Vec<Uuid> = sqlx::query_scalar(
        "SELECT id FROM canonical.entities WHERE display_name LIKE 'Corner Plumbing %' ORDER BY id LIMIT 10",
    )
    .fetch_all(app.pool())
    .await
    .unwrap();
    assert_eq!(
        answered(&app, &path("plumber", MANCHESTER, None, 10)).await,
        corner
    );
    assert!(was_bounded(&app, "plumber", MANCHESTER, 10).await);
    assert!(was_bounded(&app, "dentist", DUBLIN, 50).await);
    assert!(!was_bounded(&app, "dentist", MANCHESTER, 10).await);
}

/// Words that match none of the records nearest the point (a Manchester plumber's name, from
/// Dublin) are read and sorted without a bound, and the walk stops short.
#[tokio::test]
async fn rare_words_are_searched_nearest_first_without_a_walk() {
    let app = seeded().await;
    let mut conn = app.pool().acquire().await.unwrap();
    let (hits, ran) = run_nearest(&mut conn, "Corner Plumbing 7", DUBLIN, 10).await;
    assert!(hits.iter().any(|hit| hit.label == "Corner Plumbing 7"));
    let walks: Vec<_> = ran
        .iter()
        .filter(|s| s.sql.contains("location::geometry <->"))
        .collect();
    assert!(!walks.is_empty());
    // Every walk stopped short: 500 records, never the full 2,000.
    for walk in walks {
        assert!(walk.params.iter().any(|p| matches!(p, Param::Int(500))));
        assert!(!walk.params.iter().any(|p| matches!(p, Param::Int(2_000))));
    }
    let last = &ran.last().unwrap().sql;
    assert!(
        !last.contains("cells_at(location_lat, location_lng) &&"),
        "{last}"
    );
}

/// A misspelt word whose matches are none of the 500 records nearest the point (a dense street
/// of bakeries) but plenty within 10 km: the corrected step counts the matches within 10 km, is
/// bounded by that circle, and answers the n nearest, as SQL does over the whole table.
#[tokio::test]
async fn a_corrected_step_no_walk_bounds_is_bounded_by_the_first_circle_holding_n_matches() {
    let app = TestApp::new().await;
    let point = (52.30, -1.60);
    app.execute(
        "INSERT INTO canonical.entities (id, display_name, categories, city, country_code, location_lat, location_lng, name_key)
         SELECT gen_random_uuid(), 'Loaf ' || i || ' Bakery', ARRAY['bakery'], 'Warwick', 'GB',
                52.30 + (random() - 0.5) * 0.004, -1.60 + (random() - 0.5) * 0.006, 'loaf ' || i
         FROM generate_series(1, 600) AS i",
    )
    .await;
    // 20 plumbers 2-6 km east, 30 more far away in Dublin.
    app.execute(
        "INSERT INTO canonical.entities (id, display_name, categories, city, country_code, location_lat, location_lng, name_key)
         SELECT gen_random_uuid(), 'Avon Plumbing ' || i, ARRAY['plumber'], 'Leamington', 'GB',
                52.30, -1.60 + 0.03 + 0.003 * i, 'avon ' || i
         FROM generate_series(1, 20) AS i
         UNION ALL
         SELECT gen_random_uuid(), 'Liffey Plumbing ' || i, ARRAY['plumber'], 'Dublin', 'IE',
                53.35, -6.26 + 0.001 * i, 'liffey ' || i
         FROM generate_series(1, 30) AS i",
    )
    .await;
    app.execute("ANALYZE canonical.entities").await;
    for n in [10, 20, 25] {
        let r = app.get(&path("plumbng", point, None, n)).await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.text);
        assert_eq!(r.body["query"]["text_matching"], "fuzzy", "{}", r.body);
        let got: Vec<Uuid> = r.body["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|hit| hit["id"].as_str().unwrap().parse().unwrap())
            .collect();
        assert_eq!(
            got,
            nearest_by_sql(&app, "plumbing", point, None, n).await,
            "{n}"
        );
    }
    // 10 and 20 are within 10 km; 25 needs Dublin, beyond both circles: unbounded.
    let mut conn = app.pool().acquire().await.unwrap();
    for (n, bounded) in [(10, true), (20, true), (25, false)] {
        let (_, ran) = run_nearest(&mut conn, "plumbng", point, n).await;
        let rings = ran
            .iter()
            .filter(|s| s.sql.starts_with("SELECT (SELECT count(*)"))
            .count();
        assert_eq!(rings, if bounded { 1 } else { 2 }, "{n}");
        let last = &ran.last().unwrap().sql;
        assert_eq!(
            last.contains("cells_at(location_lat, location_lng) &&"),
            bounded,
            "{n}"
        );
    }
}
