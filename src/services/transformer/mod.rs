//! The transformer: pending entries → decisions about canonical entities, listings and requests.
//!
//! A batch claims pending entries with `FOR UPDATE SKIP LOCKED` (so several workers and server
//! processes never process the same entry), takes transaction-level advisory locks on every
//! identity the batch touches, in ascending order (two workers seeing the same new business
//! serialise instead of creating it twice, and can never deadlock), then decides each entry
//! inside a savepoint. The canonical change, its link contribution, the entry's outcome and the
//! ranker's scores commit together.

mod entity;
mod keys;
mod observation;
mod offer;
mod outcome;
mod ownership;
pub mod worker;

use crate::ctx::Ctx;
use crate::db::entries::{self as entries_db, SpaceTimeEntry};
use crate::db::transformer_runs;
use crate::domain::{CanonicalTable, EntryStatus, EntryType, LinkType, ListParams, scopes};
use crate::error::{AppError, AppResult};
use crate::state::AppState;
use crate::transform::{TRANSFORMER_NAME, TRANSFORMER_VERSION};
use outcome::Decision;
use serde::Serialize;
use sqlx::{Acquire, PgConnection};
use uuid::Uuid;

/// The outcome of processing one entry.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct ProcessResult {
    pub space_time_entry_id: Uuid,
    pub status: EntryStatus,
    pub canonical_table: Option<CanonicalTable>,
    pub canonical_id: Option<Uuid>,
    pub link_type: Option<LinkType>,
    pub reason: Option<String>,
    pub error: Option<String>,
}

/// The outcome of one process-pending call.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct ProcessPendingResult {
    pub processed: i64,
    pub results: Vec<ProcessResult>,
}

const BATCH_SIZE: i64 = 200;

impl From<&SpaceTimeEntry> for ProcessResult {
    fn from(e: &SpaceTimeEntry) -> Self {
        ProcessResult {
            space_time_entry_id: e.id,
            status: e.status,
            canonical_table: e.canonical_table,
            canonical_id: e.canonical_id,
            link_type: e.link_type,
            reason: e.processing_reason.clone(),
            error: e.processing_error.clone(),
        }
    }
}

/// POST /api/v1/transformer/process-pending (admin).
pub async fn process_pending(
    state: &AppState,
    ctx: &Ctx,
    limit: Option<i64>,
) -> AppResult<ProcessPendingResult> {
    ctx.require_scope(scopes::ADMIN)?;
    let params = ListParams::new(limit, None, &["query", "limit"])?;
    drain(state, params.limit, "api").await
}

/// Processes up to `limit` pending entries, batch by batch, until none is left.
pub async fn drain(state: &AppState, limit: i64, trigger: &str) -> AppResult<ProcessPendingResult> {
    let mut results = Vec::new();
    while (results.len() as i64) < limit {
        let batch = process_batch(
            state,
            (limit - results.len() as i64).min(BATCH_SIZE),
            trigger,
        )
        .await?;
        if batch.is_empty() {
            break;
        }
        results.extend(batch);
    }
    Ok(ProcessPendingResult {
        processed: results.len() as i64,
        results,
    })
}

