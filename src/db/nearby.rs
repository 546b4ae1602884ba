//! Canonical records nearest a point, within a radius, nearest first, keyset-paged on
//! (distance, id): the search service's spatial predicate (sphere distance within the radius)
//! without its text part.
//!
//! Read nearest first through the `geography` GiST index's KNN order (`<->`, the sphere distance),
//! so a page reads about its own rows and the rows of the pages before it, not every record of
//! the circle (at 10M records a 1 km circle in a city centre held thousands, read and sorted for
//! each page of 20). PostgreSQL 15 orders an index scan by `<->` alone, not by (distance, id),
//! so a page is read twice: the `limit` nearest after the cursor give the distance of the
//! farthest of them, and every row within that distance (ties included) is sorted on
//! (distance, id).

use super::canonical::{CanonicalRow, table_name};
use crate::domain::CanonicalTable;
pub use crate::records::canonical::Near;
use uuid::Uuid;

pub struct NearQuery {
    pub latitude: f64,
    pub longitude: f64,
    pub radius_m: f64,
    /// The last (distance, id) of the previous page.
    pub after: Option<(f64, Uuid)>,
    pub limit: i64,
}

/// Added to the page's farthest distance for the index's circle when its rows are read again
/// (`ST_DWithin` and `<->` may round one distance apart in the last bits, nanometres); the rows
/// kept are those within that distance by `<->` itself.
const TIE_MARGIN_M: f64 = 0.001;

/// The statement `records` runs (benches run it in pgbench): $1 latitude, $2 longitude, $3 radius
/// in metres, $4/$5 the previous page's last distance and id (or NULL), $6 the row limit.
pub fn statement(table: CanonicalTable, columns: &str) -> String {
    let origin = "ST_SetSRID(ST_MakePoint($2, $1), 4326)::geography";
    let shown_after_cursor = format!(
        "status NOT IN ('archived', 'withdrawn', 'merged')
         AND ($4::float8 IS NULL OR (location <-> {origin}, id) > ($4, $5))"
    );
    format!(
        "WITH farthest AS MATERIALIZED (
            SELECT max(distance_m) AS distance_m FROM (
                SELECT location <-> {origin} AS distance_m
                FROM {table}
                WHERE ST_DWithin(location, {origin}, $3, false) AND {shown_after_cursor}
                ORDER BY location <-> {origin}
                LIMIT $6) nearest)
         SELECT {columns}, location <-> {origin} AS distance_m
         FROM {table}
         WHERE ST_DWithin(location, {origin}, (SELECT distance_m FROM farthest) + {TIE_MARGIN_M}, false)
           AND location <-> {origin} <= (SELECT distance_m FROM farthest)
           AND {shown_after_cursor}
         ORDER BY distance_m, id
         LIMIT $6",
        table = table_name(table)
    )
}

/// Records of kind `R` near the point, nearest first.
pub async fn records<'c, R: CanonicalRow>(
    pool: impl super::Reads<'c>,
    query: &NearQuery,
) -> sqlx::Result<Vec<Near<R>>> {
    let (after_distance, after_id) = query.after.unzip();
    sqlx::query_as(&statement(R::TABLE, R::COLUMNS))
        .bind(query.latitude)
        .bind(query.longitude)
        .bind(query.radius_m)
        .bind(after_distance)
        .bind(after_id)
        .bind(query.limit)
        .fetch_all(pool)
        .await
}
