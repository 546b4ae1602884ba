//! Limits on anonymous writes, per client address, shared by every server process.

use crate::ctx::Ctx;
use crate::error::{AppError, AppResult};
use crate::state::AppState;

const WINDOW_SECS: i64 = 60;

/// Authenticated callers are accountable through their key; anonymous ones are limited per address.
pub async fn anonymous_write(state: &AppState, ctx: &Ctx, action: &str) -> AppResult<()> {
    if ctx.actor.is_some() {
        return Ok(());
    }
    let client = ctx.client.as_deref().unwrap_or("unknown");
    let bucket = format!("anon:{action}:{client}");
    let (hits, seconds_left) =
        crate::db::rate_limits::hit(&state.pool, &bucket, WINDOW_SECS).await?;
    if hits > state.config.anon_writes_per_minute {
        return Err(AppError::RateLimited {
            retry_after_secs: seconds_left as u64,
        });
    }
    Ok(())
}
