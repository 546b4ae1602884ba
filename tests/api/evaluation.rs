//! Rubric evaluation of draft entries: REST and GraphQL answer alike, nothing is stored, each
//! rubric's own example is fully useful and is processed into a canonical record when posted.

use crate::harness::{TestApp, assert_matches_openapi};
use axum::http::StatusCode;
use serde_json::{Value, json};

const EVALUATE: &str = "/api/v1/space-time-entries/context-rubrics/{entry_type}/evaluate";

fn evaluate_path(entry_type: &str) -> String {
    EVALUATE.replace("{entry_type}", entry_type)
}

/// The rubric's example as the context of a complete draft entry at its place in Manchester.
async fn example_draft(app: &TestApp, entry_type: &str) -> Value {
    let rubric = app
        .get(&format!(
            "/api/v1/space-time-entries/context-rubrics/{entry_type}"
        ))
        .await;
    assert_eq!(rubric.status, StatusCode::OK);
    let example = rubric.body["example"].clone();
    let source = example["source_url"].as_str().unwrap().to_string();
    json!({
        "entry_type": entry_type,
        "latitude": 53.4839, "longitude": -2.2350,
        "observed_at_tstamp_utc": example["context_l1_common"]["verification"]["observed_at"],
        "source_type": "web_page",
        "source_ref": source,
        "idempotency_key": format!("web_page:{source}:{entry_type}"),
        "context": example,
    })
}

fn codes(evaluation: &Value) -> Vec<String> {
    evaluation["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn each_rubric_example_scores_fully_useful_and_is_processed_into_a_canonical_record() {
    let app = TestApp::new().await;
    let admin = app.admin_key().await;
    let (_, key) = app.register("Example Poster").await;
    for (entry_type, table) in [
        ("entity", "canonical.entities"),
        ("listing", "canonical.listings"),
        ("request", "canonical.requests"),
    ] {
        let draft = example_draft(&app, entry_type).await;
        let r = app.post(&evaluate_path(entry_type), draft.clone()).await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.text);
        assert_matches_openapi("POST", EVALUATE, StatusCode::OK, &r.body);
        assert_eq!(
            codes(&r.body),
            Vec::<String>::new(),
            "{entry_type}: {}",
            r.text
        );
        assert_eq!(r.body["usefulness_score"], "1", "{entry_type}");
        assert_eq!(r.body["verdict"], "useful");
        assert_eq!(r.body["missing_minimum_context"], json!([]));
        let criteria = r.body["criteria"].as_array().unwrap();
        assert_eq!(
            criteria.len(),
            8,
            "every criterion of the rubric is reported"
        );
        assert!(criteria.iter().all(|c| c["met"] == true));

        let processed = app.publish(&key, &admin, draft).await;
        assert_eq!(
            processed["status"], "processed",
            "{entry_type}: {processed}"
        );
        assert_eq!(processed["canonical_table"], table);
        assert_eq!(processed["link_type"], "created");
    }
}

