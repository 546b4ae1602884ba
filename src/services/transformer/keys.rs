//! Identity keys of an entry: for matching, and as advisory-lock keys that serialise concurrent
//! work on the same real-world identity.

use crate::db::entries::SpaceTimeEntry;
use crate::domain::EntryType;
use crate::transform::matching::IdentityKeys;
use crate::transform::{address, extract, normalize};
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

/// The most locks one entry takes: its cell and the eight around it, its source record, and an
/// entity's three keys at its house number (`address_lock_keys`) or an offer's title.
pub const MAX_LOCKS_PER_ENTRY: usize = 13;

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
        // through one street address within 25 km: shared names, websites and phones have no
        // lock of their own, so two workers in different cities never wait on a common name.
        EntryType::Entity => address_lock_keys(entry, &mut keys),
        // An observation carries no street address: no match beyond the cells but its source.
        EntryType::Observation => {}
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

/// One street address written two ways makes two records one place up to 25 km apart
/// (`matching::SAME_ADDRESS_TEXT_RADIUS_M`), beyond the cells. Such a match needs the two
/// addresses' house numbers to be equal (or both absent) and the record to be found by the key
/// search: a shared name, website or phone. So each of the entry's keys at its house number is
/// a lock: two such sightings processed at once wait for one another (an unrelated entry that
/// shares a lock is only deferred). The phone is locked by the last 7 digits as written, which
/// two spellings of one number share, so that no number is parsed twice.
fn address_lock_keys(entry: &SpaceTimeEntry, keys: &mut Vec<i64>) {
    let Ok(draft) = extract::entity_draft(&entry.context) else {
        return;
    };
    let Some(address) = draft
        .common
        .address_text
        .as_deref()
        .and_then(address::address_key)
    else {
        return;
    };
    let at = format!(
        "{}:{}",
        entry.entry_type.as_str(),
        address.number.as_deref().unwrap_or("-")
    );
    let name = normalize::name_key(&draft.display_name);
    if !name.is_empty() {
        keys.push(lock_key(&format!("address-name:{at}"), &name));
    }
    if let Some(website) = draft
        .website_url
        .as_deref()
        .and_then(normalize::website_key)
    {
        keys.push(lock_key(&format!("address-website:{at}"), &website));
    }
    if let Some(digits) = draft.phone.as_deref().and_then(last_digits) {
        keys.push(lock_key(&format!("address-phone:{at}"), &digits));
    }
}

/// The last 7 digits of a phone number as written, if it has that many.
fn last_digits(phone: &str) -> Option<String> {
    let digits: Vec<char> = phone.chars().filter(char::is_ascii_digit).collect();
    (digits.len() >= 7).then(|| digits[digits.len() - 7..].iter().collect())
}

#[cfg(test)]
mod tests {
    use super::{MAX_LOCKS_PER_ENTRY, entry_lock_keys, last_digits};
    use crate::db::entries::SpaceTimeEntry;
    use crate::domain::{EntryIntent, EntryStatus, EntryType};
    use serde_json::json;

    /// An entry carrying every field a lock is taken for.
    fn with_everything(entry_type: EntryType) -> SpaceTimeEntry {
        let now = chrono::Utc::now();
        SpaceTimeEntry {
            id: uuid::Uuid::new_v4(),
            agent_id: uuid::Uuid::new_v4(),
            entry_type,
            entry_subtype: None,
            entry_intent: EntryIntent::Observe,
            status: EntryStatus::Pending,
            latitude: 53.4808,
            longitude: -2.2426,
            observed_at_tstamp_utc: None,
            source_type: Some("web".into()),
            source_ref: Some("https://example.org/places/1".into()),
            target_canonical_table: None,
            target_canonical_id: None,
            geohash: None,
            location_text: None,
            valid_from_tstamp_utc: None,
            valid_to_tstamp_utc: None,
            idempotency_key: None,
            context: json!({
                "display_name": "Martin Cafe",
                "title": "Martin Cafe lunch",
                "website_url": "https://martin-cafe.example",
                "phone": "+44 161 496 0000",
                "address_text": "12 High Street, Manchester M1 1AA",
                "city": "Manchester",
            }),
            score_confidence: rust_decimal::Decimal::ONE,
            attachments: Vec::new(),
            canonical_table: None,
            canonical_id: None,
            link_type: None,
            processing_reason: None,
            processing_error: None,
            transformer_run_id: None,
            processed_at_tstamp_utc: None,
            created_at_tstamp_utc: now,
            updated_at_tstamp_utc: now,
        }
    }

    /// The lock-table sizes in the docs and the start-up warning are worked out from
    /// `MAX_LOCKS_PER_ENTRY`: a new lock kind must raise it, or batches could fail with "out of
    /// shared memory" where the docs promised room.
    #[test]
    fn no_entry_takes_more_locks_than_the_bound_and_a_full_entity_takes_all() {
        for entry_type in [
            EntryType::Entity,
            EntryType::Observation,
            EntryType::Listing,
            EntryType::Request,
        ] {
            let locks = entry_lock_keys(&with_everything(entry_type)).len();
            assert!(
                locks <= MAX_LOCKS_PER_ENTRY,
                "{entry_type:?} takes {locks} locks"
            );
        }
        assert_eq!(
            entry_lock_keys(&with_everything(EntryType::Entity)).len(),
            MAX_LOCKS_PER_ENTRY,
            "the bound is the locks of an entity with a source, a name, a website, a phone and an address"
        );
    }

    #[test]
    fn two_spellings_of_one_number_end_in_the_same_digits() {
        let written = [
            "+44 161 496 0000",
            "0161 496 0000",
            "(0161) 4960000",
            "+441614960000",
        ];
        for phone in written {
            assert_eq!(last_digits(phone).as_deref(), Some("4960000"), "{phone}");
        }
        assert_eq!(last_digits("496 000"), None);
        assert_eq!(last_digits("no number"), None);
    }
}
