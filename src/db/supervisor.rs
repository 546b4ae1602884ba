//! Supervision of the embedded PostgreSQL by the process that started it (`serve`): when the
//! postmaster exits unexpectedly (the kernel's OOM killer, a crash, a PANIC on a full disk), it is
//! started again, with a pause that doubles from `FIRST_PAUSE` to `MAX_PAUSE` while starting
//! fails (a killed postmaster's backends may hold its shared memory for a moment; a full disk
//! fails until space is freed). PostgreSQL's crash recovery replays the WAL by itself, so every
//! acknowledged commit survives. Each change of state is logged once; restarts are counted in
//! `/metrics` and the state is shown on `/ready`. Supervision ends only at shutdown, before the
//! cluster is stopped.

use super::cluster::EmbeddedCluster;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};
use tokio::sync::watch;

/// How often the postmaster's liveness is probed.
pub const POLL: Duration = Duration::from_secs(1);
/// Short: the usual first failure is the killed postmaster's backends still holding its shared
/// memory, for a fraction of a second.
const FIRST_PAUSE: Duration = Duration::from_millis(250);
const MAX_PAUSE: Duration = Duration::from_secs(30);

/// What `/ready` and `/metrics` say about the embedded cluster of this process.
#[derive(Debug, Default)]
pub struct Status {
    /// This process started the cluster (and supervises it); otherwise another process did.
    pub owned: bool,
    up: AtomicBool,
    restarts: AtomicU64,
    /// Failed start attempts since the postmaster was last seen running.
    failed_attempts: AtomicU32,
}

impl Status {
    pub fn up(&self) -> bool {
        self.up.load(Ordering::Relaxed)
    }

    pub fn restarts(&self) -> u64 {
        self.restarts.load(Ordering::Relaxed)
    }

    /// One line for `/ready`.
    pub fn describe(&self) -> String {
        if !self.owned {
            return "in use; started by another process, which supervises it".to_string();
        }
        let restarts = self.restarts();
        if self.up() {
            format!("running, supervised by this process ({restarts} restart(s))")
        } else {
            format!(
                "down: restarting ({} failed attempt(s) so far, {restarts} restart(s) before)",
                self.failed_attempts.load(Ordering::Relaxed)
            )
        }
    }
}

/// The embedded cluster's status in this process, once `serve` has decided it (`None` with
/// `DATABASE_URL`, and in processes that never called `register`).
pub fn status() -> Option<&'static Arc<Status>> {
    CURRENT.get()
}

static CURRENT: OnceLock<Arc<Status>> = OnceLock::new();

/// Records whether this process owns the embedded cluster it uses (one per process).
pub fn register(owned: bool) -> Arc<Status> {
    // The gauge set below must reach the recorder, which may not be installed yet.
    crate::telemetry::handle();
    CURRENT
        .get_or_init(|| {
            let status = Arc::new(Status {
                owned,
                up: AtomicBool::new(true),
                ..Status::default()
            });
            if owned {
                crate::telemetry::set_embedded_up(true);
            }
            status
        })
        .clone()
}

/// Supervises `cluster` until `true` is sent on the returned sender; await the handle before
/// stopping the cluster.
pub fn spawn(
    cluster: Arc<EmbeddedCluster>,
    status: Arc<Status>,
) -> (watch::Sender<bool>, tokio::task::JoinHandle<()>) {
    let (stop_tx, stop_rx) = watch::channel(false);
    (stop_tx, tokio::spawn(supervise(cluster, status, stop_rx)))
}

async fn supervise(
    cluster: Arc<EmbeddedCluster>,
    status: Arc<Status>,
    mut stop: watch::Receiver<bool>,
) {
    loop {
        tokio::select! {
            _ = stop.changed() => return,
            () = tokio::time::sleep(POLL) => {}
        }
        if *stop.borrow() {
            return;
        }
        if cluster.is_running() {
            continue;
        }
        status.up.store(false, Ordering::Relaxed);
        crate::telemetry::set_embedded_up(false);
        tracing::error!(
            data_dir = %cluster.data_dir.display(),
            "the embedded PostgreSQL exited unexpectedly; starting it again (its crash recovery replays the WAL)"
        );
        let down_since = Instant::now();
        if !restart(&cluster, &status, &mut stop).await {
            return;
        }
        status.up.store(true, Ordering::Relaxed);
        status.restarts.fetch_add(1, Ordering::Relaxed);
        crate::telemetry::record_embedded_restart();
        crate::telemetry::set_embedded_up(true);
        tracing::warn!(
            attempts = status.failed_attempts.swap(0, Ordering::Relaxed) + 1,
            down_secs = down_since.elapsed().as_secs_f64(),
            "the embedded PostgreSQL is running again"
        );
    }
}

/// Starts the cluster until it runs (true) or shutdown is asked for (false).
async fn restart(
    cluster: &Arc<EmbeddedCluster>,
    status: &Status,
    stop: &mut watch::Receiver<bool>,
) -> bool {
    let mut pause = FIRST_PAUSE;
    loop {
        let starting = cluster.clone();
        let started = tokio::task::spawn_blocking(move || starting.start_again()).await;
        match started {
            Ok(Ok(())) => return true,
            // Started by someone else meanwhile (an operator's pg_ctl): running is what counts.
            _ if cluster.is_running() => return true,
            Ok(Err(error)) => {
                let failed = status.failed_attempts.fetch_add(1, Ordering::Relaxed) + 1;
                if failed == 1 {
                    tracing::warn!(
                        error = format!("{error:#}"),
                        "starting the embedded PostgreSQL again failed; retrying with a growing pause (up to {} s)",
                        MAX_PAUSE.as_secs()
                    );
                } else {
                    tracing::debug!(
                        error = format!("{error:#}"),
                        failed,
                        "starting the embedded PostgreSQL failed again"
                    );
                }
            }
            Err(join) => {
                tracing::error!(error = %join, "the start of the embedded PostgreSQL panicked");
            }
        }
        tokio::select! {
            _ = stop.changed() => return false,
            () = tokio::time::sleep(pause) => {}
        }
        if *stop.borrow() {
            return false;
        }
        pause = next_pause(pause);
    }
}

/// The pause after one more failed start: doubled, at most `MAX_PAUSE`.
pub fn next_pause(pause: Duration) -> Duration {
    (pause * 2).min(MAX_PAUSE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pause_between_failed_starts_doubles_up_to_thirty_seconds() {
        let mut pause = FIRST_PAUSE;
        let mut pauses = Vec::new();
        for _ in 0..10 {
            pauses.push(pause.as_millis());
            pause = next_pause(pause);
        }
        assert_eq!(
            pauses,
            [250, 500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]
        );
    }

    #[test]
    fn the_status_line_says_who_owns_the_cluster_and_how_it_runs() {
        let shared = Status::default();
        assert!(shared.describe().contains("another process"));
        let owned = Status {
            owned: true,
            up: AtomicBool::new(true),
            ..Status::default()
        };
        owned.restarts.store(2, Ordering::Relaxed);
        assert_eq!(
            owned.describe(),
            "running, supervised by this process (2 restart(s))"
        );
        owned.up.store(false, Ordering::Relaxed);
        assert!(owned.describe().starts_with("down: restarting"));
    }
}
