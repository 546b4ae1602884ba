use super::*;
use chrono::TimeZone;
use serde_json::json;

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 24, 12, 0, 0).unwrap()
}

const ENTITY_CRITERIA: &[&str] = &[
    "evidence_and_uncertainty",
    "freshness",
    "identity_consistency",
    "layered_context",
    "no_raw_dumps",
    "real_place",
    "single_record",
    "source_backed",
];

fn entity_rubric(minimum: &[String]) -> RubricView<'_> {
    RubricView {
        entry_type: "entity",
        schema_ref: "strs://rubrics/space-time-entries/entity/v1",
        version: 1,
        criteria: ENTITY_CRITERIA.to_vec(),
        minimum_viable_context: minimum,
    }
}

fn minimum() -> Vec<String> {
    [
        "display_name",
        "city",
        "country_code",
        "source_url",
        "context_l1_common",
    ]
    .map(String::from)
    .to_vec()
}

fn good_context() -> Value {
    json!({
        "display_name": "Ancoats Bakery",
        "website_url": "https://ancoatsbakery.example/",
        "phone": "+44 161 496 0456",
        "city": "Manchester",
        "country_code": "GB",
        "source_url": "https://ancoatsbakery.example/contact",
        "context_l1_common": {"verification": {
            "evidence_summary": "Name, phone and address on the bakery's contact page.",
            "uncertainty": "Opening hours not published.",
            "source_url": "https://ancoatsbakery.example/contact",
            "observed_at": "2026-11-20T10:00:00Z"}}
    })
}

fn judge(context: Value, tweak: impl FnOnce(&mut Draft)) -> RubricEvaluation {
    let min = minimum();
    let rubric = entity_rubric(&min);
    let map = context.as_object().unwrap().clone();
    let mut draft = Draft {
        entry_type: EntryType::Entity,
        latitude: 53.4839,
        longitude: -2.2350,
        observed_at: Some(Utc.with_ymd_and_hms(2026, 11, 20, 10, 0, 0).unwrap()),
        source_ref: Some("https://ancoatsbakery.example/contact"),
        idempotency_key: Some("web_page:ancoatsbakery.example/contact:entity::ancoats bakery"),
        context: &map,
        loc: &["body"],
    };
    tweak(&mut draft);
    evaluate(&rubric, &draft, None, now())
}

fn codes(e: &RubricEvaluation) -> Vec<&str> {
    e.findings.iter().map(|f| f.code.as_str()).collect()
}

fn with(key: &str, value: Value) -> Value {
    let mut c = good_context();
    c[key] = value;
    c
}

#[test]
fn a_complete_sourced_entity_is_fully_useful() {
    let e = judge(good_context(), |_| {});
    assert_eq!(codes(&e), Vec::<&str>::new());
    assert_eq!(e.usefulness_score, Decimal::ONE);
    assert_eq!(e.verdict, UsefulnessVerdict::Useful);
    assert!(e.criteria.iter().all(|c| c.met));
    assert_eq!(e.criteria.len(), ENTITY_CRITERIA.len());
}

#[test]
fn an_array_of_businesses_is_a_bundle() {
    let e = judge(
        with(
            "businesses",
            json!([{"name": "A Bakery"}, {"name": "B Bakery"}]),
        ),
        |_| {},
    );
    assert_eq!(codes(&e), ["bundled_records"]);
    assert_eq!(e.findings[0].loc, ["body", "context", "businesses"]);
    assert_eq!(e.verdict, UsefulnessVerdict::NotUseful);
    assert!(
        !e.criteria
            .iter()
            .find(|c| c.criterion == "single_record")
            .unwrap()
            .met
    );
}

#[test]
fn a_nested_list_of_records_is_a_bundle_but_link_urls_are_not() {
    let mut c = good_context();
    c["context_l2_specific"] = json!({"branches": [{"title": "North"}, {"title": "South"}]});
    c["link_urls"] = json!([{"url": "https://a.example", "label": "A"}, {"url": "https://b.example", "label": "B"}]);
    assert_eq!(codes(&judge(c, |_| {})), ["bundled_records"]);
}

#[test]
fn several_phone_numbers_in_one_field_are_a_bundle() {
    let e = judge(
        with("phone", json!("+44 161 496 0456, +44 161 496 0789")),
        |_| {},
    );
    assert_eq!(codes(&e), ["bundled_records"]);
    assert_eq!(e.findings[0].loc, ["body", "context", "phone"]);
}

#[test]
fn html_or_a_page_of_text_is_a_raw_dump() {
    let html = judge(
        with(
            "description",
            json!("<div class=\"hero\"><p>Welcome</p></div>"),
        ),
        |_| {},
    );
    assert_eq!(codes(&html), ["raw_page_dump"]);
    let long = judge(with("description", json!("bread ".repeat(500))), |_| {});
    assert_eq!(codes(&long), ["raw_page_dump"]);
    let key = judge(with("page_text", json!("Home | About | Contact")), |_| {});
    assert_eq!(codes(&key), ["raw_page_dump"]);
}

#[test]
fn no_source_and_no_observation_time_are_blocking() {
    let mut c = good_context();
    c.as_object_mut().unwrap().remove("source_url");
    c.as_object_mut().unwrap().remove("context_l1_common");
    let e = judge(c, |d| {
        d.source_ref = None;
        d.observed_at = None;
    });
    let found = codes(&e);
    assert!(found.contains(&"no_source"), "{found:?}");
    assert!(found.contains(&"no_observation_time"), "{found:?}");
    assert_eq!(
        e.missing_minimum_context,
        ["source_url", "context_l1_common"]
    );
    assert_eq!(e.usefulness_score, Decimal::ZERO);
}

