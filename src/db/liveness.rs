//! When a pooled connection is checked before use.
//!
//! sqlx pings every connection before handing it out (`test_before_acquire`), one extra round
//! trip per request: 14% of a read by id. A connection that was in use a moment ago is almost
//! certainly alive, so, like HikariCP's bypass window, the ping is kept only for connections idle
//! longer than `RECENTLY_USED`, and for every connection released before the last connection
//! failure this process saw: after a database restart, the first failed request makes all the
//! older connections prove themselves before they are used again, instead of failing one request
//! each.

use sqlx::pool::PoolConnectionMetadata;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Connections used more recently than this are handed out without a ping.
pub const RECENTLY_USED: Duration = Duration::from_millis(500);

/// Nanoseconds since `epoch()` of the last connection failure seen, 0 if none.
static LAST_FAILURE: AtomicU64 = AtomicU64::new(0);

fn epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

fn nanos_since_epoch(at: Instant) -> u64 {
    u64::try_from(at.saturating_duration_since(epoch()).as_nanos()).unwrap_or(u64::MAX)
}

/// Records that a connection failed (I/O error, server shutting down, no connection possible).
pub fn note_connection_failure() {
    // 1 ns past the epoch at least, so that "no failure yet" (0) stays distinguishable.
    let now = nanos_since_epoch(Instant::now()).max(1);
    LAST_FAILURE.fetch_max(now, Ordering::Relaxed);
}

/// Whether an idle connection must be pinged before it is used.
pub fn needs_ping(idle_for: Duration) -> bool {
    if idle_for > RECENTLY_USED {
        return true;
    }
    let last_failure = LAST_FAILURE.load(Ordering::Relaxed);
    if last_failure == 0 {
        return false;
    }
    let released_at = nanos_since_epoch(Instant::now().checked_sub(idle_for).unwrap_or(epoch()));
    released_at <= last_failure
}

/// The pool hook: ping only when `needs_ping` says so; a failed ping discards the connection.
pub fn check_before_acquire(
    conn: &mut sqlx::PgConnection,
    meta: PoolConnectionMetadata,
) -> futures::future::BoxFuture<'_, Result<bool, sqlx::Error>> {
    Box::pin(async move {
        if needs_ping(meta.idle_for) {
            use sqlx::Connection;
            if let Err(err) = conn.ping().await {
                note_connection_failure();
                return Err(err);
            }
        }
        Ok(true)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idle_connections_are_pinged_and_recent_ones_only_after_a_failure() {
        assert!(needs_ping(RECENTLY_USED + Duration::from_millis(1)));
        // A connection released 50 ms ago, then a failure: it must prove itself.
        std::thread::sleep(Duration::from_millis(60));
        note_connection_failure();
        assert!(needs_ping(Duration::from_millis(50)));
        // A connection released after the failure is trusted again.
        std::thread::sleep(Duration::from_millis(20));
        assert!(!needs_ping(Duration::from_millis(5)));
    }
}
