//! API benchmark: reads by id over REST and GraphQL, the nested provenance query, map tiles
//! (`/tiles/0/0/0.mvt` holds every entity) and an `entitiesNear` page, through the real router (in process, no sockets) against generated
//! entities, next to pgbench running the service's own statement in the same run.
//!
//! For each workload it prints peak throughput with `BENCH_API_CONCURRENCY` closed-loop clients,
//! p50/p99 at that load, the SQL statements one request runs, pgbench's throughput for that SQL
//! (where one statement is the whole request) and the ratio; then GraphQL by id / REST by id, and
//! the process's peak RSS. Workloads and pgbench take turns for `BENCH_API_ROUNDS` rounds and each
//! keeps its best window.
//!
//! `cargo bench --bench api`; variables and figures in docs/benchmarks.md. The size is
//! `BENCH_RECORDS` (`100k`, `1M`, `10M`; or this bench's own `BENCH_API_ENTITIES`), default 100k,
//! printed in every row; each size is seeded once into its own database under target/bench-pg
//! (`strs_bench_api`, another size `strs_bench_api_<size>`). Figures are printed, never asserted. Then, over real HTTP on loopback, our GraphQL against PostGraphile 4 started
//! by the bench on the same database (`benches/support/postgraphile.rs`; `BENCH_API_POSTGRAPHILE=0`
//! skips it).

#![expect(
    clippy::print_stdout,
    reason = "a bench reports its figures on standard output"
)]

mod support;

use support::process::chosen;
use support::queries::{ENTITY_BY_ID, NEAR_PAGE, NESTED};
use support::start::{Defaults, Settings, seeded_app};

use anyhow::{Context, bail};
use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use serde_json::{Value, json};
use spacetime_records::db::cluster::EmbeddedCluster;
use spacetime_records::{app, db};
use sqlx::PgPool;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tower::ServiceExt;

const DATABASE: &str = "strs_bench_api";
const SEED: u64 = 20_261_124;
const MANCHESTER: (f64, f64) = (53.4808, -2.2426);

/// One request of a workload.
#[derive(Clone)]
enum Call {
    Get(String),
    /// The body, serialised once: the load generator should not pay for JSON per request.
    Graphql(bytes::Bytes),
}

impl Call {
    fn request(&self) -> Request<Body> {
        match self {
            Call::Get(path) => Request::get(path)
                .body(Body::empty())
                .expect("a path of the bench is a valid URI"),
            Call::Graphql(body) => Request::post("/graphql")
                .header(header::CONTENT_TYPE, "application/json")
                .body(Body::from(body.clone()))
                .expect("a fixed path and header make a valid request"),
        }
    }
}

fn graphql(body: Value) -> Call {
    Call::Graphql(body.to_string().into())
}

struct Workload {
    name: &'static str,
    call: Call,
    /// The one statement the request runs, with its parameters, when pgbench can be its ceiling.
    ceiling: Option<(String, Vec<String>)>,
}

fn main() -> anyhow::Result<()> {
    support::start::block_on(run())
}

