//! The opaque page cursor of `next` and `prev` links: the service's one cursor
//! (`domain::cursor`), a direction and the id a page starts from (ids are UUIDv7, so `id DESC` is
//! a stable newest-first order with no OFFSET), sealed to the items of the collections. Filters
//! are not in it: the links repeat them.

use crate::domain::cursor::{Cursor, Direction};
use crate::services::features::Keyset;

/// What the cursors of these links are sealed to (REST lists use their path).
const LIST: &str = "ogc:/collections/{collectionId}/items";

pub fn encode(keyset: Keyset) -> Option<String> {
    let (direction, id) = match keyset {
        Keyset::First => return None,
        Keyset::After(id) => (Direction::After, id),
        Keyset::Before(id) => (Direction::Before, id),
    };
    Some(Cursor { direction, id }.encode(LIST))
}

pub fn decode(text: &str) -> Option<Keyset> {
    let cursor = Cursor::decode(text, LIST)?;
    Some(match cursor.direction {
        Direction::After => Keyset::After(cursor.id),
        Direction::Before => Keyset::Before(cursor.id),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use uuid::Uuid;

    #[test]
    fn a_cursor_reads_back_as_written_and_nothing_else_reads() {
        let id = Uuid::now_v7();
        for keyset in [Keyset::After(id), Keyset::Before(id)] {
            assert_eq!(decode(&encode(keyset).unwrap()), Some(keyset));
        }
        assert_eq!(encode(Keyset::First), None);
        let rest = Cursor::after(id).encode("/api/v1/entities");
        for bad in ["", "0OIl", "abc", &id.to_string(), &rest] {
            assert_eq!(decode(bad), None, "{bad}");
        }
    }
}
