//! The embedded default database: a private PostgreSQL + PostGIS cluster in a data directory,
//! reachable only through a Unix socket (no TCP port, so nothing can clash). Started on first use,
//! reused when already running, stopped by whoever started it. The process that started it owns
//! it: `serve` restarts it when it exits unexpectedly (`db::supervisor`), and every command stops
//! it on the way out; a process that found it running only uses it.
//!
//! initdb refuses to run as root, so as root every server command runs as the `postgres` OS user
//! (via runuser), the directory is chowned to it, and any ancestor directory that user cannot
//! traverse gets a traversal-only ACL entry for that user (never a wider permission).

use anyhow::{Context, bail, ensure};
use std::path::{Path, PathBuf};
use std::process::Command;

const CLUSTER_PORT: u16 = 5433;
const UNIX_SOCKET_PATH_LIMIT: usize = 100;
const SERVICE_USER: &str = "postgres";

/// The embedded cluster's `max_locks_per_transaction` (see `start`).
pub const MAX_LOCKS_PER_TRANSACTION: u32 = 256;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// PostgreSQL's defaults (fsync on): for `serve`.
    Full,
    /// fsync off: only for throw-away test clusters.
    ThrowAway,
}

#[derive(Debug)]
pub struct EmbeddedCluster {
    pub data_dir: PathBuf,
    pub socket_dir: PathBuf,
    pub port: u16,
    bindir: PathBuf,
    run_as: Option<String>,
    started_here: bool,
    durability: Durability,
}

impl EmbeddedCluster {
    /// Creates the cluster on first use, starts it unless it is already running.
    pub fn ensure_running(
        data_dir: &Path,
        bindir: Option<&Path>,
        durability: Durability,
    ) -> anyhow::Result<Self> {
        let bindir = match bindir {
            Some(dir) => dir.to_path_buf(),
            None => find_bindir()?,
        };
        ensure!(
            bindir.join("initdb").exists(),
            "no initdb in {}: run .ci/setup first",
            bindir.display()
        );
        std::fs::create_dir_all(data_dir)
            .with_context(|| format!("creating {}", data_dir.display()))?;
        let data_dir = data_dir.canonicalize()?;
        let run_as = if nix::unistd::geteuid().is_root() {
            Some(SERVICE_USER.to_string())
        } else {
            None
        };
        let socket_dir = socket_dir_for(&data_dir)?;
        let mut cluster = EmbeddedCluster {
            data_dir,
            socket_dir,
            port: CLUSTER_PORT,
            bindir,
            run_as,
            started_here: false,
            durability,
        };
        cluster.prepare_directories()?;
        if !cluster.data_dir.join("PG_VERSION").exists() {
            cluster.initdb()?;
        }
        if let Some((port, socket_dir)) = cluster.running_instance() {
            cluster.port = port;
            cluster.socket_dir = socket_dir;
        } else {
            match cluster.start(durability) {
                Ok(()) => cluster.started_here = true,
                // Another process started it in the meantime (two servers starting at once on
                // one data directory): that one owns it, this one uses it.
                Err(error) => match cluster.running_instance() {
                    Some((port, socket_dir)) => {
                        cluster.port = port;
                        cluster.socket_dir = socket_dir;
                    }
                    None => return Err(error),
                },
            }
        }
        Ok(cluster)
    }

