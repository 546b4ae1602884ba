use super::super::normalize::{
    name_key, phone_key, source_ref_key, title_key, website_host, website_key,
};
use super::*;

/// `extends` compares words without splitting: the same answers as splitting both names.
#[test]
fn extends_agrees_with_comparing_split_words() {
    fn by_words(shorter: &str, longer: &str) -> bool {
        let short: Vec<&str> = shorter.split(' ').collect();
        let long: Vec<&str> = longer.split(' ').collect();
        short.len() >= 2 && long.len() > short.len() && long[..short.len()] == short[..]
    }
    let names = [
        "",
        " ",
        "  ",
        "bolt",
        "bolt ",
        "bolt electric",
        "bolt electric ",
        "bolt electrical",
        "bolt electric services",
        "bolt  electric",
        "bolt  electric services",
        " bolt electric",
        "bolt electricx services",
        "bolt electric  services",
        "cafe",
        "cafe nero",
        "cafe nero x",
    ];
    for shorter in names {
        for longer in names {
            assert_eq!(
                extends(shorter, longer),
                by_words(shorter, longer),
                "{shorter:?} / {longer:?}"
            );
        }
    }
}

struct Business<'a> {
    name: &'a str,
    website: Option<&'a str>,
    phone: Option<&'a str>,
    source_ref: Option<&'a str>,
}

impl Business<'_> {
    fn keys(&self) -> IdentityKeys {
        IdentityKeys {
            name_key: Some(name_key(self.name)).filter(|key| !key.is_empty()),
            website_key: self.website.and_then(website_key),
            website_host: self.website.and_then(website_host),
            phone_key: self.phone.and_then(|phone| phone_key(phone, Some("GB"))),
            source_ref_key: self.source_ref.and_then(source_ref_key),
            address_key: None,
            city_key: None,
        }
    }
}

fn named(name: &str) -> Business<'_> {
    Business {
        name,
        website: None,
        phone: None,
        source_ref: None,
    }
}

fn candidate(id: u128, distance_m: f64, business: &Business<'_>) -> Candidate {
    Candidate {
        id: Uuid::from_u128(id),
        distance_m,
        keys: business.keys(),
    }
}

fn matched_id(decision: &MatchDecision) -> Option<Uuid> {
    match decision {
        MatchDecision::Match(scored) => Some(scored.id),
        _ => None,
    }
}

fn assert_no_match(decision: &MatchDecision) {
    assert!(
        matches!(decision, MatchDecision::NoMatch { .. }),
        "expected NoMatch, got {decision:?}"
    );
}

const ACME_PLUMBING: Business<'static> = Business {
    name: "Acme Plumbing & Heating Ltd",
    website: Some("https://www.acmeplumbing.co.uk/"),
    phone: Some("0161 496 0000"),
    source_ref: None,
};

/// The candidate query relies on this: beyond the nearby radius only a shared key can win.
#[test]
fn beyond_the_nearby_radius_nothing_without_a_shared_key_reaches_the_threshold() {
    let incoming = Business {
        name: "Harbour View Cafe",
        website: Some("https://harbourview.example/menu"),
        ..named("")
    };
    let best_without_a_key = Business {
        name: "Harbour View Cafes",
        website: Some("https://harbourview.example/about"),
        ..named("")
    };
    let keys = incoming.keys();
    let other = best_without_a_key.keys();
    assert_ne!(keys.name_key, other.name_key);
    assert_ne!(keys.website_key, other.website_key);
    for distance in [NEARBY_CANDIDATE_RADIUS_M + 1.0, CANDIDATE_RADIUS_M] {
        let scored = score_entity(&keys, &candidate(1, distance, &best_without_a_key));
        assert!(scored.score < MATCH_THRESHOLD, "{scored:?}");
    }
    let within = score_entity(&keys, &candidate(1, 40.0, &best_without_a_key));
    assert!(within.score >= MATCH_THRESHOLD, "{within:?}");
}

#[test]
fn same_website_nearby_matches_although_names_are_written_differently() {
    let incoming = Business {
        name: "ACME Plumbers Manchester",
        website: Some("acmeplumbing.co.uk"),
        ..named("")
    };
    let existing = Business {
        name: "Acme Plumbing & Heating Ltd",
        website: Some("https://www.acmeplumbing.co.uk/?utm_source=gbp"),
        ..named("")
    };
    let decision = decide_entity(&incoming.keys(), &[candidate(1, 95.0, &existing)]);
    assert_eq!(
        matched_id(&decision),
        Some(Uuid::from_u128(1)),
        "{decision:?}"
    );
}

