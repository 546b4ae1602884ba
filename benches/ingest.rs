//! Ingest benchmark: POST /api/v1/space-time-entries through the real router, then the transformer
//! turning the pending entries into canonical entities, against a base of generated entities in a
//! PostgreSQL cluster with PostgreSQL's durable defaults (as `serve` runs it).
//!
//! `cargo bench --bench ingest`; variables in docs/benchmarks.md, what is measured in docs/bench-log/ingest.md.
//! The base's size is `BENCH_RECORDS` (`100k`, `1M`, `10M`; or this bench's own
//! `BENCH_BASE_ENTITIES`), default 100k. Each size (and `BENCH_SEED`) is seeded once into a
//! template in target/bench-pg (`strs_bench_seed`, another size `strs_bench_seed_<size>`, e.g.
//! `strs_bench_seed_10m`), and every run starts from a copy of it.
//! Figures are printed, never asserted: only correctness (every POST answered 201, nothing left
//! pending) fails the run.

#![expect(
    clippy::print_stdout,
    reason = "a bench reports its figures on standard output"
)]
#![expect(
    clippy::print_stderr,
    reason = "a refused entry is reported as it happens"
)]

mod support;

use anyhow::{Context, anyhow, bail, ensure};
use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use spacetime_records::app;
use spacetime_records::config::Config;
use spacetime_records::db;
use spacetime_records::services::transformer;
use spacetime_records::state::AppState;
use spacetime_records::transform::normalize::name_key;
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use support::generator::{self, EntryKind, PlannedEntry};
use support::process::{
    TICKS_PER_SEC, cluster_cpu_ticks, pg_processes, postmaster_pid, stat_fields,
};
use support::seeded::Contents;
use support::size;
use tower::ServiceExt;

const DATABASE: &str = "strs_bench";
/// Where the base of each size is kept (`support::size::database`), copied for every run.
const TEMPLATE: &str = "strs_bench_seed";
const DEFAULT_BASE: usize = 100_000;
const POSTERS: usize = 8;
/// One drain call per transformer batch (the transformer's own batch size), to time batches.
const DRAIN_BATCH: i64 = 200;
/// transformer_runs.trigger only admits 'worker', 'api' and 'cli'; the bench drains as the
/// background worker does.
const TRIGGER: &str = "worker";
const DEFAULT_SEED: u64 = 20_261_121;

fn main() -> anyhow::Result<()> {
    // `cargo bench` passes `--bench` (and any filter); there is nothing to filter here.
    support::start::block_on(run())
}

struct Settings {
    base_entities: usize,
    entries: usize,
    seed: u64,
    workers: usize,
    keep_cluster: bool,
}

fn env_number(name: &str, default: u64) -> anyhow::Result<u64> {
    match std::env::var(name) {
        Ok(raw) => raw
            .replace('_', "")
            .trim()
            .parse()
            .with_context(|| format!("{name}={raw:?} is not a whole number")),
        Err(_) => Ok(default),
    }
}

fn settings() -> anyhow::Result<Settings> {
    // The server's own default (STRS_TRANSFORMER_LOOPS unset): one loop per core plus one.
    let default_loops = Config::for_data_dir(PathBuf::new()).transformer_loops() as u64;
    Ok(Settings {
        base_entities: size::records("BENCH_BASE_ENTITIES", DEFAULT_BASE)?,
        entries: env_number("BENCH_ENTRIES", 5_000)? as usize,
        seed: env_number("BENCH_SEED", DEFAULT_SEED)?,
        workers: env_number("BENCH_WORKERS", default_loops)?.max(1) as usize,
        keep_cluster: std::env::var("BENCH_KEEP_CLUSTER").is_ok_and(|v| v == "1"),
    })
}

