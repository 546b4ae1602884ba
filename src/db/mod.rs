//! All SQL of the service lives below this module (plus the search query builder).
pub mod agents;
pub mod api_keys;
pub mod bands;
pub mod batched;
pub mod canonical;
pub mod certificates;
pub mod cluster;
pub mod constraints;
pub mod contributions;
pub mod entities;
pub mod entries;
pub mod events;
pub mod exports;
pub mod features;
pub mod lean;
pub mod listings;
pub mod liveness;
pub mod lookup;
pub mod messages;
pub mod names;
pub mod nearby;
pub mod notes;
pub mod offers;
pub mod outage;
pub mod place_order;
pub mod principals;
pub mod proposals;
pub mod provenance;
pub mod ranker;
pub mod rate_limits;
pub mod rekey;
pub mod replicas;
pub mod requests;
pub mod review;
pub mod signals;
pub mod signatures;
pub mod supervisor;
pub mod terms;
pub mod tile_density;
pub mod tile_extent;
pub mod tiles;
pub mod touched;
pub mod transformer_runs;
pub mod within;

use sqlx::PgPool;
use sqlx::migrate::Migrator;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use std::str::FromStr;
use std::time::Duration;

pub static MIGRATOR: Migrator = sqlx::migrate!("./migrations");

/// How long a request waits for a pooled connection before it is answered 503.
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(5);

fn pool_options(max_connections: u32) -> PgPoolOptions {
    PgPoolOptions::new()
        .max_connections(max_connections)
        .acquire_timeout(ACQUIRE_TIMEOUT)
        .test_before_acquire(false)
        .before_acquire(liveness::check_before_acquire)
        // sqlx's reaper, which enforces these two, puts every idle connection it inspects back
        // as if just released: one idle since before a database restart would then look
        // recently used and skip its ping. The hook retires old connections instead
        // (`liveness::MAX_LIFETIME`); idle ones stay open, at most `max_connections`.
        .idle_timeout(None)
        .max_lifetime(None)
        .after_connect(|_, _| {
            Box::pin(async {
                outage::note_connected();
                Ok(())
            })
        })
}

pub async fn connect(url: &str, max_connections: u32) -> anyhow::Result<PgPool> {
    Ok(pool_options(max_connections).connect(url).await?)
}

/// Time limits on every session of the service's pools: a statement still running when its
/// request has already timed out (or whose client went away) is cancelled by PostgreSQL itself,
/// and a transaction left idle cannot hold locks for long. No JIT compilation either.
#[derive(Debug, Clone, Copy)]
pub struct SessionLimits {
    pub statement_timeout: Duration,
    pub idle_in_transaction_timeout: Duration,
}

impl SessionLimits {
    /// Statements end a few seconds before the request timeout, so the 503 comes from the
    /// service with a clear cause rather than from a cut connection.
    pub fn for_request_timeout(request_timeout: Duration) -> SessionLimits {
        let statement = request_timeout
            .saturating_sub(Duration::from_secs(5))
            .max(Duration::from_secs(1));
        SessionLimits {
            statement_timeout: statement,
            idle_in_transaction_timeout: request_timeout * 2,
        }
    }

    fn apply(&self, options: PgConnectOptions) -> PgConnectOptions {
        options.options([
            (
                "statement_timeout",
                format!("{}ms", self.statement_timeout.as_millis()),
            ),
            (
                "idle_in_transaction_session_timeout",
                format!("{}ms", self.idle_in_transaction_timeout.as_millis()),
            ),
            // Every statement of the service is bounded in rows, so LLVM compilation never pays
            // for itself; it only starts when the planner's cost estimate crosses
            // `jit_above_cost`, and then adds its compile time (half a second measured for one
            // over-estimated plan, docs/bench-log/hot-paths.md) to that request alone.
            ("jit", "off".to_owned()),
        ])
    }
}