#[test]
fn same_phone_in_national_and_international_format_nearby_matches() {
    let incoming = Business {
        name: "Bolt Electrical Services",
        phone: Some("+44 161 496 0000"),
        ..named("")
    };
    let existing = Business {
        name: "Bolt Electric",
        phone: Some("0161 496 0000"),
        ..named("")
    };
    assert_eq!(incoming.keys().phone_key, existing.keys().phone_key);
    let decision = decide_entity(&incoming.keys(), &[candidate(2, 110.0, &existing)]);
    assert_eq!(
        matched_id(&decision),
        Some(Uuid::from_u128(2)),
        "{decision:?}"
    );
}

#[test]
fn name_variant_close_by_matches_without_other_keys() {
    let incoming = named("ACME Plumbing");
    let existing = named("Acme Plumbing Ltd");
    let decision = decide_entity(&incoming.keys(), &[candidate(3, 35.0, &existing)]);
    assert_eq!(
        matched_id(&decision),
        Some(Uuid::from_u128(3)),
        "{decision:?}"
    );
}

#[test]
fn same_name_five_kilometres_away_is_another_business() {
    let incoming = named("Acme Plumbing");
    let existing = named("Acme Plumbing Ltd");
    let decision = decide_entity(&incoming.keys(), &[candidate(4, 5_000.0, &existing)]);
    assert_no_match(&decision);
    let MatchDecision::NoMatch { best: Some(best) } = decision else {
        panic!("the far namesake should still be reported as best");
    };
    assert_eq!(best.score, SAME_NAME_POINTS);
}

#[test]
fn chain_branches_sharing_website_phone_and_name_two_kilometres_apart_do_not_match() {
    let leeds_city_centre = Business {
        website: Some("https://www.acmeplumbing.co.uk/branches/leeds-city"),
        ..ACME_PLUMBING
    };
    let leeds_headingley = Business {
        website: Some("https://www.acmeplumbing.co.uk/branches/headingley"),
        ..ACME_PLUMBING
    };
    let decision = decide_entity(
        &leeds_city_centre.keys(),
        &[candidate(5, 2_000.0, &leeds_headingley)],
    );
    assert_no_match(&decision);
}

#[test]
fn even_every_identity_key_together_cannot_match_across_distance() {
    let existing = Business {
        source_ref: None,
        ..ACME_PLUMBING
    };
    let scored = score_entity(&ACME_PLUMBING.keys(), &candidate(6, 1_200.0, &existing));
    assert!(scored.score >= MATCH_THRESHOLD, "{scored:?}");
    assert_no_match(&decide_entity(
        &ACME_PLUMBING.keys(),
        &[candidate(6, 1_200.0, &existing)],
    ));
}

#[test]
fn competitor_next_door_does_not_match() {
    let incoming = Business {
        name: "Bolt Electrical Services",
        website: Some("boltelectrical.co.uk"),
        phone: Some("0161 496 0123"),
        source_ref: None,
    };
    let decision = decide_entity(&incoming.keys(), &[candidate(7, 10.0, &ACME_PLUMBING)]);
    assert_no_match(&decision);
}

#[test]
fn two_records_that_fit_almost_equally_well_are_ambiguous_best_first() {
    let incoming = named("The Old Bakery");
    let nearer = candidate(8, 20.0, &named("Old Bakery"));
    let farther = candidate(9, 120.0, &named("The Old Bakery Ltd"));
    let decision = decide_entity(&incoming.keys(), &[farther, nearer]);
    let MatchDecision::Ambiguous {
        candidates: tied, ..
    } = decision
    else {
        panic!("expected Ambiguous, got {decision:?}");
    };
    let ids: Vec<Uuid> = tied.iter().map(|scored| scored.id).collect();
    assert_eq!(ids, [Uuid::from_u128(8), Uuid::from_u128(9)]);
    assert_eq!(tied[0].score, 0.65);
    assert_eq!(tied[1].score, 0.55);
}

#[test]
fn a_lead_of_exactly_the_margin_is_still_ambiguous() {
    let incoming = named("Old Bakery");
    let same_name = candidate(10, 40.0, &named("Old Bakery"));
    let similar_name = candidate(11, 30.0, &named("Olde Bakery"));
    let decision = decide_entity(&incoming.keys(), &[same_name, similar_name]);
    let MatchDecision::Ambiguous {
        candidates: tied, ..
    } = decision
    else {
        panic!("expected Ambiguous, got {decision:?}");
    };
    let scores: Vec<f64> = tied.iter().map(|scored| scored.score).collect();
    assert_eq!(scores, [0.65, 0.50]);
}

