//! Canonical records inside an area (a box or polygon in longitude/latitude, SRID 4326), newest
//! first and keyset-paged on id like the plain lists, over the `location::geometry` GiST index
//! (migration 0011). The area is bound once as EWKB through geozero and made valid by PostGIS,
//! so a self-crossing polygon answers by PostGIS's repair instead of an error.

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
        "WITH area AS MATERIALIZED (SELECT ST_MakeValid(ST_SetSRID($1::geometry, 4326)) AS shape)
         SELECT {columns} FROM {table}, area
         WHERE ST_Intersects(location::geometry, area.shape)
           AND CASE WHEN $2::text IS NULL THEN status NOT IN ({HIDDEN_STATUSES})
                    ELSE status = $2 AND status <> 'merged' END
           AND ($3::uuid IS NULL OR id < $3)
         ORDER BY id DESC
         LIMIT $4",
        table = table_name(table)
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
