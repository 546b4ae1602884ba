//! Canonical records inside an area (a box or polygon in longitude/latitude, SRID 4326), newest
//! first and keyset-paged on id like the plain lists. The area is bound once as EWKB through
//! geozero and made valid by PostGIS, so a self-crossing polygon answers by PostGIS's repair
//! instead of an error.
//!
//! The page's ids are chosen from the covering index of bands of latitude (migration 0033,
//! `db::bands`) alone: for each part of the area (two boxes across the antimeridian, the polygons
//! of a multipolygon), the records of its box of longitudes and latitudes, tested against the
//! part from the index's own longitude and latitude (no test when the part fills its box: a
//! bbox, 6 of the 10 ms of a box of 15,900 records at 10M), the newest `limit`; only those rows
//! are then read. An area's cost is its index entries, not a heap read of every record in it.

use super::canonical::{CanonicalRow, table_name};
use crate::domain::{CanonicalTable, ListParams};
use geo_types::Geometry;
use geozero::wkb;

/// Statuses an area leaves out unless the caller asks for one by name (as search and
/// `entitiesNear` do): a map shows what is current. A merged record is a redirect to its
/// survivor, which shows in its place: an area never shows it, even when asked for by status.
pub const HIDDEN_STATUSES: &str = "'archived', 'withdrawn', 'merged'";

/// $1 the area, $2 a status or NULL, $3 the previous page's last id or NULL, $4 the row limit.
pub fn statement(table: CanonicalTable, columns: &str) -> String {
    format!(
        "WITH parts AS MATERIALIZED (
            SELECT part.geom AS shape, ST_XMin(part.geom) AS west, ST_XMax(part.geom) AS east,
                   ST_YMin(part.geom) AS south, ST_YMax(part.geom) AS north,
                   {bands} AS bands,
                   ST_Area(part.geom) = ST_Area(ST_Envelope(part.geom)) AS fills_its_box
            FROM ST_Dump(ST_MakeValid(ST_SetSRID($1::geometry, 4326))) AS part),
         chosen AS (
            SELECT DISTINCT newest.id FROM parts p CROSS JOIN LATERAL (
                SELECT id FROM {table}
                WHERE {band} = ANY (p.bands)
                  AND location_lng BETWEEN p.west AND p.east
                  AND location_lat BETWEEN p.south AND p.north
                  AND (p.fills_its_box
                       OR ST_Intersects(ST_SetSRID(ST_MakePoint(location_lng, location_lat), 4326), p.shape))
                  AND CASE WHEN $2::text IS NULL THEN status NOT IN ({HIDDEN_STATUSES})
                           ELSE status = $2 AND status <> 'merged' END
                  AND ($3::uuid IS NULL OR id < $3)
                ORDER BY id DESC
                LIMIT $4) newest)
         SELECT {columns} FROM {table}
         WHERE id IN (SELECT id FROM chosen)
         ORDER BY id DESC
         LIMIT $4",
        table = table_name(table),
        band = super::bands::BAND,
        bands = super::bands::between("ST_YMin(part.geom)", "ST_YMax(part.geom)"),
    )
}

/// The rows `records` would page through, up to `COUNT_CAP + 1`.
pub async fn count<'c>(
    pool: impl super::Reads<'c>,
    table: CanonicalTable,
    area: Geometry<f64>,
    status: Option<&str>,
) -> sqlx::Result<i64> {
    sqlx::query_scalar(&super::counted(&statement(table, "id")))
        .bind(wkb::Encode(area))
        .bind(status)
        .bind(None::<uuid::Uuid>)
        .bind(super::COUNT_CAP + 1)
        .fetch_one(pool)
        .await
}

/// Records of kind `R` inside `area`, newest first.
pub async fn records<'c, R: CanonicalRow>(
    pool: impl super::Reads<'c>,
    area: Geometry<f64>,
    status: Option<&str>,
    params: &ListParams,
) -> sqlx::Result<Vec<R>> {
    sqlx::query_as(&statement(R::TABLE, R::COLUMNS))
        .bind(wkb::Encode(area))
        .bind(status)
        .bind(params.after)
        .bind(params.fetch_limit())
        .fetch_all(pool)
        .await
}
