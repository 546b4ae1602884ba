//! Hot-paths benchmark: the release server binary over HTTP on loopback, driven by wrk (Debian),
//! next to pgbench running the very statements each request ran, taking turns in one run.
//!
//! The statements are not written here: they are captured from PostgreSQL's own log
//! (`log_min_duration_statement = 0` for a capture server started for that purpose), so the
//! ceiling follows the service whenever its SQL changes. A POST's new entry id becomes
//! `gen_random_uuid()` in the pgbench script, the one change needed to repeat an insert.
//!
//! Rows of the printed table (the targets of docs/benchmarks.md, "Hot paths"):
//! entity/listing/request by id, the entity list (`limit=100`: its first page, and the page after
//! the middle row, through a cursor), a search (a category within 1 km), GraphQL's entity by id,
//! nested provenance and `entitiesNear` page, the entities in a box (`bbox`), map tiles at z4,
//! z10, z12, z13 and z14 over a city and at z4, z10 and z14 over a rural region (one client
//! each, judged by their p99),
//! an entry post (fsync on), then processing of everything posted with the default transformer
//! loops and the refresh of the map tiles' counts per cell that processing changed, and the
//! server's peak RSS over the whole run. Figures are printed, never asserted.
//!
//! `cargo bench --bench hot_paths`; `BENCH_HOT_SECONDS=5`, `BENCH_HOT_ROUNDS=2`,
//! `BENCH_HOT_CONNECTIONS=8` (wrk connections = pgbench clients),
//! `BENCH_HOT_ONLY=by id,list` (rows whose names contain a part; processing only with the POST row),
//! `BENCH_HOT_PREWARM=true` (read the copy's canonical tables and indexes into the page cache
//! first, as a server that has run a while holds them: the copy is fresh from disk, and the
//! template beside it competes for the same memory).
//! The size is `BENCH_RECORDS` (`100k`, `1M`, `10M`; or this bench's own `BENCH_HOT_ENTITIES`),
//! default 100k, printed in every row. Each size is seeded once into a template under
//! target/bench-hot (`strs_bench_hot_seed`, another size `strs_bench_hot_seed_<size>`, e.g.
//! `strs_bench_hot_seed_10m`); each run starts from a copy.

#![expect(
    clippy::print_stdout,
    reason = "a bench reports its figures on standard output"
)]

mod support;

use support::process::env_or;
use support::queries::{ENTITY_BY_ID, NEAR_PAGE, NESTED};
use support::size;

use anyhow::{Context, bail};
use serde_json::{Value, json};
use spacetime_records::db::cluster::EmbeddedCluster;
use spacetime_records::db::tile_density::{self, Caller};
use spacetime_records::topology::{self, ServerProcess, ServerSettings};
use sqlx::{Connection, PgPool};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const DATABASE: &str = "strs_bench_hot";
const TEMPLATE: &str = "strs_bench_hot_seed";
const DEFAULT_ENTITIES: usize = 100_000;
const SEED: u64 = 20_261_125;
/// Entry bodies wrk posts from (one JSON document a line); it wraps around past the end.
const ENTRY_PLAN: usize = 120_000;
const MARK: &str = "strs-hot-mark:";
/// The issue-34 target of a map tile at every zoom (p95 ≤ 100 ms; the p99 printed is stricter).
const TILE_P99_MS: f64 = 100.0;
const MANCHESTER: (f64, f64) = (53.4808, -2.2426);
/// Mid-Wales: the generator's sparse region (the search bench's rural point).
const RURAL: (f64, f64) = (52.30, -3.60);

fn main() -> anyhow::Result<()> {
    support::start::block_on(run())
}

struct Settings {
    seconds: u64,
    rounds: usize,
    connections: usize,
}

/// What wrk sends for one workload.
enum Load {
    Get(String),
    Post {
        path: String,
        key: String,
    },
    /// A GraphQL request (its JSON body), posted to `/graphql` without a key.
    Graphql(String),
}

/// What a row is judged by (docs/benchmarks.md).
#[derive(Clone, Copy)]
enum Target {
    /// Our throughput against pgbench's.
    Ratio(f64),
    /// The 99th percentile of one client's requests, in ms (a map tile is drawn on its own).
    P99Ms(f64),
}

/// One statement as PostgreSQL logged it, with its parameters (`None` is SQL NULL).
#[derive(Clone, Debug)]
struct Statement {
    sql: String,
    params: Vec<Option<String>>,
}

struct Workload {
    name: String,
    load: Load,
    target: Target,
    /// wrk connections and pgbench clients for this row, when not the run's.
    connections: Option<usize>,
    /// The statements one request ran, in order: pgbench runs them as one script.
    statements: Vec<Statement>,
    /// The search pool's session settings (custom plans, no parallel workers); pgbench's too.
    search_session: bool,
}

