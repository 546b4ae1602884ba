//! Databases of generated entities, seeded once and kept between runs: read-only benches use the
//! kept database itself, benches that write copy it as a template for each run, so every run
//! starts from the same state (runs that post entries would otherwise measure a database that
//! grows from one run to the next).

use super::generator;
use spacetime_records::db::cluster::EmbeddedCluster;
use sqlx::Connection;

/// Drops `database` and creates it again as a copy of `template`, which holds `entities`
/// generated entities of `seed` (seeded the first time, migrated every time).
pub async fn fresh_copy(
    cluster: &EmbeddedCluster,
    database: &str,
    template: &str,
    seed: u64,
    entities: usize,
) -> anyhow::Result<()> {
    let admin_url = cluster.url("postgres");
    let pool = kept(cluster, template, seed, entities).await?;
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

/// `database`, migrated, holding `entities` generated entities of `seed`: seeded the first time
/// (and whenever the count differs), its secondary indexes dropped during the load and built
/// again after it, which is several times faster than loading into them.
pub async fn kept(
    cluster: &EmbeddedCluster,
    database: &str,
    seed: u64,
    entities: usize,
) -> anyhow::Result<sqlx::PgPool> {
    spacetime_records::db::ensure_database(&cluster.url("postgres"), database).await?;
    let pool = spacetime_records::db::connect(&cluster.url(database), 4).await?;
    spacetime_records::db::migrate(&pool).await?;
    let present: i64 = sqlx::query_scalar("SELECT count(*) FROM canonical.entities")
        .fetch_one(&pool)
        .await?;
    if usize::try_from(present).ok() == Some(entities) {
        return Ok(pool);
    }
    println!("seeding {entities} entities into {database} (once; kept under target/)...");
    let started = std::time::Instant::now();
    sqlx::query("TRUNCATE canonical.entities CASCADE")
        .execute(&pool)
        .await?;
    let indexes: Vec<(String, String)> = sqlx::query_as(
        "SELECT indexname, indexdef FROM pg_indexes
         WHERE schemaname = 'canonical' AND tablename = 'entities' AND indexname <> 'entities_pkey'",
    )
    .fetch_all(&pool)
    .await?;
    for (name, _) in &indexes {
        sqlx::query(&format!("DROP INDEX canonical.{name}"))
            .execute(&pool)
            .await?;
    }
    generator::load_entities(&pool, seed, entities).await?;
    for (_, definition) in &indexes {
        sqlx::query(definition).execute(&pool).await?;
    }
    sqlx::query("VACUUM ANALYZE").execute(&pool).await?;
    println!("seeded in {:.0} s", started.elapsed().as_secs_f64());
    Ok(pool)
}

fn in_use(error: &sqlx::Error) -> bool {
    error
        .as_database_error()
        .and_then(sqlx::error::DatabaseError::code)
        .is_some_and(|code| code == "55006")
}
