//! Street addresses as comparison keys: two guides write one address many ways ("12224 Ventura
//! Blvd." / "12224 Ventura Boulevard, Studio City"; "Central Park West at 67th St." / "in
//! Central Park at W. 67th St."), and a geocoder places each where it can, sometimes far apart.
//! The key keeps what identifies the place on its street: the house number and the street's
//! distinctive words. Street types, compass points and connecting words ("at", "corner of") do
//! not count, since every address has them. Used only to compare; records keep the text as
//! written. The rules are documented in docs/matching-rules.md ("Addresses").

use super::normalize;

/// The identifying part of an address: its house number (if written) and the distinctive words
/// of its street, sorted and without repeats.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AddressKey {
    pub number: Option<String>,
    pub words: Vec<String>,
}

/// How two addresses relate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddressRelation {
    /// One of the two has no usable address.
    Unknown,
    /// The same house number (or neither has one) on the same street.
    Same,
    /// The same street, written more or less fully, where one gives no house number: a corner,
    /// "in the park at …", a number missing in one guide. Not the same address, not another.
    Compatible,
    /// Another street, or another house number on the street: another place.
    Conflicting,
}

/// Words every address may carry whatever the place: street types (and their abbreviations, in
/// the languages served), compass points, unit and floor words, connectors. Ordinal street
/// names ("67th") are distinctive and stay.
const NOT_DISTINCTIVE: &[&str] = &[
    "street",
    "st",
    "str",
    "avenue",
    "ave",
    "av",
    "boulevard",
    "blvd",
    "bd",
    "road",
    "rd",
    "drive",
    "dr",
    "lane",
    "ln",
    "place",
    "pl",
    "court",
    "ct",
    "square",
    "sq",
    "parkway",
    "pkwy",
    "highway",
    "hwy",
    "way",
    "terrace",
    "ter",
    "row",
    "crescent",
    "cres",
    "close",
    "circle",
    "cir",
    "alley",
    "walk",
    "mews",
    "north",
    "south",
    "east",
    "west",
    "n",
    "s",
    "e",
    "w",
    "ne",
    "nw",
    "se",
    "sw",
    "at",
    "and",
    "between",
    "near",
    "corner",
    "cnr",
    "of",
    "the",
    "in",
    "on",
    "off",
    "by",
    "side",
    "suite",
    "ste",
    "unit",
    "floor",
    "fl",
    "level",
    "building",
    "bldg",
    "no",
    "number",
    "nr",
    "rue",
    "via",
    "viale",
    "calle",
    "strasse",
    "platz",
    "avenida",
    "corso",
    "piazza",
    "plaza",
    "carrer",
    "rua",
    "de",
    "del",
    "della",
    "di",
    "la",
    "le",
    "du",
    "des",
];

/// Words after which a number is a unit, not the house: "Suite 200, 100 Main St".
const UNIT_WORDS: &[&str] = &[
    "suite",
    "ste",
    "unit",
    "floor",
    "fl",
    "level",
    "apt",
    "apartment",
    "room",
    "no",
    "nr",
    "number",
    "box",
];

/// The key of an address, or `None` when it names no street (empty, or only numbers and
/// street-type words). Only the first comma-separated part that names a street counts: what
/// follows is district, city and postcode, which guides add or leave out at will.
pub fn address_key(raw: &str) -> Option<AddressKey> {
    raw.split([',', ';', '\n'])
        .map(part_key)
        .find(|key| !key.words.is_empty())
}

fn part_key(part: &str) -> AddressKey {
    let words = normalize::folded_words(part);
    let mut number = None;
    let mut distinctive = Vec::new();
    let mut after_unit_word = false;
    for word in &words {
        if is_house_number(word) {
            if number.is_none() && !after_unit_word {
                number = Some(word.trim_start_matches('0').to_owned());
            }
        } else if !NOT_DISTINCTIVE.contains(&word.as_str()) {
            distinctive.push(expand_saint(word));
        }
        after_unit_word = UNIT_WORDS.contains(&word.as_str());
    }
    distinctive.sort();
    distinctive.dedup();
    AddressKey {
        number,
        words: distinctive,
    }
}

/// Digits, perhaps with one letter ("12", "12a"); an ordinal ("67th", "2nd") is a street name.
fn is_house_number(word: &str) -> bool {
    let digits = word.chars().take_while(char::is_ascii_digit).count();
    digits > 0 && word.len() - digits <= 1 && !is_ordinal(word)
}

fn is_ordinal(word: &str) -> bool {
    let digits = word.chars().take_while(char::is_ascii_digit).count();
    digits > 0 && matches!(&word[digits..], "st" | "nd" | "rd" | "th")
}

fn expand_saint(word: &str) -> String {
    match word {
        "mt" => "mount".to_owned(),
        "ft" => "fort".to_owned(),
        _ => word.to_owned(),
    }
}

/// How two address keys relate (see [`AddressRelation`]).
pub fn relate(a: Option<&AddressKey>, b: Option<&AddressKey>) -> AddressRelation {
    let (Some(a), Some(b)) = (a, b) else {
        return AddressRelation::Unknown;
    };
    let shared = a.words.iter().filter(|w| b.words.contains(w)).count();
    if shared == 0 {
        return AddressRelation::Conflicting;
    }
    let one_within_other = shared == a.words.len() || shared == b.words.len();
    match (&a.number, &b.number) {
        (Some(x), Some(y)) if x != y => AddressRelation::Conflicting,
        (Some(_), Some(_)) | (None, None) if one_within_other => AddressRelation::Same,
        _ => AddressRelation::Compatible,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rel(a: &str, b: &str) -> AddressRelation {
        relate(address_key(a).as_ref(), address_key(b).as_ref())
    }

    fn each_pair_is(relation: AddressRelation, pairs: &[(&str, &str)]) {
        for (a, b) in pairs {
            assert_eq!(rel(a, b), relation, "{a} / {b}");
        }
    }

    #[test]
    fn one_address_written_two_ways_is_the_same_address() {
        each_pair_is(
            AddressRelation::Same,
            &[
                (
                    "12224 Ventura Blvd.",
                    "12224 Ventura Boulevard, Studio City",
                ),
                ("100 W. 57th St.", "100 West 57th Street"),
                ("3 Fountain Sq", "3 Fountain Square, Leeds LS1 4AB"),
                ("Suite 200, 100 Main St", "100 Main Street"),
                ("Calle Mayor 5", "5 Calle Mayor"),
                (
                    "Central Park West at 67th St.",
                    "in Central Park at W. 67th St.",
                ),
            ],
        );
    }

    #[test]
    fn a_corner_a_park_or_a_missing_number_is_compatible() {
        each_pair_is(
            AddressRelation::Compatible,
            &[
                ("Ventura Blvd", "12224 Ventura Blvd."),
                ("corner of Main St and 5th Ave", "500 Main Street"),
            ],
        );
    }

    #[test]
    fn another_street_or_another_number_is_another_place() {
        each_pair_is(
            AddressRelation::Conflicting,
            &[
                ("12 High Street", "14 High Street"),
                ("1500 Broadway", "2300 Broadway"),
                ("12 Market Street", "12 Station Road"),
            ],
        );
    }

    #[test]
    fn an_address_without_a_street_word_has_no_key() {
        assert_eq!(address_key(""), None);
        assert_eq!(address_key("12"), None);
        assert_eq!(address_key("Street, 12"), None);
        assert_eq!(rel("", "12 High Street"), AddressRelation::Unknown);
    }
}