async fn run() -> anyhow::Result<()> {
    let s = settings()?;
    println!(
        "ingest benchmark: {} base entities ({}), {} entries, seed {}, {POSTERS} concurrent posters",
        s.base_entities,
        size::label(s.base_entities),
        s.entries,
        s.seed
    );

    // 1. Cluster, and a fresh copy of the base of this size (seeded once, kept as a template).
    let started = Instant::now();
    let cluster = support::start::cluster_in(support::start::kept("bench-pg")).await?;
    let template = size::database(TEMPLATE, s.base_entities, DEFAULT_BASE);
    let contents = Contents::new(s.seed, s.base_entities);
    support::seeded::fresh_copy(&cluster, DATABASE, &template, contents).await?;
    let copy_secs = started.elapsed().as_secs_f64();
    let admin_url = cluster.url("postgres");
    let admin = db::connect(&admin_url, 1).await?;
    let server_version: String = sqlx::query_scalar("SHOW server_version")
        .fetch_one(&admin)
        .await?;
    let durability: Vec<(String, String)> = sqlx::query_as(
        "SELECT name, setting FROM pg_settings
         WHERE name IN ('fsync', 'synchronous_commit', 'full_page_writes', 'shared_buffers', 'max_connections')
         ORDER BY name",
    )
    .fetch_all(&admin)
    .await?;
    admin.close().await;
    let mut config = Config::for_data_dir(support::start::kept("bench-data"));
    config.jwt_secret = Some("bench-secret-bench-secret-bench-secret-0123".into());
    config.transformer_worker = false;
    config.db_max_connections = 16;
    let state = app::build_state(config, &cluster.url(DATABASE)).await?;
    let router = app::build_router(state.clone());
    println!(
        "[setup] PostgreSQL {server_version} in {} ({}), {}; database {DATABASE} copied from {template} in {copy_secs:.1} s, ready in {:.1} s",
        cluster.data_dir.display(),
        if cluster.started_here() {
            "started"
        } else {
            "reused"
        },
        durability
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" "),
        started.elapsed().as_secs_f64()
    );
    let postmaster = postmaster_pid(&cluster.data_dir);

    // 2. The base of canonical entities: the template's, vacuumed and analysed when it was seeded
    // (a base in service has been vacuumed long ago; otherwise autovacuum's first pass over the
    // fresh rows would land inside the measured window), its copy checkpointed by CREATE DATABASE.
    let base: BaseStats = sqlx::query_as(
        "SELECT count(*) AS entities, count(phone) AS with_phone, count(phone_key) AS with_phone_key,
                count(website_key) AS with_website_key, count(DISTINCT name_key) AS distinct_names,
                count(DISTINCT phone_key) AS distinct_phones,
                pg_total_relation_size('canonical.entities') AS bytes
         FROM canonical.entities",
    )
    .fetch_one(&state.pool)
    .await?;
    println!(
        "[base] {} entities ({}); \
         {} with a phone ({} valid keys, {} distinct), {} with a website, {} distinct names; table + indexes {:.0} MiB",
        base.entities,
        size::label(s.base_entities),
        base.with_phone,
        base.with_phone_key,
        base.distinct_phones,
        base.with_website_key,
        base.distinct_names,
        base.bytes as f64 / 1_048_576.0
    );

    // 3. An agent and its key, through the router.
    let registered = send(
        &router,
        "POST",
        "/api/v1/agents/register",
        None,
        json!({"agent_type": "scraper", "display_name": "Bench Scraper"}).to_string(),
    )
    .await?;
    ensure!(
        registered.0 == StatusCode::CREATED,
        "registering the agent: {} {}",
        registered.0,
        registered.1
    );
    let key = serde_json::from_str::<Value>(&registered.1)?["api_key"]
        .as_str()
        .context("no api_key in the register response")?
        .to_string();

    // 4. POST path.
    let plan = generator::entry_plan(s.seed, s.entries, s.base_entities);
    let bodies: Arc<Vec<String>> = Arc::new(plan.iter().map(|p| p.body.to_string()).collect());
    let cpu_before = cpu_snapshot(postmaster);
    let post = post_all(&router, &key, bodies).await?;
    let post_cpu = cpu_snapshot(postmaster).since(&cpu_before);
    let post_rate = s.entries as f64 / post.wall.as_secs_f64().max(1e-9);
    println!(
        "[post] {} entries in {:.2} s: {post_rate:.0} entries/s, latency p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        s.entries,
        post.wall.as_secs_f64(),
        ms(percentile(&post.latencies, 0.50)),
        ms(percentile(&post.latencies, 0.99)),
        ms(percentile(&post.latencies, 1.0)),
    );
    println!("[post] {}", post_cpu.describe(post.wall));
    if !post.failures.is_empty() {
        for (i, status, text) in post.failures.iter().take(5) {
            eprintln!("entry {i}: {status} {text}");
        }
        bail!(
            "{} of {} POSTs were not answered 201",
            post.failures.len(),
            s.entries
        );
    }
    let pg_after_post = pg_memory(postmaster);

    // 5. Processing.
    let cpu_before = cpu_snapshot(postmaster);
    let started = Instant::now();
    let (processed, mut batches) = drain_all(&state, s.workers).await?;
    let process_wall = started.elapsed();
    batches.sort();
    let process_cpu = cpu_snapshot(postmaster).since(&cpu_before);
    let pending: i64 =
        sqlx::query_scalar("SELECT count(*) FROM space_time_entries WHERE status = 'pending'")
            .fetch_one(&state.pool)
            .await?;
    ensure!(pending == 0, "{pending} entries are still pending");
    let process_rate = processed as f64 / process_wall.as_secs_f64().max(1e-9);
    println!(
        "[process] {processed} entries in {:.2} s with {} drain loop(s): {process_rate:.0} entries/s; \
         {} batches of up to {DRAIN_BATCH}, batch p50 {:.0} ms, max {:.0} ms",
        process_wall.as_secs_f64(),
        s.workers,
        batches.len(),
        ms(percentile(&batches, 0.5)),
        ms(percentile(&batches, 1.0)),
    );
    println!("[process] {}", process_cpu.describe(process_wall));

    // 6. Outcomes, and whether they are the ones the generator expects.
    let outcomes: Vec<(String, Option<String>, i64)> = sqlx::query_as(
        "SELECT status, link_type, count(*) FROM space_time_entries GROUP BY 1, 2 ORDER BY 3 DESC",
    )
    .fetch_all(&state.pool)
    .await?;
    let outcome_line = outcomes
        .iter()
        .map(|(status, link, n)| match link {
            Some(link) => format!("{link} {n}"),
            None => format!("{status} {n}"),
        })
        .collect::<Vec<_>>()
        .join(", ");
    println!("[outcomes] {outcome_line}");
    let quality = check_outcomes(&state, s.seed, &plan).await?;
    for line in quality.lines() {
        println!("[quality] {line}");
    }

    // 7. Memory.
    let bench_hwm = status_kb("self", "VmHWM").unwrap_or(0);
    let pg_after_process = pg_memory(postmaster);

    let count = |kind: EntryKind| plan.iter().filter(|p| p.kind == kind).count();
    let by_link: HashMap<&str, i64> = outcomes
        .iter()
        .map(|(status, link, n)| (link.as_deref().unwrap_or(status.as_str()), *n))
        .collect();
    let get = |k: &str| by_link.get(k).copied().unwrap_or(0);
    println!();
    println!("==== ingest benchmark summary ====");
    println!(
        "machine           : {} cores, PostgreSQL {server_version}, durable defaults (fsync on), pool 16",
        std::thread::available_parallelism().map_or(0, std::num::NonZero::get)
    );
    println!(
        "base              : {} entities ({}, copied from {template} in {copy_secs:.1} s)",
        base.entities,
        size::label(s.base_entities)
    );
    println!(
        "entries           : {} ({} new businesses, {} re-observations of the base, {} repeats within the stream)",
        s.entries,
        count(EntryKind::NewBusiness),
        count(EntryKind::BaseReobservation),
        count(EntryKind::StreamRepeat)
    );
    println!(
        "POST              : {post_rate:.0} entries/s with {POSTERS} concurrent clients; p50 {:.1} ms, p99 {:.1} ms",
        ms(percentile(&post.latencies, 0.50)),
        ms(percentile(&post.latencies, 0.99))
    );
    println!(
        "processing        : {process_rate:.0} entries/s ({:.2} ms per entry, {} drain loop(s))",
        process_wall.as_secs_f64() * 1000.0 / processed.max(1) as f64,
        s.workers
    );
    println!(
        "outcomes          : created {}, matched {}, updated {}, review_required {}, rejected {}",
        get("created"),
        get("matched"),
        get("updated"),
        get("review_required"),
        get("rejected")
    );
    println!(
        "CPU in processing : bench process {:.1} s, PostgreSQL {:.1} s, over {:.1} s wall",
        process_cpu.bench_secs,
        process_cpu.pg_secs,
        process_wall.as_secs_f64()
    );
    println!(
        "peak RSS          : bench process (router + transformer) VmHWM {:.0} MiB",
        bench_hwm as f64 / 1024.0
    );
    for (label, memory) in [
        ("PG mem after POST", pg_after_post),
        ("PG mem at the end", pg_after_process),
    ] {
        if let Some(m) = memory {
            println!(
                "{label:<18}: {} processes, Pss total {:.0} MiB, largest VmHWM {:.0} MiB",
                m.processes,
                m.pss_kb as f64 / 1024.0,
                m.max_hwm_kb as f64 / 1024.0
            );
        }
    }
    println!(
        "target            : processing >= 2000 entries/s on 2 cores against 100k entities ({})",
        if process_rate >= 2000.0 {
            "met"
        } else {
            "missed"
        }
    );

    state.pool.close().await;
    if cluster.started_here() && !s.keep_cluster {
        tokio::task::spawn_blocking(move || cluster.stop()).await??;
    } else {
        println!(
            "(the cluster stays up: psql -h {} -p {} -U postgres {DATABASE})",
            cluster.socket_dir.display(),
            cluster.port
        );
    }
    Ok(())
}

