//! A scale-out topology on one machine: a primary and a streaming replica (PostgreSQL's own
//! physical replication, `pg_basebackup -R`) as private clusters, and N server processes on
//! loopback ports sharing them. The multi-process tests, the scale bench and
//! `spacetime-records topology` (`scripts/topology`) all start it through this module.

use crate::db::cluster::{Durability, EmbeddedCluster};
use anyhow::{Context, bail};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The replication slot of the topology's replica (made afresh with it).
pub const REPLICA_SLOT: &str = "strs_topology_replica";

/// A primary and one streaming replica of it.
pub struct Databases {
    pub primary: EmbeddedCluster,
    pub replica: EmbeddedCluster,
}

impl Databases {
    /// Starts (or reuses) the primary in `dir/primary` and makes a fresh replica of it in
    /// `dir/replica`, streaming through the slot `REPLICA_SLOT`.
    pub async fn start(
        dir: &Path,
        bindir: Option<&Path>,
        durability: Durability,
    ) -> anyhow::Result<Self> {
        let (primary_dir, bindir) = (dir.join("primary"), bindir.map(Path::to_path_buf));
        let primary = tokio::task::spawn_blocking(move || {
            EmbeddedCluster::ensure_running(&primary_dir, bindir.as_deref(), durability)
        })
        .await??;
        let primary = std::sync::Arc::new(primary);
        let replica = standby_of(&primary, &dir.join("replica"), durability, REPLICA_SLOT).await?;
        let primary = std::sync::Arc::into_inner(primary).context("the primary is not shared")?;
        Ok(Databases { primary, replica })
    }

    /// Stops the replica, then the primary (each only if started here).
    pub fn stop(&self) -> anyhow::Result<()> {
        if self.replica.started_here() {
            self.replica.stop()?;
        }
        if self.primary.started_here() {
            self.primary.stop()?;
        }
        Ok(())
    }
}

/// A fresh streaming replica of `primary` in `dir` through the replication slot `slot` (an
/// unused slot of that name is dropped first).
pub async fn standby_of(
    primary: &std::sync::Arc<EmbeddedCluster>,
    dir: &Path,
    durability: Durability,
    slot: &str,
) -> anyhow::Result<EmbeddedCluster> {
    drop_slot(primary, slot).await?;
    let (primary, dir, slot) = (primary.clone(), dir.to_path_buf(), slot.to_string());
    tokio::task::spawn_blocking(move || {
        EmbeddedCluster::create_standby(&primary, &dir, durability, &slot)
    })
    .await?
}

/// Drops the replication slot `slot` unless a replica streams through it (an unused slot keeps
/// WAL on the primary for ever).
pub async fn drop_slot(primary: &EmbeddedCluster, slot: &str) -> anyhow::Result<()> {
    let admin = crate::db::connect(&primary.url("postgres"), 1).await?;
    crate::db::replicas::drop_slot(&admin, slot).await?;
    admin.close().await;
    Ok(())
}

