//! All SQL of the service lives below this module (plus the search query builder).
pub mod agents;
pub mod api_keys;
pub mod cluster;
pub mod constraints;
pub mod principals;

use sqlx::PgPool;
use sqlx::migrate::Migrator;
use sqlx::postgres::PgPoolOptions;
use std::time::Duration;

pub static MIGRATOR: Migrator = sqlx::migrate!("./migrations");

pub async fn connect(url: &str, max_connections: u32) -> anyhow::Result<PgPool> {
    Ok(PgPoolOptions::new()
        .max_connections(max_connections)
        .acquire_timeout(Duration::from_secs(5))
        .connect(url)
        .await?)
}

pub async fn migrate(pool: &PgPool) -> anyhow::Result<()> {
    MIGRATOR.run(pool).await?;
    Ok(())
}

/// Readiness: the database answers and every embedded migration has been applied successfully.
pub async fn pending_migrations(pool: &PgPool) -> Result<usize, sqlx::Error> {
    let applied: Vec<i64> =
        sqlx::query_scalar("SELECT version FROM _sqlx_migrations WHERE success")
            .fetch_all(pool)
            .await?;
    Ok(MIGRATOR
        .iter()
        .filter(|m| !m.migration_type.is_down_migration() && !applied.contains(&m.version))
        .count())
}

/// Creates `name` in the cluster behind `admin_url` unless it exists (the embedded default database).
pub async fn ensure_database(admin_url: &str, name: &str) -> anyhow::Result<()> {
    let pool = connect(admin_url, 1).await?;
    let exists: bool =
        sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)")
            .bind(name)
            .fetch_one(&pool)
            .await?;
    if !exists {
        // Identifiers cannot be bound; `name` is one of our own constants, quoted anyway.
        sqlx::query(&format!(
            "CREATE DATABASE \"{}\"",
            name.replace('"', "\"\"")
        ))
        .execute(&pool)
        .await?;
    }
    pool.close().await;
    Ok(())
}