#[derive(sqlx::FromRow)]
struct BaseStats {
    entities: i64,
    with_phone: i64,
    with_phone_key: i64,
    with_website_key: i64,
    distinct_names: i64,
    distinct_phones: i64,
    bytes: i64,
}

async fn send(
    router: &Router,
    method: &str,
    path: &str,
    key: Option<&str>,
    body: String,
) -> anyhow::Result<(StatusCode, String)> {
    let mut builder = Request::builder()
        .method(method)
        .uri(path)
        .header(header::CONTENT_TYPE, "application/json");
    if let Some(key) = key {
        builder = builder.header(header::AUTHORIZATION, format!("Bearer {key}"));
    }
    let response = router
        .clone()
        .oneshot(builder.body(Body::from(body))?)
        .await?;
    let status = response.status();
    let bytes = response.into_body().collect().await?.to_bytes();
    Ok((status, String::from_utf8_lossy(&bytes).into_owned()))
}

/// Runs `workers` loops of one transformer batch per call until none finds a pending entry;
/// returns how many entries were processed and each batch's duration.
async fn drain_all(state: &AppState, workers: usize) -> anyhow::Result<(i64, Vec<Duration>)> {
    let mut tasks = Vec::new();
    for _ in 0..workers {
        let state = state.clone();
        tasks.push(tokio::spawn(async move {
            let mut batches = Vec::new();
            let mut processed = 0_i64;
            loop {
                let t = Instant::now();
                let result = transformer::drain(&state, DRAIN_BATCH, TRIGGER)
                    .await
                    .map_err(|e| anyhow!("transformer: {}", e.public_message()))?;
                if result.processed == 0 {
                    break;
                }
                batches.push(t.elapsed());
                processed += result.processed;
            }
            anyhow::Ok((processed, batches))
        }));
    }
    let mut total = 0;
    let mut all = Vec::new();
    for task in tasks {
        let (processed, batches) = task.await??;
        total += processed;
        all.extend(batches);
    }
    Ok((total, all))
}

