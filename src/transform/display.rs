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
