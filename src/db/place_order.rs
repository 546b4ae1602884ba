//! The canonical tables rewritten in place order (migration 0035's geohash key), for
//! `services::place_order`. `CLUSTER` holds the table's exclusive lock while it runs (reads and
//! writes wait) and writes a new copy of the table and its indexes before dropping the old one.

use super::canonical::table_name;
use crate::domain::CanonicalTable;
use sqlx::PgConnection;

/// The place key's index of `table`.
fn index_name(table: CanonicalTable) -> &'static str {
    match table {
        CanonicalTable::Entities => "entities_place_order_idx",
        CanonicalTable::Listings => "listings_place_order_idx",
        CanonicalTable::Requests => "requests_place_order_idx",
    }
}

/// Makes this transaction give up on a table's lock held by others after `wait` (none: wait as
/// long as it takes), so that a rewrite started beside live servers fails rather than queue every
/// request behind it.
pub async fn limit_lock_wait(
    conn: &mut PgConnection,
    wait: Option<std::time::Duration>,
) -> Result<(), sqlx::Error> {
    let millis = wait.map_or(0, |wait| wait.as_millis().max(1));
    sqlx::query(&format!("SET LOCAL lock_timeout = {millis}"))
        .execute(&mut *conn)
        .await?;
    Ok(())
}

/// Whether `err` is the end of the wait `limit_lock_wait` set (SQLSTATE 55P03).
pub fn is_lock_wait_over(err: &sqlx::Error) -> bool {
    err.as_database_error()
        .and_then(sqlx::error::DatabaseError::code)
        .is_some_and(|code| code == "55P03")
}

/// Fresh statistics of `table`, then how closely its rows' physical order follows the place key:
/// PostgreSQL's correlation of the key's sampled values with their positions (1 in place order,
/// near 0 for rows written in any other order), `None` for an empty table.
pub async fn analyzed_correlation(
    conn: &mut PgConnection,
    table: CanonicalTable,
) -> Result<Option<f64>, sqlx::Error> {
    sqlx::query(&format!("ANALYZE {}", table_name(table)))
        .execute(&mut *conn)
        .await?;
    // An expression index's statistics are filed under the index's own name.
    let correlation: Option<Option<f32>> = sqlx::query_scalar(
        "SELECT correlation FROM pg_stats WHERE schemaname = 'canonical' AND tablename = $1",
    )
    .bind(index_name(table))
    .fetch_optional(&mut *conn)
    .await?;
    Ok(correlation.flatten().map(f64::from))
}

/// Rewrites `table` (and rebuilds its indexes) in place order; returns its rows.
pub async fn rewrite_in_place_order(
    conn: &mut PgConnection,
    table: CanonicalTable,
) -> Result<i64, sqlx::Error> {
    // A rewrite of millions of rows outlasts the pool's statement timeout.
    sqlx::query("SET LOCAL statement_timeout = 0")
        .execute(&mut *conn)
        .await?;
    sqlx::query(&format!(
        "CLUSTER {} USING {}",
        table_name(table),
        index_name(table)
    ))
    .execute(&mut *conn)
    .await?;
    sqlx::query_scalar(&format!("SELECT count(*) FROM {}", table_name(table)))
        .fetch_one(&mut *conn)
        .await
}

/// Marks `table`'s pages all-visible again (`VACUUM`, on a connection of its own that is closed
/// afterwards, outside any transaction as `VACUUM` must be). `CLUSTER` writes the new copy with
/// an empty visibility map, and until a vacuum fills it every index-only scan of the table
/// (a key's holders, a box's records, the tiles) reads each row's heap page as well; autovacuum
/// sees no dead rows to bring it there soon.
pub async fn mark_all_visible(
    pool: &sqlx::PgPool,
    table: CanonicalTable,
) -> Result<(), sqlx::Error> {
    let mut conn = pool.acquire().await?.detach();
    // The pool's statement timeout would stop a vacuum of millions of rows.
    sqlx::query("SET statement_timeout = 0")
        .execute(&mut conn)
        .await?;
    sqlx::query(&format!("VACUUM {}", table_name(table)))
        .execute(&mut conn)
        .await?;
    sqlx::Connection::close(conn).await
}
