//! The one opaque page cursor of the service: where the next (or previous) page of a keyset-paged
//! list starts. REST's lists (`after`, with `Link: rel="next"` and `X-Next-Cursor`) and OGC API
//! Features' `next`/`prev` links write and read it here.
//!
//! Every list it serves is ordered newest first by id, and ids are UUIDv7 (time-ordered), so the
//! id is the whole sort key: the cursor holds a direction (rows after, i.e. older than, or before
//! the row) and that id. A list ordered by another key would add its bytes under a new version.
//!
//! It is opaque (Base58 of a small versioned structure, URL-safe without escaping) and sealed to
//! its list: the last bytes are a SHA-256 tag over the list's name and the rest, so a cursor
//! edited by hand, cut short or taken from another list does not decode (the caller answers 422
//! or 400) instead of silently starting somewhere else. The tag is a checksum, not a secret:
//! a forged cursor could only name a position the caller may page to anyway. Filters are not in
//! it: the links that carry it repeat them.

use sha2::{Digest, Sha256};
use uuid::Uuid;

const VERSION: u8 = 1;
const AFTER: u8 = b'a';
const BEFORE: u8 = b'b';
const TAG_BYTES: usize = 4;
/// Version, direction, id, tag.
const CURSOR_BYTES: usize = 2 + 16 + TAG_BYTES;
/// Longer text cannot be a cursor; refused before decoding.
const MAX_TEXT: usize = 64;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// The rows after this one in the list's order (older).
    After,
    /// The rows before this one (newer): a `prev` link.
    Before,
}

/// A position in a list ordered by id, newest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cursor {
    pub direction: Direction,
    pub id: Uuid,
}

impl Cursor {
    /// The page that follows the row `id`.
    pub fn after(id: Uuid) -> Cursor {
        Cursor {
            direction: Direction::After,
            id,
        }
    }

    /// The cursor's text, valid for `list` only.
    pub fn encode(self, list: &str) -> String {
        let direction = match self.direction {
            Direction::After => AFTER,
            Direction::Before => BEFORE,
        };
        let mut bytes = Vec::with_capacity(CURSOR_BYTES);
        bytes.extend_from_slice(&[VERSION, direction]);
        bytes.extend_from_slice(self.id.as_bytes());
        let tag = tag(list, &bytes);
        bytes.extend_from_slice(&tag);
        bs58::encode(bytes).into_string()
    }

    /// The cursor `text` names, when it is one that `encode` wrote for `list`.
    pub fn decode(text: &str, list: &str) -> Option<Cursor> {
        if text.len() > MAX_TEXT {
            return None;
        }
        let bytes = bs58::decode(text).into_vec().ok()?;
        if bytes.len() != CURSOR_BYTES {
            return None;
        }
        let (body, given_tag) = bytes.split_at(CURSOR_BYTES - TAG_BYTES);
        if given_tag != tag(list, body) || body[0] != VERSION {
            return None;
        }
        let direction = match body[1] {
            AFTER => Direction::After,
            BEFORE => Direction::Before,
            _ => return None,
        };
        let id = Uuid::from_slice(&body[2..]).ok()?;
        Some(Cursor { direction, id })
    }
}

fn tag(list: &str, body: &[u8]) -> [u8; TAG_BYTES] {
    let digest = Sha256::new()
        .chain_update(b"strs-cursor\0")
        .chain_update(list.as_bytes())
        .chain_update(b"\0")
        .chain_update(body)
        .finalize();
    let mut tag = [0; TAG_BYTES];
    tag.copy_from_slice(&digest[..TAG_BYTES]);
    tag
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIST: &str = "/api/v1/entities";

    #[test]
    fn a_cursor_reads_back_as_written_for_its_own_list_only() {
        let id = Uuid::now_v7();
        for cursor in [
            Cursor::after(id),
            Cursor {
                direction: Direction::Before,
                id,
            },
        ] {
            let text = cursor.encode(LIST);
            assert_eq!(Cursor::decode(&text, LIST), Some(cursor));
            assert_eq!(Cursor::decode(&text, "/api/v1/listings"), None);
        }
    }

    #[test]
    fn an_edited_cut_or_foreign_text_is_no_cursor() {
        let id = Uuid::now_v7();
        let text = Cursor::after(id).encode(LIST);
        // Every one-character edit breaks the tag (or the Base58).
        for (i, c) in text.char_indices() {
            let other = if c == '2' { '3' } else { '2' };
            let mut edited = text.clone();
            edited.replace_range(i..=i, &other.to_string());
            assert_eq!(Cursor::decode(&edited, LIST), None, "{edited}");
        }
        let long = "1".repeat(MAX_TEXT + 1);
        for bad in ["", "0OIl", "abc", &id.to_string(), &text[1..], &long] {
            assert_eq!(Cursor::decode(bad, LIST), None, "{bad}");
        }
    }
}
