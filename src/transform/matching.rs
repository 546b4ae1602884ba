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
/// wherever they are. Beyond it, reaching the threshold takes a shared key
/// (tested below), so the key search finds every candidate that could win.
pub const NEARBY_CANDIDATE_RADIUS_M: f64 = 500.0;
pub const AMBIGUITY_MARGIN: f64 = 0.15;
/// How far a source record may have moved (re-geocoding) and still be itself.
pub const SOURCE_REF_RADIUS_M: f64 = 25_000.0;

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
    decide(assessed.into_iter().map(|(_, a)| a).collect())
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
            evidence.add(SAME_NAME_POINTS, Some(format!("name '{ours}'")))
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
mod tests {
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
            "Ltd", "Ltd.", "LLC", "Inc.", "GmbH", "UG", "AG", "SARL", "SAS", "SA", "S.L.",
            "S.p.A.", "S.r.l.", "B.V.", "N.V.", "Pty Ltd",
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
}
