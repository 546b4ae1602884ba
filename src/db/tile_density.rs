//! Counts of the visible canonical records per square grid cell (migration 0031), from which
//! map tiles of low zoom draw their clusters instead of grouping every record in view (at zoom
//! 4 over England, 3 to 4 million index entries at 10M records). Refreshed when older than the
//! caller's bound, by one server at a time: the refresh holds the state row (`FOR UPDATE SKIP
//! LOCKED`), and readers see the previous counts until it commits. A refresh recounts only the
//! cells where records changed, from the notes every write of a record leaves (migration 0037);
//! the first build, or one after more changes than that is worth, groups every record.

use crate::domain::CanonicalTable;
use sqlx::{PgConnection, PgPool};

/// The finest level: cells of 2^-10 degrees (about 110 m of latitude). Each coarser level is
/// summed from the one below it, down to `COARSEST_LEVEL`.
pub const FINEST_LEVEL: i16 = 10;
/// Cells of 2 degrees, read by a tile of zoom 0 (the whole world in 180 × 90 of them at most).
pub const COARSEST_LEVEL: i16 = -1;
/// Tiles of this zoom or less are drawn from the counts (when no filter is asked for): their
/// level is `FINEST_LEVEL` or coarser.
pub const MAX_ZOOM: i32 = FINEST_LEVEL as i32 + 1;
/// How long a refresh may take (the pools' own statement limit is the request timeout's).
const REFRESH_TIMEOUT: &str = "10min";

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

/// What a refresh did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refreshed {
    /// Every visible record grouped again: the first build, or more changes noted than
    /// recounting their cells would be worth.
    Whole,
    /// Only the cells the noted changes fall in recounted: this many cells of the finest level
    /// (and their parents at every coarser level).
    Changed { cells: i64 },
}

/// Who asks for a refresh.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Caller {
    /// A tile of low zoom found the counts due: it builds them if they were never built.
    Tile,
    /// The background keeper of each serving process: it keeps built counts fresh, so the notes
    /// of changes never pile up, and drops the notes while the counts were never built (the
    /// first build groups every record anyway).
    Keeper,
}

/// How many notes of changes a refresh recounts cell by cell: a note costs up to a dozen cells
/// (its finest cell and the parents no other note shares) at about 50 µs each with the pages in
/// memory (10M records, 2026-11-29), a whole rebuild about 12 µs a stored cell (8.1 million cells,
/// 99 s), so past about a thirtieth of the cells a whole rebuild is the cheaper one. The floor
/// keeps a small base on the incremental path.
const NOTES_PER_CELL_DIVISOR: i64 = 32;
const MIN_NOTES_BOUND: i64 = 10_000;

/// Refreshes the counts if they are older than `max_age_secs` (or were never built and the
/// caller is a tile) and no other server is refreshing them; what this call did.
///
/// The refresh reads one snapshot (`REPEATABLE READ`): it takes the notes of the changes it sees
/// and counts the records as they stand in that snapshot, so a write that commits meanwhile keeps
/// its note for the next refresh.
pub async fn refresh_if_due(
    pool: &PgPool,
    max_age_secs: f64,
    caller: Caller,
) -> sqlx::Result<Option<Refreshed>> {
    let mut tx = pool.begin().await?;
    sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        .execute(&mut *tx)
        .await?;
    let claimed: Option<(bool, bool, bool, i64)> = match sqlx::query_as(
        "SELECT refreshed_at IS NULL, changes_noted,
                refreshed_at IS NULL OR refreshed_at < now() - make_interval(secs => $1), cells
         FROM canonical.tile_density_state
         FOR UPDATE SKIP LOCKED",
    )
    .bind(max_age_secs)
    .fetch_optional(&mut *tx)
    .await
    {
        Ok(claimed) => claimed,
        // Another server refreshed them after this snapshot began: they are fresh.
        Err(error) if is_serialization_failure(&error) => return Ok(None),
        Err(error) => return Err(error),
    };
    let Some((never_built, changes_noted, due, cells)) = claimed else {
        return Ok(None);
    };
    if never_built && caller == Caller::Keeper {
        sqlx::query("DELETE FROM canonical.tile_density_changes")
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        return Ok(None);
    }
    if !due {
        return Ok(None);
    }
    sqlx::query(&format!(
        "SET LOCAL statement_timeout = '{REFRESH_TIMEOUT}'"
    ))
    .execute(&mut *tx)
    .await?;
    let (refreshed, cells) = if changes_noted && few_enough_notes(&mut tx, cells).await? {
        (recount_changed_cells(&mut tx).await?, cells)
    } else {
        let stored = rebuild_whole(&mut tx).await?;
        (Refreshed::Whole, stored)
    };
    sqlx::query(
        "UPDATE canonical.tile_density_state
         SET refreshed_at = now(), changes_noted = true, cells = $1",
    )
    .bind(cells)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(Some(refreshed))
}