async fn run() -> anyhow::Result<()> {
    let settings = Settings::from_env(
        "BENCH_API",
        DATABASE,
        Defaults {
            entities: 100_000,
            seconds: 5,
            concurrency: 8,
            rounds: 2,
        },
    )?;
    let (cluster, pool, state, router) = seeded_app(SEED, &settings).await?;
    seed_provenance(&router, &state).await?;
    // Statement counts need pg_stat_statements preloaded (test clusters are; a `serve` cluster is
    // not): without it the column shows "-" and tests/api/graphql_statements.rs has the counts.
    let counting = sqlx::query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        .execute(&pool)
        .await
        .is_ok()
        && sqlx::query("SELECT 1 FROM pg_stat_statements LIMIT 1")
            .execute(&pool)
            .await
            .is_ok();

    let entity_id: uuid::Uuid = sqlx::query_scalar(
        "SELECT id FROM canonical.entities WHERE ST_DWithin(location,
           ST_SetSRID(ST_MakePoint($2, $1), 4326)::geography, 1000) ORDER BY id LIMIT 1",
    )
    .bind(MANCHESTER.0)
    .bind(MANCHESTER.1)
    .fetch_one(&pool)
    .await?;
    let by_id_sql = format!(
        "SELECT {} FROM canonical.entities WHERE id = $1",
        db::entities::COLUMNS
    );
    let workloads = vec![
        Workload {
            name: "REST GET entity by id",
            call: Call::Get(format!("/api/v1/entities/{entity_id}")),
            ceiling: Some((by_id_sql.clone(), vec![entity_id.to_string()])),
        },
        Workload {
            name: "GraphQL entity by id (28 fields)",
            call: graphql(json!({"query": ENTITY_BY_ID, "variables": {"id": entity_id}})),
            ceiling: Some((by_id_sql, vec![entity_id.to_string()])),
        },
        Workload {
            name: "GraphQL { __typename } (no database)",
            call: graphql(json!({"query": "{ __typename }"})),
            ceiling: None,
        },
        Workload {
            name: "GraphQL nested provenance (50 agents)",
            call: graphql(json!({"query": NESTED})),
            ceiling: None,
        },
        Workload {
            name: "REST tile z0 (every entity in view)",
            call: Call::Get("/tiles/0/0/0.mvt".into()),
            ceiling: None,
        },
        Workload {
            name: "REST tile z11 (Manchester)",
            call: Call::Get(manchester_tile(11)),
            ceiling: None,
        },
        Workload {
            name: "GraphQL entitiesNear 1 km, first 20",
            call: graphql(json!({"query": NEAR_PAGE})),
            // Two statements a page (db::nearby): the hot-paths bench replays both in pgbench.
            ceiling: None,
        },
    ];

    let chosen = chosen("BENCH_API_ONLY");
    let workloads: Vec<Workload> = workloads.into_iter().filter(|w| chosen(w.name)).collect();
    println!("{}", settings.headline("API benchmark"));
    println!(
        "{:<5} {:<40} {:>9} {:>8} {:>8} {:>6} {:>9} {:>6}",
        "size", "workload", "peak r/s", "p50 ms", "p99 ms", "stmts", "pgbench", "ratio"
    );
    let mut peaks = Vec::new();
    for workload in &workloads {
        let statements = if counting {
            statements_per_request(&router, &pool, &workload.call)
                .await?
                .to_string()
        } else {
            "-".to_string()
        };
        let (mut best, mut ceiling) = (Measured::default(), 0.0_f64);
        for _ in 0..settings.rounds {
            let measured = closed_loop(
                &router,
                &workload.call,
                settings.concurrency,
                Duration::from_secs(settings.seconds),
            )
            .await?;
            if measured.rate > best.rate {
                best = measured;
            }
            let with_ceiling = std::env::var("BENCH_API_PGBENCH").map_or(true, |v| v != "0");
            if let (true, Some((sql, params))) = (with_ceiling, &workload.ceiling) {
                let rate = pgbench_ceiling(&cluster, sql, params, &settings)?;
                ceiling = ceiling.max(rate);
            }
        }
        let (pgbench, ratio) = if ceiling > 0.0 {
            (
                format!("{ceiling:.0}"),
                format!("{:.2}", best.rate / ceiling),
            )
        } else {
            ("-".into(), "-".into())
        };
        println!(
            "{:<5} {:<40} {:>9.0} {:>8.2} {:>8.2} {:>6} {:>9} {:>6}",
            settings.size(),
            workload.name,
            best.rate,
            ms(best.p50),
            ms(best.p99),
            statements,
            pgbench,
            ratio
        );
        peaks.push(best.rate);
    }
    let peak_of = |part: &str| {
        workloads
            .iter()
            .zip(&peaks)
            .find(|(w, _)| w.name.contains(part))
            .map(|(_, rate)| *rate)
    };
    if let (Some(rest), Some(graphql)) = (peak_of("REST GET entity"), peak_of("GraphQL entity")) {
        println!(
            "\nGraphQL by id / REST by id, in process: {:.2} (target >= 0.8)",
            graphql / rest
        );
    }
    if let Some(fixed) = peak_of("__typename") {
        println!("fixed GraphQL cost ({{ __typename }}): {fixed:.0} r/s");
    }
    tile_latency(&router, &workloads, &settings).await?;
    if std::env::var("BENCH_API_POSTGRAPHILE").map_or(true, |v| v != "0") {
        against_postgraphile(&settings, &cluster, &router, &pool, entity_id).await?;
    }
    println!(
        "peak RSS of this process (server and load generator): {} MB",
        support::process::peak_rss_kb(std::process::id()) / 1024
    );
    Ok(())
}