#[test]
fn a_clear_leader_matches_even_when_another_record_passes_the_threshold() {
    let incoming = Business {
        website: Some("acmeplumbing.co.uk"),
        ..named("Acme Plumbing")
    };
    let same_everything = candidate(12, 30.0, &incoming);
    let same_name_only = candidate(13, 140.0, &named("Acme Plumbing"));
    // 1.0 against 0.55.
    let decision = decide_entity(&incoming.keys(), &[same_name_only, same_everything]);
    assert_eq!(
        matched_id(&decision),
        Some(Uuid::from_u128(12)),
        "{decision:?}"
    );
}

#[test]
fn same_source_ref_matches_a_record_re_geocoded_twenty_kilometres_away() {
    let incoming = Business {
        source_ref: Some("https://www.example-directory.com/listing?id=98231&utm_source=feed"),
        ..named("Acme Plumbing")
    };
    let existing = Business {
        source_ref: Some("http://example-directory.com/listing/?id=98231"),
        ..named("Acme Plumbing and Gas")
    };
    let decision = decide_entity(&incoming.keys(), &[candidate(14, 20_000.0, &existing)]);
    assert_eq!(
        matched_id(&decision),
        Some(Uuid::from_u128(14)),
        "{decision:?}"
    );
}

#[test]
fn same_source_ref_beyond_twenty_five_kilometres_does_not_match() {
    let incoming = Business {
        source_ref: Some("osm:node/4412"),
        ..named("Acme Plumbing")
    };
    let decision = decide_entity(&incoming.keys(), &[candidate(15, 25_001.0, &incoming)]);
    assert_no_match(&decision);
    let decision = decide_entity(&incoming.keys(), &[candidate(15, 25_000.0, &incoming)]);
    assert_eq!(
        matched_id(&decision),
        Some(Uuid::from_u128(15)),
        "{decision:?}"
    );
}

#[test]
fn nothing_in_common_and_far_is_no_match_without_a_best() {
    let decision = decide_entity(
        &ACME_PLUMBING.keys(),
        &[candidate(16, 3_000.0, &named("Greenleaf Florist"))],
    );
    assert_eq!(decision, MatchDecision::NoMatch { best: None });
}

#[test]
fn no_candidates_is_no_match_without_a_best() {
    assert_eq!(
        decide_entity(&ACME_PLUMBING.keys(), &[]),
        MatchDecision::NoMatch { best: None }
    );
}

#[test]
fn a_weak_near_candidate_is_reported_as_best_of_a_no_match() {
    let decision = decide_entity(
        &named("Acme Plumbing").keys(),
        &[candidate(17, 300.0, &named("Greenleaf Florist"))],
    );
    let MatchDecision::NoMatch { best: Some(best) } = decision else {
        panic!("expected NoMatch with a best, got {decision:?}");
    };
    assert_eq!(best.id, Uuid::from_u128(17));
    assert_eq!(best.score, 0.10);
}

#[test]
fn proximity_points_step_down_with_distance() {
    assert_eq!(proximity_points(0.0), 0.30);
    assert_eq!(proximity_points(50.0), 0.30);
    assert_eq!(proximity_points(50.1), 0.20);
    assert_eq!(proximity_points(150.0), 0.20);
    assert_eq!(proximity_points(500.0), 0.10);
    assert_eq!(proximity_points(500.1), 0.0);
}

#[test]
fn similar_names_close_together_match() {
    let decision = decide_entity(
        &named("Joe's Coffee").keys(),
        &[candidate(18, 25.0, &named("Joes Cafe"))],
    );
    assert_eq!(
        matched_id(&decision),
        Some(Uuid::from_u128(18)),
        "{decision:?}"
    );
}

#[test]
fn similar_names_with_different_numbers_are_not_similar() {
    let scored = score_entity(
        &named("Unit 7 Coffee").keys(),
        &candidate(19, 25.0, &named("Unit 8 Coffee")),
    );
    assert_eq!(scored.score, 0.30, "{scored:?}");
}

#[test]
fn same_website_host_with_other_pages_counts_only_a_little() {
    let leeds = Business {
        website: Some("acmeplumbing.co.uk/branches/leeds"),
        ..named("Acme North")
    };
    let york = Business {
        website: Some("acmeplumbing.co.uk/branches/york"),
        ..named("Acme Yorkshire")
    };
    let scored = score_entity(&leeds.keys(), &candidate(20, 40.0, &york));
    assert_eq!(scored.score, 0.40, "{scored:?}");
    assert!(
        scored
            .reasons
            .contains(&"website host acmeplumbing.co.uk".to_owned())
    );
}

#[test]
fn website_host_is_taken_from_the_website_key_when_missing() {
    let incoming = IdentityKeys {
        website_key: Some("acme.co.uk/contact".into()),
        ..IdentityKeys::default()
    };
    let existing = IdentityKeys {
        website_key: Some("acme.co.uk".into()),
        ..IdentityKeys::default()
    };
    let scored = score_entity(
        &incoming,
        &Candidate {
            id: Uuid::from_u128(21),
            distance_m: 600.0,
            keys: existing,
        },
    );
    assert_eq!(scored.score, SAME_WEBSITE_HOST_POINTS);
}

