//! Jaro-Winkler similarity above a threshold, without computing it for pairs that cannot reach it.
//!
//! Matching compares an entry's name with every candidate's, and most candidates (the records
//! nearby) have unrelated names. `strsim::jaro_winkler` walks both names character by character
//! for each pair and allocates its match flags; in processing it was the largest single cost of
//! the server (about a tenth of its CPU, with the allocations). A bound computed from the
//! characters the two names share settles most pairs first, and only the others pay for Jaro.

/// `strsim::jaro_winkler(a, b)` when it is at least `threshold`, else `None`; the same value
/// strsim computes, the bound only decides when to ask it.
pub fn jaro_winkler_at_least(a: &str, b: &str, threshold: f64) -> Option<f64> {
    if jaro_winkler_at_most(a, b) < threshold {
        return None;
    }
    let similarity = strsim::jaro_winkler(a, b);
    (similarity >= threshold).then_some(similarity)
}

/// An upper bound of `strsim::jaro_winkler(a, b)`. Jaro is the mean of m/|a|, m/|b| and
/// (m - t/2)/m, where the m matches are characters both names have (so at most their shared
/// characters, counted with repeats) and the last term is at most 1; Winkler's boost
/// (above 0.7, by 0.1 per shared leading character, at most 4) grows with Jaro, so the bound
/// boosted by the actual shared prefix bounds it. Names with a character outside ASCII get no
/// bound (1.0): their shared characters are not counted here.
fn jaro_winkler_at_most(a: &str, b: &str) -> f64 {
    if !a.is_ascii() || !b.is_ascii() || a.is_empty() || b.is_empty() {
        return 1.0;
    }
    let mut counts = [0_i32; 128];
    for byte in a.bytes() {
        counts[usize::from(byte)] += 1;
    }
    let mut shared = 0_usize;
    for byte in b.bytes() {
        let count = &mut counts[usize::from(byte)];
        if *count > 0 {
            *count -= 1;
            shared += 1;
        }
    }
    if shared == 0 {
        return 0.0;
    }
    let matches = shared as f64;
    let jaro = (matches / a.len() as f64 + matches / b.len() as f64 + 1.0) / 3.0;
    if jaro <= 0.7 {
        return jaro;
    }
    let prefix = a
        .bytes()
        .zip(b.bytes())
        .take(4)
        .take_while(|(x, y)| x == y)
        .count();
    // A hair above the exact figure, so rounding can never prune a pair strsim would accept.
    jaro + 0.1 * prefix as f64 * (1.0 - jaro) + 1e-9
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bound_is_never_below_strsim() {
        let names = [
            "byrne florist ltd",
            "byrne florists",
            "martinez cabinet darchitecture",
            "martinez cabinet d architecture",
            "cafe",
            "cafe nero",
            "caffe nero",
            "unit 7 cafe",
            "unit 8 cafe",
            "aaaa",
            "a",
            "abcdefgh",
            "hgfedcba",
            "dixon",
            "dicksonx",
            "martha",
            "marhta",
            "jellyfish",
            "smellyfish",
            "agence de voyages roussel sas",
            "agence de voyages rousel",
            "zz",
            "müller bäckerei",
            "muller backerei",
        ];
        for a in names {
            for b in names {
                let exact = strsim::jaro_winkler(a, b);
                assert!(
                    jaro_winkler_at_most(a, b) >= exact,
                    "{a:?} / {b:?}: bound {} below {exact}",
                    jaro_winkler_at_most(a, b)
                );
                for threshold in [0.5, 0.8, 0.92] {
                    let expected = (exact >= threshold).then_some(exact);
                    assert_eq!(
                        jaro_winkler_at_least(a, b, threshold),
                        expected,
                        "{a:?} / {b:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_bound_holds_on_generated_pairs() {
        // Every pair of short words over a small alphabet: many repeats, transpositions and
        // shared prefixes, where a wrong bound would show.
        let alphabet = ['a', 'b', 'c', ' '];
        let mut words: Vec<String> = vec![String::new()];
        let mut last = words.clone();
        for _ in 0..5 {
            last = last
                .iter()
                .flat_map(|w| alphabet.iter().map(move |c| format!("{w}{c}")))
                .collect();
            words.extend(last.iter().cloned());
        }
        for a in &words {
            for b in words.iter().step_by(7) {
                assert!(
                    jaro_winkler_at_most(a, b) >= strsim::jaro_winkler(a, b),
                    "{a:?} / {b:?}"
                );
            }
        }
    }

    #[test]
    fn unrelated_names_are_settled_by_the_bound() {
        assert!(jaro_winkler_at_most("byrne florist ltd", "martinez cabinet darchitecture") < 0.92);
        assert!(jaro_winkler_at_most("cafe", "cafe nero") < 0.92);
    }
}
