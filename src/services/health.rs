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
#[tracing::instrument(name = "health::ready", level = "debug", skip_all)]
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
            add_faults(state, &mut report);
            Ok(report)
        }
        Ok(n) => Err(AppError::NotReady(format!(
            "{n} database migration(s) pending"
        ))),
        Err(_) => Err(AppError::NotReady(unreachable())),
    }
}

/// The cause of an unreachable database, with the embedded cluster's state when there is one.
fn unreachable() -> String {
    match crate::db::supervisor::status() {
        Some(cluster) => format!(
            "database unreachable; embedded PostgreSQL: {}",
            cluster.describe()
        ),
        None => "database unreachable".to_string(),
    }
}

/// The embedded cluster's supervision and the data volume's free space, when ready. A volume
/// below its floor does not make the process unready: reads are still served, writes answer
/// 507.
fn add_faults(state: &AppState, report: &mut BTreeMap<String, String>) {
    if let Some(cluster) = crate::db::supervisor::status() {
        report.insert("embedded_postgres".to_string(), cluster.describe());
    }
    let disk = &state.disk;
    let free_mib = disk.free_bytes() / (1024 * 1024);
    let floor_mib = disk.floor_bytes() / (1024 * 1024);
    let value = match disk.room() {
        crate::storage::space::Room::Enough => {
            format!("ok ({free_mib} MiB free, floor {floor_mib} MiB)")
        }
        crate::storage::space::Room::BelowFloor { .. } => {
            format!("below the floor: writes refused ({free_mib} MiB free, floor {floor_mib} MiB)")
        }
    };
    report.insert("disk".to_string(), value);
}