#[test]
fn empty_keys_never_count_as_equal() {
    let blank = IdentityKeys {
        name_key: Some(String::new()),
        website_key: Some(" ".into()),
        website_host: Some(String::new()),
        phone_key: Some(String::new()),
        source_ref_key: Some(String::new()),
        address_key: None,
        city_key: None,
    };
    let scored = score_entity(
        &blank,
        &Candidate {
            id: Uuid::from_u128(22),
            distance_m: 800.0,
            keys: blank.clone(),
        },
    );
    assert_eq!(scored.score, 0.0, "{scored:?}");
}

#[test]
fn unknown_distance_earns_no_proximity_and_cannot_win() {
    let scored = score_entity(
        &ACME_PLUMBING.keys(),
        &candidate(23, f64::NAN, &ACME_PLUMBING),
    );
    assert!(scored.reasons.contains(&"distance unknown".to_owned()));
    assert_eq!(scored.score, 1.0);
    assert_no_match(&decide_entity(
        &ACME_PLUMBING.keys(),
        &[candidate(23, -5.0, &ACME_PLUMBING)],
    ));
}

#[test]
fn score_is_capped_at_one_and_explains_itself() {
    let incoming = Business {
        source_ref: Some("osm:node/1"),
        ..ACME_PLUMBING
    };
    let scored = score_entity(&incoming.keys(), &candidate(24, 42.4, &incoming));
    assert_eq!(scored.score, 1.0);
    assert_eq!(
        scored.reasons,
        [
            "distance 42 m",
            "name 'acme plumbing and heating'",
            "website acmeplumbing.co.uk",
            "phone +441614960000",
            "source_ref osm:node/1",
        ]
    );
}

#[test]
fn far_candidates_say_why_they_cannot_win() {
    let scored = score_entity(
        &ACME_PLUMBING.keys(),
        &candidate(25, 2_000.0, &ACME_PLUMBING),
    );
    assert!(
        scored
            .reasons
            .iter()
            .any(|reason| reason.starts_with("beyond 1000 m")),
        "{scored:?}"
    );
}

fn listing(parent: Option<u128>, title: &str, source_ref: Option<&str>) -> OfferKeys {
    OfferKeys {
        parent_id: parent.map(Uuid::from_u128),
        title_key: title_key(title),
        source_ref_key: source_ref.and_then(source_ref_key),
    }
}

fn offer(id: u128, distance_m: f64, keys: OfferKeys) -> OfferCandidate {
    OfferCandidate {
        id: Uuid::from_u128(id),
        distance_m,
        keys,
    }
}

#[test]
fn offer_with_the_same_source_ref_matches_up_to_twenty_five_kilometres() {
    let incoming = listing(
        Some(1),
        "Boiler service",
        Some("https://jobs.example.com/ad?id=77"),
    );
    let existing_url = listing(
        None,
        "Annual boiler check",
        Some("https://jobs.example.com/ad/?id=77"),
    );
    let decision = decide_offer(&incoming, &[offer(30, 24_000.0, existing_url.clone())]);
    assert_eq!(
        matched_id(&decision),
        Some(Uuid::from_u128(30)),
        "{decision:?}"
    );
    assert_no_match(&decide_offer(
        &incoming,
        &[offer(30, 26_000.0, existing_url)],
    ));
}

#[test]
fn offer_with_the_same_parent_and_title_matches_at_any_distance() {
    let incoming = listing(Some(1), "Boiler Service & Repair", None);
    let existing = listing(Some(1), "boiler service and repair", None);
    let decision = decide_offer(&incoming, &[offer(32, 3_000.0, existing)]);
    assert_eq!(
        matched_id(&decision),
        Some(Uuid::from_u128(32)),
        "{decision:?}"
    );
}

#[test]
fn offer_with_the_same_title_under_another_parent_does_not_match() {
    let incoming = listing(Some(1), "Boiler service", None);
    let decision = decide_offer(
        &incoming,
        &[offer(33, 5.0, listing(Some(2), "Boiler service", None))],
    );
    assert_no_match(&decision);
}

#[test]
fn offer_with_the_same_parent_but_another_title_does_not_match() {
    let incoming = listing(Some(1), "Boiler service", None);
    let decision = decide_offer(
        &incoming,
        &[offer(34, 0.0, listing(Some(1), "Bathroom fitting", None))],
    );
    assert_no_match(&decision);
}