    /// A streaming read replica of `primary` in `data_dir` (physical replication:
    /// `pg_basebackup -R`), created afresh (a server already running there is stopped and its
    /// directory replaced) and started. It streams through the physical replication slot
    /// `slot`, created here (drop an old one first: `db::replicas::drop_slot`), so the primary
    /// keeps the WAL the replica has not received even when it falls far behind; drop the slot
    /// when the replica is gone for good. For tests, benches and the local topology.
    pub fn create_standby(
        primary: &EmbeddedCluster,
        data_dir: &Path,
        durability: Durability,
        slot: &str,
    ) -> anyhow::Result<Self> {
        std::fs::create_dir_all(data_dir)
            .with_context(|| format!("creating {}", data_dir.display()))?;
        let data_dir = data_dir.canonicalize()?;
        let mut standby = EmbeddedCluster {
            socket_dir: socket_dir_for(&data_dir)?,
            data_dir,
            port: CLUSTER_PORT,
            bindir: primary.bindir.clone(),
            run_as: primary.run_as.clone(),
            started_here: false,
            durability,
        };
        if standby.running_instance().is_some() {
            standby.stop()?;
        }
        std::fs::remove_dir_all(&standby.data_dir)?;
        standby.prepare_directories()?;
        let data = standby.data_dir.to_string_lossy().to_string();
        let host = primary.socket_dir.to_string_lossy().to_string();
        let port = primary.port.to_string();
        standby
            .run(
                "pg_basebackup",
                &[
                    "-D",
                    &data,
                    "-h",
                    &host,
                    "-p",
                    &port,
                    "-U",
                    SERVICE_USER,
                    "-X",
                    "stream",
                    "-R",
                    "-c",
                    "fast",
                    "-C",
                    "-S",
                    slot,
                ],
            )
            .context("pg_basebackup failed")?;
        // The primary's socket lives in its data directory: the backup copies its lock file
        // (and the primary's log), which would stop the standby from opening its own socket.
        for entry in std::fs::read_dir(&standby.data_dir)?.flatten() {
            let name = entry.file_name().to_string_lossy().to_string();
            if name.starts_with(".s.PGSQL.") || name == "server.log" {
                std::fs::remove_file(entry.path())?;
            }
        }
        standby.start(durability)?;
        standby.started_here = true;
        if let Some((port, socket_dir)) = standby.running_instance() {
            standby.port = port;
            standby.socket_dir = socket_dir;
        }
        Ok(standby)
    }

    /// Where the server binaries are (benchmarks run pgbench from here).
    pub fn bindir(&self) -> &Path {
        &self.bindir
    }

    pub fn started_here(&self) -> bool {
        self.started_here
    }

    /// sqlx URL of a database in this cluster, over the Unix socket.
    pub fn url(&self, database: &str) -> String {
        format!(
            "postgres://{SERVICE_USER}@localhost/{database}?host={}&port={}",
            self.socket_dir.display(),
            self.port
        )
    }

    /// Stops the server; one that is not running (it was killed, or crashed and could not be
    /// started again) is already stopped, which is not an error.
    pub fn stop(&self) -> anyhow::Result<()> {
        if !self.is_running() {
            tracing::info!(data_dir = %self.data_dir.display(), "the embedded PostgreSQL was not running");
            return Ok(());
        }
        let data_dir = self.data_dir.to_string_lossy().to_string();
        let stopped = self.run("pg_ctl", &["-D", &data_dir, "-m", "fast", "-w", "stop"]);
        // It may have exited between the check and the signal.
        match stopped {
            Err(_) if !self.is_running() => Ok(()),
            other => other,
        }
    }