fn is_serialization_failure(error: &sqlx::Error) -> bool {
    matches!(error, sqlx::Error::Database(e) if e.code().as_deref() == Some("40001"))
}

/// Whether the notes are few enough to recount their cells rather than rebuild whole, against
/// the `cells` the last whole build stored.
async fn few_enough_notes(conn: &mut PgConnection, cells: i64) -> sqlx::Result<bool> {
    let bound = MIN_NOTES_BOUND.max(cells / NOTES_PER_CELL_DIVISOR);
    let notes: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM (SELECT FROM canonical.tile_density_changes LIMIT $1) AS noted",
    )
    .bind(bound + 1)
    .fetch_one(&mut *conn)
    .await?;
    Ok(notes <= bound)
}

/// Groups every visible record again; the cells it stored.
async fn rebuild_whole(conn: &mut PgConnection) -> sqlx::Result<i64> {
    sqlx::query("DELETE FROM canonical.tile_density_changes")
        .execute(&mut *conn)
        .await?;
    sqlx::query("DELETE FROM canonical.tile_density")
        .execute(&mut *conn)
        .await?;
    let mut stored = sqlx::query(&format!(
        "INSERT INTO canonical.tile_density
           (canonical_table, level, cell_y, cell_x, records, sum_lng, sum_lat) {}",
        finest_counts()
    ))
    .execute(&mut *conn)
    .await?
    .rows_affected();
    // Each coarser cell is the sum of the four cells it holds one level finer (`>>` on integers
    // rounds towards minus infinity, as `floor` does): each level reads the one below it, which
    // is smaller than the finest.
    for level in (COARSEST_LEVEL..FINEST_LEVEL).rev() {
        stored += sqlx::query(
            "INSERT INTO canonical.tile_density
               (canonical_table, level, cell_y, cell_x, records, sum_lng, sum_lat)
             SELECT canonical_table, $1, cell_y >> 1, cell_x >> 1, sum(records), sum(sum_lng),
                    sum(sum_lat)
             FROM canonical.tile_density
             WHERE level = $1 + 1
             GROUP BY 1, 3, 4",
        )
        .bind(level)
        .execute(&mut *conn)
        .await?
        .rows_affected();
    }
    Ok(i64::try_from(stored).unwrap_or(i64::MAX))
}

/// Takes the notes, and recounts the finest cells their places fall in from the records, then
/// each coarser level's cells holding them from the level below.
async fn recount_changed_cells(conn: &mut PgConnection) -> sqlx::Result<Refreshed> {
    sqlx::query(
        "CREATE TEMPORARY TABLE changed_cells
           (canonical_table text, level smallint, cell_y int, cell_x int) ON COMMIT DROP",
    )
    .execute(&mut *conn)
    .await?;
    let scale = 1_i32 << FINEST_LEVEL;
    sqlx::query(&format!(
        "WITH taken AS (
             DELETE FROM canonical.tile_density_changes
             RETURNING canonical_table, location_lat, location_lng),
         finest AS (
             SELECT DISTINCT canonical_table, floor(location_lat * {scale})::int AS cell_y,
                    floor(location_lng * {scale})::int AS cell_x
             FROM taken)
         INSERT INTO changed_cells (canonical_table, level, cell_y, cell_x)
         SELECT DISTINCT canonical_table, level, cell_y >> ({FINEST_LEVEL} - level),
                cell_x >> ({FINEST_LEVEL} - level)
         FROM finest CROSS JOIN generate_series({COARSEST_LEVEL}, {FINEST_LEVEL}) AS level"
    ))
    .execute(&mut *conn)
    .await?;
    // Its size, for the plans of the statements below (one index probe a cell, not a scan).
    sqlx::query("ANALYZE changed_cells")
        .execute(&mut *conn)
        .await?;
    let cells: i64 = sqlx::query_scalar("SELECT count(*) FROM changed_cells WHERE level = $1")
        .bind(FINEST_LEVEL)
        .fetch_one(&mut *conn)
        .await?;
    for table in CanonicalTable::ALL {
        sqlx::query(&merge_counts(&finest_recount(table.as_str())))
            .bind(FINEST_LEVEL)
            .execute(&mut *conn)
            .await?;
    }
    for level in (COARSEST_LEVEL..FINEST_LEVEL).rev() {
        sqlx::query(&merge_counts(COARSER_RECOUNT))
            .bind(level)
            .execute(&mut *conn)
            .await?;
    }
    Ok(Refreshed::Changed { cells })
}