#[test]
fn parentless_offers_with_the_same_title_match_only_within_fifty_metres() {
    let incoming = listing(None, "Looking for a dog walker", None);
    let existing = listing(None, "Looking for a dog-walker!", None);
    let decision = decide_offer(&incoming, &[offer(35, 30.0, existing.clone())]);
    assert_eq!(
        matched_id(&decision),
        Some(Uuid::from_u128(35)),
        "{decision:?}"
    );
    assert_no_match(&decide_offer(&incoming, &[offer(35, 80.0, existing)]));
}

#[test]
fn offer_with_a_parent_does_not_match_a_parentless_offer_by_title() {
    let incoming = listing(Some(1), "Dog walking", None);
    let decision = decide_offer(
        &incoming,
        &[offer(36, 10.0, listing(None, "Dog walking", None))],
    );
    assert_no_match(&decision);
}

#[test]
fn offers_with_empty_titles_never_match_by_title() {
    let incoming = listing(Some(1), "!!!", None);
    let decision = decide_offer(&incoming, &[offer(37, 0.0, listing(Some(1), "", None))]);
    assert_no_match(&decision);
}

#[test]
fn duplicate_offers_that_fit_equally_are_ambiguous() {
    let incoming = listing(Some(1), "Boiler service", None);
    let decision = decide_offer(
        &incoming,
        &[
            offer(38, 10.0, listing(Some(1), "Boiler service", None)),
            offer(39, 10.0, listing(Some(1), "Boiler service", None)),
        ],
    );
    let MatchDecision::Ambiguous {
        candidates: tied, ..
    } = decision
    else {
        panic!("expected Ambiguous, got {decision:?}");
    };
    assert_eq!(tied.len(), 2);
    assert_eq!(tied[0].id, Uuid::from_u128(38));
}

#[test]
fn offer_source_ref_outweighs_a_same_titled_sibling() {
    let incoming = listing(Some(1), "Boiler service", Some("ad-551"));
    let decision = decide_offer(
        &incoming,
        &[
            offer(40, 0.0, listing(Some(1), "Boiler service", None)),
            offer(
                41,
                9_000.0,
                listing(None, "Gas boiler servicing", Some("ad-551")),
            ),
        ],
    );
    assert_eq!(
        matched_id(&decision),
        Some(Uuid::from_u128(41)),
        "{decision:?}"
    );
}

#[test]
fn offer_scores_explain_themselves() {
    let incoming = listing(Some(1), "Boiler service", None);
    let scored = score_offer(
        &incoming,
        &offer(42, 12.0, listing(Some(1), "Boiler service", None)),
    );
    assert_eq!(scored.score, 0.75);
    assert_eq!(
        scored.reasons,
        [
            "distance 12 m".to_owned(),
            format!("parent {}", Uuid::from_u128(1)),
            "title 'boiler service'".to_owned(),
        ]
    );
}

#[test]
fn the_same_name_next_door_with_another_website_and_phone_is_another_business() {
    let keys = |website: &str, phone: &str| IdentityKeys {
        name_key: Some(name_key("Pharmacie Thomas")),
        website_key: website_key(website),
        website_host: website_host(website),
        phone_key: phone_key(phone, Some("FR")),
        source_ref_key: None,
        address_key: None,
        city_key: None,
    };
    let existing = Candidate {
        id: Uuid::from_u128(1),
        distance_m: 51.0,
        keys: keys("https://pharmacie-thomas-lyon.example", "+33 4 72 00 00 01"),
    };
    let other = keys("https://pharmacie-thomas.example", "+33 4 72 00 00 99");
    assert!(matches!(
        decide_entity(&other, std::slice::from_ref(&existing)),
        MatchDecision::NoMatch { .. }
    ));
    let only_new_phone = IdentityKeys {
        website_key: None,
        website_host: None,
        ..other.clone()
    };
    let close = Candidate {
        distance_m: 10.0,
        ..existing
    };
    assert!(
        matches!(
            decide_entity(&only_new_phone, &[close]),
            MatchDecision::Match(_)
        ),
        "one contradiction does not outweigh the same name on the same spot"
    );
}

// Ambiguity and venues sharing one address (docs/matching-rules.md, "Ambiguity").

fn phoned<'a>(name: &'a str, phone: &'a str) -> Business<'a> {
    Business {
        phone: Some(phone),
        ..named(name)
    }
}

fn ambiguous_ids(decision: &MatchDecision) -> Vec<Uuid> {
    match decision {
        MatchDecision::Ambiguous { candidates, .. } => {
            let mut ids: Vec<Uuid> = candidates.iter().map(|s| s.id).collect();
            ids.sort();
            ids
        }
        other => panic!("expected Ambiguous, got {other:?}"),
    }
}

