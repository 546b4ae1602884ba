//! The background transformer: woken by NOTIFY on every new entry (from any server process), with
//! a polling fallback for missed notifications. Several drain loops (one per core by default) and
//! several server processes may run against one database: `SKIP LOCKED` claims keep them from
//! processing the same entry twice, and area-ordered claims with non-waiting identity locks keep
//! them from waiting on each other.

use crate::state::AppState;
use sqlx::postgres::PgListener;
use std::time::Duration;
use tokio::sync::watch;

pub const CHANNEL: &str = "space_time_entries_pending";
const POLL_INTERVAL: Duration = Duration::from_secs(2);
const DRAIN_LIMIT: i64 = 1_000;

/// Runs `loops` drain loops until `stop` turns true; a batch in progress is finished first.
pub async fn run(state: AppState, loops: usize, stop: watch::Receiver<bool>) {
    warn_of_a_small_lock_table(&state, loops).await;
    // A counter rather than a Notify: a loop busy draining when a notification arrives still
    // sees the change afterwards, so no wake-up is lost.
    let (wake_tx, wake_rx) = watch::channel(0_u64);
    let listener = tokio::spawn(relay_notifications(state.clone(), wake_tx, stop.clone()));
    let drains: Vec<_> = (0..loops.max(1))
        .map(|_| {
            let (state, wake, stop) = (state.clone(), wake_rx.clone(), stop.clone());
            tokio::spawn(supervised(move || {
                drain_loop(state.clone(), wake.clone(), stop.clone())
            }))
        })
        .collect();
    for drain in drains {
        let _ = drain.await;
    }
    listener.abort();
    tracing::info!("transformer worker stopped");
}

/// Each loop's batch holds up to `MAX_LOCKS_PER_BATCH` advisory locks while it runs, in a lock
/// table every session and every process on the database shares: past its size, batches fail
/// with `out of shared memory`. Said at start when this process's loops alone could fill it
/// (PostgreSQL's default, 64 × 100 connections, holds four loops' batches in all).
async fn warn_of_a_small_lock_table(state: &AppState, loops: usize) {
    match crate::db::lock_table_slots(&state.pool).await {
        Ok(slots) if lock_table_is_small(loops, slots) => tracing::warn!(
            loops,
            lock_table_slots = slots,
            "the database's lock table is small for this many transformer loops: raise \
             max_locks_per_transaction (docs/operations.md) or lower STRS_TRANSFORMER_LOOPS"
        ),
        Ok(_) => {}
        Err(error) => tracing::debug!(%error, "the lock table's size could not be read"),
    }
}

fn lock_table_is_small(loops: usize, slots: i64) -> bool {
    let wanted =
        i64::try_from(loops.saturating_mul(super::MAX_LOCKS_PER_BATCH)).unwrap_or(i64::MAX);
    wanted > slots
}

/// Runs the task `make` builds until it ends by itself; a task that panics is logged and started
/// again after a pause that grows to 30 s, so a bug cannot silently leave the process without its
/// transformer while `/ready` stays green.
pub async fn supervised<F, Fut>(make: F)
where
    F: Fn() -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let mut pause = Duration::from_millis(100);
    loop {
        match tokio::spawn(make()).await {
            Ok(()) => return,
            Err(err) if err.is_panic() => {
                let cause = super::panic_text(&err.into_panic());
                tracing::error!(cause, "a transformer loop panicked; restarting it");
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(Duration::from_secs(30));
            }
            Err(_) => return,
        }
    }
}

async fn drain_loop(
    state: AppState,
    mut wake: watch::Receiver<u64>,
    mut stop: watch::Receiver<bool>,
) {
    let mut failures = FailureStreak::default();
    while !*stop.borrow() {
        wake.borrow_and_update();
        // Below the data volume's floor the transformer's writes wait too (`storage::space`).
        let drained = match state.disk.ensure_room() {
            Ok(()) => super::drain_counting(&state, DRAIN_LIMIT, "worker").await,
            Err(full) => Err(full),
        };
        match drained {
            Ok(processed) => {
                failures.succeeded();
                if processed > 0 {
                    continue;
                }
            }
            Err(err) => {
                // A failing batch is not retried at every new entry's notification: the database
                // being down or its disk full would otherwise be retried many times a second.
                let pause = failures.failed(&err);
                tokio::select! {
                    _ = stop.changed() => {}
                    () = tokio::time::sleep(pause) => {}
                }
                continue;
            }
        }
        tokio::select! {
            _ = stop.changed() => {}
            () = tokio::time::sleep(POLL_INTERVAL) => {}
            _ = wake.changed() => {}
        }
    }
}

