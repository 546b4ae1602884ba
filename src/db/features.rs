//! Canonical records as OGC API features: a page of one kind's current records, optionally inside
//! an area and last changed within a time range, keyset-paged on id in either direction; and the
//! extent (space and time) of those records. The records shown are those an area shows
//! (`within::HIDDEN_STATUSES` left out): a GIS layer shows what is current, and a merged record
//! is a redirect to its survivor.

use super::canonical::{CanonicalRow, table_name};
use super::within::HIDDEN_STATUSES;
use crate::domain::CanonicalTable;
use chrono::{DateTime, Utc};
use geo_types::Geometry;
use geozero::wkb;
use sqlx::FromRow;
use uuid::Uuid;

/// Which records of a kind a page is taken from.
#[derive(Debug, Clone, Default)]
pub struct FeatureFilter {
    /// Longitude/latitude, SRID 4326.
    pub area: Option<Geometry<f64>>,
    /// Inclusive bounds on `updated_at_tstamp_utc`; `None` leaves that end open.
    pub changed_from: Option<DateTime<Utc>>,
    pub changed_to: Option<DateTime<Utc>>,
}

/// Where a page starts, in the newest-first order (`id DESC`, ids being UUIDv7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keyset {
    First,
    /// The page after this id (older records).
    After(Uuid),
    /// The page before this id (newer records), read ascending and reversed by the caller.
    Before(Uuid),
}

/// $1 the area or NULL, $2 and $3 the time bounds or NULL, $4 the keyset id or NULL, $5 the limit.
/// The NULL tests fold away in the per-call plans of the search pool, so an area still uses the
/// `location::geometry` GiST index.
fn statement(table: CanonicalTable, columns: &str, keyset: Keyset) -> String {
    let (key, order) = match keyset {
        Keyset::Before(_) => ("id > $4", "ASC"),
        Keyset::First | Keyset::After(_) => ("id < $4", "DESC"),
    };
    format!(
        "SELECT {columns} FROM {table}
         WHERE status NOT IN ({HIDDEN_STATUSES})
           AND ($1::geometry IS NULL
                OR ST_Intersects(location::geometry, ST_MakeValid(ST_SetSRID($1::geometry, 4326))))
           AND ($2::timestamptz IS NULL OR updated_at_tstamp_utc >= $2)
           AND ($3::timestamptz IS NULL OR updated_at_tstamp_utc <= $3)
           AND ($4::uuid IS NULL OR {key})
         ORDER BY id {order}
         LIMIT $5",
        table = table_name(table)
    )
}

/// Up to `limit` rows in the keyset's direction of travel (ascending ids for `Before`).
/// Up to `limit` records of kind `R` in the keyset's direction of travel.
pub async fn page<'c, R: CanonicalRow>(
    pool: impl super::Reads<'c>,
    filter: &FeatureFilter,
    keyset: Keyset,
    limit: i64,
) -> sqlx::Result<Vec<R>> {
    let key = match keyset {
        Keyset::First => None,
        Keyset::After(id) | Keyset::Before(id) => Some(id),
    };
    sqlx::query_as(&statement(R::TABLE, R::COLUMNS, keyset))
        .bind(filter.area.clone().map(wkb::Encode))
        .bind(filter.changed_from)
        .bind(filter.changed_to)
        .bind(key)
        .bind(limit)
        .fetch_all(pool)
        .await
}

/// The box around a kind's current records and the span of their last changes; all `None` when
/// it has none.
#[derive(Debug, Clone, FromRow)]
pub struct Extent {
    pub west: Option<f64>,
    pub south: Option<f64>,
    pub east: Option<f64>,
    pub north: Option<f64>,
    pub first_change: Option<DateTime<Utc>>,
    pub last_change: Option<DateTime<Utc>>,
}

/// One scan of the kind's table (ST_Extent has no index path); cheap at the sizes served here,
/// and asked only by `/collections` clients, which ask once per session.
pub async fn extent<'c>(
    pool: impl super::Reads<'c>,
    table: CanonicalTable,
) -> sqlx::Result<Extent> {
    sqlx::query_as(&format!(
        "SELECT ST_XMin(b) AS west, ST_YMin(b) AS south, ST_XMax(b) AS east, ST_YMax(b) AS north,
                first_change, last_change
         FROM (SELECT ST_Extent(location::geometry) AS b,
                      min(updated_at_tstamp_utc) AS first_change,
                      max(updated_at_tstamp_utc) AS last_change
               FROM {table} WHERE status NOT IN ({HIDDEN_STATUSES})) AS e",
        table = table_name(table)
    ))
    .fetch_one(pool)
    .await
}
