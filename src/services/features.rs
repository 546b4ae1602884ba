//! Canonical records for GIS clients (the OGC API Features adapter, `ogc/`): pages of one kind's
//! current records filtered by a box and by when they last changed, paged both ways on an opaque
//! keyset, and each kind's extent. Reads by id are `services::canonical`'s, as REST's are.

use crate::db;
use crate::db::features::FeatureFilter;
pub use crate::db::features::{Extent, Keyset};
use crate::domain::{CanonicalTable, Violations, area};
use crate::error::AppResult;
use crate::services::canonical::CanonicalRow;
use crate::services::read_route;
use crate::state::AppState;
use chrono::{DateTime, Utc};

/// The most records one page holds; a larger `limit` is lowered to it (OGC API Features lets a
/// server cap the page size rather than refuse).
pub const MAX_LIMIT: i64 = 1000;
/// The page size when none is asked for.
pub const DEFAULT_LIMIT: i64 = 100;

/// An inclusive range of `updated_at_tstamp_utc`; a `None` end is open.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TimeRange {
    pub from: Option<DateTime<Utc>>,
    pub to: Option<DateTime<Utc>>,
}

pub struct FeatureQuery<'a> {
    /// `west,south,east,north` in degrees (west greater than east crosses the antimeridian).
    pub bbox: Option<&'a str>,
    pub changed: TimeRange,
    /// 1 to `MAX_LIMIT` (the adapter clamps).
    pub limit: i64,
    pub keyset: Keyset,
    /// Where the parameters live, for violations: `["query"]`.
    pub root: &'a [&'a str],
}

/// Records newest first, whichever way the page was read.
#[derive(Debug, Clone)]
pub struct FeaturePage<T> {
    pub items: Vec<T>,
    /// More records lie beyond this page in the direction it was read.
    pub more: bool,
}

fn filter(query: &FeatureQuery<'_>) -> AppResult<FeatureFilter> {
    let mut v = Violations::at(query.root);
    let area = query
        .bbox
        .and_then(|text| area::bounding_box_text(&mut v, "bbox", text));
    if let TimeRange {
        from: Some(from),
        to: Some(to),
    } = query.changed
        && from > to
    {
        v.push(
            "datetime",
            "the interval ends before it starts",
            "value_error",
        );
    }
    v.check(
        (1..=MAX_LIMIT).contains(&query.limit),
        "limit",
        "must be at least 1",
        "range",
    );
    v.into_result()?;
    Ok(FeatureFilter {
        area,
        changed_from: query.changed.from,
        changed_to: query.changed.to,
    })
}

/// One page of records of kind `K`, in the keyset's order.
pub async fn records<K: CanonicalRow>(
    state: &AppState,
    query: &FeatureQuery<'_>,
) -> AppResult<FeaturePage<K>> {
    let filter = filter(query)?;
    let mut items: Vec<K> = db::features::page(
        read_route::search_reads(state),
        &filter,
        query.keyset,
        query.limit + 1,
    )
    .await?;
    let more = items.len() as i64 > query.limit;
    items.truncate(query.limit as usize);
    if let Keyset::Before(_) = query.keyset {
        items.reverse();
    }
    Ok(FeaturePage { items, more })
}

/// Where a kind's current records are and when they last changed.
pub async fn extent(state: &AppState, table: CanonicalTable) -> AppResult<Extent> {
    Ok(db::features::extent(read_route::reads(state), table).await?)
}
