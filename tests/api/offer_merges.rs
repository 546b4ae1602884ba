//! Operators merge duplicate listings and requests as they merge entities: the survivor is
//! rebuilt from both records' evidence by the offer merge rules, the other becomes a redirect
//! (its id answers with the survivor and says so; search, near, within and matching never show
//! it), contributions say who decided what and when, and an undo rebuilds both records from their
//! own contributions. Over REST, GraphQL and the admin CLI, through one service.

use crate::harness::{TestApp, east, entity_entry};
use axum::http::StatusCode;
use serde_json::{Value, json};

const LAT: f64 = 53.4630;
const LNG: f64 = -2.2310;

fn offer_entry(entry_type: &str, title: &str, (lat, lng): (f64, f64), context: Value) -> Value {
    let mut ctx = json!({"title": title, "city": "Manchester", "country_code": "GB"});
    if let (Some(c), Some(extra)) = (ctx.as_object_mut(), context.as_object()) {
        c.extend(extra.clone());
    }
    json!({"entry_type": entry_type, "latitude": lat, "longitude": lng,
           "observed_at_tstamp_utc": "2026-11-01T10:00:00Z", "source_type": "web_page",
           "context": ctx})
}

fn id_of(result: &Value) -> String {
    assert_eq!(result["status"], "processed", "{result}");
    result["canonical_id"].as_str().unwrap().to_owned()
}

fn ids(list: &Value) -> Vec<&str> {
    list.as_array()
        .unwrap_or_else(|| panic!("not a list: {list}"))
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect()
}

struct Pair {
    app: TestApp,
    admin: String,
    reporter: String,
    provider: String,
    a: String,
    b: String,
}

/// The metadata of the contribution of `link_type` that targets the listing `id`.
async fn listing_link_metadata(app: &TestApp, id: &str, link_type: &str) -> Value {
    sqlx::query_scalar(
        "SELECT metadata FROM canonical_link_contributions
         WHERE target_canonical_table = 'canonical.listings' AND target_canonical_id = $1::uuid
           AND link_type = $2",
    )
    .bind(id)
    .bind(link_type)
    .fetch_one(app.pool())
    .await
    .unwrap()
}

/// Two listings of one provider's boiler service, as two directories wrote it (different
/// titles, so the transformer kept them apart).
async fn two_listings() -> Pair {
    let app = TestApp::new().await;
    let admin = app.admin_key().await;
    let (_, first) = app.register("First Trade Directory").await;
    let (_, second) = app.register("Second Trade Directory").await;
    let provider = id_of(
        &app.publish(
            &first,
            &admin,
            entity_entry("Moss Side Heating", LAT, LNG, json!({})),
        )
        .await,
    );
    let a = id_of(
        &app.publish(
            &first,
            &admin,
            offer_entry(
                "listing",
                "Boiler service",
                (LAT, LNG),
                json!({"provider_entity_id": provider, "price_amount": "80.00",
                       "currency_code": "GBP", "categories": ["heating"]}),
            ),
        )
        .await,
    );
    let b = id_of(
        &app.publish(
            &second,
            &admin,
            offer_entry(
                "listing",
                "Annual boiler check",
                east(LAT, LNG, 20.0),
                json!({"provider_entity_id": provider, "categories": ["gas_safety"],
                       "description": "Gas Safe registered engineer, same week"}),
            ),
        )
        .await,
    );
    assert_ne!(a, b, "two records to begin with");
    Pair {
        app,
        admin,
        reporter: second,
        provider,
        a,
        b,
    }
}

