//! Is this evidence about a record we already have?
//!
//! The service decides, never the agent: an agent only reports what it saw,
//! and these rules decide whether that is a known record, a new one, or too
//! close to call. Every shared identity field (name, website, phone) is also
//! shared by branches of a chain, so distance has the last word; only the
//! same source record may move far (a re-geocoded listing). When two records
//! fit equally well we say so instead of guessing, because a wrong merge
//! mixes two businesses' facts and is much harder to undo than a duplicate.
//! The thresholds are explained for users in docs/matching-rules.md.

use std::cmp::Ordering;

use uuid::Uuid;

use super::address::{AddressKey, AddressRelation};
use super::names::WordRelation;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct IdentityKeys {
    pub name_key: Option<String>,
    pub website_key: Option<String>,
    pub website_host: Option<String>,
    pub phone_key: Option<String>,
    pub source_ref_key: Option<String>,
    /// The street address as a comparison key (`address::address_key`); not a lookup key.
    pub address_key: Option<AddressKey>,
    /// The city, folded as names are: a name that ends in it is read without it ("Osteria Nonna -
    /// Manchester" in Manchester). Not a lookup key.
    pub city_key: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub id: Uuid,
    pub distance_m: f64,
    pub keys: IdentityKeys,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Scored {
    pub id: Uuid,
    pub score: f64,
    pub reasons: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum MatchDecision {
    NoMatch {
        best: Option<Scored>,
    },
    Match(Scored),
    /// Two or more records fit and nothing in the evidence tells them apart: an operator
    /// decides (`why` says which rule found it).
    Ambiguous {
        candidates: Vec<Scored>,
        why: String,
    },
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct OfferKeys {
    pub parent_id: Option<Uuid>,
    pub title_key: String,
    pub source_ref_key: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct OfferCandidate {
    pub id: Uuid,
    pub distance_m: f64,
    pub keys: OfferKeys,
}

pub const MATCH_THRESHOLD: f64 = 0.5;
/// The distance gate: farther candidates can only match through the same
/// source record.
pub const CANDIDATE_RADIUS_M: f64 = 1000.0;
/// The database offers the nearest records within this radius (where
/// proximity earns points), plus the nearest records sharing an identity key
/// within `KEY_CANDIDATE_RADIUS_M`. Beyond it, reaching the threshold takes a shared key
/// (tested below), so the key search finds every candidate that could win.
pub const NEARBY_CANDIDATE_RADIUS_M: f64 = 500.0;
pub const AMBIGUITY_MARGIN: f64 = 0.15;
/// How far a source record may have moved (re-geocoding) and still be itself.
pub const SOURCE_REF_RADIUS_M: f64 = 25_000.0;
/// The farthest a record sharing an identity key is offered as a candidate: the farthest any
/// rule lets a record win (the same source_ref, or the same street address: asserted below).
/// Beyond it a key's holders (a chain's branches, namesakes in other cities) could only be
/// reported as a gated best of a `NoMatch`, and reading them all grew with the data.
pub const KEY_CANDIDATE_RADIUS_M: f64 = 25_000.0;
const _: () = assert!(
    KEY_CANDIDATE_RADIUS_M >= SOURCE_REF_RADIUS_M
        && KEY_CANDIDATE_RADIUS_M >= SAME_ADDRESS_TEXT_RADIUS_M
);

/// Proximity points by distance band, nearest band first.
pub const PROXIMITY_POINTS: [(f64, f64); 3] = [(50.0, 0.30), (150.0, 0.20), (500.0, 0.10)];
pub const SAME_NAME_POINTS: f64 = 0.35;
pub const SIMILAR_NAME_POINTS: f64 = 0.20;
/// Jaro-Winkler similarity of two name keys from which they count as similar.
pub const SIMILAR_NAME_MIN_SIMILARITY: f64 = 0.92;
pub const SAME_WEBSITE_POINTS: f64 = 0.35;
pub const SAME_WEBSITE_HOST_POINTS: f64 = 0.10;
pub const SAME_PHONE_POINTS: f64 = 0.35;
pub const SAME_SOURCE_REF_POINTS: f64 = 0.60;
/// Both records name a website host (or a phone) and they differ: evidence of two businesses.
/// One contradiction still lets the same name at the same spot match (a changed number); two
/// (another website and another phone) do not.
pub const CONFLICTING_WEBSITE_POINTS: f64 = -0.15;
pub const CONFLICTING_PHONE_POINTS: f64 = -0.15;
/// A different phone when the names agree is weak counter-evidence: one guide lists a
/// restaurant's direct line, another the switchboard of the hotel it is in.
pub const CONFLICTING_PHONE_SAME_NAME_POINTS: f64 = -0.05;
/// A shared phone when the names disagree is weak evidence: the venues of one hotel, casino,
/// mall or practice building share its switchboard (and its address).
pub const SHARED_PHONE_NAMES_DISAGREE_POINTS: f64 = 0.10;
/// Within this distance of each other two places are at one address (the first proximity band).
pub const SAME_ADDRESS_RADIUS_M: f64 = 50.0;
/// Two guides' street addresses that are one address place the records at one address, whatever
/// their geocoded points say, when the points are within this distance (a city): geocoders place
/// differently written addresses of one place kilometres apart.
pub const SAME_ADDRESS_TEXT_RADIUS_M: f64 = 25_000.0;
/// Both records give a street address and they are different places on the map's word: evidence
/// of two businesses (unless their points are at one address, where the texts only differ in how
/// they were written).
pub const CONFLICTING_ADDRESS_POINTS: f64 = -0.15;

/// The same source record settles an offer on its own.
pub const OFFER_SAME_SOURCE_REF_POINTS: f64 = 1.0;
pub const OFFER_SAME_PARENT_POINTS: f64 = 0.25;
pub const OFFER_SAME_TITLE_POINTS: f64 = 0.25;
pub const OFFER_NEARBY_POINTS: f64 = 0.25;
/// Offers without a parent must be this close to be the same offer.
pub const OFFER_NEARBY_RADIUS_M: f64 = 50.0;

/// Scores are sums of decimal fractions; this keeps 0.65 - 0.5 from counting
/// as more than 0.15.
const SCORE_TOLERANCE: f64 = 1e-9;

/// A scored candidate plus what the decision needs that callers do not.
struct Assessment {
    scored: Scored,
    distance_m: Option<f64>,
    may_win: bool,
    /// Within 50 m, or at the same street address: one address.
    at_address: bool,
}

pub fn score_entity(incoming: &IdentityKeys, candidate: &Candidate) -> Scored {
    assess_entity(incoming, candidate).scored
}

/// The best record for the evidence, if one is clearly it. Before the scores decide, two shapes
/// of doubt send the evidence to review instead (docs/matching-rules.md, "Ambiguity"): the name
/// points to one record and the phone or website to another (`split_identity`), or several
/// branches of one brand are near and nothing picks one (`brand_without_branch`).
pub fn decide_entity(incoming: &IdentityKeys, candidates: &[Candidate]) -> MatchDecision {
    let assessed = once_per_record(
        candidates
            .iter()
            .map(|candidate| (candidate, assess_entity(incoming, candidate)))
            .collect(),
    );
    let near: Vec<(&Candidate, &Assessment)> = assessed
        .iter()
        .filter(|(_, a)| a.distance_m.is_some_and(|d| d <= CANDIDATE_RADIUS_M))
        .map(|(c, a)| (*c, a))
        .collect();
    if let Some(doubt) =
        split_identity(incoming, &near).or_else(|| brand_without_branch(incoming, &near))
    {
        return doubt;
    }
    decide(assessed.into_iter().map(|(_, a)| a).collect())
}

/// One assessment per record. A record can be a candidate more than once: itself, and each
/// record an operator merged into it (a redirect keeps its own keys, which still name the
/// survivor, and comes with the survivor's id). It counts once, by its best evidence (one that
/// may win before one that may not), so a record and its own redirect are never two records that
/// make the evidence ambiguous.
fn once_per_record<C>(mut assessed: Vec<(C, Assessment)>) -> Vec<(C, Assessment)> {
    assessed.sort_by(|(_, a), (_, b)| b.may_win.cmp(&a.may_win).then_with(|| best_first(a, b)));
    let mut seen = std::collections::HashSet::with_capacity(assessed.len());
    assessed.retain(|(_, a)| seen.insert(a.scored.id));
    assessed
}

/// How a candidate's name relates to the evidence's.
#[derive(Debug, Clone, Copy, PartialEq)]
enum NameRelation {
    /// One of the two has no name.
    Unknown,
    Same,
    Similar,
    /// One name is the other's words followed by more ("Pizza Express" / "Pizza Express
    /// Deansgate"): a branch or district appended.
    Extends,
    /// One name is the other plus generic words only ("Nonna" / "Trattoria Nonna").
    GenericAdded,
    /// One name's words all appear in the other, which has distinctive words of its own ("Fenix"
    /// / "Fenix at the Argyle"): name points only when the phone or the address corroborates.
    Contained,
    /// Written differently but plainly related ("Bolt Electric" / "Bolt Electrical Services"):
    /// no name points, but not a disagreement either.
    Related,
    Different,
}

impl NameRelation {
    fn agrees(self) -> bool {
        matches!(
            self,
            NameRelation::Same
                | NameRelation::Similar
                | NameRelation::Extends
                | NameRelation::GenericAdded
        )
    }
}

/// Whether two names are the same name written two ways (the same key, the same words in another
/// order, or the same once a bracketed qualifier or the city is left out): a variant a record
/// may show instead, never another name.
pub fn same_name(ours: &str, theirs: &str, city_key: Option<&str>) -> bool {
    let keys = |name: &str| IdentityKeys {
        name_key: Some(super::normalize::name_key(name)),
        city_key: city_key.map(str::to_owned),
        ..IdentityKeys::default()
    };
    name_relation(&keys(ours), &keys(theirs)) == NameRelation::Same
}

fn name_relation(incoming: &IdentityKeys, candidate: &IdentityKeys) -> NameRelation {
    let (Some(ours), Some(theirs)) = (
        non_empty(&incoming.name_key),
        non_empty(&candidate.name_key),
    ) else {
        return NameRelation::Unknown;
    };
    let cities = [
        non_empty(&incoming.city_key),
        non_empty(&candidate.city_key),
    ];
    let (ours, theirs) = (without_city(ours, &cities), without_city(theirs, &cities));
    if ours == theirs
        || super::normalize::digraph_fold(ours) == super::normalize::digraph_fold(theirs)
    {
        return NameRelation::Same;
    }
    match super::names::relate(ours, theirs) {
        WordRelation::Same => NameRelation::Same,
        WordRelation::NearSpelling => NameRelation::Similar,
        WordRelation::Extends => NameRelation::Extends,
        WordRelation::GenericAdded => NameRelation::GenericAdded,
        WordRelation::Contained => NameRelation::Contained,
        // Venues of one host keep their own words, however alike the whole names look.
        WordRelation::Venues => NameRelation::Different,
        WordRelation::Different if name_similarity(ours, theirs).is_some() => NameRelation::Similar,
        WordRelation::Different if extends(ours, theirs) || extends(theirs, ours) => {
            NameRelation::Extends
        }
        WordRelation::Different if related(ours, theirs) => NameRelation::Related,
        WordRelation::Different => NameRelation::Different,
    }
}

/// A name that ends in its city names the venue in that city: the city is a qualifier, as a
/// bracketed one is ("Osteria Nonna - Manchester", "Spago Beverly Hills" in Beverly Hills).
fn without_city<'a>(name: &'a str, cities: &[Option<&str>]) -> &'a str {
    cities
        .iter()
        .flatten()
        .find_map(|city| {
            name.strip_suffix(city)
                .and_then(|rest| rest.strip_suffix(' '))
                .filter(|rest| !rest.trim().is_empty())
        })
        .unwrap_or(name)
}

/// The names start alike for most of the shorter one (at least 60% of it and five characters):
/// "bolt electric" / "bolt electrical services" are related; "savoy grill" / "savoy tea room",
/// venues that share only their hotel's name, are not.
fn related(ours: &str, theirs: &str) -> bool {
    let common = ours
        .chars()
        .zip(theirs.chars())
        .take_while(|(a, b)| a == b)
        .count();
    let shorter = ours.chars().count().min(theirs.chars().count());
    common >= 5 && common as f64 >= 0.6 * shorter as f64
}

/// `longer` is `shorter`'s words followed by more words; `shorter` has at least two words, so a
/// generic word ("cafe") never extends into every name that starts with it.
fn extends(shorter: &str, longer: &str) -> bool {
    // Word by word, `longer` starts with `shorter`'s words and has more: it is `shorter`, a space,
    // and the rest.
    shorter.contains(' ')
        && longer.len() > shorter.len()
        && longer.starts_with(shorter)
        && longer.as_bytes()[shorter.len()] == b' '
}

fn ambiguous(mut found: Vec<&Assessment>, why: &str) -> MatchDecision {
    found.sort_by(|a, b| best_first(a, b));
    found.dedup_by_key(|a| a.scored.id);
    MatchDecision::Ambiguous {
        candidates: found.into_iter().map(|a| a.scored.clone()).collect(),
        why: why.to_owned(),
    }
}

/// The name says one record, the phone (or the website page) another: two records' facts in
/// one entry. A phone several nearby records share (a switchboard) identifies none of them, so it
/// splits nothing.
fn split_identity(
    incoming: &IdentityKeys,
    near: &[(&Candidate, &Assessment)],
) -> Option<MatchDecision> {
    let holds = |keys: &IdentityKeys| {
        (
            shared(&incoming.phone_key, &keys.phone_key).is_some(),
            shared(&incoming.website_key, &keys.website_key).is_some(),
        )
    };
    let holders = |phone: bool| {
        near.iter()
            .filter(|(c, _)| {
                let (p, w) = holds(&c.keys);
                if phone { p } else { w }
            })
            .count()
    };
    for (by_contact, b) in near {
        if name_relation(incoming, &by_contact.keys) != NameRelation::Different {
            continue;
        }
        let (phone, page) = holds(&by_contact.keys);
        let identifies = (phone && holders(true) == 1) || (page && holders(false) == 1);
        if !identifies {
            continue;
        }
        if let Some((_, a)) = near
            .iter()
            .find(|(c, _)| c.id != by_contact.id && name_relation(incoming, &c.keys).agrees())
        {
            return Some(ambiguous(
                vec![a, b],
                "the name fits one record and the phone or website another",
            ));
        }
    }
    None
}

/// Several nearby records carry the evidence's name (or its website's host): branches of one
/// brand, or a record and its duplicate. The evidence must pick one by branch-level identity: a
/// phone or website page only that one shares, the same source record, or being at its address
/// while the others are not. A store-finder page or a brand name between branches picks none.
fn brand_without_branch(
    incoming: &IdentityKeys,
    near: &[(&Candidate, &Assessment)],
) -> Option<MatchDecision> {
    let brand: Vec<&(&Candidate, &Assessment)> = near
        .iter()
        .filter(|(c, _)| {
            name_relation(incoming, &c.keys).agrees() || shared_host(incoming, &c.keys).is_some()
        })
        .collect();
    if brand.len() < 2 {
        return None;
    }
    let only_one = |keys: fn(&IdentityKeys) -> &Option<String>, c: &Candidate| {
        shared(keys(incoming), keys(&c.keys)).is_some()
            && brand
                .iter()
                .filter(|(other, _)| shared(keys(incoming), keys(&other.keys)).is_some())
                .count()
                == 1
    };
    let at_address = |a: &Assessment| a.at_address;
    let branch_level = brand
        .iter()
        .filter(|(c, a)| {
            shared(&incoming.source_ref_key, &c.keys.source_ref_key).is_some()
                || only_one(|k| &k.phone_key, c)
                || (only_one(|k| &k.website_key, c)
                    && c.keys
                        .website_key
                        .as_deref()
                        .is_some_and(|k| k.contains('/')))
                || (at_address(a) && brand.iter().filter(|(_, o)| at_address(o)).count() == 1)
        })
        .count();
    (branch_level != 1).then(|| {
        ambiguous(
            brand.iter().map(|(_, a)| *a).collect(),
            "several nearby records share this name or website and nothing in the evidence picks one",
        )
    })
}

pub fn score_offer(incoming: &OfferKeys, candidate: &OfferCandidate) -> Scored {
    assess_offer(incoming, candidate).scored
}

pub fn decide_offer(incoming: &OfferKeys, candidates: &[OfferCandidate]) -> MatchDecision {
    let assessed = once_per_record(
        candidates
            .iter()
            .map(|candidate| ((), assess_offer(incoming, candidate)))
            .collect(),
    );
    decide(assessed.into_iter().map(|((), a)| a).collect())
}

fn assess_entity(incoming: &IdentityKeys, candidate: &Candidate) -> Assessment {
    let mut evidence = Evidence::default();
    let distance_m = known_distance(candidate.distance_m);
    evidence.note_distance(distance_m);
    if let Some(distance) = distance_m {
        evidence.add(proximity_points(distance), None);
    }
    let names = name_relation(incoming, &candidate.keys);
    let address = super::address::relate(
        incoming.address_key.as_ref(),
        candidate.keys.address_key.as_ref(),
    );
    let same_phone = shared(&incoming.phone_key, &candidate.keys.phone_key).is_some();
    let within_city = distance_m.is_some_and(|d| d <= SAME_ADDRESS_TEXT_RADIUS_M);
    let same_address = address == AddressRelation::Same && within_city;
    let at_address = distance_m.is_some_and(|d| d <= SAME_ADDRESS_RADIUS_M) || same_address;
    if same_address && distance_m.is_some_and(|d| d > SAME_ADDRESS_RADIUS_M) {
        // The texts put both at one address: the points of the first proximity band, not more.
        evidence.add(
            PROXIMITY_POINTS[0].1 - distance_m.map_or(0.0, proximity_points),
            Some("same street address".to_owned()),
        );
    }
    add_name_evidence(&mut evidence, incoming, &candidate.keys, names);
    if names == NameRelation::Contained && (same_phone || same_address) {
        evidence.add(
            SIMILAR_NAME_POINTS,
            Some("one name contains the other, and the phone or address agrees".to_owned()),
        );
    }
    add_website_evidence(&mut evidence, incoming, &candidate.keys);
    if address == AddressRelation::Conflicting && !at_address && distance_m.is_some() {
        evidence.add(
            CONFLICTING_ADDRESS_POINTS,
            Some("different street addresses".to_owned()),
        );
    }
    if let Some(phone) = shared(&incoming.phone_key, &candidate.keys.phone_key) {
        if names == NameRelation::Different {
            evidence.add(
                SHARED_PHONE_NAMES_DISAGREE_POINTS,
                Some(format!(
                    "phone {phone} shared by another name (a switchboard?)"
                )),
            );
        } else {
            evidence.add(SAME_PHONE_POINTS, Some(format!("phone {phone}")));
        }
    }
    add_conflict_evidence(&mut evidence, incoming, &candidate.keys, names);
    let same_source_ref = add_source_ref_evidence(
        &mut evidence,
        shared(&incoming.source_ref_key, &candidate.keys.source_ref_key),
        distance_m,
        SAME_SOURCE_REF_POINTS,
    );
    let within_radius = distance_m.is_some_and(|distance| distance <= CANDIDATE_RADIUS_M);
    // A geocoder may place one address written two ways kilometres apart; the address texts
    // then settle where the business is: the same address, or the same street with the same
    // phone (a number missing in one guide, a corner), under a name that agrees.
    let names_fit = names.agrees() || names == NameRelation::Contained;
    let placed_by_address = within_city
        && names_fit
        && (same_address || (address == AddressRelation::Compatible && same_phone));
    let may_win = within_radius || same_source_ref || placed_by_address;
    if !may_win {
        evidence.note(format!(
            "beyond {CANDIDATE_RADIUS_M} m: only the same source_ref or street address may match"
        ));
    } else if !within_radius && placed_by_address {
        evidence.note("beyond 1000 m, but the street address places it here".to_owned());
    }
    let mut assessment = evidence.into_assessment(candidate.id, distance_m, may_win);
    assessment.at_address = at_address;
    assessment
}

fn assess_offer(incoming: &OfferKeys, candidate: &OfferCandidate) -> Assessment {
    let mut evidence = Evidence::default();
    let distance_m = known_distance(candidate.distance_m);
    evidence.note_distance(distance_m);
    let same_source_ref = add_source_ref_evidence(
        &mut evidence,
        shared(&incoming.source_ref_key, &candidate.keys.source_ref_key),
        distance_m,
        OFFER_SAME_SOURCE_REF_POINTS,
    );
    let same_parent = shared_parent(incoming.parent_id, candidate.keys.parent_id);
    if let Some(parent) = same_parent {
        evidence.add(OFFER_SAME_PARENT_POINTS, Some(format!("parent {parent}")));
    }
    let same_title = shared_text(&incoming.title_key, &candidate.keys.title_key);
    if let Some(title) = same_title {
        evidence.add(OFFER_SAME_TITLE_POINTS, Some(format!("title '{title}'")));
    }
    let nearby = distance_m.is_some_and(|distance| distance <= OFFER_NEARBY_RADIUS_M);
    if nearby {
        evidence.add(OFFER_NEARBY_POINTS, None);
    }
    let both_without_parent = incoming.parent_id.is_none() && candidate.keys.parent_id.is_none();
    let may_win = same_source_ref
        || (same_parent.is_some() && same_title.is_some())
        || (same_title.is_some() && nearby && both_without_parent);
    evidence.into_assessment(candidate.id, distance_m, may_win)
}

fn add_name_evidence(
    evidence: &mut Evidence,
    incoming: &IdentityKeys,
    candidate: &IdentityKeys,
    relation: NameRelation,
) {
    let (Some(ours), Some(theirs)) = (
        non_empty(&incoming.name_key),
        non_empty(&candidate.name_key),
    ) else {
        return;
    };
    match relation {
        NameRelation::Same if ours == theirs => {
            evidence.add(SAME_NAME_POINTS, Some(format!("name '{ours}'")));
        }
        NameRelation::Same => evidence.add(
            SAME_NAME_POINTS,
            Some(format!("name '{ours}' = '{theirs}' (spelled another way)")),
        ),
        NameRelation::Similar => {
            let similarity = strsim::jaro_winkler(ours, theirs);
            evidence.add(
                SIMILAR_NAME_POINTS,
                Some(format!(
                    "similar name '{ours}' ~ '{theirs}' ({similarity:.2})"
                )),
            );
        }
        NameRelation::Extends => evidence.add(
            SIMILAR_NAME_POINTS,
            Some(format!(
                "name '{ours}' ~ '{theirs}' (one extends the other)"
            )),
        ),
        NameRelation::GenericAdded => evidence.add(
            SIMILAR_NAME_POINTS,
            Some(format!("name '{ours}' ~ '{theirs}' (a generic word added)")),
        ),
        // Contained names earn points only with corroboration (in `assess_entity`).
        NameRelation::Contained
        | NameRelation::Related
        | NameRelation::Different
        | NameRelation::Unknown => {}
    }
}

/// Names that differ in their numbers ("Unit 7 Cafe", "Unit 8 Cafe") name
/// different places however alike they look.
fn name_similarity(ours: &str, theirs: &str) -> Option<f64> {
    super::similarity::jaro_winkler_at_least(ours, theirs, SIMILAR_NAME_MIN_SIMILARITY)
        .filter(|_| digits(ours).eq(digits(theirs)))
}

fn digits(text: &str) -> impl Iterator<Item = char> + '_ {
    text.chars().filter(char::is_ascii_digit)
}

fn add_website_evidence(
    evidence: &mut Evidence,
    incoming: &IdentityKeys,
    candidate: &IdentityKeys,
) {
    if let Some(website) = shared(&incoming.website_key, &candidate.website_key) {
        evidence.add(SAME_WEBSITE_POINTS, Some(format!("website {website}")));
    } else if let Some(host) = shared_host(incoming, candidate) {
        evidence.add(
            SAME_WEBSITE_HOST_POINTS,
            Some(format!("website host {host}")),
        );
    }
}

fn add_conflict_evidence(
    evidence: &mut Evidence,
    incoming: &IdentityKeys,
    candidate: &IdentityKeys,
    names: NameRelation,
) {
    if let (Some(a), Some(b)) = (&incoming.website_host, &candidate.website_host)
        && a != b
    {
        evidence.add(
            CONFLICTING_WEBSITE_POINTS,
            Some(format!("different website hosts {a} / {b}")),
        );
    }
    if let (Some(a), Some(b)) = (&incoming.phone_key, &candidate.phone_key)
        && a != b
    {
        let points = if names.agrees() {
            CONFLICTING_PHONE_SAME_NAME_POINTS
        } else {
            CONFLICTING_PHONE_POINTS
        };
        evidence.add(points, Some(format!("different phones {a} / {b}")));
    }
}

/// Returns whether the shared source_ref may decide the match, i.e. it is
/// within [`SOURCE_REF_RADIUS_M`]; beyond that it is not counted at all.
fn add_source_ref_evidence(
    evidence: &mut Evidence,
    source_ref: Option<&str>,
    distance_m: Option<f64>,
    points: f64,
) -> bool {
    let Some(source_ref) = source_ref else {
        return false;
    };
    if distance_m.is_some_and(|distance| distance <= SOURCE_REF_RADIUS_M) {
        evidence.add(points, Some(format!("source_ref {source_ref}")));
        true
    } else {
        evidence.note(format!(
            "source_ref {source_ref} ignored: not within {SOURCE_REF_RADIUS_M} m"
        ));
        false
    }
}

fn proximity_points(distance_m: f64) -> f64 {
    PROXIMITY_POINTS
        .iter()
        .find(|(radius, _)| distance_m <= *radius)
        .map_or(0.0, |(_, points)| *points)
}

/// A distance the database could not compute (NaN, negative) must not look
/// like "right here".
fn known_distance(distance_m: f64) -> Option<f64> {
    (distance_m.is_finite() && distance_m >= 0.0).then_some(distance_m)
}

fn non_empty(key: &Option<String>) -> Option<&str> {
    key.as_deref().map(str::trim).filter(|key| !key.is_empty())
}

fn shared<'a>(ours: &'a Option<String>, theirs: &Option<String>) -> Option<&'a str> {
    let ours = non_empty(ours)?;
    (Some(ours) == non_empty(theirs)).then_some(ours)
}

