//! Liveness and readiness.

use crate::error::{AppError, AppResult};
use crate::services::read_route::ReplicaState;
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
        Ok(0) => {
            let mut report = BTreeMap::from([
                ("status".to_string(), "ready".to_string()),
                ("database".to_string(), "ok".to_string()),
                ("migrations".to_string(), "ok".to_string()),
            ]);
            // A replica out of rotation does not make the process unready: its reads go to
            // the primary meanwhile. It is reported for operators and load balancers to see.
            for (name, health) in state.replicas.health() {
                let value = match health.state {
                    ReplicaState::Lagging => {
                        format!("lagging ({:.1} s behind)", health.lag_seconds)
                    }
                    state => state.as_str().to_string(),
                };
                report.insert(format!("replica {name}"), value);
            }
            Ok(report)
        }
        Ok(n) => Err(AppError::NotReady(format!(
            "{n} database migration(s) pending"
        ))),
        Err(_) => Err(AppError::NotReady("database unreachable".to_string())),
    }
}
