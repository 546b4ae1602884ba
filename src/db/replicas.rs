//! What the service asks a read replica (and the primary) to decide whether reads may go there.

use sqlx::PgPool;

/// A replica's position relative to the primary at one moment.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReplicaLag {
    /// False when the server is not a standby at all (promoted, or misconfigured).
    pub in_recovery: bool,
    /// WAL bytes the primary has flushed (so may send) that the replica has not replayed yet.
    pub bytes: f64,
    /// Seconds since the commit of the last transaction the replica replayed. Only meaningful
    /// while `bytes > 0`: after a quiet hour on the primary it is an hour, with nothing to replay.
    pub replay_age: Option<f64>,
}

pub async fn measure(replica: &PgPool, primary: &PgPool) -> Result<ReplicaLag, sqlx::Error> {
    let (in_recovery, replayed, replay_age): (bool, Option<String>, Option<f64>) = sqlx::query_as(
        "SELECT pg_is_in_recovery(), pg_last_wal_replay_lsn()::text,
                extract(epoch FROM now() - pg_last_xact_replay_timestamp())::float8",
    )
    .fetch_one(replica)
    .await?;
    let Some(replayed) = replayed.filter(|_| in_recovery) else {
        return Ok(ReplicaLag {
            in_recovery: false,
            bytes: 0.0,
            replay_age: None,
        });
    };
    let bytes: f64 = sqlx::query_scalar(
        "SELECT greatest(pg_wal_lsn_diff(pg_current_wal_flush_lsn(), $1::pg_lsn), 0)::float8",
    )
    .bind(&replayed)
    .fetch_one(primary)
    .await?;
    Ok(ReplicaLag {
        in_recovery: true,
        bytes,
        replay_age,
    })
}

/// Drops the physical replication slot `name` on the primary `pool` names, unless a replica is
/// streaming through it (a slot no replica uses keeps WAL on the primary for ever).
pub async fn drop_slot<'c>(pool: impl super::Reads<'c>, name: &str) -> Result<(), sqlx::Error> {
    sqlx::query(
        "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots
         WHERE slot_name = $1 AND NOT active",
    )
    .bind(name)
    .execute(pool)
    .await?;
    Ok(())
}

/// Names of the inactive physical replication slots starting with `prefix`.
pub async fn inactive_slots<'c>(
    pool: impl super::Reads<'c>,
    prefix: &str,
) -> Result<Vec<String>, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT slot_name::text FROM pg_replication_slots
         WHERE NOT active AND slot_type = 'physical' AND starts_with(slot_name::text, $1)",
    )
    .bind(prefix)
    .fetch_all(pool)
    .await
}