#[derive(Default, Clone, Copy)]
struct Measured {
    rate: f64,
    p50_ms: f64,
    p99_ms: f64,
    failures: u64,
}

async fn run() -> anyhow::Result<()> {
    let settings = Settings {
        seconds: env_or("BENCH_HOT_SECONDS", 5),
        rounds: env_or("BENCH_HOT_ROUNDS", 2_usize).max(1),
        connections: env_or("BENCH_HOT_CONNECTIONS", 8),
    };
    let entities = size::records("BENCH_HOT_ENTITIES", DEFAULT_ENTITIES)?;
    let label = size::label(entities);
    if Command::new("wrk").arg("--version").output().is_err() {
        bail!("wrk is not installed (Debian package `wrk`)");
    }
    let root = support::start::kept("bench-hot");
    std::fs::create_dir_all(&root)?;
    let cluster = support::start::cluster_in(root.join("pg")).await?;
    let template = size::database(TEMPLATE, entities, DEFAULT_ENTITIES);
    let contents = support::seeded::Contents::new(SEED, entities);
    support::seeded::fresh_copy(&cluster, DATABASE, &template, contents).await?;
    let pool = spacetime_records::db::connect(&cluster.url(DATABASE), 2).await?;
    // The tiles' counts per cell, built once before anything is measured (a serving server
    // rebuilds them when older than STRS_TILE_COUNTS_MAX_AGE_SECS, which the run outlasts).
    let rebuild = Instant::now();
    tile_density::refresh_if_due(&pool, 0.0, Caller::Tile).await?;
    let rebuilt_in = rebuild.elapsed();
    println!(
        "{label:<5} tile counts per cell rebuilt in {:.1} s",
        rebuilt_in.as_secs_f64()
    );
    // The rebuild wrote every row of the counts (8 million at 10M): vacuumed now, as a serving
    // database's would have been long before, not by autovacuum in the middle of a measured row
    // (it read 0.9 GB during processing at 10M).
    sqlx::query("VACUUM (ANALYZE) canonical.tile_density")
        .execute(&pool)
        .await?;
    if env_or("BENCH_HOT_PREWARM", false) {
        prewarm(&pool, &label).await?;
    }
    // The plan re-observes the base, so each size has its own.
    let bodies = root.join(format!(
        "{}.jsonl",
        size::database("entries", entities, DEFAULT_ENTITIES)
    ));
    write_entry_plan(&bodies, entities)?;

    let server_settings = ServerSettings {
        binary: PathBuf::from(env!("CARGO_BIN_EXE_spacetime-records")),
        database_url: cluster.url(DATABASE),
        replica_urls: Vec::new(),
        port: 0,
        data_dir: root.join("files"),
        jwt_secret: topology::shared_secret(),
        env: vec![
            ("RUST_LOG".into(), "warn".into()),
            // Each run registers its clients' agents; the default allows 60 an hour.
            ("STRS_REGISTRATIONS_PER_HOUR".into(), "100000".into()),
            ("STRS_TILE_COUNTS_MAX_AGE_SECS".into(), "86400".into()),
        ],
        log_file: Some(root.join("server.log")),
    };
    let spawn = |transformer: bool| -> anyhow::Result<ServerProcess> {
        let mut settings = server_settings.clone();
        settings.port = topology::free_port()?;
        settings
            .env
            .push(("STRS_TRANSFORMER_WORKER".into(), transformer.to_string()));
        ServerProcess::spawn(&settings)
    };

    // Records to read: an agent, and a listing and a request made by the transformer.
    let mut server = spawn(true)?;
    server.wait_ready(Duration::from_secs(60)).await?;
    let base = server.base_url();
    let http = reqwest::Client::new();
    let key = register(&http, &base).await?;
    let (listing_id, request_id) = listing_and_request(&http, &base, &key, &pool).await?;
    drop(server);
    let entity_id: uuid::Uuid = sqlx::query_scalar(
        "SELECT id FROM canonical.entities WHERE status = 'active' ORDER BY id LIMIT 1 OFFSET 5000",
    )
    .fetch_one(&pool)
    .await?;
    // A page from the middle of the entity list: keyset paging reads it from the index at the
    // cursor's id, so it should cost what the first page costs at any depth.
    let middle: uuid::Uuid =
        sqlx::query_scalar("SELECT id FROM canonical.entities ORDER BY id DESC LIMIT 1 OFFSET $1")
            .bind(i64::try_from(entities / 2)?)
            .fetch_one(&pool)
            .await?;
    let deep_cursor =
        spacetime_records::domain::cursor::Cursor::after(middle).encode("/api/v1/entities");
    let (category, lat, lng): (String, f64, f64) = sqlx::query_as(
        "SELECT categories[1], location_lat, location_lng FROM canonical.entities
         WHERE status = 'active' AND cardinality(categories) > 0 ORDER BY id LIMIT 1 OFFSET 7000",
    )
    .fetch_one(&pool)
    .await?;
    let search = format!(
        "/api/v1/search?query={}&latitude={lat}&longitude={lng}&radius_meters=1000&canonical_type=entity",
        url::form_urlencoded::byte_serialize(category.as_bytes()).collect::<String>()
    );
    let mut workloads = vec![
        workload(
            "entity by id",
            Load::Get(format!("/api/v1/entities/{entity_id}")),
            0.5,
        ),
        workload(
            "listing by id",
            Load::Get(format!("/api/v1/listings/{listing_id}")),
            0.5,
        ),
        workload(
            "request by id",
            Load::Get(format!("/api/v1/requests/{request_id}")),
            0.5,
        ),
        workload(
            "entity list limit=100",
            Load::Get("/api/v1/entities?limit=100".into()),
            0.75,
        ),
        workload(
            "entity list, middle page",
            Load::Get(format!("/api/v1/entities?limit=100&after={deep_cursor}")),
            0.75,
        ),
        workload("search category+1 km", Load::Get(search), 0.75),
        graphql(
            "GraphQL entity by id",
            json!({"query": ENTITY_BY_ID, "variables": {"id": entity_id}}),
            0.5,
        ),
        graphql("GraphQL nested provenance", json!({"query": NESTED}), 0.5),
        graphql(
            "GraphQL entitiesNear 1 km",
            json!({"query": NEAR_PAGE}),
            0.75,
        ),
        workload(
            "entities within a box",
            Load::Get("/api/v1/entities?bbox=-2.26,53.47,-2.22,53.49&limit=100".into()),
            0.75,
        ),
        tile("tile z4 (city)", MANCHESTER, 4),
        tile("tile z10 (city)", MANCHESTER, 10),
        // The densest tiles read from the records: 16 and 4 times a z14 tile's area.
        tile("tile z12 (city)", MANCHESTER, 12),
        tile("tile z13 (city)", MANCHESTER, 13),
        tile("tile z14 (city)", MANCHESTER, 14),
        tile("tile z4 (rural)", RURAL, 4),
        tile("tile z10 (rural)", RURAL, 10),
        tile("tile z14 (rural)", RURAL, 14),
        workload(
            "POST entry (fsync on)",
            Load::Post {
                path: "/api/v1/space-time-entries".into(),
                key: key.clone(),
            },
            0.6,
        ),
    ];
    for workload in &mut workloads {
        // Searches and tiles are read through the search pool (custom plans, no parallel
        // workers): pgbench replays them in the same session settings.
        workload.search_session =
            workload.name.starts_with("search") || workload.name.starts_with("tile");
    }
    // `BENCH_HOT_ONLY=by id,list` keeps the rows whose names contain one of the parts (for
    // profiling one path); processing runs only when POST is kept.
    let chosen = support::process::chosen("BENCH_HOT_ONLY");
    workloads.retain(|w| chosen(&w.name));
    let posts = workloads
        .iter()
        .any(|w| matches!(w.load, Load::Post { .. }));

    capture_statements(&cluster, &spawn, &http, &bodies, &mut workloads).await?;

    println!(
        "\nHot paths: {entities} entities ({label}, template {template}), release binary over HTTP (wrk, {c} connections) \
         against pgbench ({c} clients, prepared) running the statements each request ran; \
         {} s windows, best of {} rounds taking turns, {} cores ({})",
        settings.seconds,
        settings.rounds,
        std::thread::available_parallelism().map_or(0, std::num::NonZero::get),
        support::process::idle_policy().unwrap_or_else(|| "idle policy unknown".to_string()),
        c = settings.connections,
    );
    let mut server = spawn(false)?;
    server.wait_ready(Duration::from_secs(60)).await?;
    let base = server.base_url();
    let lua = root.join("post.lua");
    std::fs::write(&lua, POST_SCRIPT)?;
    let mut best = vec![(Measured::default(), 0.0_f64); workloads.len()];
    let mut posted_from = 0usize;
    for _ in 0..settings.rounds {
        for (workload, best) in workloads.iter().zip(best.iter_mut()) {
            let ours = run_wrk(&settings, &base, workload, &lua, &bodies, posted_from)?;
            if let Load::Post { .. } = workload.load {
                posted_from += (ours.rate * settings.seconds as f64) as usize;
            }
            let ceiling = run_pgbench_for(&cluster, &pool, workload, &settings).await?;
            if ours.rate > best.0.rate {
                best.0 = ours;
            }
            best.1 = best.1.max(ceiling);
        }
    }
    let serving_rss = support::process::peak_rss_kb(server.pid());
    let (serving_anon, serving_file) = support::process::resident_split_kb(server.pid());
    drop(server);

    println!(
        "{:<5} {:<26} {:>9} {:>8} {:>8} {:>7} {:>10} {:>6} {:>9}",
        "size", "workload", "ours r/s", "p50 ms", "p99 ms", "stmts", "pgbench", "ratio", "target"
    );
    for (workload, (ours, ceiling)) in workloads.iter().zip(&best) {
        let target = match workload.target {
            Target::Ratio(ratio) => format!(">= {ratio:.2}x"),
            Target::P99Ms(ms) => format!("p99 <= {ms:.0}"),
        };
        println!(
            "{:<5} {:<26} {:>9.0} {:>8.2} {:>8.2} {:>7} {:>10.0} {:>6.2} {:>9}{}{}",
            label,
            workload.name,
            ours.rate,
            ours.p50_ms,
            ours.p99_ms,
            workload.statements.len(),
            ceiling,
            ours.rate / ceiling.max(f64::MIN_POSITIVE),
            target,
            workload
                .connections
                .map(|c| format!("  ({c} connection)"))
                .unwrap_or_default(),
            if ours.failures > 0 {
                format!("  ({} non-2xx answers)", ours.failures)
            } else {
                String::new()
            }
        );
    }

    let processing_rss = if posts {
        let drained = process_backlog(&spawn, &pool, &cluster.data_dir).await?;
        let per_entry = |seconds: f64| seconds * 1000.0 / drained.processed.max(1) as f64;
        println!(
            "{:<5} {:<26} {:>9.0} entries/s ({} entries in {:.1} s, default loops; target >= 4000); \
             CPU per entry: server {:.3} ms, PostgreSQL {:.3} ms",
            label,
            "processing",
            drained.processed as f64 / drained.elapsed.as_secs_f64().max(f64::MIN_POSITIVE),
            drained.processed,
            drained.elapsed.as_secs_f64(),
            per_entry(drained.server_cpu),
            per_entry(drained.postgres_cpu),
        );
        println!("{label:<5} {:<26} {}", "outcomes", drained.outcomes);
        // What the keeper of a serving server does next: recount the cells processing changed.
        let refresh = Instant::now();
        let refreshed = tile_density::refresh_if_due(&pool, 0.0, Caller::Keeper).await?;
        println!(
            "{label:<5} {:<26} {:?} in {:.2} s (the whole rebuild before the run: {:.1} s)",
            "tile counts refreshed",
            refreshed,
            refresh.elapsed().as_secs_f64(),
            rebuilt_in.as_secs_f64()
        );
        drained.rss_kb
    } else {
        0
    };
    let peak = serving_rss.max(processing_rss);
    println!(
        "{:<5} {:<26} {:>9.1} MB (serving {:.1} MB, processing {:.1} MB; target <= 50 MB); \
         after serving {:.1} MB anonymous, {:.1} MB of the binary's and libraries' pages",
        label,
        "server peak RSS",
        peak as f64 / 1024.0,
        serving_rss as f64 / 1024.0,
        processing_rss as f64 / 1024.0,
        serving_anon as f64 / 1024.0,
        serving_file as f64 / 1024.0
    );
    for workload in &workloads {
        println!("\n-- {} ran:", workload.name);
        for statement in &workload.statements {
            println!("   {}", one_line(&statement.sql, 160));
        }
    }
    Ok(())
}

