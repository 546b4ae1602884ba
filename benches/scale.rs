//! Scale-out benchmark: 1, 2 and 4 server processes (the release binary) over one primary and a
//! streaming replica (`spacetime_records::topology`), under one mixed load over real HTTP on
//! loopback: reads by id, searches (a category within 1 km of a record) and entry posts, from
//! `BENCH_SCALE_CLIENTS` closed-loop clients spread over the processes.
//!
//! For each process count it prints throughput, p50/p99 overall and per kind, and the CPU the
//! primary, the replica, the servers and the load generator used (cores, from /proc), so the
//! table shows where the ceiling is. The transformer runs in every process as in production; the
//! backlog the posts leave is drained (and timed) before the next process count starts.
//!
//! `cargo bench --bench scale`; `BENCH_SCALE_PROCESSES=1,2,4`, `BENCH_SCALE_SECONDS=10`,
//! `BENCH_SCALE_CLIENTS=16`, `BENCH_SCALE_MIX=70,20,10` (by id, search, post). The size is
//! `BENCH_RECORDS` (`100k`, `1M`, `10M`; or this bench's own `BENCH_SCALE_ENTITIES`), default 100k,
//! printed in every row; each size is seeded once into a template under target/bench-scale
//! (`strs_bench_scale_seed`, another size `strs_bench_scale_seed_<size>`). Figures in
//! docs/benchmarks.md and docs/scale-out.md; printed, never asserted.

#![expect(
    clippy::print_stdout,
    reason = "a bench reports its figures on standard output"
)]

mod support;

use support::process::env_or;
use support::size;

use anyhow::{Context, bail};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{Value, json};
use spacetime_records::db::cluster::{Durability, EmbeddedCluster};
use spacetime_records::topology::{self, ServerProcess, ServerSettings};
use sqlx::PgPool;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

const DATABASE: &str = "strs_bench_scale";
const TEMPLATE: &str = "strs_bench_scale_seed";
const DEFAULT_ENTITIES: usize = 100_000;
const SEED: u64 = 20_261_125;
const SLOT: &str = "strs_bench_scale_replica";
/// Entry bodies generated for the posts of one run (each client posts from its own slice).
const ENTRY_PLAN: usize = 100_000;

fn main() -> anyhow::Result<()> {
    support::start::block_on(run())
}

/// What one client does next.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    ById,
    Search,
    Post,
}

const KINDS: [Kind; 3] = [Kind::ById, Kind::Search, Kind::Post];

/// The requests the load draws from, shared by every client.
struct Material {
    ids: Vec<uuid::Uuid>,
    searches: Vec<String>,
    entries: Vec<Value>,
    keys: Vec<String>,
    mix: [u32; 3],
}