#[test]
fn a_venue_sharing_its_hotel_switchboard_is_not_merged_into_another_venue() {
    let incoming = phoned("Thames Foyer at The Savoy", "020 7946 0000");
    let grill = candidate(20, 10.0, &phoned("The Savoy Grill", "020 7946 0000"));
    let decision = decide_entity(&incoming.keys(), &[grill]);
    assert_no_match(&decision);
    let scored = score_entity(
        &incoming.keys(),
        &candidate(20, 10.0, &phoned("The Savoy Grill", "020 7946 0000")),
    );
    assert_eq!(scored.score, 0.40, "{scored:?}");
}

#[test]
fn the_same_restaurant_with_its_direct_line_and_the_switchboard_still_matches() {
    let incoming = phoned("Savoy Grill", "020 7946 0000");
    let listed = candidate(21, 120.0, &phoned("The Savoy Grill", "020 7946 0123"));
    let decision = decide_entity(&incoming.keys(), &[listed]);
    assert_eq!(
        matched_id(&decision),
        Some(Uuid::from_u128(21)),
        "{decision:?}"
    );
}

#[test]
fn one_record_s_name_with_another_record_s_phone_goes_to_review() {
    let incoming = phoned("Acme Plumbing", "0161 496 0777");
    let by_name = candidate(22, 100.0, &phoned("Acme Plumbing", "0161 496 0001"));
    let by_phone = candidate(23, 300.0, &phoned("Bolt Heating", "0161 496 0777"));
    let decision = decide_entity(&incoming.keys(), &[by_name, by_phone]);
    assert_eq!(
        ambiguous_ids(&decision),
        [Uuid::from_u128(22), Uuid::from_u128(23)]
    );
}

#[test]
fn a_switchboard_several_venues_share_splits_nothing() {
    let incoming = phoned("Savoy Grill", "020 7946 0000");
    let grill = candidate(24, 15.0, &named("Savoy Grill"));
    let bar = candidate(25, 20.0, &phoned("American Bar", "020 7946 0000"));
    let foyer = candidate(26, 25.0, &phoned("Thames Foyer", "020 7946 0000"));
    let decision = decide_entity(&incoming.keys(), &[grill, bar, foyer]);
    assert_eq!(
        matched_id(&decision),
        Some(Uuid::from_u128(24)),
        "{decision:?}"
    );
}

#[test]
fn a_brand_name_between_branches_goes_to_review() {
    let incoming = named("Pizza Express");
    let deansgate = candidate(27, 600.0, &named("Pizza Express Deansgate"));
    let piccadilly = candidate(28, 700.0, &named("Pizza Express Piccadilly"));
    let decision = decide_entity(&incoming.keys(), &[deansgate, piccadilly]);
    assert_eq!(
        ambiguous_ids(&decision),
        [Uuid::from_u128(27), Uuid::from_u128(28)]
    );
}

#[test]
fn a_store_finder_page_naming_no_branch_goes_to_review() {
    let incoming = Business {
        website: Some("https://www.pizzaexpress.example/restaurants"),
        ..named("Pizza Express")
    };
    let branch = |id, distance, page| {
        candidate(
            id,
            distance,
            &Business {
                website: Some(page),
                phone: None,
                ..named("Pizza Express")
            },
        )
    };
    let decision = decide_entity(
        &incoming.keys(),
        &[
            branch(29, 250.0, "https://www.pizzaexpress.example/deansgate"),
            branch(30, 480.0, "https://www.pizzaexpress.example/piccadilly"),
        ],
    );
    assert_eq!(
        ambiguous_ids(&decision),
        [Uuid::from_u128(29), Uuid::from_u128(30)]
    );
}

#[test]
fn a_branch_re_sighted_with_its_own_phone_or_at_its_address_matches_that_branch() {
    let deansgate = || candidate(31, 40.0, &phoned("Pizza Express", "0161 496 0101"));
    let piccadilly = || candidate(32, 900.0, &phoned("Pizza Express", "0161 496 0202"));
    // Seen 120 m from Piccadilly with Piccadilly's number.
    let by_phone = phoned("Pizza Express", "0161 496 0202");
    let decision = decide_entity(
        &by_phone.keys(),
        &[
            candidate(31, 800.0, &phoned("Pizza Express", "0161 496 0101")),
            candidate(32, 120.0, &phoned("Pizza Express", "0161 496 0202")),
        ],
    );
    assert_eq!(
        matched_id(&decision),
        Some(Uuid::from_u128(32)),
        "{decision:?}"
    );
    // At one branch's address with the other's number: the evidence contradicts itself.
    let decision = decide_entity(&by_phone.keys(), &[deansgate(), piccadilly()]);
    assert!(
        matches!(decision, MatchDecision::Ambiguous { .. }),
        "{decision:?}"
    );
    let at_address = named("Pizza Express");
    let decision = decide_entity(&at_address.keys(), &[deansgate(), piccadilly()]);
    assert_eq!(
        matched_id(&decision),
        Some(Uuid::from_u128(31)),
        "{decision:?}"
    );
}