struct PostRun {
    wall: Duration,
    latencies: Vec<Duration>,
    failures: Vec<(usize, StatusCode, String)>,
}

/// Sends every body from `POSTERS` tasks that take the next body as they finish one.
async fn post_all(router: &Router, key: &str, bodies: Arc<Vec<String>>) -> anyhow::Result<PostRun> {
    let next = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..POSTERS {
        let (router, key, bodies, next) = (
            router.clone(),
            key.to_string(),
            bodies.clone(),
            next.clone(),
        );
        tasks.push(tokio::spawn(async move {
            let mut latencies = Vec::new();
            let mut failures = Vec::new();
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(body) = bodies.get(i) else { break };
                let t = Instant::now();
                let (status, text) = send(
                    &router,
                    "POST",
                    "/api/v1/space-time-entries",
                    Some(&key),
                    body.clone(),
                )
                .await?;
                latencies.push(t.elapsed());
                if status != StatusCode::CREATED {
                    failures.push((i, status, text));
                }
            }
            anyhow::Ok((latencies, failures))
        }));
    }
    let mut run = PostRun {
        wall: Duration::ZERO,
        latencies: Vec::new(),
        failures: Vec::new(),
    };
    for task in tasks {
        let (latencies, failures) = task.await??;
        run.latencies.extend(latencies);
        run.failures.extend(failures);
    }
    run.wall = started.elapsed();
    run.latencies.sort();
    Ok(run)
}

