//! Which way of writing the same name a record shows. Agents write one name many ways:
//! "Rowbotham & Illingworth Family Butchers", "ROWBOTHAM & ILLINGWORTH FAMILY BUTCHERS ",
//! "Rowbotham and Illingworth Family Butchers Ltd". When an entry's name has the record's name
//! key (the same name), the record keeps the best-formed variant rather than the latest:
//! trimmed; mixed case over all-lowercase over ALL CAPITALS (a directory's shouting is not the
//! business's name); without a legal form over with one (the legal form belongs in
//! `legal_name`). Names are never re-cased by the service: only variants agents sent are chosen.

use super::normalize;

/// Mixed case 2, all lowercase 1, all capitals 0 (a name with one letter or none counts as
/// mixed: nothing to judge).
fn case_quality(name: &str) -> u8 {
    let letters: Vec<char> = name.chars().filter(|c| c.is_alphabetic()).collect();
    let cased: Vec<&char> = letters
        .iter()
        .filter(|c| c.is_uppercase() || c.is_lowercase())
        .collect();
    if cased.len() < 2 {
        return 2;
    }
    if cased.iter().all(|c| c.is_uppercase()) {
        0
    } else if cased.iter().all(|c| c.is_lowercase()) {
        1
    } else {
        2
    }
}

fn form(name: &str) -> (u8, bool, bool) {
    (
        case_quality(name),
        !normalize::has_legal_form(name),
        name.trim() == name && !name.contains("  "),
    )
}

/// Whether `incoming` is a better-formed way of writing `existing`.
pub fn better_formed(incoming: &str, existing: &str) -> bool {
    form(incoming) > form(existing)
}

/// Whether `incoming` is a better-formed way of writing the same web address as `existing` (the
/// same website key): `https` over `http`, then without a query or fragment (tracking
/// parameters) over with one. Nothing else counts: `www.`, a trailing slash or letter case stay as
/// the record has them.
pub fn better_formed_url(incoming: &str, existing: &str) -> bool {
    let form = |url: &str| {
        let url = url.trim().to_ascii_lowercase();
        (url.starts_with("https://"), !url.contains(['?', '#']))
    };
    form(incoming) > form(existing)
}

/// Whether `incoming` is a better-formed way of writing the same phone number as `existing` (the
/// same phone key): the international form (`+44 161 …`) over a national one (`0161 …`).
pub fn better_formed_phone(incoming: &str, existing: &str) -> bool {
    let international = |phone: &str| phone.trim_start().starts_with('+');
    international(incoming) && !international(existing)
}

/// A name with surrounding and repeated inner spaces removed.
pub fn tidy(name: &str) -> String {
    name.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proper_case_beats_capitals_and_lowercase() {
        let proper = "Rowbotham & Illingworth Family Butchers";
        assert!(!better_formed(
            "ROWBOTHAM & ILLINGWORTH FAMILY BUTCHERS ",
            proper
        ));
        assert!(better_formed(
            proper,
            "ROWBOTHAM & ILLINGWORTH FAMILY BUTCHERS"
        ));
        assert!(better_formed(
            proper,
            "rowbotham & illingworth family butchers"
        ));
        assert!(better_formed(
            "rowbotham and illingworth",
            "ROWBOTHAM AND ILLINGWORTH"
        ));
    }

    #[test]
    fn https_and_untracked_addresses_and_international_phones_are_better_formed() {
        assert!(better_formed_url(
            "https://acme.example",
            "http://acme.example"
        ));
        assert!(!better_formed_url(
            "http://acme.example",
            "https://acme.example"
        ));
        assert!(better_formed_url(
            "https://acme.example/",
            "https://acme.example/?utm_source=x"
        ));
        assert!(!better_formed_url(
            "https://www.acme.example",
            "https://acme.example"
        ));
        assert!(better_formed_phone("+44 161 496 0440", "0161 496 0440"));
        assert!(!better_formed_phone("0161 496 0440", "+44 161 496 0440"));
        assert!(!better_formed_phone("+441614960440", "+44 161 496 0440"));
    }

    #[test]
    fn without_a_legal_form_beats_with_one_and_spaces_are_tidied() {
        assert!(better_formed(
            "Northern Grind Coffee",
            "Northern Grind Coffee Ltd"
        ));
        assert!(!better_formed(
            "Northern Grind Coffee Ltd",
            "Northern Grind Coffee"
        ));
        assert!(better_formed("Cafe Zoe", " Cafe Zoe "));
        assert_eq!(tidy("  Cafe   Zoe "), "Cafe Zoe");
        assert!(!better_formed("Cafe Zoe", "Cafe Zoe"));
    }
}