fn workload(name: &str, load: Load, target: f64) -> Workload {
    Workload {
        name: name.into(),
        load,
        target: Target::Ratio(target),
        connections: None,
        statements: Vec::new(),
        search_session: false,
    }
}

/// A map tile's row: one client, judged by its p99.
fn tile(name: &str, (lat, lng): (f64, f64), zoom: u32) -> Workload {
    let (x, y) = tile_of(lat, lng, zoom);
    Workload {
        connections: Some(1),
        target: Target::P99Ms(TILE_P99_MS),
        ..workload(name, Load::Get(format!("/tiles/{zoom}/{x}/{y}.mvt")), 0.0)
    }
}

/// The Web Mercator tile (x, y) holding a point at a zoom.
fn tile_of(lat: f64, lng: f64, zoom: u32) -> (u32, u32) {
    let n = f64::from(1_u32 << zoom);
    let x = ((lng + 180.0) / 360.0 * n).floor();
    let phi = lat.to_radians();
    let y = ((1.0 - (phi.tan() + 1.0 / phi.cos()).ln() / std::f64::consts::PI) / 2.0 * n).floor();
    (x as u32, y as u32)
}

fn graphql(name: &str, body: Value, target: f64) -> Workload {
    workload(name, Load::Graphql(body.to_string()), target)
}