fn shared_text<'a>(ours: &'a str, theirs: &str) -> Option<&'a str> {
    let ours = ours.trim();
    (!ours.is_empty() && ours == theirs.trim()).then_some(ours)
}

fn shared_parent(ours: Option<Uuid>, theirs: Option<Uuid>) -> Option<Uuid> {
    ours.filter(|parent| Some(*parent) == theirs)
}

/// Callers may fill only `website_key`; its host part is the host.
fn shared_host<'a>(incoming: &'a IdentityKeys, candidate: &IdentityKeys) -> Option<&'a str> {
    let ours = host_of(incoming)?;
    (Some(ours) == host_of(candidate)).then_some(ours)
}

fn host_of(keys: &IdentityKeys) -> Option<&str> {
    non_empty(&keys.website_host).or_else(|| {
        non_empty(&keys.website_key)?
            .split('/')
            .next()
            .filter(|host| !host.is_empty())
    })
}

fn decide(mut assessments: Vec<Assessment>) -> MatchDecision {
    assessments.sort_by(best_first);
    let best = assessments
        .first()
        .filter(|top| top.scored.score > 0.0)
        .map(|top| top.scored.clone());
    let contenders: Vec<Scored> = assessments
        .into_iter()
        .filter(|assessment| {
            assessment.may_win && assessment.scored.score >= MATCH_THRESHOLD - SCORE_TOLERANCE
        })
        .map(|assessment| assessment.scored)
        .collect();
    match contenders.as_slice() {
        [] => MatchDecision::NoMatch { best },
        [only] => MatchDecision::Match(only.clone()),
        [first, second, ..] if clearly_ahead(first, second) => MatchDecision::Match(first.clone()),
        [first, ..] => {
            let top_score = first.score;
            MatchDecision::Ambiguous {
                candidates: contenders
                    .into_iter()
                    .take_while(|other| !clearly_ahead_by(top_score, other.score))
                    .collect(),
                why: "several records fit this evidence about equally well".to_owned(),
            }
        }
    }
}