/// The `z/x/y` path of the tile holding Manchester's centre at zoom `z`.
fn manchester_tile(z: u32) -> String {
    let n = f64::from(1u32 << z);
    let x = ((MANCHESTER.1 + 180.0) / 360.0 * n).floor();
    let lat = MANCHESTER.0.to_radians();
    let y = ((1.0 - (lat.tan() + 1.0 / lat.cos()).ln() / std::f64::consts::PI) / 2.0 * n).floor();
    format!("/tiles/{z}/{x}/{y}.mvt")
}

/// A tile as one map client sees it: one request at a time (the table above runs
/// `BENCH_API_CONCURRENCY` clients on the machine's cores, so its latencies include queueing).
async fn tile_latency(
    router: &Router,
    workloads: &[Workload],
    settings: &Settings,
) -> anyhow::Result<()> {
    let tiles: Vec<&Workload> = workloads
        .iter()
        .filter(|w| w.name.contains("tile"))
        .collect();
    if tiles.is_empty() {
        return Ok(());
    }
    println!("\nTiles, one client (latency of a single map client):");
    println!(
        "{:<5} {:<40} {:>9} {:>8} {:>8} {:>9}",
        "size", "tile", "r/s", "p50 ms", "p99 ms", "bytes"
    );
    for workload in tiles {
        let response = router.clone().oneshot(workload.call.request()).await?;
        let bytes = http_body_util::BodyExt::collect(response.into_body())
            .await?
            .to_bytes()
            .len();
        let mut best = Measured::default();
        for _ in 0..settings.rounds {
            let measured = closed_loop(
                router,
                &workload.call,
                1,
                Duration::from_secs(settings.seconds),
            )
            .await?;
            if best.rate == 0.0 || measured.p50 < best.p50 {
                best = measured;
            }
        }
        println!(
            "{:<5} {:<40} {:>9.0} {:>8.2} {:>8.2} {:>9}",
            settings.size(),
            workload.name,
            best.rate,
            ms(best.p50),
            ms(best.p99),
            bytes
        );
    }
    Ok(())
}

/// PostGraphile's names for the same 28 fields (its `linkUrls` is the JSON column as a JSON
/// scalar; ours is a list of objects with the same three fields).
const POSTGRAPHILE_ENTITY_BY_ID: &str = "query($id: UUID!) { entityById(id: $id) { id entityType
  displayName legalName description websiteUrl email phone addressText city countryCode categories
  tags linkUrls contactAgentId locationLat locationLng status scoreDataRichness scoreAgentReputation
  scoreSignal scoreConfidence contextL0Routing contextL1Common contextL2Specific
  contextL2AvailableFeatures createdAtTstampUtc updatedAtTstampUtc } }";

/// The nested shape in PostGraphile's terms: relations through foreign keys, and the
/// contribution → entity → contributions hops through the computed columns of
/// `support::postgraphile::COMPUTED_COLUMNS`.
const POSTGRAPHILE_NESTED: &str = "{ allAgents(first: 50) { nodes { displayName
  spaceTimeEntriesByAgentId(first: 10) { nodes { id
    canonicalLinkContributionsBySourceSpaceTimeEntryId(first: 5) { nodes { linkType
      entity { displayName contributions(first: 10) { nodes { linkType
        spaceTimeEntryBySourceSpaceTimeEntryId { id agentByAgentId { displayName } } } } } } } } } } } }";

