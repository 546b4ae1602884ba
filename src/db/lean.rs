//! A connection pool whose connections go back without a round trip.
//!
//! sqlx's pool pings every connection when it is returned (`PoolConnection` drop: a Sync message
//! and its ReadyForQuery, in a spawned task): one more round trip, two more process wake-ups, per
//! request, which on a read by id doubled the context switches of PostgreSQL and of the server
//! (docs/bench-log/hot-paths.md). That ping adds nothing a later use would not do: every sqlx operation
//! on a connection first drains what an abandoned earlier one left (`wait_until_ready`). This
//! pool (deadpool over sqlx's own `PgConnection`) hands connections back as they are, and checks
//! one before use only by the rule of `db::liveness`: idle for a while, or out since a
//! connection failure was seen.

use super::batched::{Batchers, ById};
use super::liveness;
use deadpool::managed::{self, Metrics, RecycleError, RecycleResult};
use futures::TryStreamExt;
use futures::future::BoxFuture;
use futures::stream::BoxStream;
use sqlx::Describe;
use sqlx::Either;
use sqlx::postgres::{PgConnectOptions, PgQueryResult, PgRow, PgStatement, PgTypeInfo, Postgres};
use sqlx::{ConnectOptions, Connection, PgConnection};
use std::time::Duration;

/// The pool; `&LeanPool` is a sqlx executor (each statement on a connection checked out for
/// it), like `&PgPool`, so the queries of `db` run on either.
#[derive(Clone)]
pub struct LeanPool {
    connections: managed::Pool<Manager>,
    /// Reads by id of concurrent requests, gathered per record kind (`db::batched`).
    batchers: std::sync::Arc<Batchers>,
}

impl std::fmt::Debug for LeanPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LeanPool")
            .field("status", &self.connections.status())
            .finish()
    }
}

pub type LeanConnection = managed::Object<Manager>;

impl LeanPool {
    /// A connection, or the error sqlx's own pool would have given.
    pub async fn acquire(&self) -> Result<LeanConnection, sqlx::Error> {
        self.connections.get().await.map_err(|error| match error {
            managed::PoolError::Backend(error) => error,
            managed::PoolError::Closed => sqlx::Error::PoolClosed,
            managed::PoolError::Timeout(_)
            | managed::PoolError::NoRuntimeSpecified
            | managed::PoolError::PostCreateHook(_) => sqlx::Error::PoolTimedOut,
        })
    }

    /// The record with this id, its read batched with the concurrent reads of its kind.
    pub async fn by_id<T: ById>(&self, id: uuid::Uuid) -> Result<Option<T>, sqlx::Error> {
        T::batcher(&self.batchers).get(self, id).await
    }

    /// Open connections, idle ones, and the most there may be.
    pub fn usage(&self) -> (usize, usize, usize) {
        let status = self.connections.status();
        (status.size, status.available, status.max_size)
    }
}

pub struct Manager {
    options: PgConnectOptions,
}

impl managed::Manager for Manager {
    type Type = PgConnection;
    type Error = sqlx::Error;

    async fn create(&self) -> Result<PgConnection, sqlx::Error> {
        self.options
            .connect()
            .await
            .inspect(|_| super::outage::note_connected())
            .inspect_err(|_| liveness::note_connection_failure())
    }

    async fn recycle(
        &self,
        conn: &mut PgConnection,
        metrics: &Metrics,
    ) -> RecycleResult<sqlx::Error> {
        // `last_used` counts from the connection's last check-out, which is at or before its
        // return: the rule errs towards pinging.
        match liveness::check(metrics.age(), metrics.last_used()) {
            liveness::Check::Use => {}
            liveness::Check::Retire => return Err(RecycleError::message("retired")),
            liveness::Check::Ping => conn.ping().await.map_err(|error| {
                liveness::note_connection_failure();
                RecycleError::Backend(error)
            })?,
        }
        Ok(())
    }
}

/// A pool of at most `max_connections`, opened on demand; a check-out waits at most
/// `acquire_timeout` (as sqlx's pool does).
pub fn pool(
    options: PgConnectOptions,
    max_connections: u32,
    acquire_timeout: Duration,
) -> anyhow::Result<LeanPool> {
    Ok(LeanPool {
        connections: managed::Pool::builder(Manager { options })
            .max_size(max_connections as usize)
            .wait_timeout(Some(acquire_timeout))
            .create_timeout(Some(acquire_timeout))
            .recycle_timeout(Some(acquire_timeout))
            .runtime(deadpool::Runtime::Tokio1)
            .build()?,
        batchers: std::sync::Arc::new(Batchers::default()),
    })
}

/// Each statement on a connection checked out for it, as `&PgPool` does. Rows are gathered before
/// they are handed on (every query of the service is bounded), which keeps the stream free of a
/// borrow of its connection.
impl<'p> sqlx::Executor<'p> for &'_ LeanPool {
    type Database = Postgres;

    fn fetch_many<'e, 'q: 'e, E>(
        self,
        query: E,
    ) -> BoxStream<'e, Result<Either<PgQueryResult, PgRow>, sqlx::Error>>
    where
        E: 'q + sqlx::Execute<'q, Postgres>,
    {
        let pool = self.clone();
        Box::pin(
            futures::stream::once(async move {
                let mut conn = pool.acquire().await?;
                conn.fetch_many(query).try_collect::<Vec<_>>().await
            })
            .map_ok(|items| futures::stream::iter(items.into_iter().map(Ok)))
            .try_flatten(),
        )
    }

    fn fetch_optional<'e, 'q: 'e, E>(
        self,
        query: E,
    ) -> BoxFuture<'e, Result<Option<PgRow>, sqlx::Error>>
    where
        E: 'q + sqlx::Execute<'q, Postgres>,
    {
        let pool = self.clone();
        Box::pin(async move { pool.acquire().await?.fetch_optional(query).await })
    }

    fn prepare_with<'e, 'q: 'e>(
        self,
        sql: &'q str,
        parameters: &'e [PgTypeInfo],
    ) -> BoxFuture<'e, Result<PgStatement<'q>, sqlx::Error>> {
        let pool = self.clone();
        Box::pin(async move { pool.acquire().await?.prepare_with(sql, parameters).await })
    }

    fn describe<'e, 'q: 'e>(
        self,
        sql: &'q str,
    ) -> BoxFuture<'e, Result<Describe<Postgres>, sqlx::Error>> {
        let pool = self.clone();
        Box::pin(async move { pool.acquire().await?.describe(sql).await })
    }
}
