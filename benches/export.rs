//! Export benchmark: GET /api/v1/exports/entities.{format} through the real router over generated
//! entities (each with per-field evidence, so every row carries sources), next to PostgreSQL's own
//! `COPY (SELECT <the same columns> ... ORDER BY id) TO STDOUT` of the same rows in the same run:
//! the ceiling, what the database itself sends when it does nothing but read and format the rows.
//!
//! For each format it prints the rows, the bytes, rows/s, MB/s and the ratio of its rows/s to
//! COPY's; then the process's peak resident memory, which stays flat whatever the number of rows
//! (the body is consumed as it streams, as a client would). Each figure is the best of
//! `BENCH_EXPORT_ROUNDS` rounds, COPY and the formats taking turns.
//!
//! `cargo bench --bench export`; the size is `BENCH_RECORDS` (`100k`, `1M`, `10M`; or this bench's
//! own `BENCH_EXPORT_RECORDS`), default 1M, seeded once into `strs_bench_export` (another size into
//! `strs_bench_export_<size>`, e.g. `strs_bench_export_10m`) under target/bench-pg. Figures in
//! docs/benchmarks.md and docs/bench-log/export.md. Figures are printed, never asserted.

#![expect(
    clippy::print_stdout,
    reason = "a bench reports its figures on standard output"
)]

mod support;

use support::process::{env_or, peak_rss_kb};
use support::seeded::Contents;
use support::size;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use futures::StreamExt;
use spacetime_records::db::cluster::EmbeddedCluster;
use spacetime_records::domain::CanonicalTable;
use spacetime_records::{app, db};
use sqlx::Connection;
use std::time::{Duration, Instant};
use tower::ServiceExt;

const DATABASE: &str = "strs_bench_export";
const DEFAULT_RECORDS: usize = 1_000_000;
const SEED: u64 = 20_261_127;
const FORMATS: [&str; 5] = ["parquet", "fgb", "geojsons", "geojsonl", "csv"];

fn main() -> anyhow::Result<()> {
    support::start::block_on(run())
}

struct Figure {
    rows: u64,
    bytes: u64,
    elapsed: Duration,
}

impl Figure {
    fn rows_per_s(&self) -> f64 {
        self.rows as f64 / self.elapsed.as_secs_f64()
    }

    fn mb_per_s(&self) -> f64 {
        self.bytes as f64 / 1e6 / self.elapsed.as_secs_f64()
    }

    fn best(self, other: Option<Figure>) -> Figure {
        match other {
            Some(other) if other.elapsed < self.elapsed => other,
            _ => self,
        }
    }
}

async fn run() -> anyhow::Result<()> {
    let records = size::records("BENCH_EXPORT_RECORDS", DEFAULT_RECORDS)?;
    let database = size::database(DATABASE, records, DEFAULT_RECORDS);
    let rounds: usize = env_or("BENCH_EXPORT_ROUNDS", 2_usize).max(1);
    let cluster = support::start::cluster_in(support::start::kept("bench-pg")).await?;
    let contents = Contents {
        evidence: Some(EVIDENCE),
        ..Contents::new(SEED, records)
    };
    support::seeded::kept(&cluster, &database, contents)
        .await?
        .close()
        .await;
    let state = support::start::in_process(&cluster.url(&database), 4).await?;
    let router = app::build_router(state);
    let rss_before = peak_rss_kb(std::process::id());

    let mut ceiling: Option<Figure> = None;
    let mut figures: Vec<Option<Figure>> = FORMATS.iter().map(|_| None).collect();
    for _ in 0..rounds {
        let copy = copy_out(&cluster, &database).await?;
        ceiling = Some(copy.best(ceiling.take()));
        for (format, best) in FORMATS.iter().zip(figures.iter_mut()) {
            let figure = export(&router, format, records as u64).await?;
            *best = Some(figure.best(best.take()));
        }
    }
    let ceiling = ceiling.ok_or_else(|| anyhow::anyhow!("no round ran"))?;
    let label = size::label(records);

    println!(
        "\nexport benchmark: {records} entities with sources ({label}, database {database}), best of {rounds} rounds (COPY and the formats take turns)"
    );
    println!(
        "{:<5} {:<26} {:>9} {:>9} {:>8} {:>10} {:>8} {:>6}",
        "size", "format", "rows", "MB", "s", "rows/s", "MB/s", "ratio"
    );
    let line = |name: &str, f: &Figure| {
        println!(
            "{:<5} {:<26} {:>9} {:>9.1} {:>8.2} {:>10.0} {:>8.1} {:>6.2}",
            label,
            name,
            f.rows,
            f.bytes as f64 / 1e6,
            f.elapsed.as_secs_f64(),
            f.rows_per_s(),
            f.mb_per_s(),
            f.rows_per_s() / ceiling.rows_per_s()
        );
    };
    line("COPY TO STDOUT (ceiling)", &ceiling);
    for (format, figure) in FORMATS.iter().zip(&figures) {
        if let Some(figure) = figure {
            line(&format!("entities.{format}"), figure);
        }
    }
    println!(
        "\npeak RSS of this process: {} MiB before the exports, {} MiB after (the bench itself, the router and its pools)",
        rss_before / 1024,
        peak_rss_kb(std::process::id()) / 1024
    );
    println!("target: every format >= 0.5 x COPY's rows/s on 1,000,000 records");
    Ok(())
}

/// PostgreSQL's own `COPY` of the rows an unfiltered export writes, on one connection.
async fn copy_out(cluster: &EmbeddedCluster, database: &str) -> anyhow::Result<Figure> {
    let mut conn = sqlx::PgConnection::connect(&cluster.url(database)).await?;
    let started = Instant::now();
    let (bytes, rows) = db::exports::copy_out(&mut conn, CanonicalTable::Entities).await?;
    Ok(Figure {
        rows,
        bytes,
        elapsed: started.elapsed(),
    })
}

/// One export through the router, its body consumed as it streams and dropped piece by piece.
async fn export(router: &axum::Router, format: &str, rows: u64) -> anyhow::Result<Figure> {
    let request = Request::get(format!("/api/v1/exports/entities.{format}")).body(Body::empty())?;
    let started = Instant::now();
    let response = router.clone().oneshot(request).await?;
    anyhow::ensure!(
        response.status() == StatusCode::OK,
        "entities.{format} answered {}",
        response.status()
    );
    let mut body = response.into_body().into_data_stream();
    let mut bytes = 0u64;
    let mut lines = 0u64;
    while let Some(piece) = body.next().await {
        let piece = piece?;
        bytes += piece.len() as u64;
        lines += piece.iter().filter(|b| **b == b'\n').count() as u64;
    }
    let elapsed = started.elapsed();
    if format == "geojsonl" {
        anyhow::ensure!(
            lines == rows,
            "entities.geojsonl held {lines} lines, not {rows}"
        );
    }
    Ok(Figure {
        rows,
        bytes,
        elapsed,
    })
}

/// The per-field evidence every exported row carries: the transformer's for four fields, the same
/// object for every row (it is made once, and every seed of this bench always made it once).
const EVIDENCE: &str = "SELECT jsonb_object_agg(field, jsonb_build_object(
        'entry_id', gen_random_uuid(), 'agent_id', agent,
        'observed_at', '2026-11-01T10:00:00Z', 'confidence', 0.8))::text
    FROM unnest(ARRAY['display_name', 'city', 'phone', 'location']) AS field,
         (SELECT gen_random_uuid() AS agent) AS a";
