//! How two business names relate, word by word.
//!
//! Two guides name one restaurant in ways a character comparison misses: the words in another
//! order ("Hotel Marisol" / "Marisol Hotel"), a generic word added ("Nonna" / "Trattoria
//! Nonna"), one name inside the other ("Fenix" / "Fenix at the Argyle"), a near-spelling
//! ("Harbour Grill" / "Harbour Grille"). Venues that share a host's name keep their own words
//! ("Marisol Hotel Dining Room" / "Marisol Hotel Café"), and those words tell them apart. This
//! module compares two name keys (already folded by `normalize::name_key`) and says which of
//! these they are; `matching` turns that into points. docs/matching-rules.md, "Names", has the
//! rules and their counter-examples.

/// Words that join a name's parts but name nothing: a name with or without them is the same.
const FILLER: &[&str] = &["the", "and", "at", "of", "on", "in", "a", "an"];

/// Words that say what kind of place a venue is rather than which: a name with one of them added
/// or dropped is the same venue ("Katsu" / "Restaurant Katsu", "Bone's" / "Bone's Restaurant").
const GENERIC: &[&str] = &[
    "restaurant",
    "restaurants",
    "ristorante",
    "restaurante",
    "restaurang",
    "trattoria",
    "osteria",
    "pizzeria",
    "taverna",
    "cafe",
    "caffe",
    "coffee",
    "bistro",
    "bistrot",
    "brasserie",
    "bar",
    "grill",
    "grille",
    "kitchen",
    "eatery",
    "diner",
    "deli",
    "delicatessen",
    "pub",
    "tavern",
    "cantina",
    "steakhouse",
    "bbq",
    "barbecue",
    "cuisine",
    "food",
    "foods",
    "shop",
    "store",
    "services",
    "service",
];

/// Words that name a place holding several venues: a name that adds words to one of these names
/// a venue inside it ("Marisol Hotel" / "Marisol Hotel Dining Room"), not the place itself.
const HOST: &[&str] = &[
    "hotel",
    "hotels",
    "casino",
    "resort",
    "mall",
    "plaza",
    "centre",
    "center",
    "museum",
    "airport",
    "station",
    "market",
    "hall",
    "arena",
    "stadium",
    "theatre",
    "theater",
    "gallery",
    "hospital",
    "university",
    "college",
    "inn",
    "lodge",
    "spa",
];

/// What the words of two names say about them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WordRelation {
    /// The same words, in the same or another order.
    Same,
    /// The same words, one or more spelled slightly differently ("grill" / "grille", "harbour" /
    /// "harbor", "deli" / "delicatessen").
    NearSpelling,
    /// One name is the other's words followed by more, and the shorter has at least two words
    /// ("Pho Saigon" / "Pho Saigon Chinatown").
    Extends,
    /// One name is the other plus only generic words ("Nonna" / "Trattoria Nonna").
    GenericAdded,
    /// One name's words all appear in the other, which has distinctive words of its own
    /// ("Fenix" / "Fenix at the Argyle", "Spago" / "Spago Beverly Hills"): the same venue when
    /// the phone or the address says so, no evidence either way otherwise.
    Contained,
    /// Venues of one host: the names share a hotel's, casino's or mall's name and at least one
    /// adds words of its own ("Marisol Hotel" / "Marisol Hotel Café", "Marisol Hotel Dining Room"
    /// / "Marisol Hotel Café"). Never the same venue, however alike the whole names look.
    Venues,
    /// Each name has words the other lacks, or nothing is shared.
    Different,
}

/// Compares two name keys word by word.
pub fn relate(ours: &str, theirs: &str) -> WordRelation {
    let a: Vec<&str> = ours
        .split(' ')
        .filter(|w| !w.is_empty() && !FILLER.contains(w))
        .collect();
    let b: Vec<&str> = theirs
        .split(' ')
        .filter(|w| !w.is_empty() && !FILLER.contains(w))
        .collect();
    if a.is_empty() || b.is_empty() {
        return WordRelation::Different;
    }
    let pairing = pair_words(&a, &b);
    let extra_a: Vec<&str> = unpaired(&a, &pairing.a_paired);
    let extra_b: Vec<&str> = unpaired(&b, &pairing.b_paired);
    let shares_host = a
        .iter()
        .zip(&pairing.a_paired)
        .any(|(w, paired)| *paired && HOST.contains(w));
    match (extra_a.is_empty(), extra_b.is_empty()) {
        (true, true) if pairing.near => WordRelation::NearSpelling,
        (true, true) => WordRelation::Same,
        (false, false) if shares_host => WordRelation::Venues,
        (false, false) => WordRelation::Different,
        (true, false) => one_sided(&a, &b, &extra_b, pairing.near),
        (false, true) => one_sided(&b, &a, &extra_a, pairing.near),
    }
}

/// `longer` has every word of `shorter` and `extra` besides.
fn one_sided(shorter: &[&str], longer: &[&str], extra: &[&str], near: bool) -> WordRelation {
    // A name of generic words only ("Cafe", "Bar & Grill") names no venue of its own.
    if shorter.iter().all(|w| GENERIC.contains(w)) {
        return WordRelation::Different;
    }
    if shorter.iter().any(|w| HOST.contains(w)) {
        return WordRelation::Venues;
    }
    if extra.iter().all(|w| GENERIC.contains(w)) {
        return WordRelation::GenericAdded;
    }
    if !near && shorter.len() >= 2 && longer.starts_with(shorter) {
        return WordRelation::Extends;
    }
    WordRelation::Contained
}

struct Pairing {
    a_paired: Vec<bool>,
    b_paired: Vec<bool>,
    /// Some pair was a near-spelling rather than the same word.
    near: bool,
}

