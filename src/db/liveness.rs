//! When a pooled connection is checked before use.
//!
//! sqlx pings every connection before handing it out (`test_before_acquire`), one extra round
//! trip per request: 14% of a read by id. A connection that was in use a moment ago is almost
//! certainly alive, so, like HikariCP's bypass window, the ping is kept only for connections idle
//! longer than `RECENTLY_USED`. Once this process has seen a connection fail (a database restart,
//! a cut network), every connection opened before that failure is retired instead of being
//! trusted: the first failed request makes all the older ones go, rather than failing one
//! request each, and no rule about when a connection was last used can be fooled by a
//! connection that was handled without being used.

use sqlx::pool::PoolConnectionMetadata;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Connections used more recently than this are handed out without a ping.
pub const RECENTLY_USED: Duration = Duration::from_millis(500);

/// A connection older than this is closed when it would next be handed out (sqlx's default
/// `max_lifetime`): a long-lived backend slowly grows its caches.
pub const MAX_LIFETIME: Duration = Duration::from_secs(30 * 60);

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

/// What to do with an idle connection before handing it out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    Use,
    Ping,
    /// Close it and open another.
    Retire,
}

/// The rule for a connection opened `age` ago and idle for `idle_for`.
pub fn check(age: Duration, idle_for: Duration) -> Check {
    if age > MAX_LIFETIME || opened_before_last_failure(age) {
        Check::Retire
    } else if idle_for > RECENTLY_USED {
        Check::Ping
    } else {
        Check::Use
    }
}

fn opened_before_last_failure(age: Duration) -> bool {
    let last_failure = LAST_FAILURE.load(Ordering::Relaxed);
    if last_failure == 0 {
        return false;
    }
    let opened_at = nanos_since_epoch(Instant::now().checked_sub(age).unwrap_or(epoch()));
    opened_at <= last_failure
}

/// The sqlx pool hook. `meta.idle_for` is the time since the connection was last released only
/// because the pool has no reaper (`db::pool_options`).
pub fn check_before_acquire(
    conn: &mut sqlx::PgConnection,
    meta: PoolConnectionMetadata,
) -> futures::future::BoxFuture<'_, Result<bool, sqlx::Error>> {
    Box::pin(async move {
        match check(meta.age, meta.idle_for) {
            Check::Retire => Ok(false),
            Check::Use => Ok(true),
            Check::Ping => {
                use sqlx::Connection;
                if let Err(err) = conn.ping().await {
                    note_connection_failure();
                    return Err(err);
                }
                Ok(true)
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idle_connections_are_pinged_and_those_older_than_a_failure_retired() {
        let fresh = Duration::from_millis(1);
        assert_eq!(check(fresh, RECENTLY_USED + fresh), Check::Ping);
        assert_eq!(check(MAX_LIFETIME + fresh, fresh), Check::Retire);
        // A connection opened 50 ms ago, then a failure: it goes, however recently it was used.
        std::thread::sleep(Duration::from_millis(60));
        note_connection_failure();
        assert_eq!(check(Duration::from_millis(50), fresh), Check::Retire);
        // A connection opened after the failure is trusted.
        std::thread::sleep(Duration::from_millis(20));
        assert_eq!(check(Duration::from_millis(5), fresh), Check::Use);
    }
}