/// The fast path decides a whole batch without savepoints; if any entry fails, the batch is rolled
/// back and redone carefully, one savepoint per entry, so one bad entry cannot sink the others.
async fn process_batch(
    state: &AppState,
    size: i64,
    trigger: &str,
) -> AppResult<Vec<ProcessResult>> {
    match try_batch(state, size, trigger, Care::Fast).await {
        Ok(results) => Ok(results),
        Err(err) => {
            tracing::warn!(error = ?err, "transformer batch failed; redoing it entry by entry");
            try_batch(state, size, trigger, Care::EntryByEntry).await
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Care {
    Fast,
    EntryByEntry,
}

async fn try_batch(
    state: &AppState,
    size: i64,
    trigger: &str,
    care: Care,
) -> AppResult<Vec<ProcessResult>> {
    let mut tx = state.pool.begin().await?;
    // A crash between commit and WAL flush only returns entries to `pending`: they are redone.
    crate::db::relax_commit_durability(&mut tx).await?;
    let claimed = entries_db::claim_pending(&mut tx, size).await?;
    if claimed.is_empty() {
        return Ok(Vec::new());
    }
    let results = process_claimed(&mut tx, &claimed, trigger, care).await?;
    tx.commit().await?;
    Ok(results)
}

/// POST /api/v1/transformer/process/{id} (admin). An entry already processed returns its recorded
/// result and changes nothing.
pub async fn process_entry(state: &AppState, ctx: &Ctx, id: Uuid) -> AppResult<ProcessResult> {
    ctx.require_scope(scopes::ADMIN)?;
    let mut tx = state.pool.begin().await?;
    let entry = entries_db::lock_one(&mut tx, id)
        .await?
        .ok_or(AppError::NotFound("space-time entry"))?;
    if entry.status != EntryStatus::Pending {
        return Ok(ProcessResult::from(&entry));
    }
    let mut results = process_claimed(&mut tx, &[entry], "api", Care::EntryByEntry).await?;
    tx.commit().await?;
    results
        .pop()
        .ok_or_else(|| AppError::internal(anyhow::anyhow!("no result for a claimed entry")))
}

async fn process_claimed(
    tx: &mut PgConnection,
    claimed: &[SpaceTimeEntry],
    trigger: &str,
    care: Care,
) -> AppResult<Vec<ProcessResult>> {
    let run_id =
        transformer_runs::start(tx, TRANSFORMER_NAME, TRANSFORMER_VERSION, trigger).await?;
    crate::db::advisory_xact_locks(tx, &keys::lock_keys(claimed)).await?;
    let mut decided = Vec::with_capacity(claimed.len());
    for entry in claimed {
        let decision = match care {
            Care::Fast => decide_and_apply(tx, entry).await?,
            Care::EntryByEntry => decide_carefully(tx, entry).await?,
        };
        decided.push((entry, decision));
    }
    let results = outcome::record_all(tx, &decided, run_id).await?;
    transformer_runs::finish(tx, run_id, results.len() as i32).await?;
    Ok(results)
}

/// Inside a savepoint: a failure rejects this entry (with the error kept) and nothing else.
async fn decide_carefully(tx: &mut PgConnection, entry: &SpaceTimeEntry) -> AppResult<Decision> {
    let mut savepoint = tx.begin().await?;
    match decide_and_apply(&mut savepoint, entry).await {
        Ok(decision) => {
            savepoint.commit().await?;
            Ok(decision)
        }
        Err(err) => {
            savepoint.rollback().await?;
            tracing::warn!(entry_id = %entry.id, error = ?err, "entry could not be processed");
            Ok(Decision::rejected("processing failed").with_error(err.public_message()))
        }
    }
}

async fn decide_and_apply(conn: &mut PgConnection, entry: &SpaceTimeEntry) -> AppResult<Decision> {
    if let Some(table) = entry.target_canonical_table {
        let expected = match entry.entry_type {
            EntryType::Entity => Some(CanonicalTable::Entities),
            EntryType::Listing => Some(CanonicalTable::Listings),
            EntryType::Request => Some(CanonicalTable::Requests),
            EntryType::Observation => None,
        };
        if expected.is_some_and(|t| t != table) {
            return Ok(Decision::rejected(&format!(
                "a {} entry cannot target {table}",
                entry.entry_type
            )));
        }
    }
    match entry.entry_type {
        EntryType::Entity => entity::apply(conn, entry).await,
        EntryType::Listing => offer::apply(conn, entry, CanonicalTable::Listings).await,
        EntryType::Request => offer::apply(conn, entry, CanonicalTable::Requests).await,
        EntryType::Observation => observation::apply(conn, entry).await,
    }
}