async fn run() -> anyhow::Result<()> {
    let entities = size::records("BENCH_SCALE_ENTITIES", DEFAULT_ENTITIES)?;
    let label = size::label(entities);
    let seconds: u64 = env_or("BENCH_SCALE_SECONDS", 10);
    let clients: usize = env_or("BENCH_SCALE_CLIENTS", 16);
    let counts: Vec<usize> = std::env::var("BENCH_SCALE_PROCESSES")
        .unwrap_or_else(|_| "1,2,4".into())
        .split(',')
        .filter_map(|n| n.trim().parse().ok())
        .collect();
    let mix: Vec<u32> = std::env::var("BENCH_SCALE_MIX")
        .unwrap_or_else(|_| "70,20,10".into())
        .split(',')
        .filter_map(|n| n.trim().parse().ok())
        .collect();
    let mix: [u32; 3] = mix
        .try_into()
        .map_err(|_| anyhow::anyhow!("BENCH_SCALE_MIX needs three numbers"))?;

    let root = support::start::kept("bench-scale");
    let primary = support::start::cluster_in(root.join("primary")).await?;
    let primary_url = primary.url(DATABASE);
    let pool = prepare_database(&primary, entities).await?;
    let replica_dir = root.join("replica");
    let primary = Arc::new(primary);
    // A run that failed half-way leaves its slot behind, and a slot's name can be taken once.
    topology::drop_slot(&primary, SLOT).await?;
    let replica = topology::standby_of(&primary, &replica_dir, Durability::Full, SLOT).await?;
    let replica_url = replica.url(DATABASE);
    topology::wait_for_database(&replica_url, Duration::from_secs(60)).await?;

    let settings = ServerSettings {
        binary: PathBuf::from(env!("CARGO_BIN_EXE_spacetime-records")),
        database_url: primary_url.clone(),
        replica_urls: vec![replica_url.clone()],
        port: 0,
        data_dir: root.join("files"),
        jwt_secret: topology::shared_secret(),
        env: vec![
            ("RUST_LOG".into(), "warn".into()),
            // Each run registers its clients' agents; the default allows 60 an hour.
            ("STRS_REGISTRATIONS_PER_HOUR".into(), "100000".into()),
        ],
        log_file: Some(root.join("servers.log")),
    };
    let run_salt = uuid::Uuid::now_v7().simple().to_string();
    let material = Arc::new(Material {
        ids: sqlx::query_scalar(
            "SELECT id FROM canonical.entities WHERE status = 'active' ORDER BY random() LIMIT 2000",
        )
        .fetch_all(&pool)
        .await?,
        searches: searches(&pool).await?,
        entries: support::generator::entry_plan(SEED, ENTRY_PLAN, entities)
            .into_iter()
            .map(|planned| {
                let mut body = planned.body;
                body["idempotency_key"] = json!(format!("{}:{run_salt}", planned.idempotency_key));
                body
            })
            .collect(),
        keys: Vec::new(),
        mix,
    });
    println!(
        "\nScale-out benchmark: {entities} entities ({label}), {clients} clients over HTTP, {seconds} s per \
         process count, mix by id/search/post = {}/{}/{}, {} cores",
        mix[0],
        mix[1],
        mix[2],
        std::thread::available_parallelism().map_or(0, std::num::NonZero::get)
    );
    println!(
        "{:<5} {:>5} {:>8} {:>7} {:>7} {:>9} {:>9} {:>9} {:>8} {:>8} {:>8} {:>8} {:>10}",
        "size",
        "procs",
        "req/s",
        "p50 ms",
        "p99 ms",
        "id p99",
        "srch p99",
        "post p99",
        "DB CPU",
        "replica",
        "servers",
        "loadgen",
        "drain s"
    );
    let mut material = material;
    // Two windows (warm-up and measured) per process count, each client with its own slice.
    let slice = ENTRY_PLAN / (clients * 2 * counts.len().max(1));
    let mut next_entry = 0usize;
    for count in counts {
        let mut servers = Vec::new();
        for _ in 0..count {
            let mut server = ServerProcess::spawn(&ServerSettings {
                port: topology::free_port()?,
                ..settings.clone()
            })?;
            server.wait_ready(Duration::from_secs(60)).await?;
            servers.push(server);
        }
        let bases: Arc<Vec<String>> =
            Arc::new(servers.iter().map(ServerProcess::base_url).collect());
        if material.keys.len() < clients {
            let keys = register_agents(&bases[0], clients).await?;
            Arc::get_mut(&mut material)
                .context("material is not shared between rounds")?
                .keys = keys;
        }
        let sampler = CpuSampler {
            primary: postmaster_pid(&primary),
            replica: postmaster_pid(&replica),
            servers: servers.iter().map(ServerProcess::pid).collect(),
        };
        // Warm-up, then the measured window.
        let _ = load(
            &bases,
            &material,
            clients,
            Duration::from_secs(2),
            slice,
            &mut next_entry,
        )
        .await?;
        let before = sampler.sample();
        let measured = load(
            &bases,
            &material,
            clients,
            Duration::from_secs(seconds),
            slice,
            &mut next_entry,
        )
        .await?;
        let after = sampler.sample();
        let cpu = |pick: fn(&CpuTimes) -> f64| (pick(&after) - pick(&before)) / seconds as f64;
        let drain = drain_backlog(&pool).await?;
        println!(
            "{:<5} {:>5} {:>8.0} {:>7.2} {:>7.2} {:>9.2} {:>9.2} {:>9.2} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>10.1}",
            label,
            count,
            measured.total as f64 / seconds as f64,
            ms(percentile(&measured.all, 0.50)),
            ms(percentile(&measured.all, 0.99)),
            ms(percentile(&measured.by_kind[0], 0.99)),
            ms(percentile(&measured.by_kind[1], 0.99)),
            ms(percentile(&measured.by_kind[2], 0.99)),
            cpu(|t| t.primary),
            cpu(|t| t.replica),
            cpu(|t| t.servers),
            cpu(|t| t.generator),
            drain.as_secs_f64(),
        );
        if measured.errors > 0 {
            println!(
                "      ({} requests failed: {})",
                measured.errors, measured.first_error
            );
        }
        drop(servers);
    }
    println!("CPU columns are cores used on average during the window (all processes of each).");
    tokio::task::spawn_blocking(move || replica.stop()).await??;
    topology::drop_slot(&primary, SLOT).await?;
    Ok(())
}