#[test]
fn a_district_appended_to_a_name_still_counts_as_the_name() {
    let incoming = named("Rowbotham & Illingworth - Chorlton");
    let record = candidate(33, 30.0, &named("Rowbotham and Illingworth"));
    let decision = decide_entity(&incoming.keys(), &[record]);
    assert_eq!(
        matched_id(&decision),
        Some(Uuid::from_u128(33)),
        "{decision:?}"
    );
}

#[test]
fn legal_forms_and_connectors_across_languages_match_the_plain_name() {
    for (incoming, record) in [
        ("Müller und Söhne GmbH", "Muller & Sohne"),
        ("Dupont et Fils SARL", "Dupont & Fils"),
        ("Janssen en Zonen B.V.", "Janssen and Zonen"),
        ("Hermanos y Primos S.L.", "Hermanos & Primos"),
        ("Rossi e Figli S.r.l.", "Rossi & Figli"),
        ("Outback Tours Pty Ltd", "Outback Tours"),
    ] {
        let decision = decide_entity(
            &named(incoming).keys(),
            &[candidate(34, 120.0, &named(record))],
        );
        assert_eq!(
            matched_id(&decision),
            Some(Uuid::from_u128(34)),
            "{incoming}: {decision:?}"
        );
    }
}

/// Every legal form the issue lists, appended to a name, is the plain name (120 m apart, no
/// other key: the name alone carries the match).
#[test]
fn each_listed_legal_form_appended_to_a_name_matches_the_plain_name() {
    for form in [
        "Ltd", "Ltd.", "LLC", "Inc.", "GmbH", "UG", "AG", "SARL", "SAS", "SA", "S.L.", "S.p.A.",
        "S.r.l.", "B.V.", "N.V.", "Pty Ltd",
    ] {
        let incoming = format!("Harbour Bakery {form}");
        let decision = decide_entity(
            &named(&incoming).keys(),
            &[candidate(35, 120.0, &named("Harbour Bakery"))],
        );
        assert_eq!(
            matched_id(&decision),
            Some(Uuid::from_u128(35)),
            "{incoming}: {decision:?}"
        );
    }
}

/// "and" written as `&` or in the languages served, between two words, is one connector.
#[test]
fn each_connector_matches_the_ampersand() {
    for connector in ["&", "and", "et", "und", "en", "y", "e", "i", "og", "och"] {
        let incoming = format!("Baker {connector} Daughters");
        let decision = decide_entity(
            &named(&incoming).keys(),
            &[candidate(36, 120.0, &named("Baker & Daughters"))],
        );
        assert_eq!(
            matched_id(&decision),
            Some(Uuid::from_u128(36)),
            "{incoming}: {decision:?}"
        );
    }
}

/// A street or district written after the name (as directories do) is still the name: at
/// one address (within 50 m) the name alone matches, as "extends" earns the similar-name
/// points.
#[test]
fn a_street_or_district_appended_to_a_name_matches_the_name() {
    for incoming in [
        "Harbour Bakery - Quay Street",
        "Harbour Bakery, 12 Quay Street",
        "Harbour Bakery (Ancoats)",
        "Harbour Bakery Ancoats",
    ] {
        let decision = decide_entity(
            &named(incoming).keys(),
            &[candidate(37, 40.0, &named("Harbour Bakery"))],
        );
        assert_eq!(
            matched_id(&decision),
            Some(Uuid::from_u128(37)),
            "{incoming}: {decision:?}"
        );
    }
}

/// Accents, the digraphs typed for them, and another script written as the transliteration
/// gives it are the same name: they match on the name alone at 120 m.
#[test]
fn accents_and_transliterations_match_the_plain_spelling() {
    for (incoming, record) in [
        ("Café Zoë", "Cafe Zoe"),
        ("Crêperie Saint-Étienne", "Creperie Saint Etienne"),
        ("Straßenbäckerei Müller", "Strassenbackerei Muller"),
        ("Bäckerei Müller", "Baeckerei Mueller"),
        ("Øresund Smørrebrød", "Oresund Smorrebrod"),
        ("Smørrebrød Huset", "Smoerrebroed Huset"),
        ("Ålborg Fisk", "Aalborg Fisk"),
        ("Łódź Pierogarnia", "Lodz Pierogarnia"),
        ("北京饭店", "Bei Jing Fan Dian"),
    ] {
        let decision = decide_entity(
            &named(incoming).keys(),
            &[candidate(38, 120.0, &named(record))],
        );
        assert_eq!(
            matched_id(&decision),
            Some(Uuid::from_u128(38)),
            "{incoming} ({}) / {record} ({}): {decision:?}",
            name_key(incoming),
            name_key(record)
        );
    }
}

