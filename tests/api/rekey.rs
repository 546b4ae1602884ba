//! `admin rekey`: identity keys written under older normalisation rules are recomputed in
//! bounded batches, so matching compares today's keys; nothing else about a record changes.

use crate::harness::{TestApp, east, entity_entry};
use serde_json::{Value, json};

const LAT: f64 = 53.4790;
const LNG: f64 = -2.2470;

fn rekey(app: &TestApp, args: &[&str]) -> std::process::Output {
    let args: Vec<&str> = ["rekey"].into_iter().chain(args.iter().copied()).collect();
    app.admin_cli_output("", &format!("rekey-{}", uuid::Uuid::now_v7()), &args)
}

/// Every entity as the API shows it, but for when it was last written.
async fn public_fields(app: &TestApp) -> Vec<Value> {
    let mut list = app.get("/api/v1/entities").await.body;
    for record in list.as_array_mut().unwrap() {
        record
            .as_object_mut()
            .unwrap()
            .remove("updated_at_tstamp_utc");
    }
    list.as_array().unwrap().clone()
}

#[tokio::test]
async fn rekeying_rewrites_stale_keys_in_batches_and_matching_then_finds_the_records() {
    let app = TestApp::new().await;
    let admin = app.admin_key().await;
    let (_, key) = app.register("Rekey Directory").await;
    let mut ids = Vec::new();
    for (i, name) in ["Bäckerei Müller", "Dupont et Fils", "Harbour Bakery"]
        .iter()
        .enumerate()
    {
        let (lat, lng) = east(LAT, LNG, 600.0 * i as f64);
        let r = app
            .publish(&key, &admin, entity_entry(name, lat, lng, json!({})))
            .await;
        ids.push(r["canonical_id"].as_str().unwrap().to_owned());
    }
    let listing = app
        .publish(
            &key,
            &admin,
            json!({"entry_type": "listing", "latitude": LAT, "longitude": LNG,
                   "context": {"title": "Sourdough Loaf & Rolls"}}),
        )
        .await["canonical_id"]
        .as_str()
        .unwrap()
        .to_owned();
    // As records written under older rules would have them: "&" not read as "and", accents kept.
    sqlx::query("UPDATE canonical.entities SET name_key = 'bäckerei müller' WHERE id = $1::uuid")
        .bind(&ids[0])
        .execute(app.pool())
        .await
        .unwrap();
    sqlx::query("UPDATE canonical.entities SET name_key = 'dupont et fils' WHERE id = $1::uuid")
        .bind(&ids[1])
        .execute(app.pool())
        .await
        .unwrap();
    sqlx::query(
        "UPDATE canonical.listings SET title_key = 'sourdough loaf rolls' WHERE id = $1::uuid",
    )
    .bind(&listing)
    .execute(app.pool())
    .await
    .unwrap();
    let before = public_fields(&app).await;

    let refused = rekey(&app, &["--batch-size", "0"]);
    assert!(!refused.status.success());
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("VALIDATION_ERROR"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );

    // Batches of two: three entities take two batches, two of them stale.
    let out = rekey(&app, &["--table", "entities", "--batch-size", "2"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["scanned"], 3, "{summary}");
    assert_eq!(summary["rekeyed"], 2, "{summary}");
    assert_eq!(summary["skipped"], 0, "{summary}");
    let keys: Vec<String> =
        sqlx::query_scalar("SELECT name_key FROM canonical.entities ORDER BY id")
            .fetch_all(app.pool())
            .await
            .unwrap();
    assert_eq!(
        keys,
        ["backerei muller", "dupont and fils", "harbour bakery"]
    );
    assert_eq!(before, public_fields(&app).await, "only the keys change");
    let again = rekey(&app, &["--table", "entities"]);
    let summary: Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(summary["rekeyed"], 0, "a second run finds nothing to do");

    let out = rekey(&app, &["--table", "listings"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let title_key: String =
        sqlx::query_scalar("SELECT title_key FROM canonical.listings WHERE id = $1::uuid")
            .bind(&listing)
            .fetch_one(app.pool())
            .await
            .unwrap();
    assert_eq!(title_key, "sourdough loaf and rolls");

    // Matching now compares today's keys: "Dupont & Fils" 120 m away is the same business, and
    // the listing's title written with "and" is the same listing.
    let (lat, lng) = east(LAT, LNG, 720.0);
    let r = app
        .publish(
            &key,
            &admin,
            entity_entry("Dupont & Fils", lat, lng, json!({})),
        )
        .await;
    assert_eq!(r["canonical_id"], ids[1].as_str(), "{r}");
    let r = app
        .publish(
            &key,
            &admin,
            json!({"entry_type": "listing", "latitude": LAT, "longitude": LNG,
                   "context": {"title": "Sourdough loaf and rolls"}}),
        )
        .await;
    assert_eq!(r["canonical_id"], listing.as_str(), "{r}");
}