#[tokio::test]
async fn a_crafted_draft_shows_every_anti_pattern_and_nothing_is_stored() {
    let app = TestApp::new().await;
    let draft = json!({
        "entry_type": "entity", "latitude": 0, "longitude": 0,
        "source_ref": "https://www.google.com/search?q=plumbers+manchester",
        "context": {
            "display_name": "Test Company",
            "country_code": "UK",
            "description": "<html><body><div>Plumbers near you</div></body></html>",
            "businesses": [{"name": "Acme Plumbing"}, {"name": "Best Boilers"}]
        }
    });
    let r = app.post(&evaluate_path("entity"), draft).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_matches_openapi("POST", EVALUATE, StatusCode::OK, &r.body);
    let found = codes(&r.body);
    for code in [
        "bundled_records",
        "raw_page_dump",
        "placeholder_data",
        "search_results_source",
        "no_observation_time",
        "null_island",
        "country_code_format",
        "no_verification",
    ] {
        assert!(found.contains(&code.to_string()), "{code} not in {found:?}");
    }
    assert_eq!(r.body["verdict"], "not_useful");
    assert_eq!(r.body["usefulness_score"], "0");
    assert_eq!(
        r.body["missing_minimum_context"],
        json!(["city", "source_url", "context_l1_common"])
    );
    let bundle = r.body["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "bundled_records")
        .unwrap();
    assert_eq!(bundle["loc"], json!(["body", "context", "businesses"]));
    assert_eq!(bundle["criterion"], "single_record");
    assert_eq!(bundle["severity"], "blocking");
    assert!(!bundle["fix"].as_str().unwrap().is_empty());
    assert_eq!(
        app.count("SELECT count(*) FROM space_time_entries").await,
        0
    );
}

#[tokio::test]
async fn a_listing_linking_an_unknown_provider_is_told_so() {
    let app = TestApp::new().await;
    let mut draft = example_draft(&app, "listing").await;
    draft["context"]["provider_entity_id"] = json!("0196c8a2-4f1e-7b3a-9d2e-5c1f0a7b8e41");
    let r = app.post(&evaluate_path("listing"), draft).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(codes(&r.body), ["unknown_linked_entity"]);
    assert_eq!(r.body["findings"][0]["criterion"], "provider_link");
}

#[tokio::test]
async fn a_draft_that_a_post_would_refuse_gets_the_same_422() {
    let app = TestApp::new().await;
    let r = app
        .post(
            &evaluate_path("entity"),
            json!({"entry_type": "entity", "latitude": 91, "longitude": 0, "colour": "red"}),
        )
        .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
    assert_eq!(r.body["detail"][0]["loc"], json!(["body", "colour"]));

    let r = app
        .post(
            &evaluate_path("entity"),
            json!({"entry_type": "entity", "latitude": 91, "longitude": 0}),
        )
        .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
    assert_eq!(r.body["detail"][0]["loc"], json!(["body", "latitude"]));

    let r = app
        .post(
            &evaluate_path("listing"),
            json!({"entry_type": "entity", "latitude": 1, "longitude": 1}),
        )
        .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
    assert_eq!(r.body["detail"][0]["loc"], json!(["body", "entry_type"]));

    let r = app
        .post(
            &evaluate_path("observation"),
            json!({"entry_type": "observation", "latitude": 1, "longitude": 1}),
        )
        .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
    assert_eq!(r.body["detail"][0]["loc"], json!(["path", "entry_type"]));
}

#[tokio::test]
async fn graphql_evaluates_the_same_draft_to_the_same_findings() {
    let app = TestApp::new().await;
    let rest = app
        .post(
            &evaluate_path("entity"),
            json!({"entry_type": "entity", "latitude": 53.48, "longitude": -2.24,
                   "context": {"display_name": "Ancoats Bakery", "city": "Manchester", "country_code": "GB"}}),
        )
        .await;
    assert_eq!(rest.status, StatusCode::OK);
    let gql = app
        .graphql(
            "query($d: SpaceTimeEntryInput!) { evaluateEntryDraft(draft: $d) { usefulnessScore verdict missingMinimumContext findings { code criterion severity loc } } }",
            json!({"d": {"entryType": "ENTITY", "latitude": "53.48", "longitude": "-2.24",
                   "context": {"display_name": "Ancoats Bakery", "city": "Manchester", "country_code": "GB"}}}),
            None,
        )
        .await;
    assert_eq!(gql.status, StatusCode::OK, "{}", gql.text);
    let e = &gql.body["data"]["evaluateEntryDraft"];
    assert_eq!(
        e["usefulnessScore"], rest.body["usefulness_score"],
        "{}",
        gql.text
    );
    assert_eq!(e["verdict"], "NOT_USEFUL");
    assert_eq!(
        e["missingMinimumContext"],
        rest.body["missing_minimum_context"]
    );
    let gql_codes: Vec<&str> = e["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap())
        .collect();
    assert_eq!(gql_codes, codes(&rest.body));
    assert_eq!(e["findings"][0]["loc"][0], "draft");
}