    /// Whether the postmaster named in `postmaster.pid` is alive: one file read and one signal-0
    /// probe, cheap enough to run every second. A postmaster killed while its parent does not
    /// reap it stays a zombie, which counts as dead.
    pub fn is_running(&self) -> bool {
        let Some(pid) = postmaster_pid(&self.data_dir).filter(|pid| *pid > 0) else {
            return false;
        };
        let alive = match nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None) {
            Ok(()) => true,
            Err(errno) => errno == nix::errno::Errno::EPERM,
        };
        alive && !is_zombie(pid)
    }

    /// Starts the server again with the options it was started with (after an unexpected exit:
    /// PostgreSQL runs its crash recovery by itself).
    pub fn start_again(&self) -> anyhow::Result<()> {
        self.start(self.durability)
    }

    fn prepare_directories(&self) -> anyhow::Result<()> {
        let Some(user) = &self.run_as else {
            return Ok(());
        };
        let account = nix::unistd::User::from_name(user)?.with_context(|| {
            format!("the '{user}' OS user is missing: install the postgresql package")
        })?;
        for dir in [&self.data_dir, &self.socket_dir] {
            std::fs::create_dir_all(dir)?;
            std::os::unix::fs::chown(dir, Some(account.uid.as_raw()), Some(account.gid.as_raw()))?;
            set_mode(dir, 0o700)?;
        }
        for dir in [&self.data_dir, &self.socket_dir] {
            grant_traversal(user, dir)?;
        }
        Ok(())
    }

    fn initdb(&self) -> anyhow::Result<()> {
        let data_dir = self.data_dir.to_string_lossy().to_string();
        self.run(
            "initdb",
            &[
                "-D",
                &data_dir,
                "-U",
                SERVICE_USER,
                "--auth=trust",
                "-E",
                "UTF8",
                "--locale=C.UTF-8",
                "--no-instructions",
            ],
        )
        .context("initdb failed")
    }

    fn start(&self, durability: Durability) -> anyhow::Result<()> {
        // A transformer batch holds up to 1,300 advisory locks until it commits
        // (`services::transformer::keys`), and PostgreSQL's lock table holds
        // max_locks_per_transaction × max_connections of them in all: the default 64 would
        // run out (`out of shared memory`) with a few processes' loops on one database. 256
        // holds 19 loops' batches at the default 100 connections, for 8 MB more shared memory.
        let mut options = format!(
            "-p {} -k {} -c listen_addresses='' -c max_locks_per_transaction={}",
            self.port,
            self.socket_dir.display(),
            MAX_LOCKS_PER_TRANSACTION
        );
        if durability == Durability::ThrowAway {
            // pg_stat_statements lets tests count the statements one request costs; room for every
            // test database's statements, so none is evicted while a test counts (a count that
            // shrank under eviction made the counting tests flaky).
            options.push_str(" -c fsync=off -c full_page_writes=off -c synchronous_commit=off -c max_connections=300");
            options.push_str(
                " -c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.max=20000",
            );
        }
        let data_dir = self.data_dir.to_string_lossy().to_string();
        let log = self
            .data_dir
            .join("server.log")
            .to_string_lossy()
            .to_string();
        self.run(
            "pg_ctl",
            &[
                "-D", &data_dir, "-l", &log, "-w", "-t", "60", "-o", &options, "start",
            ],
        )
        .with_context(|| format!("starting PostgreSQL failed; see {log}"))
    }

    /// Port and socket directory of a server already running on this data directory, if any.
    fn running_instance(&self) -> Option<(u16, PathBuf)> {
        let data_dir = self.data_dir.to_string_lossy().to_string();
        self.run("pg_ctl", &["-D", &data_dir, "status"]).ok()?;
        let pid_file = std::fs::read_to_string(self.data_dir.join("postmaster.pid")).ok()?;
        let lines: Vec<&str> = pid_file.lines().collect();
        let port = lines.get(3)?.trim().parse().ok()?;
        let socket_dir = PathBuf::from(lines.get(4)?.trim());
        Some((port, socket_dir))
    }

    fn run(&self, program: &str, args: &[&str]) -> anyhow::Result<()> {
        let binary = self.bindir.join(program);
        let mut command = match &self.run_as {
            Some(user) => {
                let mut c = Command::new("runuser");
                c.args(["-u", user, "--"]).arg(&binary);
                c
            }
            None => Command::new(&binary),
        };
        let output = command
            .args(args)
            .current_dir("/")
            .output()
            .with_context(|| format!("running {program}"))?;
        if !output.status.success() {
            bail!(
                "{program} exited with {}: {}{}",
                output.status,
                String::from_utf8_lossy(&output.stdout).trim(),
                String::from_utf8_lossy(&output.stderr).trim()
            );
        }
        Ok(())
    }
}

