//! The background transformer: woken by NOTIFY on every new entry (from any server process), with
//! a polling fallback for missed notifications. Several workers may run against one database;
//! `SKIP LOCKED` claims keep them from processing the same entry twice.

use crate::state::AppState;
use sqlx::postgres::PgListener;
use std::time::Duration;
use tokio::sync::watch;

pub const CHANNEL: &str = "space_time_entries_pending";
const POLL_INTERVAL: Duration = Duration::from_secs(2);
const DRAIN_LIMIT: i64 = 1_000;

/// Runs until `stop` turns true; a batch in progress is finished first.
pub async fn run(state: AppState, mut stop: watch::Receiver<bool>) {
    let mut listener = connect(&state).await;
    while !*stop.borrow() {
        match super::drain(&state, DRAIN_LIMIT, "worker").await {
            Ok(result) if result.processed > 0 => continue,
            Ok(_) => {}
            Err(err) => tracing::error!(
                error = err.public_message(),
                "transformer worker batch failed"
            ),
        }
        tokio::select! {
            _ = stop.changed() => {}
            _ = tokio::time::sleep(POLL_INTERVAL) => {}
            notified = wait(&mut listener) => {
                if !notified {
                    tokio::time::sleep(Duration::from_millis(500)).await;
                }
            }
        }
    }
    tracing::info!("transformer worker stopped");
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

/// True on a notification; false when the listener is gone (the poll takes over).
async fn wait(listener: &mut Option<PgListener>) -> bool {
    match listener {
        Some(l) => l.recv().await.is_ok(),
        None => std::future::pending().await,
    }
}

/// Starts the worker; send `true` on the returned sender to stop it.
pub fn spawn(state: AppState) -> (watch::Sender<bool>, tokio::task::JoinHandle<()>) {
    let (stop_tx, stop_rx) = watch::channel(false);
    (stop_tx, tokio::spawn(run(state, stop_rx)))
}
