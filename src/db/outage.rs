//! Database outages as the logs and `/metrics` tell them: one line when requests start being
//! refused because the database is unavailable, one when it is back (with how many requests were
//! refused meanwhile). Each refusal is logged at debug only, and counted
//! (`strs_db_refusals_total`): an outage under load refuses thousands of requests a minute.
//!
//! "Back" is the first connection opened after the refusals began: every connection opened
//! before a failure is retired (`liveness`), so the pools open new ones as soon as the server
//! accepts them.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

static DOWN: AtomicBool = AtomicBool::new(false);
static REFUSED: AtomicU64 = AtomicU64::new(0);
/// Milliseconds since `epoch()` when the current outage began.
static SINCE: AtomicU64 = AtomicU64::new(0);

fn epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

fn now_millis() -> u64 {
    epoch().elapsed().as_millis() as u64
}

/// One request refused (503) because the database is unavailable or too slow.
pub fn note_refusal(cause: &str, sqlstate: &str) {
    crate::telemetry::record_db_refusal();
    REFUSED.fetch_add(1, Ordering::Relaxed);
    if !DOWN.swap(true, Ordering::Relaxed) {
        SINCE.store(now_millis(), Ordering::Relaxed);
        tracing::warn!(
            cause,
            sqlstate,
            "database unavailable: requests are answered 503 with Retry-After until it is back"
        );
    } else {
        tracing::debug!(cause, sqlstate, "request refused: database unavailable");
    }
}

/// A connection to the database was opened: an outage in progress is over.
pub fn note_connected() {
    if DOWN.load(Ordering::Relaxed) && DOWN.swap(false, Ordering::Relaxed) {
        let refused = REFUSED.swap(0, Ordering::Relaxed);
        let outage_secs =
            now_millis().saturating_sub(SINCE.load(Ordering::Relaxed)) as f64 / 1000.0;
        tracing::warn!(
            refused,
            outage_secs,
            "database back: {refused} request(s) were refused during the outage"
        );
    } else {
        REFUSED.store(0, Ordering::Relaxed);
    }
}

/// Whether requests are being refused for want of the database (for `/ready`).
pub fn is_down() -> bool {
    DOWN.load(Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_outage_begins_at_the_first_refusal_and_ends_at_the_next_connection() {
        note_connected();
        assert!(!is_down());
        note_refusal("test", "57P01");
        note_refusal("test", "57P01");
        assert!(is_down());
        assert_eq!(REFUSED.load(Ordering::Relaxed), 2);
        note_connected();
        assert!(!is_down());
        assert_eq!(REFUSED.load(Ordering::Relaxed), 0);
    }
}
