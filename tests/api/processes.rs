//! Server processes for multi-process tests: the real binary on loopback ports, over a test
//! database of the test cluster or of the scale-out topology (a primary with a streaming
//! replica per test; `spacetime_records::topology`).

use crate::harness::{TEST_JWT_SECRET, ThrowAwayDatabase, template_on, tmp_dir};
use reqwest::StatusCode;
use serde_json::Value;
use spacetime_records::db::cluster::{Durability, EmbeddedCluster};
use spacetime_records::topology::{
    ServerProcess, ServerSettings, free_port, standby_of, wait_for_database,
};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

pub const READY_WAIT: Duration = Duration::from_secs(60);

/// Starts the service binary over `database_url` (and `replica_urls`) with `env` on top of the
/// test defaults; waits until it is ready.
pub async fn spawn(
    database_url: &str,
    replica_urls: &[String],
    data_dir: PathBuf,
    env: &[(&str, &str)],
) -> ServerProcess {
    spawn_with_log(database_url, replica_urls, data_dir, env, None).await
}

/// `spawn`, with the process's log lines written to `log_file`.
pub async fn spawn_with_log(
    database_url: &str,
    replica_urls: &[String],
    data_dir: PathBuf,
    env: &[(&str, &str)],
    log_file: Option<&std::path::Path>,
) -> ServerProcess {
    let port = free_port().unwrap();
    std::fs::create_dir_all(&data_dir).unwrap();
    let log_file = log_file.map_or_else(
        || data_dir.join(format!("server-{port}.log")),
        std::path::Path::to_path_buf,
    );
    let mut settings = ServerSettings {
        binary: PathBuf::from(env!("CARGO_BIN_EXE_spacetime-records")),
        database_url: database_url.to_string(),
        replica_urls: replica_urls.to_vec(),
        port,
        data_dir,
        jwt_secret: TEST_JWT_SECRET.to_string(),
        env: [
            ("STRS_DB_MAX_CONNECTIONS", "4"),
            ("STRS_TRANSFORMER_LOOPS", "1"),
            ("STRS_REPLICA_CHECK_MS", "200"),
            ("RUST_LOG", "warn"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect(),
        log_file: Some(log_file.clone()),
    };
    for (key, value) in env {
        settings.env.retain(|(k, _)| k != key);
        settings.env.push((key.to_string(), value.to_string()));
    }
    let mut server = ServerProcess::spawn(&settings).expect("starting the server binary");
    if let Err(error) = server.wait_ready(READY_WAIT).await {
        let log = std::fs::read_to_string(&log_file).unwrap_or_default();
        panic!("{error:#}; its log:\n{log}");
    }
    server
}

/// The binary as an operator first runs it: no `DATABASE_URL`, its own PostgreSQL in
/// `data_dir`, logging at info to `log`, with `env` on top; and an API key of a fresh agent.
pub async fn spawn_embedded(
    data_dir: PathBuf,
    env: &[(&str, &str)],
    log: &std::path::Path,
) -> (ServerProcess, String) {
    let mut env = env.to_vec();
    env.push(("RUST_LOG", "info,sqlx=warn"));
    let server = spawn_with_log("", &[], data_dir, &env, Some(log)).await;
    let (status, body) = call(
        &reqwest::Client::new(),
        reqwest::Method::POST,
        &format!("{}/api/v1/agents/register", server.base_url()),
        None,
        Some(&serde_json::json!({"agent_type": "api_agent", "display_name": "Operator's first agent"})),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let key = body["api_key"].as_str().unwrap().to_string();
    (server, key)
}

/// The topology's primary: one throw-away cluster for the whole test run, apart from the main
/// test cluster so that its replicas replay only the multi-process tests' traffic.
fn primary() -> &'static Arc<EmbeddedCluster> {
    static PRIMARY: OnceLock<Arc<EmbeddedCluster>> = OnceLock::new();
    PRIMARY.get_or_init(|| {
        let lock = std::fs::File::create(tmp_dir().join("topology.lock")).expect("lock file");
        lock.lock().expect("locking the topology cluster");
        Arc::new(
            EmbeddedCluster::ensure_running(
                &tmp_dir().join("topology").join("primary"),
                None,
                Durability::ThrowAway,
            )
            .expect("starting the topology's primary"),
        )
    })
}

/// Replication slots are named `strs_t_<pid>_<n>`: slots of test runs whose process is gone
/// (a run that was killed) are dropped once per run, or they would keep WAL for ever.
const SLOT_PREFIX: &str = "strs_t_";

/// Once per run: keeps enough WAL for a base backup taken while other tests write (each test
/// database's creation writes its template into the WAL), and drops leftover slots.
async fn prepare_primary(primary: &EmbeddedCluster) {
    static DONE: tokio::sync::OnceCell<()> = tokio::sync::OnceCell::const_new();
    DONE.get_or_init(|| async {
        let admin = spacetime_records::db::connect(&primary.url("postgres"), 1)
            .await
            .unwrap();
        for setting in [
            "ALTER SYSTEM SET wal_keep_size = '1GB'",
            "SELECT pg_reload_conf()",
        ] {
            sqlx::query(setting).execute(&admin).await.unwrap();
        }
        let slots = spacetime_records::db::replicas::inactive_slots(&admin, SLOT_PREFIX)
            .await
            .unwrap();
        for slot in slots {
            let pid = slot[SLOT_PREFIX.len()..].split('_').next().unwrap_or("");
            if !std::path::Path::new(&format!("/proc/{pid}")).exists() {
                let _ = spacetime_records::db::replicas::drop_slot(&admin, &slot).await;
            }
        }
        admin.close().await;
    })
    .await;
}

/// A test's own database on the topology's primary, its own streaming replica of that primary,
/// and the server processes the test starts over both. Dropped in that order, reversed.
pub struct Topology {
    pub servers: Vec<ServerProcess>,
    pub replica: Replica,
    pub database: ThrowAwayDatabase,
    pub primary_pool: sqlx::PgPool,
}

/// A standby made for one test; stopped and removed with it, and its slot dropped.
pub struct Replica {
    pub cluster: EmbeddedCluster,
    pub url: String,
    dir: PathBuf,
    slot: String,
}

impl Drop for Replica {
    fn drop(&mut self) {
        let _ = self.cluster.stop();
        let _ = std::fs::remove_dir_all(&self.dir);
        let slot = self.slot.clone();
        // Drop runs inside the test's runtime, which cannot be blocked on: a thread of its own.
        let _ = std::thread::spawn(move || {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a runtime for dropping the slot")
                .block_on(spacetime_records::topology::drop_slot(primary(), &slot))
        })
        .join();
    }
}

impl Replica {
    /// Stops replaying the primary's WAL (the replica stays readable, falling behind).
    pub async fn pause_replay(&self) {
        self.admin("SELECT pg_wal_replay_pause()").await;
    }

    pub async fn resume_replay(&self) {
        self.admin("SELECT pg_wal_replay_resume()").await;
    }

    async fn admin(&self, sql: &str) {
        let pool = spacetime_records::db::connect(&self.url, 1).await.unwrap();
        sqlx::query(sql).execute(&pool).await.unwrap();
        pool.close().await;
    }
}

impl Topology {
    /// A primary database, a replica of it and `processes` servers reading from both, each
    /// server with `env` on top of the test defaults.
    pub async fn start(processes: usize, env: &[(&str, &str)]) -> Topology {
        static TEMPLATE: tokio::sync::OnceCell<String> = tokio::sync::OnceCell::const_new();
        let primary = primary();
        let admin = primary.url("postgres");
        let template = template_on(&admin, &TEMPLATE).await;
        let database = ThrowAwayDatabase::create_on(&admin, template).await;
        let dir = tmp_dir()
            .join("topology")
            .join(format!("replica-{}", uuid::Uuid::new_v4().simple()));
        prepare_primary(primary).await;
        static SLOTS: AtomicUsize = AtomicUsize::new(0);
        let slot = format!(
            "{SLOT_PREFIX}{}_{}",
            std::process::id(),
            SLOTS.fetch_add(1, Ordering::SeqCst)
        );
        let cluster = standby_of(primary, &dir, Durability::ThrowAway, &slot)
            .await
            .unwrap_or_else(|e| panic!("creating the streaming replica: {e:#}"));
        let replica = Replica {
            url: cluster.url(&database.name),
            cluster,
            dir,
            slot,
        };
        wait_for_database(&replica.url, Duration::from_secs(30))
            .await
            .unwrap();
        let primary_pool = spacetime_records::db::connect(&database.url, 2)
            .await
            .unwrap();
        let mut servers = Vec::new();
        for _ in 0..processes {
            servers.push(
                spawn(
                    &database.url,
                    std::slice::from_ref(&replica.url),
                    database.data_dir.clone(),
                    env,
                )
                .await,
            );
        }
        Topology {
            servers,
            replica,
            database,
            primary_pool,
        }
    }

    pub fn url(&self, server: usize, path: &str) -> String {
        format!("{}{path}", self.servers[server].base_url())
    }

    pub async fn count(&self, sql: &str) -> i64 {
        sqlx::query_scalar(sql)
            .fetch_one(&self.primary_pool)
            .await
            .unwrap()
    }
}

/// A server process's metrics, as Prometheus text, from its `/metrics` URL.
pub async fn read_metrics(client: &reqwest::Client, url: impl reqwest::IntoUrl) -> String {
    client
        .get(url)
        .send()
        .await
        .expect("the server answers")
        .text()
        .await
        .unwrap()
}

/// A JSON exchange with a server process: status and body (`Null` when not JSON).
pub async fn call(
    client: &reqwest::Client,
    method: reqwest::Method,
    url: &str,
    key: Option<&str>,
    body: Option<&Value>,
) -> (StatusCode, Value) {
    let mut request = client.request(method, url);
    if let Some(key) = key {
        request = request.bearer_auth(key);
    }
    if let Some(body) = body {
        request = request.json(body);
    }
    let response = request.send().await.expect("the server answers");
    let status = response.status();
    let bytes = response.bytes().await.unwrap_or_default();
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}