/// Our GraphQL and PostGraphile over real HTTP on loopback, the same shapes, the same client
/// count, taking turns; printed next to each other with the ratios issue 12 targets.
async fn against_postgraphile(
    settings: &Settings,
    cluster: &EmbeddedCluster,
    router: &Router,
    pool: &PgPool,
    entity_id: uuid::Uuid,
) -> anyhow::Result<()> {
    sqlx::raw_sql(support::postgraphile::COMPUTED_COLUMNS)
        .execute(pool)
        .await?;
    let free_port = || -> anyhow::Result<u16> {
        Ok(std::net::TcpListener::bind("127.0.0.1:0")?
            .local_addr()?
            .port())
    };
    let Some(peer) =
        support::postgraphile::start(&cluster.url(&settings.database), free_port()?).await?
    else {
        return Ok(());
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let ours = format!("http://{}/graphql", listener.local_addr()?);
    tokio::spawn(app::serve_connections(
        listener,
        router.clone(),
        Duration::from_secs(10),
        futures::future::pending(),
    ));
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(settings.concurrency)
        .build()?;
    let shapes = [
        (
            "entity by id (28 fields)",
            json!({"query": ENTITY_BY_ID, "variables": {"id": entity_id}}),
            json!({"query": POSTGRAPHILE_ENTITY_BY_ID, "variables": {"id": entity_id}}),
            3.0,
        ),
        (
            "nested provenance (50 agents)",
            json!({"query": NESTED}),
            json!({"query": POSTGRAPHILE_NESTED}),
            1.5,
        ),
    ];
    println!(
        "\nOver HTTP on loopback (reqwest, {} clients), ours against PostGraphile 4.14 + @graphile/postgis:",
        settings.concurrency
    );
    println!(
        "{:<5} {:<40} {:>9} {:>8} {:>8} {:>11} {:>8} {:>8} {:>6} {:>7}",
        "size",
        "shape",
        "ours r/s",
        "p50 ms",
        "p99 ms",
        "PGraphile",
        "p50 ms",
        "p99 ms",
        "ratio",
        "target"
    );
    let rest_by_id = format!(
        "{}/api/v1/entities/{entity_id}",
        ours.trim_end_matches("/graphql")
    );
    let mut rest_best = Measured::default();
    let mut graphql_by_id = 0.0;
    for (name, our_body, their_body, target) in shapes {
        let (mut ours_best, mut theirs_best) = (Measured::default(), Measured::default());
        let by_id = name.contains("by id");
        for _ in 0..settings.rounds {
            // Issue 12's other ratio, GraphQL by id against REST by id, taken over the same
            // HTTP path in the same rounds.
            if by_id {
                let measured = http_get_loop(&client, &rest_by_id, settings).await?;
                if measured.rate > rest_best.rate {
                    rest_best = measured;
                }
            }
            let measured = http_closed_loop(&client, &ours, &our_body, settings).await?;
            if measured.rate > ours_best.rate {
                ours_best = measured;
            }
            let measured = http_closed_loop(&client, &peer.url, &their_body, settings).await?;
            if measured.rate > theirs_best.rate {
                theirs_best = measured;
            }
        }
        println!(
            "{:<5} {:<40} {:>9.0} {:>8.2} {:>8.2} {:>11.0} {:>8.2} {:>8.2} {:>6.2} {:>6.1}x",
            settings.size(),
            name,
            ours_best.rate,
            ms(ours_best.p50),
            ms(ours_best.p99),
            theirs_best.rate,
            ms(theirs_best.p50),
            ms(theirs_best.p99),
            ours_best.rate / theirs_best.rate.max(f64::MIN_POSITIVE),
            target
        );
        if by_id {
            graphql_by_id = ours_best.rate;
        }
    }
    if rest_best.rate > 0.0 {
        println!(
            "{:<5} {:<40} {:>9.0} {:>8.2} {:>8.2}\nGraphQL by id / REST by id over HTTP: {:.2} (target >= 0.8)",
            settings.size(),
            "REST GET entity by id (same fields)",
            rest_best.rate,
            ms(rest_best.p50),
            ms(rest_best.p99),
            graphql_by_id / rest_best.rate
        );
    }
    drop(peer);
    Ok(())
}

async fn http_get_loop(
    client: &reqwest::Client,
    url: &str,
    settings: &Settings,
) -> anyhow::Result<Measured> {
    let (client, url) = (client.clone(), url.to_owned());
    measure(
        settings.concurrency,
        Duration::from_secs(settings.seconds),
        move || {
            let (client, url) = (client.clone(), url.clone());
            async move {
                let started = Instant::now();
                let response = client.get(&url).send().await?;
                let status = response.status();
                let _: Value = response.json().await.context("a JSON answer")?;
                anyhow::ensure!(status.is_success(), "{url} answered {status}");
                Ok(started.elapsed())
            }
        },
    )
    .await
}

async fn http_closed_loop(
    client: &reqwest::Client,
    url: &str,
    body: &Value,
    settings: &Settings,
) -> anyhow::Result<Measured> {
    let (client, url, body) = (client.clone(), url.to_owned(), body.clone());
    measure(
        settings.concurrency,
        Duration::from_secs(settings.seconds),
        move || {
            let (client, url, body) = (client.clone(), url.clone(), body.clone());
            async move { support::postgraphile::post(&client, &url, &body).await }
        },
    )
    .await
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// 50 agents with two processed entries each, so the nested query has a graph to walk.
async fn seed_provenance(
    router: &Router,
    state: &spacetime_records::state::AppState,
) -> anyhow::Result<()> {
    let agents: i64 =
        sqlx::query_scalar("SELECT count(*) FROM agents WHERE display_name LIKE 'Bench Source %'")
            .fetch_one(&state.pool)
            .await?;
    if agents >= 50 {
        return Ok(());
    }
    let admin = spacetime_records::services::api_keys::issue_operator_key(state, "Bench Operator")
        .await
        .map_err(|e| anyhow::anyhow!(e.public_message()))?
        .api_key;
    for a in 0..50 {
        let registered = send(
            router,
            Request::post("/api/v1/agents/register")
                .header(header::CONTENT_TYPE, "application/json")
                .body(Body::from(
                    json!({"agent_type": "scraper", "display_name": format!("Bench Source {a}")})
                        .to_string(),
                ))?,
        )
        .await?;
        let key = registered["api_key"]
            .as_str()
            .context("an api key")?
            .to_string();
        for e in 0..2 {
            let entry = json!({"entry_type": "entity", "latitude": 53.40 + a as f64 * 0.002,
                "longitude": -2.2 - e as f64 * 0.0001, "observed_at_tstamp_utc": "2026-11-01T10:00:00Z",
                "context": {"display_name": format!("Bench Provenance Shop {a}"), "country_code": "GB",
                            "city": "Manchester", "phone": format!("+44 161 496 {a:04}")}});
            let created = send(
                router,
                Request::post("/api/v1/space-time-entries")
                    .header(header::CONTENT_TYPE, "application/json")
                    .header(header::AUTHORIZATION, format!("Bearer {key}"))
                    .body(Body::from(entry.to_string()))?,
            )
            .await?;
            let id = created["id"].as_str().context("an entry id")?;
            send(
                router,
                Request::post(format!("/api/v1/transformer/process/{id}"))
                    .header(header::AUTHORIZATION, format!("Bearer {admin}"))
                    .body(Body::empty())?,
            )
            .await?;
        }
    }
    Ok(())
}

async fn send(router: &Router, request: Request<Body>) -> anyhow::Result<Value> {
    let response = router.clone().oneshot(request).await?;
    let status = response.status();
    let bytes = http_body_util::BodyExt::collect(response.into_body())
        .await?
        .to_bytes();
    if !status.is_success() {
        bail!("{status}: {}", String::from_utf8_lossy(&bytes));
    }
    Ok(serde_json::from_slice(&bytes)?)
}

async fn one(router: &Router, call: &Call) -> anyhow::Result<Duration> {
    let started = Instant::now();
    let response = router.clone().oneshot(call.request()).await?;
    let status = response.status();
    let bytes = http_body_util::BodyExt::collect(response.into_body())
        .await?
        .to_bytes();
    if status != StatusCode::OK || bytes.starts_with(b"{\"data\":null") {
        bail!("answered {status}: {}", String::from_utf8_lossy(&bytes));
    }
    Ok(started.elapsed())
}

/// Statements one request runs (pg_stat_statements, after a warm-up).
async fn statements_per_request(
    router: &Router,
    pool: &PgPool,
    call: &Call,
) -> anyhow::Result<i64> {
    one(router, call).await?;
    let count = || async {
        sqlx::query_scalar::<_, i64>(
            "SELECT coalesce(sum(calls), 0)::int8 FROM pg_stat_statements
             WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())",
        )
        .fetch_one(pool)
        .await
    };
    let before = count().await?;
    one(router, call).await?;
    let after = count().await?;
    Ok(after - before - 1)
}

#[derive(Default)]
struct Measured {
    rate: f64,
    p50: Duration,
    p99: Duration,
}

/// Requests per second with `clients` clients each sending its next request as soon as the last
/// returns, and the latencies they saw.
async fn closed_loop(
    router: &Router,
    call: &Call,
    clients: usize,
    duration: Duration,
) -> anyhow::Result<Measured> {
    let (router, call) = (router.clone(), Arc::new(call.clone()));
    measure(clients, duration, move || {
        let (router, call) = (router.clone(), call.clone());
        async move { one(&router, &call).await }
    })
    .await
}

/// `clients` loops each sending one request after another for `duration`, after 20 warm-up
/// requests: the throughput and the latency percentiles.
async fn measure<F, Fut>(clients: usize, duration: Duration, request: F) -> anyhow::Result<Measured>
where
    F: Fn() -> Fut + Clone + Send + 'static,
    Fut: Future<Output = anyhow::Result<Duration>> + Send,
{
    for _ in 0..20 {
        request().await?;
    }
    let deadline = Instant::now() + duration;
    let tasks: Vec<_> = (0..clients)
        .map(|_| {
            let request = request.clone();
            tokio::spawn(async move {
                let mut latencies = Vec::new();
                while Instant::now() < deadline {
                    latencies.push(request().await?);
                }
                anyhow::Ok(latencies)
            })
        })
        .collect();
    let mut latencies = Vec::new();
    for task in tasks {
        latencies.extend(task.await??);
    }
    latencies.sort();
    let at = |q: f64| latencies[((latencies.len() as f64 - 1.0) * q).round() as usize];
    Ok(Measured {
        rate: latencies.len() as f64 / duration.as_secs_f64(),
        p50: at(0.50),
        p99: at(0.99),
    })
}

/// pgbench running one statement with its parameters (an empty value is SQL NULL).
fn pgbench_ceiling(
    cluster: &EmbeddedCluster,
    sql: &str,
    params: &[String],
    settings: &Settings,
) -> anyhow::Result<f64> {
    let values: Vec<Option<String>> = params
        .iter()
        .map(|v| (!v.is_empty()).then(|| v.clone()))
        .collect();
    let mut variables = Vec::new();
    let script = support::pgbench::script_line(sql, &values, |n| format!("p{n}"), &mut variables);
    support::pgbench::tps(
        cluster,
        &settings.database,
        &script,
        &variables,
        &support::pgbench::Options {
            clients: settings.concurrency,
            seconds: settings.seconds,
            protocol: "prepared",
            search_session: false,
        },
    )
}