#[test]
fn the_observation_time_can_come_from_the_verification_block() {
    let e = judge(good_context(), |d| d.observed_at = None);
    assert_eq!(codes(&e), Vec::<&str>::new());
}

#[test]
fn placeholder_names_template_values_and_example_com_are_flagged() {
    for (key, value) in [
        ("display_name", json!("Test Company")),
        ("display_name", json!("Lorem ipsum bakery")),
        (
            "display_name",
            json!("<string, required: the name the entity trades under>"),
        ),
        ("website_url", json!("https://www.example.com/")),
    ] {
        let e = judge(with(key, value.clone()), |_| {});
        assert_eq!(codes(&e), ["placeholder_data"], "{key} = {value}");
    }
}

#[test]
fn a_real_name_containing_test_like_words_is_not_a_placeholder() {
    let e = judge(
        with("display_name", json!("Testament Coffee Roasters")),
        |_| {},
    );
    assert_eq!(codes(&e), Vec::<&str>::new());
}

#[test]
fn a_search_engine_results_page_is_not_a_source() {
    let e = judge(good_context(), |d| {
        d.source_ref = Some("https://www.google.com/search?q=bakery+manchester");
    });
    assert_eq!(codes(&e), ["search_results_source"]);
    let directory_search = judge(
        with(
            "source_url",
            json!("https://www.yelp.co.uk/search?find_desc=bakery&find_loc=Manchester"),
        ),
        |_| {},
    );
    assert_eq!(codes(&directory_search), ["search_results_source"]);
}

#[test]
fn a_directory_page_of_one_business_is_a_source() {
    let e = judge(good_context(), |d| {
        d.source_ref = Some("https://www.yell.com/biz/ancoats-bakery-manchester-901234/");
    });
    assert_eq!(codes(&e), Vec::<&str>::new());
}

#[test]
fn future_and_years_old_observations_are_flagged() {
    let future = judge(good_context(), |d| {
        d.observed_at = Some(now() + Duration::hours(2));
    });
    assert_eq!(codes(&future), ["observed_in_future"]);
    let stale = judge(good_context(), |d| {
        d.observed_at = Some(now() - Duration::days(4 * 365));
    });
    assert_eq!(codes(&stale), ["stale_observation"]);
    assert_eq!(stale.verdict, UsefulnessVerdict::Useful);
}

#[test]
fn null_island_and_lowercase_country_codes_are_place_findings() {
    let e = judge(with("country_code", json!("UK")), |d| {
        d.latitude = 0.0;
        d.longitude = 0.0;
    });
    assert_eq!(codes(&e), ["null_island", "country_code_format"]);
    assert!(e.findings[1].message.contains("GB"));
}

#[test]
fn missing_minimum_context_lowers_the_score_per_key() {
    let mut c = good_context();
    c.as_object_mut().unwrap().remove("city");
    let e = judge(c, |_| {});
    assert_eq!(e.missing_minimum_context, ["city"]);
    assert_eq!(e.usefulness_score, Decimal::new(9, 1));
    assert_eq!(e.verdict, UsefulnessVerdict::Useful);
}

#[test]
fn a_missing_display_name_is_what_the_transformer_rejects() {
    let mut c = good_context();
    c.as_object_mut().unwrap().remove("display_name");
    let e = judge(c, |_| {});
    assert!(codes(&e).contains(&"transformer_would_reject"));
    assert_eq!(e.verdict, UsefulnessVerdict::NotUseful);
}

#[test]
fn identity_and_evidence_warnings_add_up_to_needs_work() {
    let mut c = good_context();
    c.as_object_mut().unwrap().remove("phone");
    c["website_url"] = json!("https://ancoatsbakery.example/?utm_source=ads");
    c["context_l1_common"]["verification"]["uncertainty"] = json!("none");
    let e = judge(c, |d| d.idempotency_key = None);
    assert_eq!(
        codes(&e),
        [
            "tracking_parameters",
            "no_idempotency_key",
            "no_uncertainty"
        ]
    );
    assert_eq!(e.usefulness_score, Decimal::new(7, 1));
    assert_eq!(e.verdict, UsefulnessVerdict::NeedsWork);
}

#[test]
fn listing_rules_price_without_currency_and_catch_all_titles() {
    let min = vec!["title".to_string()];
    let rubric = RubricView {
        entry_type: "listing",
        schema_ref: "strs://rubrics/space-time-entries/listing/v1",
        version: 1,
        criteria: vec!["price_and_availability", "single_record"],
        minimum_viable_context: &min,
    };
    let context = json!({"title": "All services", "price_amount": "95.00",
        "source_url": "https://ancoatsbakery.example/prices",
        "context_l1_common": {"verification": {"evidence_summary": "Price list.", "uncertainty": "VAT unclear."}}});
    let map = context.as_object().unwrap().clone();
    let draft = Draft {
        entry_type: EntryType::Listing,
        latitude: 53.48,
        longitude: -2.24,
        observed_at: Some(now()),
        source_ref: None,
        idempotency_key: Some("k"),
        context: &map,
        loc: &["body"],
    };
    let e = evaluate(&rubric, &draft, Some("provider_entity_id"), now());
    assert_eq!(
        codes(&e),
        [
            "unknown_linked_entity",
            "catch_all_title",
            "amount_without_currency"
        ]
    );
    assert_eq!(
        e.findings[0].criterion, None,
        "provider_link is not in this rubric"
    );
    assert_eq!(
        e.findings[2].criterion.as_deref(),
        Some("price_and_availability")
    );
}

#[test]
fn features_named_without_their_block_are_a_layering_warning() {
    let e = judge(
        with("context_l2_available_features", json!(["offering"])),
        |_| {},
    );
    assert_eq!(codes(&e), ["features_without_blocks"]);
}