/// The service's main pool, its sessions time-limited.
pub async fn connect_limited(
    url: &str,
    max_connections: u32,
    limits: SessionLimits,
) -> anyhow::Result<PgPool> {
    let options = limits.apply(PgConnectOptions::from_str(url)?);
    Ok(pool_options(max_connections).connect_with(options).await?)
}

/// The lean pools (`db::lean`) of one server: `general` for single statements (reads, and on the
/// primary the hot writes: an entry's publication, a credential lookup), `searches` for searches.
pub struct LeanPools {
    pub general: lean::LeanPool,
    /// Sessions that plan every statement for the values of each call
    /// (`plan_cache_mode = force_custom_plan`) while keeping statements prepared (one round
    /// trip): the best search plan depends on the radius and on how common the words are, which
    /// a cached generic plan cannot know. No parallel workers: a search is one of many at once,
    /// and on two cores a worker's start and hand-over made a 100 km category search slower
    /// (64 against 42 ms, docs/bench-log/search.md).
    pub searches: lean::LeanPool,
}

impl LeanPools {
    /// Time-limited pools over `url`, connections opened on demand.
    pub fn new(url: &str, max_connections: u32, limits: SessionLimits) -> anyhow::Result<Self> {
        let options = limits.apply(PgConnectOptions::from_str(url)?);
        Ok(LeanPools {
            general: lean::pool(options.clone(), max_connections, ACQUIRE_TIMEOUT)?,
            searches: lean::pool(
                options.options([
                    ("plan_cache_mode", "force_custom_plan"),
                    ("max_parallel_workers_per_gather", "0"),
                ]),
                max_connections,
                ACQUIRE_TIMEOUT,
            )?,
        })
    }
}

/// A time-limited pool whose connections open on first use (a read replica need not be up when
/// the service starts).
pub fn connect_lazy(
    url: &str,
    max_connections: u32,
    limits: SessionLimits,
) -> anyhow::Result<PgPool> {
    let options = limits.apply(PgConnectOptions::from_str(url)?);
    Ok(pool_options(max_connections).connect_lazy_with(options))
}

/// `host:port/database` of a URL, without user or password: what logs, `/ready` and metrics may
/// name.
pub fn display_name(url: &str) -> String {
    match PgConnectOptions::from_str(url) {
        Ok(options) => format!(
            "{}:{}/{}",
            // A Unix-socket URL's host is only a label; its socket directory tells servers apart.
            options.get_socket().map_or_else(
                || options.get_host().to_string(),
                |dir| dir.display().to_string()
            ),
            options.get_port(),
            options.get_database().unwrap_or("")
        ),
        Err(_) => "unparsable URL".to_string(),
    }
}

pub async fn migrate(pool: &PgPool) -> anyhow::Result<()> {
    MIGRATOR.run(pool).await?;
    Ok(())
}

/// Readiness: the database answers and every embedded migration has been applied successfully.
pub async fn pending_migrations(pool: &PgPool) -> Result<usize, sqlx::Error> {
    let applied: Vec<i64> =
        sqlx::query_scalar("SELECT version FROM _sqlx_migrations WHERE success")
            .fetch_all(pool)
            .await?;
    Ok(MIGRATOR
        .iter()
        .filter(|m| !m.migration_type.is_down_migration() && !applied.contains(&m.version))
        .count())
}

/// Creates `name` in the cluster behind `admin_url` unless it exists (the embedded default database).
pub async fn ensure_database(admin_url: &str, name: &str) -> anyhow::Result<()> {
    let pool = connect(admin_url, 1).await?;
    let exists: bool =
        sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)")
            .bind(name)
            .fetch_one(&pool)
            .await?;
    if !exists {
        // Identifiers cannot be bound; `name` is one of our own constants, quoted anyway.
        sqlx::query(&format!(
            "CREATE DATABASE \"{}\"",
            name.replace('"', "\"\"")
        ))
        .execute(&pool)
        .await?;
    }
    pool.close().await;
    Ok(())
}

