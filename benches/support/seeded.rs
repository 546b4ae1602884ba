//! Databases of generated entities, seeded once and kept between runs: read-only benches use the
//! kept database itself, benches that write copy it as a template for each run, so every run
//! starts from the same state (runs that post entries would otherwise measure a database that
//! grows from one run to the next).
//!
//! A seed is one transaction (a run stopped half-way leaves nothing behind): the rows go in by
//! `INSERT`s of 5,000 whose columns other threads generate meanwhile (`bulk`), into the table
//! without its secondary indexes; the search vocabulary learns the words in one statement; the
//! table is rewritten in place order (`admin order-by-place`, migration 0035); the other indexes
//! are built after that, with room to sort in memory; then `VACUUM ANALYZE`. Three
//! insert triggers are off during the load and on again after it: the change notification, one
//! `pg_notify` a row that nobody listens to here, the vocabulary's, which the one statement
//! above replaces (the same words: those of every row's search document, up to 64 characters),
//! and the note of each new record's place for the map tiles' counts, which a seed never built
//! (their first build groups every record).
//! The database's comment records what it holds (seed, count, evidence) once the seed is vacuumed,
//! so a kept database is used only for the same seed and size, and only when its seed finished.

use super::{bulk, size};
use futures::StreamExt;
use spacetime_records::db;
use spacetime_records::db::cluster::EmbeddedCluster;
use spacetime_records::domain::CanonicalTable;
use sqlx::{Connection, PgPool};
use std::time::Instant;
use uuid::Uuid;

/// What a kept database holds: `entities` generated entities of `seed`, each with the per-field
/// evidence `evidence` returns (a query answering one JSON text, run once), or none.
#[derive(Clone, Copy)]
pub struct Contents<'a> {
    pub seed: u64,
    pub entities: usize,
    pub evidence: Option<&'a str>,
}

impl Contents<'_> {
    pub fn new(seed: u64, entities: usize) -> Self {
        Contents {
            seed,
            entities,
            evidence: None,
        }
    }

    /// The database comment of a complete seed.
    fn marker(&self) -> String {
        format!("{}, in place order", self.unordered_marker())
    }

    /// The comment of a seed made before seeds were put in place order (migration 0035): kept,
    /// and rewritten in place order once instead of seeded again.
    fn unordered_marker(&self) -> String {
        format!(
            "strs bench seed {}: {} generated entities{}",
            self.seed,
            self.entities,
            if self.evidence.is_some() {
                " with field evidence"
            } else {
                ""
            }
        )
    }
}

/// Drops `database` and creates it again as a copy of `template`, which holds `contents`
/// (seeded the first time, migrated every time).
pub async fn fresh_copy(
    cluster: &EmbeddedCluster,
    database: &str,
    template: &str,
    contents: Contents<'_>,
) -> anyhow::Result<()> {
    let admin_url = cluster.url("postgres");
    let pool = kept(cluster, template, contents).await?;
    // A template cannot be copied while anyone is connected to it.
    pool.close().await;
    let mut admin = sqlx::PgConnection::connect(&admin_url).await?;
    sqlx::query(&format!("DROP DATABASE IF EXISTS {database} WITH (FORCE)"))
        .execute(&mut admin)
        .await?;
    // An autovacuum worker may be visiting the template for a moment ("being accessed by other
    // users"): try again rather than fail the run.
    let mut attempts = 0;
    loop {
        let created = sqlx::query(&format!(
            "CREATE DATABASE {database} TEMPLATE {template} STRATEGY FILE_COPY"
        ))
        .execute(&mut admin)
        .await;
        match created {
            Ok(_) => return Ok(()),
            Err(error) if attempts < 40 && in_use(&error) => {
                attempts += 1;
                // A session of this run's own pool has been seen to outlive `close()` here.
                sqlx::query(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                     WHERE datname = $1 AND pid <> pg_backend_pid()",
                )
                .bind(template)
                .execute(&mut admin)
                .await?;
                tokio::time::sleep(std::time::Duration::from_millis(250)).await;
            }
            Err(error) => return Err(error.into()),
        }
    }
}

