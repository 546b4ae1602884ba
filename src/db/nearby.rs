//! Canonical records nearest a point, within a radius, nearest first, keyset-paged on
//! (distance, id): the search service's spatial predicate (the circle's box of longitudes and
//! latitudes, `geo::circle_box`, over the GiST index on `location::geometry`, then the sphere
//! distance) without its text part.
//!
//! A page is read in two statements so that it costs about its own rows, not every record of the
//! circle (at 10M records a 1 km circle in a city centre held 10,000, read and sorted for each
//! page of 20):
//! 1. `farthest`: the `limit` records after the cursor nearest in longitude/latitude degrees
//!    (the geometry index's KNN order, `<->`): the sphere distance of the farthest of them
//!    bounds the page, since any `limit` records after the cursor are at least as far as the
//!    page's last one;
//! 2. `statement`: every record within that distance (ties included), through the box of that
//!    smaller circle, sorted on (distance, id).
//!
//! Why not one KNN read on the sphere: PostgreSQL 15 orders an index scan by `<->` alone, never
//! by (distance, id), and the `geography` GiST index's KNN walked 575 pages for 21 records at 10M
//! (15 ms), the `geometry` index's 59 (1 ms).

use super::canonical::{CanonicalRow, table_name};
use crate::domain::CanonicalTable;
use crate::domain::geo::circle_box;
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

/// The sphere distance of a record from the origin ($1 latitude, $2 longitude): the same
/// expression in both statements, so the bound of the first holds exactly in the second.
const DISTANCE: &str =
    "ST_Distance(location, ST_SetSRID(ST_MakePoint($2, $1), 4326)::geography, false)";

/// Rows a map shows, after the cursor ($3/$4 the previous page's last distance and id, or NULL).
fn shown_after_cursor() -> String {
    format!(
        "status NOT IN ('archived', 'withdrawn', 'merged')
         AND ($3::float8 IS NULL OR ({DISTANCE}, id) > ($3, $4))"
    )
}

/// The first statement: $1 latitude, $2 longitude, $3/$4 the cursor, $5 the row limit; the
/// sphere distance of the farthest of the `limit` records after the cursor nearest in degrees,
/// NULL when there is none.
pub fn farthest_statement(table: CanonicalTable) -> String {
    format!(
        "SELECT max({DISTANCE}) FROM (
             SELECT location FROM {table}
             WHERE {shown}
             ORDER BY location::geometry <-> ST_SetSRID(ST_MakePoint($2, $1), 4326)
             LIMIT $5) nearest",
        table = table_name(table),
        shown = shown_after_cursor(),
    )
}

/// The second statement (benches run both in pgbench): $1 latitude, $2 longitude, $3/$4 the
/// cursor, $5 the row limit, $6 the radius in metres (the page's bound when it is smaller),
/// $7-$10 the circle's box (west, south, east, north: `box_params`).
pub fn statement(table: CanonicalTable, columns: &str) -> String {
    format!(
        "SELECT * FROM (
             SELECT {columns}, {DISTANCE} AS distance_m
             FROM {table}
             WHERE location::geometry && ST_MakeEnvelope($7, $8, $9, $10, 4326) AND {shown}) found
         WHERE distance_m <= $6
         ORDER BY distance_m, id
         LIMIT $5",
        table = table_name(table),
        shown = shown_after_cursor(),
    )
}

/// The box parameters ($7-$10) of `statement` for a circle.
pub fn box_params(latitude: f64, longitude: f64, radius_m: f64) -> [f64; 4] {
    let (west, south, east, north) = circle_box(latitude, longitude, radius_m);
    [west, south, east, north]
}

/// Records of kind `R` near the point, nearest first.
pub async fn records<'c, R: CanonicalRow>(
    pool: impl super::Reads<'c>,
    query: &NearQuery,
) -> sqlx::Result<Vec<Near<R>>> {
    let (after_distance, after_id) = query.after.unzip();
    let farthest: Option<f64> = sqlx::query_scalar(&farthest_statement(R::TABLE))
        .bind(query.latitude)
        .bind(query.longitude)
        .bind(after_distance)
        .bind(after_id)
        .bind(query.limit)
        .fetch_one(pool)
        .await?;
    let Some(farthest) = farthest else {
        return Ok(Vec::new());
    };
    let radius_m = farthest.min(query.radius_m);
    let statement = statement(R::TABLE, R::COLUMNS);
    let mut bound = sqlx::query_as(&statement)
        .bind(query.latitude)
        .bind(query.longitude)
        .bind(after_distance)
        .bind(after_id)
        .bind(query.limit)
        .bind(radius_m);
    for edge in box_params(query.latitude, query.longitude, radius_m) {
        bound = bound.bind(edge);
    }
    bound.fetch_all(pool).await
}
