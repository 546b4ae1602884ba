//! Liveness and readiness.

use crate::error::{AppError, AppResult};
use crate::state::AppState;
use std::collections::BTreeMap;

pub fn health() -> BTreeMap<String, String> {
    BTreeMap::from([
        ("status".to_string(), "ok".to_string()),
        ("version".to_string(), env!("CARGO_PKG_VERSION").to_string()),
    ])
}

/// Ready when the database answers and no embedded migration is pending.
pub async fn ready(state: &AppState) -> AppResult<BTreeMap<String, String>> {
    match crate::db::pending_migrations(&state.pool).await {
        Ok(0) => Ok(BTreeMap::from([
            ("status".to_string(), "ready".to_string()),
            ("database".to_string(), "ok".to_string()),
            ("migrations".to_string(), "ok".to_string()),
        ])),
        Ok(n) => Err(AppError::NotReady(format!(
            "{n} database migration(s) pending"
        ))),
        Err(_) => Err(AppError::NotReady("database unreachable".to_string())),
    }
}