/// `database`, migrated, holding `contents`: seeded the first time, and again whenever its
/// comment says it holds something else. A database seeded before the comments existed is kept
/// when it holds the right number of entities, as it always was.
pub async fn kept(
    cluster: &EmbeddedCluster,
    database: &str,
    contents: Contents<'_>,
) -> anyhow::Result<PgPool> {
    db::ensure_database(&cluster.url("postgres"), database).await?;
    let pool = db::connect(&cluster.url(database), 4).await?;
    db::migrate(&pool).await?;
    let marker: Option<String> = sqlx::query_scalar(
        "SELECT shobj_description(oid, 'pg_database') FROM pg_database
         WHERE datname = current_database()",
    )
    .fetch_one(&pool)
    .await?;
    let kept_as_is = marker.as_deref() == Some(contents.marker().as_str());
    let unordered = match marker {
        Some(marker) => marker == contents.unordered_marker(),
        None => {
            let present: i64 = sqlx::query_scalar("SELECT count(*) FROM canonical.entities")
                .fetch_one(&pool)
                .await?;
            usize::try_from(present).ok() == Some(contents.entities)
        }
    };
    if unordered {
        order_by_place(&pool, database, contents).await?;
    } else if !kept_as_is {
        seed(&pool, database, contents).await?;
    } else {
        mark_all_visible(&pool, database).await?;
    }
    Ok(pool)
}