/// Waits until `database` exists on the replica (its creation has been replayed).
pub async fn wait_for_database(replica_url: &str, timeout: Duration) -> anyhow::Result<()> {
    let deadline = Instant::now() + timeout;
    loop {
        match crate::db::connect(replica_url, 1).await {
            Ok(pool) => {
                pool.close().await;
                return Ok(());
            }
            Err(error) if Instant::now() >= deadline => {
                return Err(error).context("the replica never showed the database");
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    }
}

/// How one server process is started.
#[derive(Debug, Clone)]
pub struct ServerSettings {
    /// The service binary (the tests' `CARGO_BIN_EXE_spacetime-records`, or this executable).
    pub binary: PathBuf,
    pub database_url: String,
    pub replica_urls: Vec<String>,
    pub port: u16,
    /// Shared by every process of a topology: attachments live there.
    pub data_dir: PathBuf,
    /// Shared by every process: an access token signed by one is accepted by all.
    pub jwt_secret: String,
    /// Further environment (`STRS_TRANSFORMER_LOOPS`, `RUST_LOG`, …).
    pub env: Vec<(String, String)>,
    /// Where the process's log lines go (standard output); inherited when `None`.
    pub log_file: Option<PathBuf>,
}

/// A server process, stopped (SIGTERM, then waited for) when dropped.
pub struct ServerProcess {
    child: Child,
    pub port: u16,
}

impl ServerProcess {
    pub fn spawn(settings: &ServerSettings) -> anyhow::Result<ServerProcess> {
        let mut command = Command::new(&settings.binary);
        command.arg("serve");
        // No URL: the process runs the embedded cluster in its data directory.
        if settings.database_url.is_empty() {
            command.env_remove("DATABASE_URL");
        } else {
            command.env("DATABASE_URL", &settings.database_url);
        }
        command
            .env("STRS_BIND", format!("127.0.0.1:{}", settings.port))
            .env("STRS_DATA_DIR", &settings.data_dir)
            .env("STRS_JWT_SECRET", &settings.jwt_secret)
            .envs(settings.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null());
        if !settings.replica_urls.is_empty() {
            command.env("DATABASE_REPLICA_URL", settings.replica_urls.join(","));
        }
        if let Some(path) = &settings.log_file {
            let log = std::fs::File::create(path)
                .with_context(|| format!("creating {}", path.display()))?;
            command.stdout(log.try_clone()?).stderr(log);
        }
        let child = command
            .spawn()
            .with_context(|| format!("starting {}", settings.binary.display()))?;
        Ok(ServerProcess {
            child,
            port: settings.port,
        })
    }

    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Waits until the process answers `/ready` with 200.
    pub async fn wait_ready(&mut self, timeout: Duration) -> anyhow::Result<()> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.child.try_wait()? {
                bail!("the server on port {} exited with {status}", self.port);
            }
            if ready_status(self.port).await == Some(200) {
                return Ok(());
            }
            if Instant::now() >= deadline {
                bail!(
                    "the server on port {} was not ready in {timeout:?}",
                    self.port
                );
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Asks the process to stop (SIGTERM: it drains its requests) and waits for it; its exit
    /// status (`None` when it had to be killed).
    pub fn stop(&mut self) -> Option<std::process::ExitStatus> {
        let pid = nix::unistd::Pid::from_raw(self.child.id() as i32);
        if nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).is_ok() {
            let deadline = Instant::now() + Duration::from_secs(35);
            while Instant::now() < deadline {
                if let Ok(Some(status)) = self.child.try_wait() {
                    return Some(status);
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        None
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.stop();
    }
}

/// The status code of `GET /ready`, or `None` when nothing answers. A plain HTTP/1.0 exchange,
/// so that the library needs no HTTP client.
async fn ready_status(port: u16) -> Option<u16> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let exchange = async {
        let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .ok()?;
        stream
            .write_all(b"GET /ready HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
            .await
            .ok()?;
        let mut head = [0u8; 12];
        stream.read_exact(&mut head).await.ok()?;
        std::str::from_utf8(&head[9..12]).ok()?.parse().ok()
    };
    tokio::time::timeout(Duration::from_secs(2), exchange)
        .await
        .ok()
        .flatten()
}

/// A loopback port free at the moment of asking.
pub fn free_port() -> anyhow::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}

/// A fresh random signing secret for the processes of one topology.
pub fn shared_secret() -> String {
    use rand::RngCore;
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `spacetime-records topology`: a primary, a replica and `processes` servers on ports
/// `first_port..`, until Ctrl-C; then the servers drain and stop, then the clusters (also when
/// starting a server failed).
pub async fn run_local(dir: &Path, processes: usize, first_port: u16) -> anyhow::Result<()> {
    anyhow::ensure!((1..=16).contains(&processes), "--processes must be 1 to 16");
    let databases = Databases::start(dir, None, Durability::Full).await?;
    let served = serve_until_interrupted(&databases, dir, processes, first_port).await;
    tokio::task::spawn_blocking(move || databases.stop()).await??;
    served
}

#[expect(
    clippy::print_stdout,
    reason = "the addresses are for the person at the terminal"
)]
async fn serve_until_interrupted(
    databases: &Databases,
    dir: &Path,
    processes: usize,
    first_port: u16,
) -> anyhow::Result<()> {
    let database = crate::app::EMBEDDED_DATABASE;
    let primary_url = databases.primary.url(database);
    crate::db::ensure_database(&databases.primary.url("postgres"), database).await?;
    let replica_url = databases.replica.url(database);
    wait_for_database(&replica_url, Duration::from_secs(30)).await?;
    let settings = ServerSettings {
        binary: std::env::current_exe()?,
        database_url: primary_url.clone(),
        replica_urls: vec![replica_url.clone()],
        port: first_port,
        data_dir: dir.join("files"),
        jwt_secret: shared_secret(),
        env: Vec::new(),
        log_file: None,
    };
    let mut servers = Vec::new();
    for i in 0..processes {
        let port = first_port
            .checked_add(i as u16)
            .context("the ports run past 65535")?;
        let mut server = ServerProcess::spawn(&ServerSettings {
            port,
            ..settings.clone()
        })?;
        server.wait_ready(Duration::from_secs(60)).await?;
        servers.push(server);
    }
    println!("primary: {}", crate::db::display_name(&primary_url));
    println!("replica: {}", crate::db::display_name(&replica_url));
    for server in &servers {
        println!("server:  {} (pid {})", server.base_url(), server.pid());
    }
    println!("Ctrl-C stops the servers, then the replica and the primary.");
    tokio::signal::ctrl_c().await?;
    drop(servers);
    Ok(())
}
