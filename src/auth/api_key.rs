//! API keys: `str_` + base58(32 random bytes + CRC-32 of those bytes). The checksum lets a malformed
//! or mistyped key be refused before any database lookup. Only SHA-256(raw key) is stored.

use rand::RngCore;
use sha2::{Digest, Sha256};

pub const KEY_PREFIX: &str = "str_";
const SECRET_BYTES: usize = 32;
/// Characters of the raw key kept for display (`key_prefix`): enough to tell keys apart.
const DISPLAY_PREFIX_CHARS: usize = 12;

pub struct GeneratedKey {
    pub raw: String,
    pub hash: [u8; 32],
    pub display_prefix: String,
}

pub fn generate() -> GeneratedKey {
    let mut payload = [0u8; SECRET_BYTES + 4];
    rand::rng().fill_bytes(&mut payload[..SECRET_BYTES]);
    let checksum = crc32fast::hash(&payload[..SECRET_BYTES]);
    payload[SECRET_BYTES..].copy_from_slice(&checksum.to_be_bytes());
    let raw = format!("{KEY_PREFIX}{}", bs58::encode(payload).into_string());
    GeneratedKey {
        hash: hash(&raw),
        display_prefix: raw[..DISPLAY_PREFIX_CHARS].to_string(),
        raw,
    }
}

pub fn hash(raw: &str) -> [u8; 32] {
    Sha256::digest(raw.as_bytes()).into()
}

/// True when `raw` has the shape and checksum of a key this service issued.
pub fn is_well_formed(raw: &str) -> bool {
    let Some(body) = raw.strip_prefix(KEY_PREFIX) else {
        return false;
    };
    let Ok(bytes) = bs58::decode(body).into_vec() else {
        return false;
    };
    if bytes.len() != SECRET_BYTES + 4 {
        return false;
    }
    let expected = crc32fast::hash(&bytes[..SECRET_BYTES]).to_be_bytes();
    bytes[SECRET_BYTES..] == expected
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_keys_are_well_formed_and_distinct() {
        let a = generate();
        let b = generate();
        assert!(is_well_formed(&a.raw));
        assert_ne!(a.raw, b.raw);
        assert!(a.raw.starts_with("str_"));
        assert_eq!(a.display_prefix.len(), 12);
        assert_eq!(hash(&a.raw), a.hash);
    }

    #[test]
    fn a_single_changed_character_fails_the_checksum() {
        let key = generate().raw;
        let mut chars: Vec<char> = key.chars().collect();
        let i = chars.len() - 3;
        chars[i] = if chars[i] == 'a' { 'b' } else { 'a' };
        let tampered: String = chars.into_iter().collect();
        assert!(!is_well_formed(&tampered));
        assert!(!is_well_formed("str_"));
        assert!(!is_well_formed("Bearer nonsense"));
    }
}
