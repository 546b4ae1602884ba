//! The transformer's candidate search (`db::entities::candidates_many`): the nearest records
//! around the entry, and the nearest 20 records sharing one of its identity keys, ranked from
//! the key indexes alone (migration 0028).

use crate::harness::TestApp;
use spacetime_records::db::entities::{CandidateQuery, candidates_many};
use uuid::Uuid;

/// 30 holders of one phone 1..30 km north of the entry (beyond the 500 m radius), the nearest
/// of them withdrawn, one sharing the name too; a record nearby sharing nothing.
#[tokio::test]
async fn the_nearest_twenty_holders_of_a_key_come_once_each_and_withdrawn_ones_never() {
    let app = TestApp::new().await;
    app.execute(
        "INSERT INTO canonical.entities (id, display_name, location_lat, location_lng, name_key, phone_key, status)
         SELECT gen_random_uuid(), 'Holder ' || i, 53.0 + i * 0.009, -2.0,
                CASE WHEN i = 5 THEN 'corner shop' ELSE 'holder ' || i END, '+441610000000',
                CASE WHEN i = 1 THEN 'withdrawn' ELSE 'active' END
         FROM generate_series(1, 30) AS i",
    )
    .await;
    app.execute(
        "INSERT INTO canonical.entities (id, display_name, location_lat, location_lng, name_key)
         VALUES (gen_random_uuid(), 'Next Door', 53.0001, -2.0, 'next door')",
    )
    .await;
    let entry_id = Uuid::now_v7();
    let mut conn = app.pool().acquire().await.unwrap();
    let found = candidates_many(
        &mut conn,
        &[CandidateQuery {
            entry_id,
            latitude: 53.0,
            longitude: -2.0,
            name_key: "corner shop",
            website_key: None,
            phone_key: Some("+441610000000"),
            source_ref: None,
        }],
        500.0,
        25_000.0,
    )
    .await
    .unwrap();
    let holders: Vec<(String, f64)> = found
        .iter()
        .filter(|(_, c)| c.phone_key.as_deref() == Some("+441610000000"))
        .map(|(id, c)| {
            assert_eq!(*id, entry_id);
            (c.name_key.clone().unwrap(), c.distance_m)
        })
        .collect();
    let names: Vec<&str> = holders.iter().map(|(n, _)| n.as_str()).collect();
    let expected: Vec<String> = (2..=21)
        .map(|i| {
            if i == 5 {
                "corner shop".to_string()
            } else {
                format!("holder {i}")
            }
        })
        .collect();
    assert_eq!(
        names, expected,
        "the nearest 20 active holders, nearest first, once each"
    );
    assert!(holders.windows(2).all(|w| w[0].1 <= w[1].1));
    assert!(
        found
            .iter()
            .any(|(_, c)| c.name_key.as_deref() == Some("next door") && c.distance_m < 20.0),
        "the record next door comes from the radius"
    );
}

/// A record named `name` (its name key too) at `(lat, lng)`.
async fn place(
    app: &TestApp,
    name: &str,
    (lat, lng): (f64, f64),
    status: &str,
    phone_key: Option<&str>,
) {
    sqlx::query(
        "INSERT INTO canonical.entities (id, display_name, location_lat, location_lng, name_key, status, phone_key)
         VALUES (gen_random_uuid(), $1, $2, $3, $1, $4, $5)",
    )
    .bind(name)
    .bind(lat)
    .bind(lng)
    .bind(status)
    .bind(phone_key)
    .execute(app.pool())
    .await
    .unwrap();
}

/// One query for the entry at (`lat`, `lng`) sharing nothing but `phone_key`, answering each
/// candidate's name and distance.
async fn candidate_names(
    app: &TestApp,
    lat: f64,
    lng: f64,
    phone_key: Option<&str>,
) -> Vec<(String, f64)> {
    let mut conn = app.pool().acquire().await.unwrap();
    candidates_many(
        &mut conn,
        &[CandidateQuery {
            entry_id: Uuid::now_v7(),
            latitude: lat,
            longitude: lng,
            name_key: "nothing shared",
            website_key: None,
            phone_key,
            source_ref: None,
        }],
        500.0,
        25_000.0,
    )
    .await
    .unwrap()
    .into_iter()
    .map(|(_, c)| (c.name_key.unwrap(), c.distance_m))
    .collect()
}

/// At 60° north a degree of longitude is half as long as one of latitude: the 20 records nearest
/// in degrees (all north) are not the 20 nearest on the sphere (most of them east). The answer is
/// the latter, nearest first; withdrawn records and records beyond the radius are left out.
#[tokio::test]
async fn the_nearest_twenty_within_the_radius_are_the_nearest_on_the_sphere() {
    let app = TestApp::new().await;
    let (lat, lng): (f64, f64) = (60.0, 10.0);
    let metre_lat = 1.0 / 111_194.9;
    let metre_lng = metre_lat / lat.to_radians().cos();
    let mut placed: Vec<(String, f64, f64, &str)> = Vec::new();
    for i in 0..20 {
        let d = 100.0 + 10.0 * f64::from(i);
        placed.push((format!("east {i}"), lat, lng + d * metre_lng, "active"));
        let d = 150.0 + 10.0 * f64::from(i);
        placed.push((format!("north {i}"), lat + d * metre_lat, lng, "active"));
    }
    placed.push(("withdrawn".into(), lat, lng - 5.0 * metre_lng, "withdrawn"));
    placed.push(("beyond".into(), lat - 520.0 * metre_lat, lng, "active"));
    for (name, at_lat, at_lng, status) in &placed {
        place(&app, name, (*at_lat, *at_lng), status, None).await;
    }
    let mut expected: Vec<(String, f64)> = placed
        .iter()
        .filter(|(name, _, _, status)| *status == "active" && name != "beyond")
        .map(|(name, at_lat, at_lng, _)| {
            let d =
                spacetime_records::domain::geo::sphere_distance_m((lat, lng), (*at_lat, *at_lng));
            (name.clone(), d)
        })
        .collect();
    expected.sort_by(|a, b| a.1.total_cmp(&b.1));
    expected.truncate(20);
    let found = candidate_names(&app, lat, lng, None).await;
    let names: Vec<&str> = found.iter().map(|(n, _)| n.as_str()).collect();
    let wanted: Vec<&str> = expected.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, wanted, "the 20 nearest on the sphere, nearest first");
    assert!(names.iter().filter(|n| n.starts_with("east")).count() > 10);
    for ((_, got), (_, want)) in found.iter().zip(&expected) {
        assert!((got - want).abs() < 0.01, "distance {got} against {want}");
    }
}

