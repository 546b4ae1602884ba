//! Reads by id from concurrent requests, gathered into one statement.
//!
//! A read by id costs PostgreSQL far more in waking a backend and in the protocol's round trip
//! than in the primary-key lookup itself, and costs the server a socket send, a wake-up and a
//! receive (docs/bench-log/hot-paths.md). So requests that ask for records of one kind while
//! an earlier statement of that kind is still running are not sent one by one: they wait, and
//! when it has answered, one of them sends all their ids at once (`WHERE id IN (…)`). With
//! nothing else in flight a request is sent at once, alone: batching costs no latency when the
//! server is quiet and grows with the load by itself ("smart batching"; no timer, no delay).
//!
//! A batch is formed only from requests already waiting when it is sent, so every request still
//! reads a snapshot taken after it arrived: no request joins a statement already under way, and
//! read-your-writes holds as it does for a statement of its own.

use super::lean::LeanPool;
use sqlx::FromRow;
use sqlx::postgres::PgRow;
use std::sync::Mutex;
use tokio::sync::{Semaphore, oneshot};
use uuid::Uuid;

/// How many ids a statement carries: a batch is padded up to the next of these sizes (repeating
/// its last id). `id = ANY($1)` would be one statement for every size, but PostgreSQL plans it
/// anew on every execution (a generic plan, costed for an array of ten, never wins over the
/// custom plan for one id), which cost more than the lookup; `id IN ($1, …, $n)` with a fixed
/// `n` gets a cached generic plan like `id = $1` does. The largest size bounds a batch; more
/// waiting requests go in the next statement.
const SIZES: [usize; 8] = [1, 2, 4, 8, 16, 32, 64, 128];
const MAX_BATCH: usize = SIZES[SIZES.len() - 1];

/// A record read by id through a `Batcher`.
pub trait ById: for<'r> FromRow<'r, PgRow> + Clone + Send + Unpin + 'static {
    /// `SELECT <columns> FROM <table> WHERE id IN `, fixed at compile time; the parameter list
    /// is added per batch size.
    const SELECT_WHERE_ID_IN: &'static str;
    fn id(&self) -> Uuid;
    /// This kind's batcher in a pool.
    fn batcher(batchers: &Batchers) -> &Batcher<Self>;
}

/// One batcher per record kind, per pool (a pool is one database server: a batch never mixes
/// the primary and a replica).
#[derive(Default)]
pub struct Batchers {
    pub entities: Batcher<crate::records::canonical::Entity>,
    pub listings: Batcher<crate::records::canonical::Listing>,
    pub requests: Batcher<crate::records::canonical::CanonicalRequest>,
}

/// What a waiting request is handed: its record (or `None`: no such id), or `Err` when the
/// batch's statement failed, in which case the request asks again on its own so that it gets
/// the real error (`sqlx::Error` cannot be shared).
type Answer<T> = Result<Option<T>, ()>;

struct Waiting<T> {
    id: Uuid,
    answer: oneshot::Sender<Answer<T>>,
}

/// One statement of a kind in flight per pool: the next batch forms while it runs. Letting one
/// run per database core instead (two here) halved the batches under load and cost more than
/// the parallelism gained: wrk's 8 connections on an entity by id, two server workers, served
/// 20.3–23.9k r/s with two in flight and 25.2–29.7k with one, and PostgreSQL's CPU per read fell
/// from 16–22 µs to 7–9 µs (docs/bench-log/hot-paths.md, "One batch of a kind in flight"). A batch of
/// `MAX_BATCH` primary-key lookups takes well under a millisecond, so one at a time still
/// carries over 100k reads a second per kind and process.
pub struct Batcher<T> {
    waiting: Mutex<Vec<Waiting<T>>>,
    in_flight: Semaphore,
    /// The statement for each of `SIZES`.
    statements: Vec<String>,
}

impl<T: ById> Default for Batcher<T> {
    fn default() -> Batcher<T> {
        let statements = SIZES
            .iter()
            .map(|&size| {
                let parameters: Vec<String> = (1..=size).map(|n| format!("${n}")).collect();
                format!("{}({})", T::SELECT_WHERE_ID_IN, parameters.join(", "))
            })
            .collect();
        Batcher {
            waiting: Mutex::new(Vec::new()),
            in_flight: Semaphore::new(1),
            statements,
        }
    }
}

impl<T: ById> Batcher<T> {
    /// The record with this id, read in a batch with whatever other reads of this kind are
    /// waiting.
    pub async fn get(&self, pool: &LeanPool, id: Uuid) -> Result<Option<T>, sqlx::Error> {
        let (answer, mut answered) = oneshot::channel();
        self.lock().push(Waiting { id, answer });
        loop {
            tokio::select! {
                biased;
                answer = &mut answered => {
                    return match answer {
                        Ok(Ok(found)) => Ok(found),
                        // The batch failed, or the request running it went away.
                        _ => Ok(self.read(pool, &[id]).await?.pop()),
                    };
                }
                turn = self.in_flight.acquire() => {
                    let _turn = turn.expect("the semaphore is never closed");
                    let batch = {
                        let mut waiting = self.lock();
                        let take = waiting.len().min(MAX_BATCH);
                        waiting.drain(..take).collect::<Vec<_>>()
                    };
                    if !batch.is_empty() {
                        self.run(pool, batch).await;
                    }
                    // Our own read was in this batch, or in one another request is running.
                }
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Waiting<T>>> {
        // A panic while holding the lock leaves a plain Vec behind: nothing to repair.
        self.waiting
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// One statement for up to `MAX_BATCH` distinct ids.
    async fn read(&self, pool: &LeanPool, ids: &[Uuid]) -> Result<Vec<T>, sqlx::Error> {
        let size = SIZES.partition_point(|&size| size < ids.len());
        let mut query = sqlx::query_as::<_, T>(&self.statements[size]);
        for n in 0..SIZES[size] {
            query = query.bind(ids[n.min(ids.len() - 1)]);
        }
        query.fetch_all(pool).await
    }

    async fn run(&self, pool: &LeanPool, batch: Vec<Waiting<T>>) {
        let mut ids: Vec<Uuid> = batch.iter().map(|w| w.id).collect();
        ids.sort_unstable();
        ids.dedup();
        crate::telemetry::record_read_batch(batch.len());
        let Ok(mut rows) = self.read(pool, &ids).await else {
            for waiting in batch {
                let _ = waiting.answer.send(Err(()));
            }
            return;
        };
        // Each row goes to the requests that asked for it: moved to the last of them, cloned
        // for the others (the same id asked twice in one batch).
        rows.sort_unstable_by_key(T::id);
        let places: Vec<Option<usize>> = batch
            .iter()
            .map(|w| rows.binary_search_by_key(&w.id, T::id).ok())
            .collect();
        let mut askers = vec![0_usize; rows.len()];
        for place in places.iter().flatten() {
            askers[*place] += 1;
        }
        let mut rows: Vec<Option<T>> = rows.into_iter().map(Some).collect();
        for (waiting, place) in batch.into_iter().zip(places) {
            let found = place.and_then(|p| {
                askers[p] -= 1;
                if askers[p] == 0 {
                    rows[p].take()
                } else {
                    rows[p].clone()
                }
            });
            let _ = waiting.answer.send(Ok(found));
        }
    }
}
