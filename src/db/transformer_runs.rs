//! transformer_runs: one row per batch or on-demand call, referenced by every contribution it wrote.

use sqlx::PgConnection;
use uuid::Uuid;

pub async fn start(
    conn: &mut PgConnection,
    name: &str,
    version: &str,
    trigger: &str,
) -> Result<Uuid, sqlx::Error> {
    let id = Uuid::now_v7();
    sqlx::query("INSERT INTO transformer_runs (id, transformer_name, transformer_version, trigger) VALUES ($1, $2, $3, $4)")
        .bind(id)
        .bind(name)
        .bind(version)
        .bind(trigger)
        .execute(conn)
        .await?;
    Ok(id)
}

pub async fn finish(conn: &mut PgConnection, id: Uuid, processed: i32) -> Result<(), sqlx::Error> {
    sqlx::query("UPDATE transformer_runs SET entries_processed = $2, finished_at_tstamp_utc = now() WHERE id = $1")
        .bind(id)
        .bind(processed)
        .execute(conn)
        .await?;
    Ok(())
}

/// Entries waiting for the transformer, counted up to `cap` (the partial pending index keeps this
/// cheap; the cap bounds it when a backlog is huge).
pub async fn backlog(pool: &sqlx::PgPool, cap: i64) -> Result<i64, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT count(*) FROM (SELECT 1 FROM space_time_entries WHERE status = 'pending' LIMIT $1) pending",
    )
    .bind(cap)
    .fetch_one(pool)
    .await
}