/// The visible records of `relation` in each changed cell of the finest level (`$1`), read from
/// the band index (migration 0033): a finest cell lies in one band, and `floor(v * 2^k)` is `x`
/// exactly when `x / 2^k <= v < (x + 1) / 2^k` (scaling by a power of two is exact), so the
/// ranges select the cell's records and no others.
fn finest_recount(relation: &str) -> String {
    let visible = crate::db::tiles::HIDDEN_STATUSES;
    let scale = 1_i32 << FINEST_LEVEL;
    let band = crate::db::bands::BAND;
    let band_shift = FINEST_LEVEL - crate::db::bands::BAND_LEVEL;
    format!(
        "SELECT c.canonical_table, c.level, c.cell_y, c.cell_x, n.records, n.sum_lng, n.sum_lat
         FROM changed_cells c
         CROSS JOIN LATERAL (
             SELECT count(*)::int AS records, sum(location_lng) AS sum_lng,
                    sum(location_lat) AS sum_lat
             FROM {relation}
             WHERE {band} = c.cell_y >> {band_shift}
               AND location_lng >= c.cell_x::float8 / {scale}
               AND location_lng < (c.cell_x + 1)::float8 / {scale}
               AND location_lat >= c.cell_y::float8 / {scale}
               AND location_lat < (c.cell_y + 1)::float8 / {scale}
               AND status NOT IN ({visible})) n
         WHERE c.level = $1 AND c.canonical_table = '{relation}'"
    )
}

/// Each changed cell of level `$1` as the sum of the (up to four) cells it holds one level finer:
/// two short ranges of the key (a range of `cell_y` would read every cell of those rows of the
/// world, whatever their `cell_x`).
const COARSER_RECOUNT: &str = "SELECT c.canonical_table, c.level, c.cell_y, c.cell_x,
           coalesce(n.records, 0) AS records, n.sum_lng, n.sum_lat
    FROM changed_cells c
    CROSS JOIN LATERAL (
        SELECT sum(records)::int AS records, sum(sum_lng) AS sum_lng, sum(sum_lat) AS sum_lat
        FROM canonical.tile_density d
        WHERE d.canonical_table = c.canonical_table AND d.level = c.level + 1
          AND d.cell_y IN (c.cell_y * 2, c.cell_y * 2 + 1)
          AND d.cell_x BETWEEN c.cell_x * 2 AND c.cell_x * 2 + 1) n
    WHERE c.level = $1";

/// Writes recounted cells over the stored ones: a cell left empty goes.
fn merge_counts(recount: &str) -> String {
    format!(
        "MERGE INTO canonical.tile_density t
         USING ({recount}) s
         ON t.canonical_table = s.canonical_table AND t.level = s.level
            AND t.cell_y = s.cell_y AND t.cell_x = s.cell_x
         WHEN MATCHED AND s.records = 0 THEN DELETE
         WHEN MATCHED THEN
             UPDATE SET records = s.records, sum_lng = s.sum_lng, sum_lat = s.sum_lat
         WHEN NOT MATCHED AND s.records > 0 THEN
             INSERT (canonical_table, level, cell_y, cell_x, records, sum_lng, sum_lat)
             VALUES (s.canonical_table, s.level, s.cell_y, s.cell_x, s.records, s.sum_lng,
                     s.sum_lat)"
    )
}