/// The entries wrk posts: re-observations of the seeded businesses and new ones, as agents send
/// them (see the generator), without idempotency keys so that wrapping around posts again.
fn write_entry_plan(path: &Path, entities: usize) -> anyhow::Result<()> {
    if path.exists() {
        return Ok(());
    }
    let mut text = String::new();
    for planned in support::generator::entry_plan(SEED, ENTRY_PLAN, entities) {
        let mut body = planned.body;
        if let Some(object) = body.as_object_mut() {
            object.remove("idempotency_key");
        }
        text.push_str(&body.to_string());
        text.push('\n');
    }
    let partial = path.with_extension("partial");
    std::fs::write(&partial, text)?;
    std::fs::rename(partial, path)?;
    Ok(())
}

async fn register(http: &reqwest::Client, base: &str) -> anyhow::Result<String> {
    let answer: Value = http
        .post(format!("{base}/api/v1/agents/register"))
        .json(&json!({"agent_type": "scraper", "display_name": "Hot Paths Bench"}))
        .send()
        .await?
        .error_for_status()?
        .json()
        .await?;
    Ok(answer["api_key"]
        .as_str()
        .context("an api key")?
        .to_string())
}

async fn listing_and_request(
    http: &reqwest::Client,
    base: &str,
    key: &str,
    pool: &PgPool,
) -> anyhow::Result<(uuid::Uuid, uuid::Uuid)> {
    let place = json!({"city": "Manchester", "country_code": "GB"});
    let mut listing = json!({"title": "Annual boiler service", "listing_type": "service",
        "price_amount": 95, "currency_code": "GBP", "display_name": "Boiler service"});
    let mut request = json!({"title": "Need a plumber for a leaking pipe", "budget_amount": 150,
        "currency_code": "GBP"});
    for context in [&mut listing, &mut request] {
        context
            .as_object_mut()
            .context("an object")?
            .extend(place.as_object().context("an object")?.clone());
    }
    for (kind, context) in [("listing", listing), ("request", request)] {
        http.post(format!("{base}/api/v1/space-time-entries"))
            .bearer_auth(key)
            .json(
                &json!({"entry_type": kind, "latitude": 53.4808, "longitude": -2.2426,
                "observed_at_tstamp_utc": "2026-11-01T10:00:00Z", "source_type": "web_page",
                "context": context}),
            )
            .send()
            .await?
            .error_for_status()?;
    }
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let ids: (Option<uuid::Uuid>, Option<uuid::Uuid>) = sqlx::query_as(
            "SELECT (SELECT id FROM canonical.listings LIMIT 1), (SELECT id FROM canonical.requests LIMIT 1)",
        )
        .fetch_one(pool)
        .await?;
        if let (Some(listing), Some(request)) = ids {
            return Ok((listing, request));
        }
        if Instant::now() > deadline {
            bail!("the transformer made no listing and request from the bench's entries");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Runs each workload's request once on a capture server while PostgreSQL logs every statement,
/// between marker statements, and keeps what ran in between.
async fn capture_statements(
    cluster: &EmbeddedCluster,
    spawn: &impl Fn(bool) -> anyhow::Result<ServerProcess>,
    http: &reqwest::Client,
    bodies: &Path,
    workloads: &mut [Workload],
) -> anyhow::Result<()> {
    let log_path = cluster.data_dir.join("server.log");
    let mut admin = sqlx::PgConnection::connect(&cluster.url("postgres")).await?;
    sqlx::query(&format!(
        "ALTER DATABASE {DATABASE} SET log_min_duration_statement = 0"
    ))
    .execute(&mut admin)
    .await?;
    let captured = async {
        let mut server = spawn(false)?;
        server.wait_ready(Duration::from_secs(60)).await?;
        let base = server.base_url();
        let mut marker = sqlx::PgConnection::connect(&cluster.url(DATABASE)).await?;
        let body = std::fs::read_to_string(bodies)?
            .lines()
            .next()
            .context("an entry body")?
            .to_string();
        for workload in workloads.iter_mut() {
            // Warm the connections and statement caches first: the capture is the steady state.
            for _ in 0..3 {
                send(http, &base, &workload.load, &body).await?;
            }
            let log_start = std::fs::metadata(&log_path)?.len();
            sqlx::query(&format!("SELECT '{MARK}begin'"))
                .execute(&mut marker)
                .await?;
            let answer = send(http, &base, &workload.load, &body).await?;
            sqlx::query(&format!("SELECT '{MARK}end'"))
                .execute(&mut marker)
                .await?;
            let log = read_from(&log_path, log_start)?;
            let mut statements = statements_between_marks(&log)?;
            if let Load::Post { .. } = workload.load {
                let created = answer["id"].as_str().context("the posted entry's id")?;
                for statement in &mut statements {
                    fresh_ids(statement, created);
                }
            }
            if statements.is_empty() {
                bail!("no statement was logged for {}", workload.name);
            }
            workload.statements = statements;
        }
        anyhow::Ok(())
    }
    .await;
    sqlx::query(&format!(
        "ALTER DATABASE {DATABASE} RESET log_min_duration_statement"
    ))
    .execute(&mut admin)
    .await?;
    captured
}

async fn send(
    http: &reqwest::Client,
    base: &str,
    load: &Load,
    body: &str,
) -> anyhow::Result<Value> {
    let request = match load {
        Load::Get(path) => http.get(format!("{base}{path}")),
        Load::Post { path, key } => http
            .post(format!("{base}{path}"))
            .bearer_auth(key)
            .header("content-type", "application/json")
            .body(body.to_string()),
        Load::Graphql(query) => http
            .post(format!("{base}/graphql"))
            .header("content-type", "application/json")
            .body(query.clone()),
    };
    let response = request.send().await?;
    let status = response.status();
    let bytes = response.bytes().await?;
    if !status.is_success() {
        bail!("{status}: {}", String::from_utf8_lossy(&bytes));
    }
    // A tile is not JSON.
    let answer: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    if let Some(errors) = answer.get("errors") {
        bail!("GraphQL errors: {errors}");
    }
    Ok(answer)
}

fn read_from(path: &Path, offset: u64) -> anyhow::Result<String> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = std::fs::File::open(path)?;
    file.seek(SeekFrom::Start(offset))?;
    let mut text = String::new();
    file.read_to_string(&mut text)?;
    Ok(text)
}

/// The statements PostgreSQL logged between the two marker statements. A logged message goes
/// on over lines that start with a tab; `execute` lines carry the statement and a `DETAIL:
/// parameters:` line its values.
fn statements_between_marks(log: &str) -> anyhow::Result<Vec<Statement>> {
    let mut messages: Vec<String> = Vec::new();
    for line in log.lines() {
        match (line.strip_prefix('\t'), messages.last_mut()) {
            (Some(rest), Some(last)) => {
                last.push('\n');
                last.push_str(rest);
            }
            _ => messages.push(line.to_string()),
        }
    }
    let mut statements = Vec::new();
    let mut inside = false;
    // Parse and bind are logged too, each with its parameters: only an execute's belong to it.
    let mut after_execute = false;
    for message in &messages {
        if let Some((_, detail)) = message.split_once("DETAIL:  parameters: ") {
            if after_execute && let Some(last) = statements.last_mut() {
                let last: &mut Statement = last;
                last.params = parse_parameters(detail)?;
            }
            after_execute = false;
            continue;
        }
        after_execute = false;
        let sql = if let Some((_, named)) = message.split_once("  execute ") {
            // `execute <name>: <sql>`
            named.split_once(": ").map_or(named, |(_, sql)| sql)
        } else if let Some((_, simple)) = message.split_once("  statement: ") {
            simple
        } else {
            continue;
        };
        if sql.contains(MARK) {
            inside = sql.contains(&format!("{MARK}begin"));
            continue;
        }
        if inside {
            statements.push(Statement {
                sql: sql.to_string(),
                params: Vec::new(),
            });
            after_execute = true;
        }
    }
    Ok(statements)
}

/// `$1 = 'a', $2 = NULL, $3 = 'it''s'` into values in order.
fn parse_parameters(detail: &str) -> anyhow::Result<Vec<Option<String>>> {
    let mut values = Vec::new();
    let mut rest = detail.trim_end();
    while !rest.is_empty() {
        let (_, after) = rest
            .split_once(" = ")
            .context("a parameter without a value")?;
        if let Some(after) = after.strip_prefix("NULL") {
            values.push(None);
            rest = after.trim_start_matches(", ");
            continue;
        }
        let mut chars = after
            .strip_prefix('\'')
            .context("a quoted value")?
            .char_indices();
        let mut value = String::new();
        let mut end = None;
        while let Some((at, c)) = chars.next() {
            if c == '\'' {
                if after[1 + at + 1..].starts_with('\'') {
                    value.push('\'');
                    chars.next();
                } else {
                    end = Some(1 + at + 1);
                    break;
                }
            } else {
                value.push(c);
            }
        }
        values.push(Some(value));
        rest = after[end.context("an unterminated value")?..].trim_start_matches(", ");
    }
    Ok(values)
}

/// The id a POST created becomes a fresh one per pgbench transaction.
fn fresh_ids(statement: &mut Statement, created: &str) {
    for (n, value) in statement.params.iter().enumerate().rev() {
        if value.as_deref() == Some(created) {
            statement.sql =
                support::pgbench::replace_parameter(&statement.sql, n + 1, "gen_random_uuid()");
        }
    }
    for value in statement.params.iter_mut() {
        if value.as_deref() == Some(created) {
            *value = None;
        }
    }
}

/// POSTs walk the entry plan from an offset (`-- <file> <offset> <threads>`), each wrk thread
/// taking every `threads`-th body.
const POST_SCRIPT: &str = r#"
wrk.method = "POST"
local bodies = {}
local at, step = 0, 1
local next_thread = 0
function setup(thread)
  thread:set("id", next_thread)
  next_thread = next_thread + 1
end
function init(args)
  for line in io.lines(args[1]) do bodies[#bodies + 1] = line end
  step = tonumber(args[3])
  at = tonumber(args[2]) + id
end
function request()
  local body = bodies[(at % #bodies) + 1]
  at = at + step
  return wrk.format(nil, nil, nil, body)
end
"#;

fn run_wrk(
    settings: &Settings,
    base: &str,
    workload: &Workload,
    lua: &Path,
    bodies: &Path,
    posted_from: usize,
) -> anyhow::Result<Measured> {
    let connections = workload.connections.unwrap_or(settings.connections);
    let threads = 2.min(connections).to_string();
    let mut command = Command::new("wrk");
    command.args([
        "--latency",
        "-t",
        &threads,
        "-c",
        &connections.to_string(),
        "-d",
        &format!("{}s", settings.seconds),
    ]);
    match &workload.load {
        Load::Get(path) => {
            command.arg(format!("{base}{path}"));
        }
        Load::Post { path, key } => {
            command.args([
                "-H",
                &format!("Authorization: Bearer {key}"),
                "-H",
                "Content-Type: application/json",
                "-s",
            ]);
            command.arg(lua);
            command.arg(format!("{base}{path}"));
            command
                .arg("--")
                .arg(bodies)
                .arg(posted_from.to_string())
                .arg(&threads);
        }
        Load::Graphql(body) => {
            let script = lua.with_file_name(format!("graphql-{}.lua", slug(&workload.name)));
            std::fs::write(
                &script,
                format!(
                    "wrk.method = \"POST\"\nwrk.headers[\"Content-Type\"] = \"application/json\"\n\
                     wrk.body = [==[{body}]==]\n"
                ),
            )?;
            command.arg("-s").arg(script).arg(format!("{base}/graphql"));
        }
    }
    let output = command.output().context("running wrk")?;
    let text = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        bail!(
            "wrk failed: {text}{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    parse_wrk(&text)
}

fn parse_wrk(text: &str) -> anyhow::Result<Measured> {
    let mut measured = Measured::default();
    for line in text.lines().map(str::trim) {
        if let Some(rate) = line.strip_prefix("Requests/sec:") {
            measured.rate = rate.trim().parse()?;
        } else if let Some(latency) = line.strip_prefix("50%") {
            measured.p50_ms = wrk_ms(latency.trim())?;
        } else if let Some(latency) = line.strip_prefix("99%") {
            measured.p99_ms = wrk_ms(latency.trim())?;
        } else if let Some(count) = line.strip_prefix("Non-2xx or 3xx responses:") {
            measured.failures = count.trim().parse()?;
        }
    }
    if measured.rate == 0.0 {
        bail!("no Requests/sec line in wrk's output: {text}");
    }
    Ok(measured)
}

/// `512.00us`, `2.10ms`, `1.02s` in milliseconds.
fn wrk_ms(value: &str) -> anyhow::Result<f64> {
    let (number, scale) = if let Some(n) = value.strip_suffix("us") {
        (n, 0.001)
    } else if let Some(n) = value.strip_suffix("ms") {
        (n, 1.0)
    } else if let Some(n) = value.strip_suffix('s') {
        (n, 1000.0)
    } else {
        bail!("a latency without a unit: {value}");
    };
    Ok(number.parse::<f64>()? * scale)
}

/// pgbench running the workload's statements, one script a transaction (autocommit, as the
/// service runs them); rows a POST ceiling inserted are deleted again.
async fn run_pgbench_for(
    cluster: &EmbeddedCluster,
    pool: &PgPool,
    workload: &Workload,
    settings: &Settings,
) -> anyhow::Result<f64> {
    let started: chrono::DateTime<chrono::Utc> = sqlx::query_scalar("SELECT clock_timestamp()")
        .fetch_one(pool)
        .await?;
    let mut script = String::new();
    let mut variables = Vec::new();
    for (s, statement) in workload.statements.iter().enumerate() {
        script.push_str(&support::pgbench::script_line(
            &statement.sql,
            &statement.params,
            |n| format!("s{s}p{n}"),
            &mut variables,
        ));
    }
    let rate = support::pgbench::tps(
        cluster,
        DATABASE,
        &script,
        &variables,
        &support::pgbench::Options {
            clients: workload.connections.unwrap_or(settings.connections),
            seconds: settings.seconds,
            protocol: "prepared",
            search_session: workload.search_session,
        },
    )?;
    if let Load::Post { .. } = workload.load {
        sqlx::query("DELETE FROM space_time_entries WHERE created_at_tstamp_utc >= $1")
            .bind(started)
            .execute(pool)
            .await?;
    }
    Ok(rate)
}

/// What draining the posted backlog took.
struct Drained {
    processed: i64,
    elapsed: Duration,
    /// Peak RSS of the processing server.
    rss_kb: u64,
    /// CPU seconds of the processing server (from its start) and of the cluster meanwhile.
    server_cpu: f64,
    postgres_cpu: f64,
    /// Entries per status and link type afterwards (to compare decisions between builds).
    outcomes: String,
}

/// Processes everything the POSTs left pending with a server running the default loops: the
/// entries decided per second, the CPU they cost, and that server's peak RSS.
async fn process_backlog(
    spawn: &impl Fn(bool) -> anyhow::Result<ServerProcess>,
    pool: &PgPool,
    pg_dir: &Path,
) -> anyhow::Result<Drained> {
    let pending = || async {
        sqlx::query_scalar::<_, i64>(
            "SELECT count(*) FROM space_time_entries WHERE status = 'pending'",
        )
        .fetch_one(pool)
        .await
    };
    let backlog = pending().await?;
    let postgres_before = support::process::cluster_cpu_seconds(pg_dir);
    let mut server = spawn(true)?;
    server.wait_ready(Duration::from_secs(60)).await?;
    let started = Instant::now();
    // Whether any entry is pending, not how many: counting 25k entries ten times a second cost
    // PostgreSQL about a tenth of a core, charged to processing.
    let any_pending = || async {
        sqlx::query_scalar::<_, bool>(
            "SELECT EXISTS (SELECT 1 FROM space_time_entries WHERE status = 'pending')",
        )
        .fetch_one(pool)
        .await
    };
    while any_pending().await? && started.elapsed() < Duration::from_secs(600) {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let elapsed = started.elapsed();
    let remaining = pending().await?;
    let rss_kb = support::process::peak_rss_kb(server.pid());
    let server_cpu = support::process::cpu_seconds(server.pid());
    let postgres_cpu = support::process::cluster_cpu_seconds(pg_dir) - postgres_before;
    drop(server);
    let counts: Vec<(String, Option<String>, i64)> = sqlx::query_as(
        "SELECT status, link_type, count(*) FROM space_time_entries GROUP BY 1, 2 ORDER BY 1, 2",
    )
    .fetch_all(pool)
    .await?;
    let outcomes = counts
        .iter()
        .map(|(status, link, n)| format!("{status}/{}: {n}", link.as_deref().unwrap_or("-")))
        .collect::<Vec<_>>()
        .join(", ");
    Ok(Drained {
        processed: backlog - remaining,
        elapsed,
        rss_kb,
        server_cpu,
        postgres_cpu,
        outcomes,
    })
}

/// A workload's name as a file name part.
fn slug(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

fn one_line(sql: &str, width: usize) -> String {
    let flat: String = sql.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= width {
        flat
    } else {
        format!("{}…", flat.chars().take(width).collect::<String>())
    }
}

/// Reads every table and index of the copy's `canonical` schema once (`pg_prewarm`, into the
/// operating system's page cache, not PostgreSQL's buffers): what a serving database has cached
/// after a while, when the machine's memory holds it.
async fn prewarm(pool: &PgPool, label: &str) -> anyhow::Result<()> {
    let started = Instant::now();
    sqlx::query("CREATE EXTENSION IF NOT EXISTS pg_prewarm")
        .execute(pool)
        .await?;
    let pages: i64 = sqlx::query_scalar(
        "SELECT coalesce(sum(pg_prewarm(c.oid, 'read')), 0)::bigint FROM pg_class c
         WHERE c.relnamespace = 'canonical'::regnamespace AND c.relkind IN ('r', 'i')",
    )
    .fetch_one(pool)
    .await?;
    println!(
        "{label:<5} prewarmed {:.1} GiB of canonical tables and indexes in {:.1} s",
        pages as f64 * 8192.0 / f64::from(1u32 << 30),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
