//! Agent handles: `^[a-z][a-z0-9_]{2,31}$`. A handle is generated from the display name when the
//! registration does not supply one, with a random suffix so two "Acme Scraper"s never collide.

use rand::Rng;

pub fn is_valid_handle(handle: &str) -> bool {
    let bytes = handle.as_bytes();
    (3..=32).contains(&bytes.len())
        && bytes[0].is_ascii_lowercase()
        && bytes
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'_')
}

pub fn generate_handle(display_name: &str) -> String {
    let mut base: String = display_name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    while base.contains("__") {
        base = base.replace("__", "_");
    }
    let mut base = base.trim_matches('_').to_string();
    if !base.starts_with(|c: char| c.is_ascii_lowercase()) {
        base.insert_str(0, "agent_");
    }
    base.truncate(24);
    let base = base.trim_end_matches('_');
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    let mut rng = rand::rng();
    let suffix: String = (0..6)
        .map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())] as char)
        .collect();
    format!("{base}_{suffix}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_handles_are_always_valid() {
        for name in [
            "Acme Scraper",
            "42 Things",
            "",
            "Ünïcødé Ltd",
            "a",
            "x".repeat(80).as_str(),
        ] {
            let h = generate_handle(name);
            assert!(is_valid_handle(&h), "{name:?} -> {h}");
        }
    }

    #[test]
    fn handle_pattern_matches_the_spec() {
        assert!(is_valid_handle("abc"));
        assert!(is_valid_handle("a_123456789012345678901234567890"));
        assert!(!is_valid_handle("ab"));
        assert!(!is_valid_handle("1abc"));
        assert!(!is_valid_handle("Abc"));
        assert!(!is_valid_handle("a-bc"));
        assert!(!is_valid_handle(&"a".repeat(33)));
    }
}
