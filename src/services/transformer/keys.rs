//! Identity keys of an entry: for matching, and as advisory-lock keys that serialise concurrent
//! work on the same real-world identity.

use crate::db::entries::SpaceTimeEntry;
use crate::domain::EntryType;
use crate::transform::matching::IdentityKeys;
use crate::transform::normalize;
use sha2::{Digest, Sha256};

/// Geohash precision 6 is a cell of about 1.2 km × 0.6 km; with its neighbours it covers the
/// distance within which two entries can match on proximity.
const LOCK_CELL_PRECISION: usize = 6;

pub fn entity_keys(
    display_name: Option<&str>,
    website_url: Option<&str>,
    phone: Option<&str>,
    country_code: Option<&str>,
    source_ref: Option<&str>,
) -> IdentityKeys {
    IdentityKeys {
        name_key: display_name
            .map(normalize::name_key)
            .filter(|k| !k.is_empty()),
        website_key: website_url.and_then(normalize::website_key),
        website_host: website_url.and_then(normalize::website_host),
        phone_key: phone.and_then(|p| normalize::phone_key(p, country_code)),
        source_ref_key: source_ref.and_then(normalize::source_ref_key),
        address_key: None,
        city_key: None,
    }
}

fn lock_key(namespace: &str, value: &str) -> i64 {
    let digest = Sha256::digest(format!("{namespace}:{value}").as_bytes());
    i64::from_be_bytes(
        digest[..8]
            .try_into()
            .expect("a SHA-256 digest has 8 bytes"),
    )
}

fn cells(entry: &SpaceTimeEntry) -> Vec<String> {
    let point = geohash::Coord {
        x: entry.longitude,
        y: entry.latitude,
    };
    let Ok(cell) = geohash::encode(point, LOCK_CELL_PRECISION) else {
        return Vec::new();
    };
    let mut all = vec![cell.clone()];
    if let Ok(n) = geohash::neighbors(&cell) {
        all.extend([n.n, n.ne, n.e, n.se, n.s, n.sw, n.w, n.nw]);
    }
    all
}

/// The most locks one entry takes: its cell and the eight around it, its source record, an
/// offer's title.
pub const MAX_LOCKS_PER_ENTRY: usize = 11;

/// Every lock the entries need: sorted and without duplicates.
pub fn lock_keys(entries: &[SpaceTimeEntry]) -> Vec<i64> {
    let mut keys: Vec<i64> = entries.iter().flat_map(entry_lock_keys).collect();
    keys.sort_unstable();
    keys.dedup();
    keys
}

/// The cells around the entry's point (the geohash-6 cell and its neighbours reach beyond
/// `CANDIDATE_RADIUS_M` in every direction), its source record, and an offer's title (offers of
/// one parent match by title at any distance).
pub fn entry_lock_keys(entry: &SpaceTimeEntry) -> Vec<i64> {
    let mut keys = Vec::new();
    let kind = entry.entry_type.as_str();
    for cell in cells(entry) {
        keys.push(lock_key(&format!("cell:{kind}"), &cell));
    }
    if let Some(src) = entry
        .source_ref
        .as_deref()
        .and_then(normalize::source_ref_key)
    {
        keys.push(lock_key(&format!("src:{kind}"), &src));
    }
    match entry.entry_type {
        // An entity matches within the radius the cells cover, through its source_ref, or
        // through one street address written two ways within 25 km, which is not locked
        // (docs/transformer.md: a rare race, left): shared names, websites and phones have no
        // lock of their own, so two workers in different cities never wait on a common name.
        EntryType::Entity | EntryType::Observation => {}
        EntryType::Listing | EntryType::Request => {
            let title = entry
                .context
                .get("title")
                .or(entry.context.get("name"))
                .and_then(|v| v.as_str());
            if let Some(title) = title {
                keys.push(lock_key(
                    &format!("title:{kind}"),
                    &normalize::title_key(title),
                ));
            }
        }
    }
    keys
}