#[tokio::test]
async fn duplicate_listings_are_merged_redirected_hidden_and_restored_by_an_undo() {
    let Pair {
        app,
        admin,
        reporter,
        a,
        b,
        ..
    } = two_listings().await;

    // An agent's duplicate report queues the pair.
    let signal = app
        .post_as(
            "/api/v1/signals",
            json!({"signal_type": "duplicate", "target_schema": "canonical",
                   "target_table": "listings", "target_id": b, "duplicate_of_id": a,
                   "reason": "the same boiler service of Moss Side Heating"}),
            &reporter,
        )
        .await;
    assert_eq!(signal.status, StatusCode::CREATED, "{}", signal.text);
    let open = app.get("/api/v1/review-queue/duplicates?status=open").await;
    assert_eq!(open.body[0]["canonical_table"], "canonical.listings");
    assert_eq!(open.body[0]["record_id"], b.as_str());

    let merge_path = format!("/api/v1/listings/{a}/merge");
    let merge = |body: Value, key: String| {
        let (app, path) = (&app, &merge_path);
        async move { app.request("POST", path, Some(body), Some(&key)).await }
    };
    assert_eq!(
        merge(json!({"merged_id": b}), reporter.clone())
            .await
            .status,
        StatusCode::FORBIDDEN
    );
    for bad in [
        json!({"merged_id": a}),
        json!({"merged_id": uuid::Uuid::now_v7()}),
    ] {
        let r = merge(bad.clone(), admin.clone()).await;
        assert_eq!(
            r.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{bad}: {}",
            r.text
        );
        assert_eq!(
            r.body["detail"][0]["loc"],
            json!(["body", "merged_id"]),
            "{}",
            r.text
        );
    }
    let unknown_survivor = app
        .request(
            "POST",
            &format!("/api/v1/listings/{}/merge", uuid::Uuid::now_v7()),
            Some(json!({"merged_id": b})),
            Some(&admin),
        )
        .await;
    assert_eq!(
        unknown_survivor.status,
        StatusCode::NOT_FOUND,
        "{}",
        unknown_survivor.text
    );

    // The survivor holds the union of the evidence, field by field.
    let merged = merge(json!({"merged_id": b}), admin.clone()).await;
    assert_eq!(merged.status, StatusCode::OK, "{}", merged.text);
    let survivor = &merged.body;
    assert_eq!(survivor["id"], a.as_str());
    assert_eq!(survivor["title"], "Boiler service", "the first title stays");
    assert_eq!(survivor["price_amount"], "80.00");
    assert_eq!(
        survivor["description"],
        "Gas Safe registered engineer, same week"
    );
    assert_eq!(survivor["categories"], json!(["heating", "gas_safety"]));
    assert_eq!(survivor["status"], "active");

    // The redirect answers with the survivor and says so, on REST and GraphQL.
    let redirected = app.get(&format!("/api/v1/listings/{b}")).await;
    assert_eq!(redirected.status, StatusCode::OK);
    assert_eq!(redirected.body["id"], a.as_str());
    assert_eq!(
        redirected.headers["content-location"],
        format!("/api/v1/listings/{a}").as_str()
    );
    assert!(
        app.get(&format!("/api/v1/listings/{a}"))
            .await
            .headers
            .get("content-location")
            .is_none()
    );
    let g = app
        .graphql(
            "query($id: UUID!) { listing(id: $id) { id } }",
            json!({"id": b}),
            None,
        )
        .await;
    assert_eq!(g.body["data"]["listing"]["id"], a.as_str(), "{}", g.text);
    let listed = app.get("/api/v1/listings?status=merged").await;
    assert_eq!(ids(&listed.body), [b.as_str()]);
    assert_eq!(listed.body[0]["merged_into_id"], a.as_str());

    // Search, near and within never show it, even when asked for by status.
    for path in [
        "/api/v1/search?query=boiler&canonical_type=listing".to_owned(),
        "/api/v1/search?query=boiler&canonical_type=listing&filters=status:merged|active"
            .to_owned(),
    ] {
        let found = app.get(&path).await;
        assert_eq!(found.status, StatusCode::OK, "{}", found.text);
        let hits: Vec<&str> = found.body["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["id"].as_str().unwrap())
            .collect();
        assert_eq!(hits, [a.as_str()], "{path}: {}", found.text);
    }
    let near = app
        .graphql(
            "query($lat: Float!, $lng: Float!) { listingsNear(latitude: $lat, longitude: $lng, radiusMeters: 500) { nodes { id } } }",
            json!({"lat": LAT, "lng": LNG}),
            None,
        )
        .await;
    assert_eq!(
        near.body["data"]["listingsNear"]["nodes"],
        json!([{"id": a}]),
        "{}",
        near.text
    );
    let bbox = "bbox=-2.30,53.45,-2.20,53.50";
    assert_eq!(
        ids(&app.get(&format!("/api/v1/listings?{bbox}")).await.body),
        [a.as_str()]
    );
    assert!(
        ids(&app
            .get(&format!("/api/v1/listings?{bbox}&status=merged"))
            .await
            .body)
        .is_empty()
    );

    // Who decided what and when; the reported pair is settled.
    let decided = listing_link_metadata(&app, &b, "duplicate_of").await;
    assert_eq!(decided["duplicate_of"], a.as_str());
    assert!(
        decided["decided_by_agent_id"].is_string() && decided["decided_at_tstamp_utc"].is_string()
    );
    let carried = listing_link_metadata(&app, &a, "merged").await;
    assert_eq!(carried["merged_from"], b.as_str());
    assert_eq!(carried["original_link_type"], "created");
    assert_eq!(carried["merge_id"], decided["merge_id"]);
    assert_eq!(
        app.count("SELECT count(*) FROM duplicate_candidates WHERE status = 'confirmed'")
            .await,
        1
    );
    assert_eq!(
        merge(json!({"merged_id": b}), admin.clone()).await.status,
        StatusCode::CONFLICT
    );

    // Undone over GraphQL: both listings as their own contributions make them.
    let undone = app
        .graphql(
            "mutation($id: UUID!) { undoListingMerge(listingId: $id) { id title status description mergedIntoId } }",
            json!({"id": b}),
            Some(&admin),
        )
        .await;
    assert!(undone.body["errors"].is_null(), "{}", undone.text);
    let restored = &undone.body["data"]["undoListingMerge"];
    assert_eq!(restored["id"], b.as_str());
    assert_eq!(restored["title"], "Annual boiler check");
    assert_eq!(restored["status"], "active");
    assert!(restored["mergedIntoId"].is_null());
    assert_eq!(
        restored["description"],
        "Gas Safe registered engineer, same week"
    );
    let survivor = app.get(&format!("/api/v1/listings/{a}")).await.body;
    assert!(survivor["description"].is_null(), "{survivor}");
    assert_eq!(survivor["categories"], json!(["heating"]));
    assert_eq!(
        app.get(&format!("/api/v1/listings/{b}")).await.body["id"],
        b.as_str()
    );
    assert_eq!(
        app.count("SELECT count(*) FROM duplicate_candidates WHERE status = 'open'")
            .await,
        1,
        "the pair waits for a decision again"
    );
    let unmerge = |id: String| {
        let app = &app;
        let admin = admin.clone();
        async move {
            app.request(
                "POST",
                &format!("/api/v1/listings/{id}/unmerge"),
                None,
                Some(&admin),
            )
            .await
        }
    };
    assert_eq!(unmerge(b.clone()).await.status, StatusCode::CONFLICT);
    assert_eq!(
        unmerge(uuid::Uuid::now_v7().to_string()).await.status,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn two_operators_merging_one_pair_of_listings_both_ways_exactly_one_wins() {
    let Pair {
        app, admin, a, b, ..
    } = two_listings().await;
    let other = app.admin_key().await;
    let (path_a, path_b) = (
        format!("/api/v1/listings/{a}/merge"),
        format!("/api/v1/listings/{b}/merge"),
    );
    let one = app.request("POST", &path_a, Some(json!({"merged_id": b})), Some(&admin));
    let two = app.request("POST", &path_b, Some(json!({"merged_id": a})), Some(&other));
    let (one, two) = tokio::join!(one, two);
    let mut statuses = [one.status.as_u16(), two.status.as_u16()];
    statuses.sort();
    assert_eq!(statuses, [200, 409], "{} / {}", one.text, two.text);
    assert_eq!(
        app.count("SELECT count(*) FROM canonical.listings WHERE status = 'merged'")
            .await,
        1
    );
}

#[tokio::test]
async fn requests_merge_over_graphql_and_the_cli_and_entries_aimed_at_the_redirect_reach_the_survivor()
 {
    let app = TestApp::new().await;
    let admin = app.admin_key().await;
    let (_, key) = app.register("Request Board").await;
    let first = id_of(
        &app.publish(
            &key,
            &admin,
            offer_entry(
                "request",
                "Need a boiler fitted",
                (LAT, LNG),
                json!({"budget_amount": 1500, "currency_code": "GBP"}),
            ),
        )
        .await,
    );
    // Seen earlier than the first: by the merge rules its title does not replace the first's
    // (one agent's older observation never undoes its newer one), its other facts fill gaps.
    let mut older = offer_entry(
        "request",
        "Combi boiler installation quote",
        east(LAT, LNG, 30.0),
        json!({"description": "Terraced house, gas already in place",
               "needed_by_tstamp_utc": "2026-12-15T00:00:00Z"}),
    );
    older["observed_at_tstamp_utc"] = json!("2026-10-20T10:00:00Z");
    let second = id_of(&app.publish(&key, &admin, older).await);

    // Refusals locate the argument, as every GraphQL validation error does.
    let mutation = "mutation($s: UUID!, $m: UUID!) { mergeRequests(survivorId: $s, mergedId: $m) {
        id title description status } }";
    let r = app
        .graphql(
            mutation,
            json!({"s": first, "m": uuid::Uuid::now_v7()}),
            Some(&admin),
        )
        .await;
    assert_eq!(
        r.body["errors"][0]["extensions"]["code"], "VALIDATION_ERROR",
        "{}",
        r.text
    );
    assert_eq!(
        r.body["errors"][0]["extensions"]["detail"][0]["loc"],
        json!(["mergedId"])
    );
    let r = app
        .graphql(
            mutation,
            json!({"s": uuid::Uuid::now_v7(), "m": second}),
            Some(&admin),
        )
        .await;
    assert_eq!(
        r.body["errors"][0]["extensions"]["code"], "NOT_FOUND",
        "{}",
        r.text
    );

    let r = app
        .graphql(mutation, json!({"s": first, "m": second}), Some(&admin))
        .await;
    assert!(r.body["errors"].is_null(), "{}", r.text);
    let survivor = &r.body["data"]["mergeRequests"];
    assert_eq!(survivor["id"], first.as_str());
    assert_eq!(survivor["title"], "Need a boiler fitted");
    assert_eq!(
        survivor["description"],
        "Terraced house, gas already in place"
    );
    let redirected = app.get(&format!("/api/v1/requests/{second}")).await;
    assert_eq!(redirected.body["id"], first.as_str());
    assert_eq!(redirected.body["budget_amount"], "1500");
    assert_eq!(
        redirected.body["needed_by_tstamp_utc"],
        "2026-12-15T00:00:00Z"
    );
    assert_eq!(
        redirected.headers["content-location"],
        format!("/api/v1/requests/{first}").as_str()
    );

    // An agent that still holds the redirect's id reaches the survivor.
    let mut aimed = offer_entry(
        "request",
        "Need a boiler fitted",
        east(LAT, LNG, 30.0),
        json!({"budget_amount": 1800}),
    );
    aimed["entry_intent"] = json!("correct");
    aimed["observed_at_tstamp_utc"] = json!("2026-11-05T10:00:00Z");
    aimed["target_canonical_table"] = json!("canonical.requests");
    aimed["target_canonical_id"] = json!(second);
    let applied = app.publish(&key, &admin, aimed).await;
    assert_eq!(applied["canonical_id"], first.as_str(), "{applied}");
    assert_eq!(
        app.count(&format!(
            "SELECT count(*) FROM canonical_link_contributions WHERE target_canonical_id = '{second}'
             AND link_type IN ('updated', 'matched')"
        ))
        .await,
        0,
        "the redirect itself is never written"
    );

    // The admin CLI undoes it through the same service.
    let restored = app.admin_cli(
        &admin,
        &format!("unmerge-{second}"),
        &["undo-merge", "--table", "requests", "--record-id", &second],
    );
    assert_eq!(restored["id"], second.as_str());
    assert_eq!(restored["status"], "active");
    assert_eq!(
        restored["description"],
        "Terraced house, gas already in place"
    );
    let survivor = app.get(&format!("/api/v1/requests/{first}")).await.body;
    assert!(survivor["description"].is_null(), "{survivor}");
    assert_eq!(
        survivor["budget_amount"], "1800",
        "the correction stays where it was applied"
    );
}

#[tokio::test]
async fn after_a_merge_the_redirect_s_own_keys_still_find_the_survivor() {
    let Pair {
        app,
        admin,
        reporter,
        provider,
        a,
        b,
    } = two_listings().await;
    let merged = app
        .request(
            "POST",
            &format!("/api/v1/listings/{a}/merge"),
            Some(json!({"merged_id": b})),
            Some(&admin),
        )
        .await;
    assert_eq!(merged.status, StatusCode::OK, "{}", merged.text);
    // The second directory sees its own listing again: its title and provider are the redirect's,
    // not the survivor's, and they still name the survivor.
    let again = app
        .publish(
            &reporter,
            &admin,
            offer_entry(
                "listing",
                "Annual boiler check",
                east(LAT, LNG, 20.0),
                json!({"provider_entity_id": provider}),
            ),
        )
        .await;
    assert_eq!(again["canonical_id"], a.as_str(), "{again}");
    assert_eq!(
        app.count("SELECT count(*) FROM canonical.listings").await,
        2,
        "no new duplicate"
    );
}