/// The nearest record may be across the antimeridian, 360 degrees away on a flat map, behind
/// 25 records nearer in degrees on the entry's side.
#[tokio::test]
async fn the_nearest_record_across_the_antimeridian_comes_first() {
    let app = TestApp::new().await;
    app.execute(
        "INSERT INTO canonical.entities (id, display_name, location_lat, location_lng, name_key)
         SELECT gen_random_uuid(), 'Side ' || i, 0.0, 179.9998 - i * 0.0001, 'side ' || i
         FROM generate_series(1, 25) AS i",
    )
    .await;
    app.execute(
        "INSERT INTO canonical.entities (id, display_name, location_lat, location_lng, name_key)
         VALUES (gen_random_uuid(), 'Across', 0.0, -179.99995, 'across')",
    )
    .await;
    let found = candidate_names(&app, 0.0, 179.9999, None).await;
    assert_eq!(found.len(), 20);
    assert_eq!(found[0].0, "across");
    assert!(found[0].1 < 17.0, "{found:?}");
    assert_eq!(found[1].0, "side 1");
}

/// `canonical.circle_box` (migration 0034) is `domain::geo::circle_box` in SQL.
#[tokio::test]
async fn the_circle_box_in_sql_is_the_one_in_rust() {
    let app = TestApp::new().await;
    for (lat, lng, radius) in [
        (53.4808, -2.2426, 500.0),
        (60.0, 10.0, 37.5),
        (-33.9, 151.2, 25_000.0),
        (0.0, 179.9999, 500.0),
        (0.0, -179.9999, 500.0),
        (89.99, 0.0, 2_000.0),
        (-89.99, 45.0, 2_000.0),
        (10.0, 20.0, 0.0),
        (45.0, 90.0, 30_000_000.0),
    ] {
        let (west, south, east, north) =
            spacetime_records::domain::geo::circle_box(lat, lng, radius);
        let (w, s, e, n): (f64, f64, f64, f64) = sqlx::query_as(
            "SELECT ST_XMin(b), ST_YMin(b), ST_XMax(b), ST_YMax(b)
             FROM canonical.circle_box($1, $2, $3) AS b",
        )
        .bind(lat)
        .bind(lng)
        .bind(radius)
        .fetch_one(app.pool())
        .await
        .unwrap();
        for (sql, rust) in [(w, west), (s, south), (e, east), (n, north)] {
            assert!(
                (sql - rust).abs() < 1e-9,
                "{lat},{lng},{radius}: {sql} against {rust}"
            );
        }
    }
}

/// A key's holders are offered within the key radius only (25 km, the farthest any rule lets a
/// record win), read through the band of latitudes the key indexes order them by
/// (migration 0036): just inside it north, south, east and across the pole, not just outside it
/// or in another city.
#[tokio::test]
async fn holders_of_a_key_are_offered_within_the_key_radius_only() {
    let app = TestApp::new().await;
    let metre_lat = 180.0 / (std::f64::consts::PI * 6_371_008.771_4);
    let (lat, lng): (f64, f64) = (60.0, 10.0);
    let metre_lng = metre_lat / lat.to_radians().cos();
    let placed = [
        ("north inside", lat + 24_990.0 * metre_lat, lng),
        ("north outside", lat + 25_010.0 * metre_lat, lng),
        ("south inside", lat - 24_990.0 * metre_lat, lng),
        ("south outside", lat - 25_010.0 * metre_lat, lng),
        ("east inside", lat, lng + 24_990.0 * metre_lng),
        ("east outside", lat, lng + 26_000.0 * metre_lng),
        ("another city", lat + 2.0, lng),
        ("another continent", -33.9, 151.2),
        ("across the pole", 89.9, -170.0),
        ("a quarter turn round the pole", 89.9, 10.0 + 90.0),
    ];
    for (name, at_lat, at_lng) in placed {
        place(&app, name, (at_lat, at_lng), "active", Some("+4740000000")).await;
    }
    let holders = |at_lat: f64, at_lng: f64| {
        let app = &app;
        async move {
            let mut names: Vec<String> = candidate_names(app, at_lat, at_lng, Some("+4740000000"))
                .await
                .into_iter()
                .map(|(name, _)| name)
                .collect();
            names.sort();
            names
        }
    };
    assert_eq!(
        holders(lat, lng).await,
        ["east inside", "north inside", "south inside"]
    );
    // 0.2 degrees of latitude over the pole: 22 km; a quarter turn away at 89.9: 15.7 km.
    assert_eq!(
        holders(89.9, 10.0).await,
        ["a quarter turn round the pole", "across the pole"]
    );
}