/// A fresh copy of the seeded template of this size: every run starts from the same database.
async fn prepare_database(cluster: &EmbeddedCluster, entities: usize) -> anyhow::Result<PgPool> {
    let template = size::database(TEMPLATE, entities, DEFAULT_ENTITIES);
    let contents = support::seeded::Contents::new(SEED, entities);
    support::seeded::fresh_copy(cluster, DATABASE, &template, contents).await?;
    spacetime_records::db::connect(&cluster.url(DATABASE), 4).await
}

/// Searches people make: a record's first category within 1 km of it.
async fn searches(pool: &PgPool) -> anyhow::Result<Vec<String>> {
    let rows: Vec<(String, f64, f64)> = sqlx::query_as(
        "SELECT categories[1], location_lat, location_lng FROM canonical.entities
         WHERE status = 'active' AND cardinality(categories) > 0 ORDER BY random() LIMIT 200",
    )
    .fetch_all(pool)
    .await?;
    Ok(rows
        .into_iter()
        .map(|(category, lat, lng)| {
            format!(
                "/api/v1/search?query={}&latitude={lat}&longitude={lng}&radius_meters=1000&canonical_type=entity",
                url_encode(&category)
            )
        })
        .collect())
}

fn url_encode(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

async fn register_agents(base: &str, count: usize) -> anyhow::Result<Vec<String>> {
    let client = reqwest::Client::new();
    let mut keys = Vec::new();
    for i in 0..count {
        let answer: Value = client
            .post(format!("{base}/api/v1/agents/register"))
            .json(&json!({"agent_type": "scraper", "display_name": format!("Scale Bench {i}")}))
            .send()
            .await?
            .error_for_status()?
            .json()
            .await?;
        keys.push(
            answer["api_key"]
                .as_str()
                .context("an api key")?
                .to_string(),
        );
    }
    Ok(keys)
}

#[derive(Default)]
struct Measured {
    total: usize,
    all: Vec<Duration>,
    by_kind: [Vec<Duration>; 3],
    errors: usize,
    first_error: String,
}

/// `clients` closed loops for `window`, client `c` talking to process `c % processes` and
/// drawing each request's kind from the mix.
async fn load(
    bases: &Arc<Vec<String>>,
    material: &Arc<Material>,
    clients: usize,
    window: Duration,
    per_client: usize,
    next_entry: &mut usize,
) -> anyhow::Result<Measured> {
    let deadline = Instant::now() + window;
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(clients)
        .build()?;
    // Each client posts from its own slice of the entry plan, so no two posts share a key.
    let first = *next_entry;
    *next_entry += clients * per_client;
    if *next_entry > material.entries.len() {
        bail!("the entry plan is exhausted; use fewer clients or a shorter window");
    }
    let tasks: Vec<_> = (0..clients)
        .map(|c| {
            let (bases, material, http) = (bases.clone(), material.clone(), http.clone());
            tokio::spawn(async move {
                let mut rng = StdRng::seed_from_u64(SEED ^ (c as u64) << 20 ^ first as u64);
                let base = &bases[c % bases.len()];
                let key = &material.keys[c];
                let slice_start = first + c * per_client;
                let mut posted = 0;
                let mut measured = Measured::default();
                while Instant::now() < deadline {
                    let kind = pick(&mut rng, material.mix);
                    let request = match kind {
                        Kind::ById => {
                            let id = material.ids[rng.random_range(0..material.ids.len())];
                            http.get(format!("{base}/api/v1/entities/{id}"))
                        }
                        Kind::Search => {
                            let path =
                                &material.searches[rng.random_range(0..material.searches.len())];
                            http.get(format!("{base}{path}"))
                        }
                        Kind::Post => {
                            // Past its slice a client repeats it: those posts answer 409.
                            let entry = slice_start + posted % per_client;
                            posted += 1;
                            http.post(format!("{base}/api/v1/space-time-entries"))
                                .bearer_auth(key)
                                .json(&material.entries[entry])
                        }
                    };
                    let started = Instant::now();
                    let outcome = request.send().await;
                    let ok = match outcome {
                        Ok(response) => {
                            let status = response.status();
                            let body = response.bytes().await.unwrap_or_default();
                            if status.is_success() {
                                true
                            } else {
                                if measured.errors == 0 {
                                    measured.first_error =
                                        format!("{status}: {}", String::from_utf8_lossy(&body));
                                }
                                false
                            }
                        }
                        Err(error) => {
                            if measured.errors == 0 {
                                measured.first_error = error.to_string();
                            }
                            false
                        }
                    };
                    let elapsed = started.elapsed();
                    if ok {
                        measured.total += 1;
                        measured.all.push(elapsed);
                        measured.by_kind[KINDS
                            .iter()
                            .position(|k| *k == kind)
                            .expect("a kind of KINDS")]
                        .push(elapsed);
                    } else {
                        measured.errors += 1;
                    }
                }
                measured
            })
        })
        .collect();
    let mut merged = Measured::default();
    for task in tasks {
        let part = task.await?;
        merged.total += part.total;
        merged.all.extend(part.all);
        for (into, from) in merged.by_kind.iter_mut().zip(part.by_kind) {
            into.extend(from);
        }
        if merged.errors == 0 {
            merged.first_error = part.first_error;
        }
        merged.errors += part.errors;
    }
    merged.all.sort();
    for kind in &mut merged.by_kind {
        kind.sort();
    }
    Ok(merged)
}

fn pick(rng: &mut StdRng, mix: [u32; 3]) -> Kind {
    let total: u32 = mix.iter().sum();
    let mut draw = rng.random_range(0..total.max(1));
    for (kind, weight) in KINDS.iter().zip(mix) {
        if draw < weight {
            return *kind;
        }
        draw -= weight;
    }
    Kind::ById
}

fn percentile(sorted: &[Duration], q: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[((sorted.len() as f64 - 1.0) * q).round() as usize]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Waits until the transformer has decided every posted entry; how long that took.
async fn drain_backlog(pool: &PgPool) -> anyhow::Result<Duration> {
    let started = Instant::now();
    loop {
        let pending: i64 =
            sqlx::query_scalar("SELECT count(*) FROM space_time_entries WHERE status = 'pending'")
                .fetch_one(pool)
                .await?;
        if pending == 0 || started.elapsed() > Duration::from_secs(300) {
            return Ok(started.elapsed());
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The postmaster of `cluster`; 0 when it has no pid file.
fn postmaster_pid(cluster: &EmbeddedCluster) -> u32 {
    support::process::postmaster_pid(&cluster.data_dir).unwrap_or(0)
}

/// CPU seconds (user + system) used so far.
#[derive(Default)]
struct CpuTimes {
    primary: f64,
    replica: f64,
    servers: f64,
    generator: f64,
}

struct CpuSampler {
    primary: u32,
    replica: u32,
    servers: Vec<u32>,
}

impl CpuSampler {
    fn sample(&self) -> CpuTimes {
        let processes = all_processes();
        let tree = |root: u32| -> f64 {
            processes
                .iter()
                .filter(|p| p.pid == root || p.parent == root)
                .map(|p| p.cpu_seconds)
                .sum()
        };
        CpuTimes {
            primary: tree(self.primary),
            replica: tree(self.replica),
            servers: self.servers.iter().map(|pid| own(&processes, *pid)).sum(),
            generator: own(&processes, std::process::id()),
        }
    }
}

fn own(processes: &[ProcessCpu], pid: u32) -> f64 {
    processes
        .iter()
        .find(|p| p.pid == pid)
        .map_or(0.0, |p| p.cpu_seconds)
}

struct ProcessCpu {
    pid: u32,
    parent: u32,
    cpu_seconds: f64,
}

/// Every process's parent and CPU time from /proc/<pid>/stat (utime + stime, in clock ticks).
fn all_processes() -> Vec<ProcessCpu> {
    let ticks = 100.0; // USER_HZ on Linux
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| {
            let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
            // The command name may hold spaces: fields start after its closing parenthesis.
            let fields: Vec<&str> = stat[stat.rfind(')')? + 2..].split(' ').collect();
            let parent = fields.get(1)?.parse().ok()?;
            let utime: f64 = fields.get(11)?.parse().ok()?;
            let stime: f64 = fields.get(12)?.parse().ok()?;
            Some(ProcessCpu {
                pid,
                parent,
                cpu_seconds: (utime + stime) / ticks,
            })
        })
        .collect()
}