/// Pairs each word of `a` with an unpaired equal word of `b`, then the rest with an unpaired
/// near-spelling.
fn pair_words(a: &[&str], b: &[&str]) -> Pairing {
    let mut a_paired = vec![false; a.len()];
    let mut b_paired = vec![false; b.len()];
    for (i, word) in a.iter().enumerate() {
        if let Some(j) = (0..b.len()).find(|&j| !b_paired[j] && b[j] == *word) {
            a_paired[i] = true;
            b_paired[j] = true;
        }
    }
    let mut near = false;
    for (i, word) in a.iter().enumerate() {
        if a_paired[i] {
            continue;
        }
        if let Some(j) = (0..b.len()).find(|&j| !b_paired[j] && near_spelling(word, b[j])) {
            a_paired[i] = true;
            b_paired[j] = true;
            near = true;
        }
    }
    Pairing {
        a_paired,
        b_paired,
        near,
    }
}

fn unpaired<'a>(words: &[&'a str], paired: &[bool]) -> Vec<&'a str> {
    words
        .iter()
        .zip(paired)
        .filter(|(_, p)| !**p)
        .map(|(w, _)| *w)
        .collect()
}

/// One word written two ways: a common abbreviation ("deli" / "delicatessen"), one edit apart
/// (an insertion, deletion, substitution or two letters swapped) in words of five letters or
/// more, or the start of the other with at most three letters more ("electric" / "electrical";
/// "star" is not "starbucks"). Numbers never: "Unit 7" is not "Unit 8".
pub fn near_spelling(a: &str, b: &str) -> bool {
    if a.bytes().any(|c| c.is_ascii_digit()) || b.bytes().any(|c| c.is_ascii_digit()) {
        return false;
    }
    let (a, b) = (unabbreviated(a), unabbreviated(b));
    if a == b {
        return true;
    }
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if short.len() >= 5 && long.len() - short.len() <= 3 && long.starts_with(short) {
        return true;
    }
    short.len() >= 5 && long.len() - short.len() <= 1 && strsim::osa_distance(a, b) <= 1
}

/// Abbreviations guides use in names, written out.
fn unabbreviated(word: &str) -> &str {
    match word {
        "deli" => "delicatessen",
        "bros" => "brothers",
        "intl" => "international",
        "ctr" | "centre" => "center",
        "theatre" => "theater",
        "st" => "saint",
        "mt" => "mount",
        "ristorante" | "restaurante" | "restaurang" => "restaurant",
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transform::normalize::name_key;

    fn rel(a: &str, b: &str) -> WordRelation {
        let (a, b) = (name_key(a), name_key(b));
        let forward = relate(&a, &b);
        assert_eq!(
            forward,
            relate(&b, &a),
            "the relation is symmetric: {a} / {b}"
        );
        forward
    }

    #[test]
    fn the_same_words_in_another_order_are_the_same_name() {
        assert_eq!(rel("Hotel Marisol", "Marisol Hotel"), WordRelation::Same);
        assert_eq!(rel("Grill, The", "The Grill"), WordRelation::Same);
        assert_eq!(
            rel("Palm, The (Los Angeles)", "The Palm"),
            WordRelation::Same
        );
    }

    #[test]
    fn a_near_spelling_of_a_word_is_a_near_spelling_of_the_name() {
        assert_eq!(
            rel("Harbour Grill", "Harbour Grille"),
            WordRelation::NearSpelling
        );
        assert_eq!(
            rel("Art's Deli", "Art's Delicatessen"),
            WordRelation::NearSpelling
        );
        assert_eq!(rel("Harbour Inn", "Harbor Inn"), WordRelation::NearSpelling);
        assert_eq!(
            rel("Unit 7 Coffee", "Unit 8 Coffee"),
            WordRelation::Different
        );
    }

    #[test]
    fn a_generic_word_added_or_dropped_is_the_same_venue() {
        for (a, b) in [
            ("Nonna", "Trattoria Nonna"),
            ("Katsu", "Restaurant Katsu"),
            ("Bone's", "Bone's Restaurant"),
            ("Mesa", "Mesa Bar & Grill"),
        ] {
            assert_eq!(rel(a, b), WordRelation::GenericAdded, "{a} / {b}");
        }
    }

    #[test]
    fn a_qualifier_in_brackets_or_one_name_inside_the_other_is_contained() {
        assert_eq!(
            rel("Osteria Nonna (Downtown)", "Osteria Nonna"),
            WordRelation::Same
        );
        assert_eq!(rel("Fenix", "Fenix at the Argyle"), WordRelation::Contained);
        assert_eq!(rel("Spago", "Spago Beverly Hills"), WordRelation::Contained);
        assert_eq!(
            rel("Pho Saigon", "Pho Saigon - Chinatown"),
            WordRelation::Extends
        );
    }

    #[test]
    fn venues_of_one_host_are_venues() {
        for (a, b) in [
            ("Marisol Hotel Dining Room", "Marisol Hotel Café"),
            ("Marisol Hotel", "Marisol Hotel Dining Room"),
            (
                "Caesars Palace Casino Buffet",
                "Caesars Palace Casino Steakhouse",
            ),
        ] {
            assert_eq!(rel(a, b), WordRelation::Venues, "{a} / {b}");
        }
    }

    #[test]
    fn names_with_words_of_their_own_are_different() {
        for (a, b) in [
            ("Savoy Grill", "Savoy Tea Room"),
            ("Cafe", "Cafe Nero"),
            (
                "Harbour Street Oyster House",
                "Quayside Fish Camp and Oyster House",
            ),
            (
                "Ritz-Carlton Café (Buckhead)",
                "Dining Room Ritz-Carlton Buckhead",
            ),
        ] {
            assert_eq!(rel(a, b), WordRelation::Different, "{a} / {b}");
        }
    }
}
