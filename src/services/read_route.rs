//! Which database a read goes to: the primary, or a streaming read replica in rotation.
//!
//! A request decides once, at its start (`scoped`), whether its reads may go to a replica: GET
//! requests and GraphQL queries may, unless the caller wrote within the read-your-writes window
//! (the credential lookup on the primary tells, `auth::authenticate`); writes, GraphQL mutations,
//! MCP calls, background work and subscriptions read the primary. Services ask `reads(state)` /
//! `search_reads(state)` for their pool, so the choice lives here and not in every call site.
//! The decision travels with the request's task (a task-local); the GraphQL batch loaders run
//! their batches in that task (`graphql::machinery::batching`), so their reads follow it too.
//!
//! Each process measures its replicas every `STRS_REPLICA_CHECK_MS` (`monitor`): a replica that
//! is unreachable, not a standby, or further behind than `STRS_REPLICA_MAX_LAG_MS` leaves the
//! rotation until a later check finds it fit. With no replica in rotation, reads go to the
//! primary.

use crate::config::Config;
use crate::db;
use crate::db::lean::LeanPool;
use crate::state::AppState;
use sqlx::PgPool;
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

tokio::task_local! {
    static ROUTE: RequestRoute;
}

/// The request's routing decision; `Cell`s because a GraphQL mutation, found after parsing,
/// turns a request that was allowed to read a replica into a writing one.
struct RequestRoute {
    replica_allowed: Cell<bool>,
    wrote: Cell<bool>,
}

/// Runs `future` (a request) with its reads allowed on a replica or not.
pub async fn scoped<F: Future>(replica_allowed: bool, future: F) -> (F::Output, bool) {
    let route = RequestRoute {
        replica_allowed: Cell::new(replica_allowed),
        wrote: Cell::new(false),
    };
    ROUTE
        .scope(route, async move {
            let output = future.await;
            let wrote = ROUTE.with(|r| r.wrote.get());
            (output, wrote)
        })
        .await
}

/// The request writes (a GraphQL mutation): its reads go to the primary from here on, and its
/// caller is marked as a recent writer.
pub fn writing() {
    let _ = ROUTE.try_with(|r| {
        r.replica_allowed.set(false);
        r.wrote.set(true);
    });
}

fn replica_allowed() -> bool {
    ROUTE.try_with(|r| r.replica_allowed.get()).unwrap_or(false)
}

/// The pool for a read that tolerates replica lag (`db::lean`: connections go back without a
/// round trip).
pub fn reads(state: &AppState) -> &LeanPool {
    match pick(state) {
        Some(replica) => &replica.lean.general,
        None => &state.lean.general,
    }
}

/// The primary's pool for reads: where a miss on a replica is asked again.
pub fn primary_reads(state: &AppState) -> &LeanPool {
    &state.lean.general
}

/// A read by id that tolerates lag, except for a miss: a record created after the replica's last
/// replay (another agent's fresh id, a registration answered a moment ago) is asked of the
/// primary before the caller is told it does not exist. `read_one!(state, |pool| db::get(pool,
/// id))`; the read is written once and run on the second pool only after a miss (a macro, as a
/// closure returning a borrowing future cannot be named `Send` for the GraphQL resolvers).
macro_rules! read_one {
    ($state:expr, |$pool:ident| $read:expr) => {{
        let state: &$crate::state::AppState = $state;
        let $pool = $crate::services::read_route::reads(state);
        let on_replica = !std::ptr::eq($pool, $crate::services::read_route::primary_reads(state));
        match $read.await {
            Ok(None) if on_replica => {
                let $pool = $crate::services::read_route::primary_reads(state);
                $read.await
            }
            found => found,
        }
    }};
}
pub(crate) use read_one;

/// A batch read by ids (the loaders' shape) with `read_one!`'s fallback for the ids the
/// replica does not have yet: `read_many!(state, ids, |row| row.id, |pool, ids| db::get_many(pool,
/// ids))`.
macro_rules! read_many {
    ($state:expr, $ids:expr, |$row:ident| $id_of:expr, |$pool:ident, $wanted:ident| $read:expr) => {{
        let state: &$crate::state::AppState = $state;
        let all: &[uuid::Uuid] = $ids;
        let $pool = $crate::services::read_route::reads(state);
        let on_replica = !std::ptr::eq($pool, $crate::services::read_route::primary_reads(state));
        let $wanted = all;
        match $read.await {
            Ok(mut found) if on_replica && found.len() < all.len() => {
                let have: std::collections::HashSet<uuid::Uuid> =
                    found.iter().map(|$row| $id_of).collect();
                let missing: Vec<uuid::Uuid> = all
                    .iter()
                    .copied()
                    .filter(|id| !have.contains(id))
                    .collect();
                let $pool = $crate::services::read_route::primary_reads(state);
                let $wanted = &missing[..];
                $read.await.map(|more| {
                    found.extend(more);
                    found
                })
            }
            found => found,
        }
    }};
}
pub(crate) use read_many;

/// The pool for a search (per-call plans: `db::LeanPools::searches`) that tolerates replica lag.
pub fn search_reads(state: &AppState) -> &LeanPool {
    match pick(state) {
        Some(replica) => &replica.lean.searches,
        None => &state.lean.searches,
    }
}

