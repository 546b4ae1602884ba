//! The opaque page cursor of `next` and `prev` links: a direction and the id a page starts from
//! (ids are UUIDv7, so `id DESC` is a stable newest-first order with no OFFSET), in Base58 so
//! that it travels in a URL unescaped. Filters are not in it: the links repeat them.

use crate::services::features::Keyset;
use uuid::Uuid;

const AFTER: u8 = b'a';
const BEFORE: u8 = b'b';

pub fn encode(keyset: Keyset) -> Option<String> {
    let (direction, id) = match keyset {
        Keyset::First => return None,
        Keyset::After(id) => (AFTER, id),
        Keyset::Before(id) => (BEFORE, id),
    };
    let mut bytes = vec![direction];
    bytes.extend_from_slice(id.as_bytes());
    Some(bs58::encode(bytes).into_string())
}

pub fn decode(text: &str) -> Option<Keyset> {
    let bytes = bs58::decode(text).into_vec().ok()?;
    let (&direction, id) = bytes.split_first()?;
    let id = Uuid::from_slice(id).ok()?;
    match direction {
        AFTER => Some(Keyset::After(id)),
        BEFORE => Some(Keyset::Before(id)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cursor_reads_back_as_written_and_nothing_else_reads() {
        let id = Uuid::now_v7();
        for keyset in [Keyset::After(id), Keyset::Before(id)] {
            assert_eq!(decode(&encode(keyset).unwrap()), Some(keyset));
        }
        assert_eq!(encode(Keyset::First), None);
        for bad in ["", "0OIl", "abc", &id.to_string()] {
            assert_eq!(decode(bad), None, "{bad}");
        }
    }
}
