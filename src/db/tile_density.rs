//! Counts of the visible canonical records per square grid cell (migration 0031), from which
//! map tiles of low zoom draw their clusters instead of grouping every record in view (at zoom
//! 4 over England, 3 to 4 million index entries at 10M records). Rebuilt whole when older than
//! the caller's bound, by one server at a time: the rebuild holds the state row (`FOR UPDATE SKIP
//! LOCKED`), and readers see the previous counts until it commits.

use crate::domain::CanonicalTable;
use sqlx::PgPool;

/// The finest level: cells of 2^-10 degrees (about 110 m of latitude). Each coarser level is
/// summed from the one below it, down to `COARSEST_LEVEL`.
pub const FINEST_LEVEL: i16 = 10;
/// Cells of 2 degrees, read by a tile of zoom 0 (the whole world in 180 × 90 of them at most).
pub const COARSEST_LEVEL: i16 = -1;
/// Tiles of this zoom or less are drawn from the counts (when no filter is asked for): their
/// level is `FINEST_LEVEL` or coarser.
pub const MAX_ZOOM: i32 = FINEST_LEVEL as i32 + 1;
/// How long a rebuild may take (the pools' own statement limit is the request timeout's).
const REBUILD_TIMEOUT: &str = "10min";

/// The SQL expression of the level a tile of zoom `zoom` (an SQL expression, at most
/// `MAX_ZOOM`) reads: level z - 1, whose cells are an eleventh of the tile's grid cells (a grid
/// cell is 22.5 × 2^-z degrees wide), so that a cell straddling a grid line moves few records
/// to the neighbouring grid cell, and a tile of any zoom reads at most 180 cells across and as
/// many down, whatever the number of records in view.
pub fn level_for_zoom(zoom: &str) -> String {
    format!("({zoom} - 1)")
}

/// Whether the counts can be read: they were built at least once.
pub const READY: &str = "(SELECT refreshed_at IS NOT NULL FROM canonical.tile_density_state)";

/// Whether the counts are older than `max_age_secs` (an SQL expression) or were never built.
pub fn due(max_age_secs: &str) -> String {
    format!(
        "(SELECT refreshed_at IS NULL OR refreshed_at < now() - make_interval(secs => {max_age_secs}) \
         FROM canonical.tile_density_state)"
    )
}

fn finest_counts() -> String {
    let visible = crate::db::tiles::HIDDEN_STATUSES;
    let scale = 1_i32 << FINEST_LEVEL;
    CanonicalTable::ALL
        .iter()
        .map(|table| {
            format!(
                "SELECT '{relation}', {FINEST_LEVEL}, floor(location_lat * {scale})::int AS cell_y,
                        floor(location_lng * {scale})::int AS cell_x, count(*), sum(location_lng),
                        sum(location_lat)
                 FROM {relation} WHERE status NOT IN ({visible}) GROUP BY 3, 4",
                relation = table.as_str()
            )
        })
        .collect::<Vec<_>>()
        .join(" UNION ALL ")
}

/// Rebuilds the counts if they are older than `max_age_secs` and no other server is rebuilding
/// them; whether this call did.
pub async fn refresh_if_due(pool: &PgPool, max_age_secs: f64) -> sqlx::Result<bool> {
    let mut tx = pool.begin().await?;
    let claimed: Option<bool> = sqlx::query_scalar(
        "SELECT true FROM canonical.tile_density_state
         WHERE refreshed_at IS NULL OR refreshed_at < now() - make_interval(secs => $1)
         FOR UPDATE SKIP LOCKED",
    )
    .bind(max_age_secs)
    .fetch_optional(&mut *tx)
    .await?;
    if claimed.is_none() {
        return Ok(false);
    }
    sqlx::query(&format!(
        "SET LOCAL statement_timeout = '{REBUILD_TIMEOUT}'"
    ))
    .execute(&mut *tx)
    .await?;
    sqlx::query("DELETE FROM canonical.tile_density")
        .execute(&mut *tx)
        .await?;
    sqlx::query(&format!(
        "INSERT INTO canonical.tile_density
           (canonical_table, level, cell_y, cell_x, records, sum_lng, sum_lat) {}",
        finest_counts()
    ))
    .execute(&mut *tx)
    .await?;
    // Each coarser cell is the sum of the four cells it holds one level finer (`>>` on integers
    // rounds towards minus infinity, as `floor` does): each level reads the one below it, which
    // is smaller than the finest.
    for level in (COARSEST_LEVEL..FINEST_LEVEL).rev() {
        sqlx::query(
            "INSERT INTO canonical.tile_density
               (canonical_table, level, cell_y, cell_x, records, sum_lng, sum_lat)
             SELECT canonical_table, $1, cell_y >> 1, cell_x >> 1, sum(records), sum(sum_lng),
                    sum(sum_lat)
             FROM canonical.tile_density
             WHERE level = $1 + 1
             GROUP BY 1, 3, 4",
        )
        .bind(level)
        .execute(&mut *tx)
        .await?;
    }
    sqlx::query("UPDATE canonical.tile_density_state SET refreshed_at = now()")
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(true)
}