fn pick(state: &AppState) -> Option<&Replica> {
    let replicas = &state.replicas;
    if replicas.members.is_empty() || !replica_allowed() {
        return None;
    }
    let start = replicas.next.fetch_add(1, Ordering::Relaxed);
    let count = replicas.members.len();
    (0..count)
        .map(|i| &replicas.members[(start + i) % count])
        .find(|r| r.in_rotation.load(Ordering::Relaxed))
}

/// The process's read replicas and what it last measured of them.
#[derive(Default)]
pub struct Replicas {
    members: Vec<Replica>,
    next: AtomicUsize,
    max_lag: Duration,
    check_every: Duration,
}

pub struct Replica {
    /// host:port/database, without credentials: safe for logs, `/ready` and metrics.
    pub name: String,
    /// For the lag measurement.
    pub pool: PgPool,
    pub lean: db::LeanPools,
    in_rotation: AtomicBool,
    health: Mutex<Health>,
}

/// What the last check found.
#[derive(Debug, Clone, Default)]
pub struct Health {
    pub state: ReplicaState,
    pub lag_seconds: f64,
    pub lag_bytes: f64,
    /// Since when the replica has been continuously behind (bytes to replay), for the lag
    /// estimate.
    behind_since: Option<Instant>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ReplicaState {
    /// Not measured yet: out of rotation until the first check.
    #[default]
    Unchecked,
    InRotation,
    Lagging,
    NotStandby,
    Unreachable,
}

impl ReplicaState {
    pub fn as_str(self) -> &'static str {
        match self {
            ReplicaState::Unchecked => "unchecked",
            ReplicaState::InRotation => "ok",
            ReplicaState::Lagging => "lagging",
            ReplicaState::NotStandby => "not a standby",
            ReplicaState::Unreachable => "unreachable",
        }
    }
}

impl Replicas {
    /// Pools for every configured replica (connections open on first use).
    pub fn connect(config: &Config, limits: db::SessionLimits) -> anyhow::Result<Replicas> {
        let members = config
            .replica_urls
            .iter()
            // `DATABASE_REPLICA_URL=` (set but empty) means no replica.
            .filter(|url| !url.expose().trim().is_empty())
            .map(|url| {
                let url = url.expose();
                Ok(Replica {
                    name: db::display_name(url),
                    pool: db::connect_lazy(url, 1, limits)?,
                    lean: db::LeanPools::new(url, config.db_max_connections, limits)?,
                    in_rotation: AtomicBool::new(false),
                    health: Mutex::new(Health::default()),
                })
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        Ok(Replicas {
            members,
            next: AtomicUsize::new(0),
            max_lag: Duration::from_millis(config.replica_max_lag_ms),
            check_every: Duration::from_millis(config.replica_check_ms),
        })
    }

    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// Each replica's name and last measured health.
    pub fn health(&self) -> Vec<(&str, Health)> {
        self.members
            .iter()
            .map(|r| {
                (
                    r.name.as_str(),
                    r.health.lock().expect("health lock").clone(),
                )
            })
            .collect()
    }

    pub fn pools(&self) -> impl Iterator<Item = (&str, &db::LeanPools)> {
        self.members.iter().map(|r| (r.name.as_str(), &r.lean))
    }
}

/// Measures every replica once and updates the rotation.
#[tracing::instrument(name = "read_route::check", level = "debug", skip_all)]
pub async fn check(state: &AppState) {
    let replicas = &state.replicas;
    for replica in &replicas.members {
        let measured = tokio::time::timeout(
            replicas.check_every.max(Duration::from_secs(1)),
            db::replicas::measure(&replica.pool, &state.pool),
        )
        .await;
        let mut health = replica.health.lock().expect("health lock");
        let now = Instant::now();
        health.state = match measured {
            Ok(Ok(lag)) if !lag.in_recovery => ReplicaState::NotStandby,
            Ok(Ok(lag)) => {
                health.lag_bytes = lag.bytes;
                if lag.bytes > 0.0 {
                    let since = *health.behind_since.get_or_insert(now);
                    // The replay timestamp alone overstates the lag of a replica of a quiet
                    // primary (it is the age of the last commit replayed); the time it has been
                    // continuously behind caps it.
                    let behind_for = now.duration_since(since).as_secs_f64();
                    health.lag_seconds =
                        lag.replay_age.unwrap_or(behind_for).clamp(0.0, behind_for);
                } else {
                    health.behind_since = None;
                    health.lag_seconds = 0.0;
                }
                if health.lag_seconds > replicas.max_lag.as_secs_f64() {
                    ReplicaState::Lagging
                } else {
                    ReplicaState::InRotation
                }
            }
            Ok(Err(_)) | Err(_) => ReplicaState::Unreachable,
        };
        let in_rotation = health.state == ReplicaState::InRotation;
        if replica.in_rotation.swap(in_rotation, Ordering::Relaxed) != in_rotation {
            if in_rotation {
                tracing::info!(replica = %replica.name, "read replica in rotation");
            } else {
                tracing::warn!(replica = %replica.name, state = health.state.as_str(), lag_seconds = health.lag_seconds, "read replica out of rotation");
            }
        }
    }
}

/// Checks the replicas every `STRS_REPLICA_CHECK_MS` for as long as the state lives.
pub fn monitor(state: &AppState) {
    if state.replicas.is_empty() {
        return;
    }
    let weak: Weak<crate::state::Shared> = Arc::downgrade(state.shared());
    let every = state.replicas.check_every;
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(every).await;
            let Some(shared) = weak.upgrade() else { return };
            check(&AppState::from_shared(shared)).await;
        }
    });
}
