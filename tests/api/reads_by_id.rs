//! Reads by id that arrive together share one statement (`db::batched`): each must still get
//! exactly the answer a read of its own gets.

use crate::harness::{TestApp, east, entity_entry};
use axum::http::StatusCode;
use serde_json::json;
use uuid::Uuid;

const LAT: f64 = 53.4808;
const LNG: f64 = -2.2426;

#[tokio::test]
async fn concurrent_reads_by_id_each_get_the_answer_a_read_of_their_own_gets() {
    let app = TestApp::new().await;
    let admin = app.admin_key().await;
    let (_, key) = app.register("Batch Reader Directory").await;
    let names = [
        "Ancoats Coffee Roasters",
        "Bridgewater Bicycle Repairs",
        "Chorlton Letterpress Studio",
        "Didsbury Violin Workshop",
        "Eccles Cake Bakery",
    ];
    let mut ids = Vec::new();
    for (n, name) in names.iter().enumerate() {
        let (lat, lng) = east(LAT, LNG, 2_000.0 * n as f64);
        let published = app
            .publish(&key, &admin, entity_entry(name, lat, lng, json!({})))
            .await;
        ids.push(published["canonical_id"].as_str().unwrap().to_owned());
    }
    let merged = app
        .request(
            "POST",
            &format!("/api/v1/entities/{}/merge", ids[0]),
            Some(json!({"merged_id": ids[4]})),
            Some(&admin),
        )
        .await;
    assert_eq!(merged.status, StatusCode::OK, "{}", merged.text);

    // What each id answers when read alone.
    let missing = Uuid::now_v7().to_string();
    let mut asked: Vec<String> = ids.clone();
    asked.push(missing.clone());
    let mut alone = Vec::new();
    for id in &asked {
        alone.push(app.get(&format!("/api/v1/entities/{id}")).await);
    }
    assert_eq!(
        alone[4].body["id"],
        ids[0].as_str(),
        "the merged id redirects"
    );
    assert_eq!(alone[5].status, StatusCode::NOT_FOUND, "{}", alone[5].text);

    // Sixty reads at once, each id asked many times over, interleaved: all but the first wait
    // for a statement already in flight and go out together, duplicates in one batch included.
    let order: Vec<usize> = (0..60).map(|n| (n * 7) % asked.len()).collect();
    let paths: Vec<String> = order
        .iter()
        .map(|&n| format!("/api/v1/entities/{}", asked[n]))
        .collect();
    let together = futures::future::join_all(paths.iter().map(|path| app.get(path))).await;
    for (&n, response) in order.iter().zip(&together) {
        assert_eq!(
            response.status, alone[n].status,
            "{}: {}",
            asked[n], response.text
        );
        assert_eq!(response.body, alone[n].body, "{}", asked[n]);
        assert_eq!(
            response.headers.get("content-location"),
            alone[n].headers.get("content-location"),
            "{}",
            asked[n]
        );
    }
}