/// A process that has exited but not been reaped (state `Z` in /proc/<pid>/stat).
/// The postmaster named in the pid file of the cluster in `data_dir` (its first line), alive or
/// not; `None` when there is no readable pid file (the cluster was stopped cleanly).
pub fn postmaster_pid(data_dir: &Path) -> Option<i32> {
    std::fs::read_to_string(data_dir.join("postmaster.pid"))
        .ok()?
        .lines()
        .next()?
        .trim()
        .parse()
        .ok()
}

fn is_zombie(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        // The state follows the command name, which is in parentheses and may contain spaces.
        stat.rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_some_and(|state| state == "Z" || state == "X")
    })
}

/// The socket lives in the data directory unless that path would pass the Unix socket path limit;
/// then in a short directory under /tmp named after the data directory.
fn socket_dir_for(data_dir: &Path) -> anyhow::Result<PathBuf> {
    let socket_file_len = data_dir.as_os_str().len() + "/.s.PGSQL.5433".len();
    if socket_file_len <= UNIX_SOCKET_PATH_LIMIT {
        return Ok(data_dir.to_path_buf());
    }
    let digest = crate::auth::api_key::hash(&data_dir.to_string_lossy());
    let short: String = digest[..6].iter().map(|b| format!("{b:02x}")).collect();
    Ok(PathBuf::from(format!("/tmp/strs-{short}")))
}

fn find_bindir() -> anyhow::Result<PathBuf> {
    if let Ok(output) = Command::new("pg_config").arg("--bindir").output() {
        let dir = PathBuf::from(String::from_utf8_lossy(&output.stdout).trim());
        if output.status.success() && dir.join("initdb").exists() {
            return Ok(dir);
        }
    }
    let mut candidates: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.path().join("bin"))
                .filter(|p| p.join("initdb").exists())
                .collect()
        })
        .unwrap_or_default();
    candidates.sort_by_key(|p| {
        p.parent()
            .and_then(|v| v.file_name()?.to_str()?.parse::<u32>().ok())
    });
    candidates
        .pop()
        .context("PostgreSQL server binaries not found: run .ci/setup (or set STRS_PG_BINDIR)")
}

fn set_mode(dir: &Path, mode: u32) -> anyhow::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode))?;
    Ok(())
}

/// Makes every ancestor of `dir` traversable by `user`, adding `u:<user>:x` ACL entries only where
/// needed (a clone under /root, or in a mode-700 temporary directory, is the common case).
fn grant_traversal(user: &str, dir: &Path) -> anyhow::Result<()> {
    let can_enter = |path: &Path| {
        Command::new("runuser")
            .args(["-u", user, "--", "test", "-x"])
            .arg(path)
            .status()
            .map(|s| s.success())
            .unwrap_or(false)
    };
    if can_enter(dir) {
        return Ok(());
    }
    for ancestor in dir.ancestors().collect::<Vec<_>>().into_iter().rev() {
        if can_enter(ancestor) {
            continue;
        }
        tracing::warn!(path = %ancestor.display(), user, "granting traversal (x) ACL so the cluster can be reached");
        let status = Command::new("setfacl")
            .args(["-m", &format!("u:{user}:x")])
            .arg(ancestor)
            .status()
            .context("setfacl is missing: run .ci/setup (installs the acl package)")?;
        ensure!(status.success(), "setfacl on {} failed", ancestor.display());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_socket_lives_in_the_data_directory_unless_the_path_is_too_long() {
        let short = Path::new("/srv/data/postgres");
        assert_eq!(socket_dir_for(short).unwrap(), short);
        let long = PathBuf::from(format!("/srv/{}/postgres", "deep/".repeat(20)));
        let fallback = socket_dir_for(&long).unwrap();
        assert!(
            fallback.to_string_lossy().starts_with("/tmp/strs-"),
            "{}",
            fallback.display()
        );
        assert!(fallback.join(".s.PGSQL.5433").as_os_str().len() < UNIX_SOCKET_PATH_LIMIT);
        assert_eq!(
            fallback,
            socket_dir_for(&long).unwrap(),
            "the same data directory keeps its socket directory"
        );
    }
}
