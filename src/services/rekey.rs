//! Re-keying. Identity keys (an entity's name, website and phone keys; an offer's title key) are
//! computed when the transformer writes a record, by the normalisation rules of the day
//! (`transform::normalize`). When those rules change, records written before keep their old keys
//! until their next update, and matching compares new entries' keys with them. An operator runs
//! `spacetime-records admin rekey` after such a change: it walks a table in id order, a bounded
//! batch at a time (each batch one read and one guarded write, no long transaction), and rewrites
//! the keys that today's rules compute differently. Source-ref keys are not recomputed: records
//! keep only the key, not the raw reference.
//!
//! Safe beside running workers: a row is rewritten only if its fields are unchanged since they
//! were read and no other transaction holds it (a held row is skipped, never waited for, and the
//! transformer re-keys whatever it writes). Re-keying merges nothing: records that now share a
//! key are found by matching or reported by agents, and merged by operators. A rewritten row's
//! public fields stay as they were, but, as for every write, the database's triggers give it a
//! new `updated_at_tstamp_utc` and announce it to subscribers.

use super::transformer::keys::entity_keys;
use crate::db;
use crate::db::rekey::{EntityKeysRow, TitleKeyRow};
use crate::domain::CanonicalTable;
use crate::error::{AppError, AppResult};
use crate::state::AppState;
use crate::transform::normalize;
use serde::Serialize;
use uuid::Uuid;

/// Most records one batch reads.
pub const MAX_BATCH_SIZE: i64 = 5_000;

/// What one batch did (or, summed, a whole run).
#[derive(Debug, Default, Clone, Serialize)]
pub struct RekeyBatch {
    /// Records read.
    pub scanned: i64,
    /// Records whose keys were rewritten.
    pub rekeyed: i64,
    /// Records whose keys differ but that another transaction held or changed meanwhile (that
    /// transaction writes today's keys if it changed them; run again for the others).
    pub skipped: i64,
    /// Where the next batch starts; `None` once the table is done.
    pub next_after: Option<Uuid>,
}

/// Re-keys the next `batch_size` records of `table` after `after` (from the start when `None`).
#[tracing::instrument(
    name = "rekey::rekey_batch", level = "debug", skip_all,
    fields(table = ?table, after = ?after)
)]
pub async fn rekey_batch(
    state: &AppState,
    table: CanonicalTable,
    after: Option<Uuid>,
    batch_size: i64,
) -> AppResult<RekeyBatch> {
    if !(1..=MAX_BATCH_SIZE).contains(&batch_size) {
        return Err(AppError::invalid(
            &["args", "batch_size"],
            format!("must be 1 to {MAX_BATCH_SIZE}"),
            "range",
        ));
    }
    let (scanned, last, changed, rekeyed) = match table {
        CanonicalTable::Entities => {
            let page = db::rekey::entity_page(&state.pool, after, batch_size).await?;
            let last = page.last().map(|r| r.id);
            let scanned = page.len();
            let changed: Vec<EntityKeysRow> = page.into_iter().filter_map(entity_rekeyed).collect();
            let rekeyed = db::rekey::set_entity_keys(&state.pool, &changed).await?;
            (scanned, last, changed.len(), rekeyed)
        }
        CanonicalTable::Listings | CanonicalTable::Requests => {
            let page = db::rekey::title_page(&state.pool, table, after, batch_size).await?;
            let last = page.last().map(|r| r.id);
            let scanned = page.len();
            let changed: Vec<TitleKeyRow> = page.into_iter().filter_map(title_rekeyed).collect();
            let rekeyed = db::rekey::set_title_keys(&state.pool, table, &changed).await?;
            (scanned, last, changed.len(), rekeyed)
        }
    };
    Ok(RekeyBatch {
        scanned: scanned as i64,
        rekeyed: rekeyed as i64,
        skipped: changed as i64 - rekeyed as i64,
        next_after: last.filter(|_| scanned as i64 == batch_size),
    })
}

/// The row with today's keys, when they differ from its stored ones (as the transformer computes
/// them when it writes an entity: an empty name key is stored as the empty string).
fn entity_rekeyed(row: EntityKeysRow) -> Option<EntityKeysRow> {
    let keys = entity_keys(
        Some(&row.display_name),
        row.website_url.as_deref(),
        row.phone.as_deref(),
        row.country_code.as_deref(),
        None,
    );
    let name_key = Some(keys.name_key.unwrap_or_default());
    (name_key != row.name_key
        || keys.website_key != row.website_key
        || keys.phone_key != row.phone_key)
        .then_some(EntityKeysRow {
            name_key,
            website_key: keys.website_key,
            phone_key: keys.phone_key,
            ..row
        })
}

fn title_rekeyed(row: TitleKeyRow) -> Option<TitleKeyRow> {
    let title_key = Some(normalize::title_key(&row.title));
    (title_key != row.title_key).then_some(TitleKeyRow { title_key, ..row })
}