fn clearly_ahead(first: &Scored, second: &Scored) -> bool {
    clearly_ahead_by(first.score, second.score)
}

fn clearly_ahead_by(leader: f64, other: f64) -> bool {
    leader - other > AMBIGUITY_MARGIN + SCORE_TOLERANCE
}

/// Highest score first; on equal scores the nearer, then the lower id, so the
/// same input always gives the same answer.
fn best_first(a: &Assessment, b: &Assessment) -> Ordering {
    b.scored
        .score
        .total_cmp(&a.scored.score)
        .then_with(|| {
            let a_distance = a.distance_m.unwrap_or(f64::INFINITY);
            a_distance.total_cmp(&b.distance_m.unwrap_or(f64::INFINITY))
        })
        .then_with(|| a.scored.id.cmp(&b.scored.id))
}

#[derive(Default)]
struct Evidence {
    points: f64,
    reasons: Vec<String>,
}

impl Evidence {
    fn add(&mut self, points: f64, reason: Option<String>) {
        self.points += points;
        if let Some(reason) = reason {
            self.reasons.push(reason);
        }
    }

    fn note(&mut self, reason: String) {
        self.reasons.push(reason);
    }

    fn note_distance(&mut self, distance_m: Option<f64>) {
        self.note(match distance_m {
            Some(distance) => format!("distance {} m", distance.round()),
            None => "distance unknown".to_owned(),
        });
    }

    fn into_assessment(self, id: Uuid, distance_m: Option<f64>, may_win: bool) -> Assessment {
        Assessment {
            scored: Scored {
                id,
                score: rounded_score(self.points.min(1.0)),
                reasons: self.reasons,
            },
            distance_m,
            may_win,
            at_address: false,
        }
    }
}

/// Reported scores read as the documented sums (0.55, not 0.5500000000000002).
fn rounded_score(points: f64) -> f64 {
    (points * 10_000.0).round() / 10_000.0
}

#[cfg(test)]
mod tests;
