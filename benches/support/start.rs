//! How every bench starts: its `main` (log filter, runtime), the PostgreSQL clusters kept under
//! `target/` between runs, and the in-process application the closed-loop benches drive (their
//! settings, and the kept seeded database they run over).

use super::process::env_or;
use super::{seeded, size};
use axum::Router;
use spacetime_records::app;
use spacetime_records::config::Config;
use spacetime_records::db::cluster::{Durability, EmbeddedCluster};
use spacetime_records::state::AppState;
use sqlx::PgPool;
use std::future::Future;
use std::path::{Path, PathBuf};

/// The allocator tuned as the server tunes it, warnings only (`RUST_LOG` overrides), then `run` on
/// a multi-threaded runtime.
pub fn block_on(run: impl Future<Output = anyhow::Result<()>>) -> anyhow::Result<()> {
    spacetime_records::alloc::tune();
    let filter = std::env::var("RUST_LOG").unwrap_or_else(|_| "warn,sqlx=error".to_string());
    let _ = tracing_subscriber::fmt().with_env_filter(filter).try_init();
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?
        .block_on(run)
}

/// `target/<name>` (the parent of the tmp dir cargo gives benches, so `CARGO_TARGET_DIR` is
/// honoured): where seeded databases outlive a run.
pub fn kept(name: &str) -> PathBuf {
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    tmp.parent()
        .map(Path::to_path_buf)
        .unwrap_or(tmp)
        .join(name)
}

/// The cluster in `dir`, started unless it is already running; fsync on, as in production.
pub async fn cluster_in(dir: PathBuf) -> anyhow::Result<EmbeddedCluster> {
    tokio::task::spawn_blocking(move || {
        EmbeddedCluster::ensure_running(&dir, None, Durability::Full)
    })
    .await?
}

/// The application in this process over `database_url`, its pool sized for `clients`
/// closed-loop clients (two connections each, at least eight).
pub async fn in_process(database_url: &str, clients: usize) -> anyhow::Result<AppState> {
    let mut config = Config::for_data_dir(kept("bench-data"));
    config.jwt_secret = Some("bench-secret-bench-secret-bench-secret".into());
    config.db_max_connections = u32::try_from(clients * 2).unwrap_or(u32::MAX).max(8);
    app::build_state(config, database_url).await
}

/// A closed-loop bench's defaults, which its environment may override (`Settings::from_env`).
pub struct Defaults {
    pub entities: usize,
    pub seconds: u64,
    pub concurrency: usize,
    pub rounds: usize,
}

/// What a closed-loop bench is told by its environment: `{prefix}_ENTITIES` (else the shared
/// `BENCH_RECORDS`, `support::size`), `{prefix}_SECONDS`, `{prefix}_CONCURRENCY` and
/// `{prefix}_ROUNDS` (at least one), each falling back to the bench's default; and the kept
/// database of that size.
pub struct Settings {
    pub entities: usize,
    pub seconds: u64,
    pub concurrency: usize,
    pub rounds: usize,
    /// `support::size::database` of the bench's database name at this size.
    pub database: String,
}

impl Settings {
    pub fn from_env(prefix: &str, database: &str, defaults: Defaults) -> anyhow::Result<Self> {
        let var = |name: &str| format!("{prefix}_{name}");
        let entities = size::records(&var("ENTITIES"), defaults.entities)?;
        Ok(Self {
            entities,
            seconds: env_or(&var("SECONDS"), defaults.seconds),
            concurrency: env_or(&var("CONCURRENCY"), defaults.concurrency),
            rounds: env_or(&var("ROUNDS"), defaults.rounds).max(1),
            database: size::database(database, entities, defaults.entities),
        })
    }

    /// The size's label, the first column of every row of the bench's table.
    pub fn size(&self) -> String {
        size::label(self.entities)
    }

    /// The first line of the bench's report.
    pub fn headline(&self, bench: &str) -> String {
        format!(
            "\n{bench}: {} entities ({}, database {}), {} s per measurement, {} clients, best of {} rounds",
            self.entities,
            self.size(),
            self.database,
            self.seconds,
            self.concurrency,
            self.rounds
        )
    }
}

/// A closed-loop bench's ground: the kept cluster, `settings.database` in it holding
/// `settings.entities` generated entities of `seed`, and the application over that database (its
/// state and router).
pub async fn seeded_app(
    seed: u64,
    settings: &Settings,
) -> anyhow::Result<(EmbeddedCluster, PgPool, AppState, Router)> {
    let cluster = cluster_in(kept("bench-pg")).await?;
    let contents = seeded::Contents::new(seed, settings.entities);
    let pool = seeded::kept(&cluster, &settings.database, contents).await?;
    let state = in_process(&cluster.url(&settings.database), settings.concurrency).await?;
    let router = app::build_router(state.clone());
    Ok((cluster, pool, state, router))
}