/// Another romanisation of another script ("Pekarnya" / "Pekarnia") is a similar name, not
/// the same: it matches at one address (within 50 m), or with another shared key.
#[test]
fn another_romanisation_of_another_script_matches_at_one_address() {
    for (incoming, record) in [
        ("Пекарня Волна", "Pekarnya Volna"),
        ("Кафе Пушкинъ", "Kafe Pushkin"),
        ("Ταβέρνα Ο Μύλος", "Taverna O Mylos"),
    ] {
        let decision = decide_entity(
            &named(incoming).keys(),
            &[candidate(39, 40.0, &named(record))],
        );
        assert_eq!(
            matched_id(&decision),
            Some(Uuid::from_u128(39)),
            "{incoming} ({}) / {record} ({}): {decision:?}",
            name_key(incoming),
            name_key(record)
        );
    }
}

/// A record and a record an operator merged into it (which comes with the survivor's id and
/// its own keys) are one record: the name of one and the phone of the other split nothing.
#[test]
fn a_record_and_its_merged_duplicate_count_once() {
    let incoming = phoned("Rowbotham Family Butchers", "0161 496 0550");
    let survivor = candidate(40, 15.0, &named("Rowbotham Family Butchers"));
    let redirect = candidate(40, 20.0, &phoned("R and I Meats", "0161 496 0550"));
    let decision = decide_entity(&incoming.keys(), &[survivor.clone(), redirect]);
    assert_eq!(
        matched_id(&decision),
        Some(Uuid::from_u128(40)),
        "{decision:?}"
    );
    // Two records apart, the same evidence is a split identity.
    let other = candidate(41, 20.0, &phoned("R and I Meats", "0161 496 0550"));
    let decision = decide_entity(&incoming.keys(), &[survivor, other]);
    assert!(
        matches!(decision, MatchDecision::Ambiguous { .. }),
        "{decision:?}"
    );
    // Offers alike: a listing and its merged duplicate, both titled as the entry.
    let keys = OfferKeys {
        parent_id: None,
        title_key: title_key("Bike repair"),
        source_ref_key: None,
    };
    let offer = |id, distance_m| OfferCandidate {
        id: Uuid::from_u128(id),
        distance_m,
        keys: keys.clone(),
    };
    let decision = decide_offer(&keys, &[offer(42, 10.0), offer(42, 30.0)]);
    assert_eq!(
        matched_id(&decision),
        Some(Uuid::from_u128(42)),
        "{decision:?}"
    );
    let decision = decide_offer(&keys, &[offer(42, 10.0), offer(43, 30.0)]);
    assert!(
        matches!(decision, MatchDecision::Ambiguous { .. }),
        "{decision:?}"
    );
}

/// The candidate query offers a key's holders only within `KEY_CANDIDATE_RADIUS_M`: it relies on
/// no record beyond it winning, whatever it shares, and on one just inside it winning through a
/// rule that reaches that far (the same source_ref; the same street address).
#[test]
fn beyond_the_key_candidate_radius_nothing_wins_whatever_it_shares() {
    let everything = IdentityKeys {
        name_key: Some(name_key("Harbour View Cafe")),
        website_key: website_key("https://harbourview.example/"),
        website_host: website_host("https://harbourview.example/"),
        phone_key: phone_key("0161 496 0000", Some("GB")),
        source_ref_key: source_ref_key("osm:node/4412"),
        address_key: super::super::address::address_key("12 Quay Street, Manchester"),
        city_key: None,
    };
    let at = |distance_m: f64| Candidate {
        id: Uuid::from_u128(21),
        distance_m,
        keys: everything.clone(),
    };
    assert_no_match(&decide_entity(
        &everything,
        &[at(KEY_CANDIDATE_RADIUS_M + 1.0)],
    ));
    assert_eq!(
        matched_id(&decide_entity(&everything, &[at(KEY_CANDIDATE_RADIUS_M)])),
        Some(Uuid::from_u128(21))
    );
    let by_address_only = IdentityKeys {
        source_ref_key: None,
        ..everything.clone()
    };
    let decision = decide_entity(
        &by_address_only,
        &[Candidate {
            keys: by_address_only.clone(),
            ..at(KEY_CANDIDATE_RADIUS_M)
        }],
    );
    assert_eq!(
        matched_id(&decision),
        Some(Uuid::from_u128(21)),
        "{decision:?}"
    );
}