/// The first pause after a failed batch, and the longest.
const FIRST_PAUSE: Duration = Duration::from_millis(500);
const MAX_PAUSE: Duration = Duration::from_secs(30);

/// Consecutive failed batches of one drain loop: the pause before the next try doubles up to
/// `MAX_PAUSE`, and the streak is logged twice, when it starts and when it ends.
#[derive(Debug, Default)]
pub struct FailureStreak {
    failed: u32,
    pause: Duration,
}

impl FailureStreak {
    /// One more failure; returns how long to wait before trying again.
    pub fn failed(&mut self, err: &crate::error::AppError) -> Duration {
        self.failed += 1;
        if self.failed == 1 {
            // The public message only (a cause is logged where it happened), and no backtrace.
            tracing::warn!(
                error = err.public_message(),
                code = err.code(),
                "transformer batches are failing; retrying with a growing pause (up to {} s)",
                MAX_PAUSE.as_secs()
            );
            self.pause = FIRST_PAUSE;
        } else {
            tracing::debug!(
                error = err.public_message(),
                failed = self.failed,
                "transformer batch failed again"
            );
            self.pause = (self.pause * 2).min(MAX_PAUSE);
        }
        self.pause
    }

    /// A batch went through: a streak in progress is over.
    pub fn succeeded(&mut self) {
        if self.failed > 0 {
            tracing::info!(failed = self.failed, "transformer batches succeed again");
        }
        *self = FailureStreak::default();
    }
}

/// One LISTEN connection per process wakes every drain loop of the process.
async fn relay_notifications(
    state: AppState,
    wake: watch::Sender<u64>,
    stop: watch::Receiver<bool>,
) {
    while !*stop.borrow() {
        let Some(mut listener) = connect(&state).await else {
            // The poll keeps the loops going; try LISTEN again later.
            tokio::time::sleep(POLL_INTERVAL).await;
            continue;
        };
        while listener.recv().await.is_ok() {
            wake.send_modify(|n| *n = n.wrapping_add(1));
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

async fn connect(state: &AppState) -> Option<PgListener> {
    let mut listener = match PgListener::connect_with(&state.pool).await {
        Ok(listener) => listener,
        Err(err) => {
            tracing::warn!(error = %err, "LISTEN unavailable; the worker polls");
            return None;
        }
    };
    match listener.listen(CHANNEL).await {
        Ok(()) => Some(listener),
        Err(err) => {
            tracing::warn!(error = %err, "LISTEN failed; the worker polls");
            None
        }
    }
}

/// Starts the worker; send `true` on the returned sender to stop it.
pub fn spawn(state: AppState, loops: usize) -> (watch::Sender<bool>, tokio::task::JoinHandle<()>) {
    let (stop_tx, stop_rx) = watch::channel(false);
    (stop_tx, tokio::spawn(run(state, loops, stop_rx)))
}

#[cfg(test)]
mod tests {
    use super::{FailureStreak, lock_table_is_small, supervised};
    use crate::error::AppError;

    #[test]
    fn failed_batches_wait_longer_each_time_up_to_thirty_seconds_and_a_success_resets() {
        let mut streak = FailureStreak::default();
        let full = AppError::InsufficientStorage("full".into());
        let pauses: Vec<u64> = (0..9)
            .map(|_| streak.failed(&full).as_millis() as u64)
            .collect();
        assert_eq!(
            pauses,
            [500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]
        );
        streak.succeeded();
        assert_eq!(streak.failed(&full).as_millis(), 500);
    }
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[tokio::test]
    async fn a_loop_that_panics_is_started_again_until_it_ends_by_itself() {
        let runs = Arc::new(AtomicUsize::new(0));
        let counter = runs.clone();
        supervised(move || {
            let counter = counter.clone();
            async move {
                if counter.fetch_add(1, Ordering::SeqCst) < 2 {
                    panic!("a poison entry");
                }
            }
        })
        .await;
        assert_eq!(runs.load(Ordering::SeqCst), 3);
    }

    #[test]
    fn a_lock_table_is_small_when_this_process_alone_could_fill_it() {
        // PostgreSQL's default: 64 × 100 connections.
        assert!(!lock_table_is_small(4, 6_400));
        assert!(lock_table_is_small(5, 6_400));
        // The embedded cluster: 256 × 100.
        assert!(!lock_table_is_small(19, 25_600));
        assert!(lock_table_is_small(20, 25_600));
        assert!(lock_table_is_small(usize::MAX, 1 << 40));
    }
}
