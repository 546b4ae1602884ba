//! Canonical records nearest a point, within a radius, nearest first: the search service's
//! spatial predicate (the circle's box of longitudes and latitudes, `geo::circle_box`, over the
//! GiST index on `location::geometry`, then the sphere distance) without its text part. Keyset-paged
//! on (distance, id).

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

/// The statement `records` runs (benches run it in pgbench): $1 latitude, $2 longitude, $3 radius
/// in metres, $4/$5 the previous page's last distance and id (or NULL), $6 the row limit, $7-$10
/// the circle's box (west, south, east, north: `box_params`).
pub fn statement(table: CanonicalTable, columns: &str) -> String {
    format!(
        "WITH origin AS (SELECT ST_SetSRID(ST_MakePoint($2, $1), 4326)::geography AS point),
              found AS (
                SELECT {columns}, ST_Distance(location, origin.point, false) AS distance_m
                FROM {table}, origin
                WHERE location::geometry && ST_MakeEnvelope($7, $8, $9, $10, 4326)
                  AND status NOT IN ('archived', 'withdrawn', 'merged'))
         SELECT * FROM found
         WHERE distance_m <= $3 AND ($4::float8 IS NULL OR (distance_m, id) > ($4, $5))
         ORDER BY distance_m, id
         LIMIT $6",
        table = table_name(table)
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
    let statement = statement(R::TABLE, R::COLUMNS);
    let mut bound = sqlx::query_as(&statement)
        .bind(query.latitude)
        .bind(query.longitude)
        .bind(query.radius_m)
        .bind(after_distance)
        .bind(after_id)
        .bind(query.limit);
    for edge in box_params(query.latitude, query.longitude, query.radius_m) {
        bound = bound.bind(edge);
    }
    bound.fetch_all(pool).await
}
