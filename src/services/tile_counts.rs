//! The map tiles' counts per cell (`db::tile_density`) kept fresh: a tile of low zoom that finds
//! them due starts a refresh in the background, and every serving process runs a keeper that
//! refreshes built counts once they are due, so the notes of the records' changes a refresh
//! consumes never pile up while nobody looks at a map. One server refreshes at a time (the state
//! row's claim); the others' attempts return at once.

use crate::db::tile_density::{self, Caller};
use crate::state::AppState;
use std::sync::atomic::Ordering;
use std::time::Duration;
use tokio::sync::watch;

/// Refreshes the counts in the background for a tile that found them due (building them if they
/// never were), unless this process already is: that tile was drawn from the previous counts
/// (or, before the first build, from the records).
pub fn refresh_for_a_tile(state: &AppState) {
    if state.tile_counts_refreshing.swap(true, Ordering::AcqRel) {
        return;
    }
    let state = state.clone();
    tokio::spawn(async move {
        refresh(&state, Caller::Tile).await;
        state.tile_counts_refreshing.store(false, Ordering::Release);
    });
}

async fn refresh(state: &AppState, caller: Caller) {
    let max_age = f64::from(state.config.tile_counts_max_age_secs);
    match tile_density::refresh_if_due(&state.pool, max_age, caller).await {
        Ok(Some(refreshed)) => tracing::debug!(?refreshed, ?caller, "map tiles' counts refreshed"),
        Ok(None) => {}
        Err(error) => tracing::warn!(%error, "refreshing the map tiles' counts per cell failed"),
    }
}

/// Starts the keeper: every `STRS_TILE_COUNTS_MAX_AGE_SECS` it refreshes counts that are due;
/// send `true` on the returned sender to stop it (a refresh in progress is rolled back: a
/// whole rebuild of a large base takes longer than a shutdown should).
pub fn spawn_keeper(state: AppState) -> (watch::Sender<bool>, tokio::task::JoinHandle<()>) {
    let (stop_tx, mut stop_rx) = watch::channel(false);
    let period = Duration::from_secs(u64::from(state.config.tile_counts_max_age_secs));
    let handle = tokio::spawn(async move {
        loop {
            tokio::select! {
                () = tokio::time::sleep(period) => {}
                _ = stop_rx.changed() => break,
            }
            if *stop_rx.borrow() {
                break;
            }
            if state.tile_counts_refreshing.swap(true, Ordering::AcqRel) {
                continue;
            }
            tokio::select! {
                () = refresh(&state, Caller::Keeper) => {}
                _ = stop_rx.changed() => break,
            }
            state.tile_counts_refreshing.store(false, Ordering::Release);
        }
    });
    (stop_tx, handle)
}
