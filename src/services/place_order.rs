//! Place order. The transformer and the search read canonical records by place (the candidates
//! within 500 m of an entry, a radius's grid cells), but a table keeps rows in the order they
//! were written, so the records of one street sit on as many pages as there are records, and the
//! search index's posting lists of a common word interleave every region's rows. An operator runs
//! `spacetime-records admin order-by-place` to rewrite the canonical tables in geohash order
//! (migration 0035's key): records near each other then share pages, and a search's cells are a
//! few runs of row addresses that the full-text index skips to (docs/operations.md, "Place
//! order"; figures in docs/benchmarks.md). Rows written afterwards go wherever there is room, so
//! the order decays with the writes; the reported correlation says when to run it again.

use crate::db;
use crate::domain::CanonicalTable;
use crate::error::{AppError, AppResult};
use crate::state::AppState;
use serde::Serialize;
use std::time::{Duration, Instant};

/// What rewriting one table did.
#[derive(Debug, Clone, Serialize)]
pub struct PlaceOrdered {
    pub table: CanonicalTable,
    pub records: i64,
    /// How closely the rows' physical order followed the place key before and after, from
    /// PostgreSQL's statistics (1 = place order; `None` for an empty table).
    pub correlation_before: Option<f64>,
    pub correlation_after: Option<f64>,
    /// The rewrite's and the vacuum's after it.
    pub seconds: f64,
}

/// Rewrites `table` in place order, in one transaction: the table is locked against reads and
/// writes until it ends, and needs free disk for a second copy of itself and its indexes. When
/// another transaction holds the table longer than `lock_wait` (`None`: no limit), nothing is
/// rewritten and the answer is a conflict. The new copy is then vacuumed, without the lock, so
/// that index-only scans read from the indexes alone again.
#[tracing::instrument(name = "place_order::order_by_place", skip(state))]
pub async fn order_by_place(
    state: &AppState,
    table: CanonicalTable,
    lock_wait: Option<Duration>,
) -> AppResult<PlaceOrdered> {
    let started = Instant::now();
    let mut tx = state.pool.begin().await?;
    db::place_order::limit_lock_wait(&mut tx, lock_wait).await?;
    let rewritten = async {
        let before = db::place_order::analyzed_correlation(&mut tx, table).await?;
        let records = db::place_order::rewrite_in_place_order(&mut tx, table).await?;
        let after = db::place_order::analyzed_correlation(&mut tx, table).await?;
        Ok::<_, sqlx::Error>((before, records, after))
    }
    .await;
    let (correlation_before, records, correlation_after) = match rewritten {
        Ok(done) => done,
        Err(err) if db::place_order::is_lock_wait_over(&err) => {
            return Err(AppError::Conflict {
                message: format!(
                    "{} is in use: another transaction held it for longer than the lock wait;                      run this with the servers stopped, or with a longer wait",
                    table.as_str()
                ),
                existing_id: None,
            });
        }
        Err(err) => return Err(err.into()),
    };
    tx.commit().await?;
    db::place_order::mark_all_visible(&state.pool, table).await?;
    Ok(PlaceOrdered {
        table,
        records,
        correlation_before,
        correlation_after,
        seconds: started.elapsed().as_secs_f64(),
    })
}