/// Vacuums a kept base whose entities' pages are mostly not marked all-visible: bases put in
/// place order before the rewrite was followed by a vacuum (by hand, or by this file's
/// `order_by_place` until 2026-11-28) read every index-only scan's rows from the table as well.
async fn mark_all_visible(pool: &PgPool, database: &str) -> anyhow::Result<()> {
    let (pages, all_visible): (i32, i32) = sqlx::query_as(
        "SELECT relpages, relallvisible FROM pg_class WHERE oid = 'canonical.entities'::regclass",
    )
    .fetch_one(pool)
    .await?;
    if all_visible >= pages / 2 {
        return Ok(());
    }
    println!("vacuuming {database}: {all_visible} of {pages} pages marked all-visible (once)...");
    let started = Instant::now();
    db::place_order::mark_all_visible(pool, CanonicalTable::Entities).await?;
    println!(
        "vacuumed {database} in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// A complete seed of before place order, rewritten in it as `admin order-by-place` does.
async fn order_by_place(
    pool: &PgPool,
    database: &str,
    contents: Contents<'_>,
) -> anyhow::Result<()> {
    println!("rewriting {database} in place order (once)...");
    let started = Instant::now();
    let mut tx = pool.begin().await?;
    sqlx::query("SET LOCAL maintenance_work_mem = '1GB'")
        .execute(&mut *tx)
        .await?;
    db::place_order::rewrite_in_place_order(&mut tx, CanonicalTable::Entities).await?;
    tx.commit().await?;
    // CLUSTER leaves the new copy's visibility map empty: the command's own vacuum fills it.
    db::place_order::mark_all_visible(pool, CanonicalTable::Entities).await?;
    sqlx::query("ANALYZE canonical.entities")
        .execute(pool)
        .await?;
    sqlx::query(&format!(
        "COMMENT ON DATABASE {database} IS '{}'",
        contents.marker()
    ))
    .execute(pool)
    .await?;
    println!(
        "rewrote {database} in place order in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Fills `database` with `contents` (whatever it held is truncated) and reports the time each
/// step took and the database's size.
async fn seed(pool: &PgPool, database: &str, contents: Contents<'_>) -> anyhow::Result<()> {
    let label = size::label(contents.entities);
    println!(
        "seeding {} ({label}) generated entities into {database} (once; kept under target/)...",
        contents.entities
    );
    let started = Instant::now();
    let mut tx = pool.begin().await?;
    // Index builds sort in memory instead of in temporary files (this session only).
    sqlx::query("SET LOCAL maintenance_work_mem = '1GB'")
        .execute(&mut *tx)
        .await?;
    sqlx::query("TRUNCATE canonical.entities CASCADE")
        .execute(&mut *tx)
        .await?;
    for trigger in LOAD_TRIGGERS {
        sqlx::query(&format!(
            "ALTER TABLE canonical.entities DISABLE TRIGGER {trigger}"
        ))
        .execute(&mut *tx)
        .await?;
    }
    let indexes: Vec<(String, String)> = sqlx::query_as(
        "SELECT indexname, indexdef FROM pg_indexes
         WHERE schemaname = 'canonical' AND tablename = 'entities' AND indexname <> 'entities_pkey'",
    )
    .fetch_all(&mut *tx)
    .await?;
    for (name, _) in &indexes {
        sqlx::query(&format!("DROP INDEX canonical.{name}"))
            .execute(&mut *tx)
            .await?;
    }
    let evidence: String = match contents.evidence {
        Some(query) => sqlx::query_scalar(query).fetch_one(&mut *tx).await?,
        None => "{}".to_string(),
    };

    let load = Instant::now();
    let generators = std::thread::available_parallelism().map_or(2, std::num::NonZero::get);
    let seed = contents.seed;
    let mut batches = futures::stream::iter((0..contents.entities).step_by(bulk::BATCH))
        .map(|first| {
            let count = bulk::BATCH.min(contents.entities - first);
            // Drawn here, in load order, so ids grow with the table.
            let ids: Vec<Uuid> = (0..count).map(|_| Uuid::now_v7()).collect();
            tokio::task::spawn_blocking(move || bulk::batch(seed, first as u64, ids))
        })
        .buffered(generators);
    while let Some(batch) = batches.next().await {
        bulk::insert(&mut tx, &batch?, &evidence).await?;
    }
    let load_secs = load.elapsed().as_secs_f64();

    let words = Instant::now();
    sqlx::query(
        "INSERT INTO canonical.search_words (word)
         SELECT DISTINCT w FROM canonical.entities, unnest(tsvector_to_array(search_document)) AS w
         WHERE length(w) <= 64 AND NOT EXISTS (SELECT 1 FROM canonical.search_words s WHERE s.word = w)",
    )
    .execute(&mut *tx)
    .await?;
    let words_secs = words.elapsed().as_secs_f64();

    // The rows in place order before the other indexes are built (a rewrite rebuilds every index
    // there is): the place key's index first, the table rewritten in its order, then the rest.
    let ordered = Instant::now();
    let (place, others): (Vec<_>, Vec<_>) = indexes
        .iter()
        .partition(|(name, _)| name == PLACE_ORDER_INDEX);
    for (_, definition) in &place {
        sqlx::query(definition).execute(&mut *tx).await?;
    }
    db::place_order::rewrite_in_place_order(&mut tx, CanonicalTable::Entities).await?;
    let order_secs = ordered.elapsed().as_secs_f64();

    let built = Instant::now();
    let mut index_times = Vec::new();
    for (name, definition) in &others {
        let one = Instant::now();
        sqlx::query(definition).execute(&mut *tx).await?;
        index_times.push(format!("{name} {:.0}", one.elapsed().as_secs_f64()));
    }
    let index_secs = built.elapsed().as_secs_f64();
    for trigger in LOAD_TRIGGERS {
        sqlx::query(&format!(
            "ALTER TABLE canonical.entities ENABLE TRIGGER {trigger}"
        ))
        .execute(&mut *tx)
        .await?;
    }
    // Not the marker yet: a run stopped during the vacuum must not leave a base that looks done.
    sqlx::query(&format!(
        "COMMENT ON DATABASE {database} IS 'strs bench seed not vacuumed'"
    ))
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;

    let vacuum = Instant::now();
    sqlx::query("VACUUM ANALYZE").execute(pool).await?;
    let vacuum_secs = vacuum.elapsed().as_secs_f64();
    sqlx::query(&format!(
        "COMMENT ON DATABASE {database} IS '{}'",
        contents.marker()
    ))
    .execute(pool)
    .await?;
    let bytes: i64 = sqlx::query_scalar("SELECT pg_database_size(current_database())")
        .fetch_one(pool)
        .await?;
    let total = started.elapsed().as_secs_f64();
    let mib = bytes as f64 / 1_048_576.0;
    println!(
        "seeded {} ({label}) in {total:.0} s ({:.0} records/s overall): inserts {load_secs:.0} s \
         ({:.0} rows/s), search words {words_secs:.0} s, place order {order_secs:.0} s, \
         indexes {index_secs:.0} s ({}), \
         VACUUM ANALYZE {vacuum_secs:.0} s; database {mib:.0} MiB, {:.0} MiB per million records",
        contents.entities,
        contents.entities as f64 / total.max(1e-9),
        contents.entities as f64 / load_secs.max(1e-9),
        index_times.join(", "),
        mib * 1e6 / contents.entities.max(1) as f64
    );
    Ok(())
}

/// The place key's index (migration 0035), in whose order a seed is rewritten.
const PLACE_ORDER_INDEX: &str = "entities_place_order_idx";

/// The row triggers on entity inserts that a seed turns off during its load (see the module doc).
const LOAD_TRIGGERS: [&str; 3] = [
    "entities_changed_notify",
    "entities_search_words_insert",
    "entities_tile_density_inserts",
];

fn in_use(error: &sqlx::Error) -> bool {
    error
        .as_database_error()
        .and_then(sqlx::error::DatabaseError::code)
        .is_some_and(|code| code == "55006")
}
