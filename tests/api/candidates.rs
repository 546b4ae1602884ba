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