/// A listing or request near the evidence or sharing its source record or title.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct OfferCandidateRow {
    pub id: uuid::Uuid,
    /// Set for a record an operator merged into another: its keys still name that survivor.
    pub merged_into_id: Option<uuid::Uuid>,
    pub distance_m: f64,
    pub parent_id: Option<uuid::Uuid>,
    pub title_key: Option<String>,
    pub source_ref: Option<String>,
}

/// Serialises work on the same real-world identity across workers and processes. Keys are taken
/// in ascending order, so two transactions can never wait on each other in a cycle.
pub async fn advisory_xact_locks(
    conn: &mut sqlx::PgConnection,
    sorted_keys: &[i64],
) -> Result<(), sqlx::Error> {
    if sorted_keys.is_empty() {
        return Ok(());
    }
    sqlx::query("SELECT count(pg_advisory_xact_lock(k)) FROM unnest($1::bigint[]) AS k")
        .bind(sorted_keys)
        .execute(conn)
        .await?;
    Ok(())
}

/// Takes what it can of `sorted_keys` without waiting and returns the keys another transaction
/// holds. Never waiting means batches of concurrent workers can never deadlock on these locks.
pub async fn try_advisory_xact_locks(
    conn: &mut sqlx::PgConnection,
    sorted_keys: &[i64],
) -> Result<Vec<i64>, sqlx::Error> {
    if sorted_keys.is_empty() {
        return Ok(Vec::new());
    }
    sqlx::query_scalar(
        "SELECT k FROM unnest($1::bigint[]) WITH ORDINALITY AS t(k, n)
         WHERE NOT pg_try_advisory_xact_lock(k) ORDER BY n",
    )
    .bind(sorted_keys)
    .fetch_all(conn)
    .await
}

/// How many locks PostgreSQL's lock table holds, every session's together (its hash table has
/// some slack beyond this).
pub async fn lock_table_slots(pool: &PgPool) -> Result<i64, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT current_setting('max_locks_per_transaction')::bigint
                * (current_setting('max_connections')::bigint
                   + current_setting('max_prepared_transactions')::bigint)",
    )
    .fetch_one(pool)
    .await
}

/// Gives back what a connection's buffers grew to for a large statement or result (a transformer
/// batch's writes send some 500 KB): every pooled connection otherwise keeps the largest message
/// it ever carried for as long as it lives.
pub fn release_buffers(conn: &mut sqlx::PgConnection) {
    sqlx::Connection::shrink_buffers(conn);
}

/// This transaction's commit does not wait for the WAL flush. Only for work that is redone when
/// lost (the transformer: a lost outcome leaves its entries `pending`).
pub async fn relax_commit_durability(conn: &mut sqlx::PgConnection) -> Result<(), sqlx::Error> {
    sqlx::query("SET LOCAL synchronous_commit = off")
        .execute(conn)
        .await?;
    Ok(())
}

/// Where a query of this module may run: `&PgPool`, `&lean::LeanPool`, or any other executor that
/// can be used again (a function that runs several statements uses it once per statement).
/// How far a list's `totalCount` counts (docs/graphql.md): a list longer than this answers
/// null rather than costing every request a scan of everything it holds.
pub const COUNT_CAP: i64 = 10_000;

/// A list statement, with its cursor bound to NULL and its row limit to `COUNT_CAP + 1`, as the
/// number of rows it returns: the count follows the list's own filter, whatever it is.
pub fn counted(statement: &str) -> String {
    format!("SELECT count(*) FROM ({statement}) AS counted")
}

/// A count taken with `counted`, or `None` past the cap.
pub fn within_cap(count: i64) -> Option<i64> {
    (count <= COUNT_CAP).then_some(count)
}

pub trait Reads<'c>: sqlx::PgExecutor<'c> + Copy {}

impl<'c, T: sqlx::PgExecutor<'c> + Copy> Reads<'c> for T {}