/// Nearest-rank percentile of sorted durations (`q` = 1.0 is the maximum).
fn percentile(sorted: &[Duration], q: f64) -> Duration {
    let mut v = sorted.to_vec();
    v.sort();
    if v.is_empty() {
        return Duration::ZERO;
    }
    v[((v.len() - 1) as f64 * q).round() as usize]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

#[derive(sqlx::FromRow)]
struct Linked {
    idempotency_key: String,
    status: String,
    link_type: Option<String>,
    entry_name: Option<String>,
    name_key: Option<String>,
    website_key: Option<String>,
    phone_key: Option<String>,
}

/// Per kind of planned entry: how the transformer decided, and whether each re-observation that
/// matched was linked to the observed business. The generator's variations never change the
/// website and phone keys, and a merge may only replace the name by the entry's own, so the
/// linked entity must have the business's website and phone keys and one of those two names.
async fn check_outcomes(
    state: &AppState,
    seed: u64,
    plan: &[PlannedEntry],
) -> anyhow::Result<String> {
    let rows: Vec<Linked> = sqlx::query_as(
        "SELECT e.idempotency_key, e.status, e.link_type, e.context->>'display_name' AS entry_name,
                c.name_key, c.website_key, c.phone_key
         FROM space_time_entries e LEFT JOIN canonical.entities c ON c.id = e.canonical_id",
    )
    .fetch_all(&state.pool)
    .await?;
    let by_key: HashMap<&str, &Linked> = rows
        .iter()
        .map(|row| (row.idempotency_key.as_str(), row))
        .collect();
    let mut tally: BTreeMap<(&str, String), usize> = BTreeMap::new();
    let mut wrong_entity = 0;
    for p in plan {
        let kind = match p.kind {
            EntryKind::NewBusiness => "new businesses",
            EntryKind::BaseReobservation => "re-observations of the base",
            EntryKind::StreamRepeat => "repeats within the stream",
        };
        let Some(row) = by_key.get(p.idempotency_key.as_str()) else {
            *tally.entry((kind, "missing".into())).or_default() += 1;
            continue;
        };
        let outcome = row.link_type.as_deref().unwrap_or(&row.status).to_string();
        if p.kind != EntryKind::NewBusiness && matches!(outcome.as_str(), "matched" | "updated") {
            let business = generator::entity(seed, p.entity_index);
            let names = [
                Some(business.name_key()),
                row.entry_name.as_deref().map(name_key),
            ];
            let same = row.website_key == business.website_key()
                && row.phone_key == business.phone_key()
                && names.contains(&row.name_key);
            if !same {
                wrong_entity += 1;
            }
        }
        *tally.entry((kind, outcome)).or_default() += 1;
    }
    let mut lines: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for ((kind, outcome), n) in tally {
        lines
            .entry(kind)
            .or_default()
            .push(format!("{outcome} {n}"));
    }
    let mut text: Vec<String> = lines
        .into_iter()
        .map(|(kind, parts)| format!("{kind}: {}", parts.join(", ")))
        .collect();
    text.push(format!(
        "matched re-observations linked to another business: {wrong_entity}"
    ));
    Ok(text.join("\n"))
}

/// A `kB` field of /proc/<pid>/status.
fn status_kb(pid: &str, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
}

struct CpuSnapshot {
    bench_ticks: u64,
    pg_ticks: u64,
}

struct CpuUsed {
    bench_secs: f64,
    pg_secs: f64,
}

impl CpuUsed {
    fn describe(&self, wall: Duration) -> String {
        let wall = wall.as_secs_f64().max(1e-9);
        format!(
            "CPU: bench process {:.1} s ({:.0}% of one core), PostgreSQL {:.1} s ({:.0}%), over {wall:.1} s wall",
            self.bench_secs,
            100.0 * self.bench_secs / wall,
            self.pg_secs,
            100.0 * self.pg_secs / wall
        )
    }
}

impl CpuSnapshot {
    fn since(&self, earlier: &CpuSnapshot) -> CpuUsed {
        CpuUsed {
            bench_secs: self.bench_ticks.saturating_sub(earlier.bench_ticks) as f64 / TICKS_PER_SEC,
            pg_secs: self.pg_ticks.saturating_sub(earlier.pg_ticks) as f64 / TICKS_PER_SEC,
        }
    }
}

/// CPU ticks of this process and of PostgreSQL.
fn cpu_snapshot(postmaster: Option<u32>) -> CpuSnapshot {
    CpuSnapshot {
        bench_ticks: stat_fields(std::process::id()).map_or(0, |f| f[11] + f[12]),
        pg_ticks: postmaster.map_or(0, cluster_cpu_ticks),
    }
}

#[derive(Clone, Copy)]
struct PgMemory {
    processes: usize,
    pss_kb: u64,
    max_hwm_kb: u64,
}

/// Proportional set size summed over PostgreSQL's processes (shared buffers counted once), and
/// the largest single peak RSS.
fn pg_memory(postmaster: Option<u32>) -> Option<PgMemory> {
    let pids = pg_processes(postmaster?);
    let mut memory = PgMemory {
        processes: pids.len(),
        pss_kb: 0,
        max_hwm_kb: 0,
    };
    for pid in pids {
        let rollup =
            std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).unwrap_or_default();
        memory.pss_kb += rollup
            .lines()
            .find_map(|l| l.strip_prefix("Pss:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .unwrap_or(0);
        memory.max_hwm_kb = memory
            .max_hwm_kb
            .max(status_kb(&pid.to_string(), "VmHWM").unwrap_or(0));
    }
    Some(memory)
}
