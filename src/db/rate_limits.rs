//! Fixed-window counters in PostgreSQL, so every server process enforces one shared limit.

/// Counts one hit in the current window of `bucket`; returns (hits so far, seconds left in the window).
pub async fn hit<'c>(
    pool: impl super::Reads<'c>,
    bucket: &str,
    window_secs: i64,
) -> Result<(i32, i64), sqlx::Error> {
    let (hits, seconds_left): (i32, f64) = sqlx::query_as(
        "WITH w AS (SELECT to_timestamp(floor(extract(epoch FROM now()) / $2) * $2) AS start)
         INSERT INTO rate_limit_windows (bucket, window_start, hits)
         SELECT $1, start, 1 FROM w
         ON CONFLICT (bucket, window_start) DO UPDATE SET hits = rate_limit_windows.hits + 1
         RETURNING hits, extract(epoch FROM (window_start + make_interval(secs => $2) - now()))::float8",
    )
    .bind(bucket)
    .bind(window_secs as f64)
    .fetch_one(pool)
    .await?;
    if hits == 1 {
        // A new window: forget this bucket's old windows, and a bounded batch of any bucket's
        // expired ones, so addresses seen once do not stay in the table for ever.
        sqlx::query("DELETE FROM rate_limit_windows WHERE bucket = $1 AND window_start < now() - interval '2 hours'")
            .bind(bucket)
            .execute(pool)
            .await?;
        purge_expired(pool, 100).await?;
    }
    Ok((hits, seconds_left.ceil().max(1.0) as i64))
}

/// Deletes up to `limit` windows that ended more than two hours ago (the longest window is one
/// hour); returns how many.
pub async fn purge_expired<'c>(
    pool: impl super::Reads<'c>,
    limit: i64,
) -> Result<u64, sqlx::Error> {
    Ok(sqlx::query(
        "DELETE FROM rate_limit_windows WHERE ctid IN (
            SELECT ctid FROM rate_limit_windows WHERE window_start < now() - interval '2 hours' LIMIT $1)",
    )
    .bind(limit)
    .execute(pool)
    .await?
    .rows_affected())
}
