//! The transformer: pending entries → decisions about canonical entities, listings and requests.
//!
//! A batch claims pending entries area by area with `FOR UPDATE SKIP LOCKED` (so several workers
//! and server processes never process the same entry, and usually work in different areas), then
//! takes transaction-level advisory locks on the map cells and identities its entries touch,
//! without waiting: an entry whose locks another worker holds stays pending for a later claim
//! (two workers seeing the same new business serialise instead of creating it twice, and never
//! wait on each other). The canonical changes, their link contributions, the entries' outcomes and
//! the ranker's scores commit together.

mod batch_view;
pub(crate) mod entity;
mod held;
pub mod keys;
mod observation;
pub(crate) mod offer;
mod outcome;
mod ownership;
pub mod worker;

use crate::ctx::Ctx;
use crate::db::entries::{self as entries_db, SpaceTimeEntry};
use crate::db::transformer_runs;
use crate::domain::{CanonicalTable, EntryStatus, EntryType, ListParams, scopes};
use crate::error::{AppError, AppResult};
pub use crate::records::processing::{ProcessPendingResult, ProcessResult};
use crate::state::AppState;
use crate::transform::{TRANSFORMER_NAME, TRANSFORMER_VERSION};
use batch_view::BatchView;
use outcome::Decision;
use serde_json::json;
use sqlx::{Acquire, PgConnection};
use uuid::Uuid;

/// Entries a batch claims. Everything a batch holds (its entries, their candidates, its held
/// writes, the statements carrying them) grows with it, times the loops: 200 peaked the processing
/// server at 58 MB, 100 at 52 MB for the same CPU per entry; 64 cost 15-30% more CPU per entry.
const BATCH_SIZE: i64 = 100;

/// The most advisory locks a batch holds until it commits.
pub const MAX_LOCKS_PER_BATCH: usize = BATCH_SIZE as usize * keys::MAX_LOCKS_PER_ENTRY;

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
#[tracing::instrument(
    name = "transformer::process_pending",
    level = "debug",
    skip_all,
    fields(?limit)
)]
pub async fn process_pending(
    state: &AppState,
    ctx: &Ctx,
    limit: Option<i64>,
) -> AppResult<ProcessPendingResult> {
    ctx.require_scope(scopes::ADMIN)?;
    let params = ListParams::new(limit, None, &["query", "limit"])?;
    drain(state, params.limit, "api").await
}

/// How long a worker waits before claiming again when another worker held the locks of every
/// entry it claimed (that worker commits within a batch's time), and how many times it does so
/// before it leaves those entries to the next call (the worker's next wake-up or poll).
const ALL_DEFERRED_PAUSE: std::time::Duration = std::time::Duration::from_millis(20);
const ALL_DEFERRED_ROUNDS: u32 = 25;

/// Processes up to `limit` pending entries, batch by batch, until none is left.
#[tracing::instrument(name = "transformer::drain", skip_all, fields(?limit, %trigger))]
pub async fn drain(state: &AppState, limit: i64, trigger: &str) -> AppResult<ProcessPendingResult> {
    let mut results = Vec::new();
    let processed = drain_into(state, limit, trigger, |batch| results.extend(batch)).await?;
    Ok(ProcessPendingResult { processed, results })
}

/// `drain` for the background worker: how many entries were decided, without keeping a result
/// per entry (a worker's call may decide a thousand).
#[tracing::instrument(name = "transformer::drain_counting", skip_all, fields(?limit, %trigger))]
pub async fn drain_counting(state: &AppState, limit: i64, trigger: &str) -> AppResult<i64> {
    drain_into(state, limit, trigger, drop).await
}

async fn drain_into(
    state: &AppState,
    limit: i64,
    trigger: &str,
    mut keep: impl FnMut(Vec<ProcessResult>),
) -> AppResult<i64> {
    let mut processed = 0_i64;
    let mut deferred_rounds = 0;
    while processed < limit {
        let batch = process_batch(state, (limit - processed).min(BATCH_SIZE), trigger).await?;
        if batch.claimed == 0 {
            break;
        }
        crate::telemetry::record_batch(batch.results.len());
        if batch.results.is_empty() {
            deferred_rounds += 1;
            if deferred_rounds >= ALL_DEFERRED_ROUNDS {
                break;
            }
            tokio::time::sleep(ALL_DEFERRED_PAUSE).await;
        }
        processed += batch.results.len() as i64;
        keep(batch.results);
    }
    Ok(processed)
}

/// A full disk (507) is a condition of the server, never a reason to reject an entry. (A 503 may
/// be one entry's statement timing out, which the entry-by-entry redo isolates; with the
/// database down, that redo fails at once and rejects nothing.)
fn is_disk_full(err: &AppError) -> bool {
    matches!(err, AppError::InsufficientStorage(_))
}

/// An error as one log field: an internal error's cause chain without the backtrace its `Debug`
/// form prints when `RUST_BACKTRACE` is set.
fn log_text(err: &AppError) -> String {
    match err {
        AppError::Internal(cause) => format!("{cause:#}"),
        other => format!("{} ({})", other.public_message(), other.code()),
    }
}

/// The fast path decides a whole batch without savepoints; if any entry fails, the batch is rolled
/// back and redone carefully, one savepoint per entry, so one bad entry cannot sink the others.
async fn process_batch(state: &AppState, size: i64, trigger: &str) -> AppResult<Batch> {
    // A random start on the claim's area order: concurrent workers start in different areas.
    let start: i32 = rand::random();
    let redo = match try_batch(state, size, start, trigger, Care::Fast).await {
        Ok(batch) => return Ok(batch),
        // A full disk fails every entry alike: the batch waits (its entries stay pending) rather
        // than being redone entry by entry.
        Err(Failed::Error(err)) if is_disk_full(&err) => return Err(err),
        Err(Failed::Error(err)) => {
            tracing::warn!(
                error = log_text(&err),
                "transformer batch failed; redoing it entry by entry"
            );
            try_batch(state, size, start, trigger, Care::EntryByEntry).await
        }
        // A panic in the fast path is one more reason to redo the batch carefully, where a
        // panicking entry is rejected alone.
        Err(Failed::Panic(panic)) => {
            tracing::error!(
                cause = panic_text(&panic),
                "transformer batch panicked; redoing it entry by entry"
            );
            try_batch(state, size, start, trigger, Care::EntryByEntry).await
        }
    };
    match redo {
        Ok(batch) => Ok(batch),
        Err(Failed::Error(err)) => Err(err),
        Err(Failed::Panic(panic)) => std::panic::resume_unwind(panic),
    }
}

/// What one batch did: entries claimed, and results for those whose locks it could take (the
/// others stay pending for the next claim).
struct Batch {
    claimed: usize,
    results: Vec<ProcessResult>,
}

/// How a batch that did not commit ended.
enum Failed {
    Error(AppError),
    Panic(Box<dyn std::any::Any + Send>),
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Care {
    Fast,
    EntryByEntry,
}

/// One batch in one transaction. A batch that fails or panics is rolled back here, before the
/// redo claims again: a transaction merely dropped sends its ROLLBACK only when its connection
/// is next used (sqlx), and until then its row locks hide the claimed entries from the redo's
/// `SKIP LOCKED` claim and its advisory locks defer them.
async fn try_batch(
    state: &AppState,
    size: i64,
    start: i32,
    trigger: &str,
    care: Care,
) -> Result<Batch, Failed> {
    let mut tx = state
        .pool
        .begin()
        .await
        .map_err(|err| Failed::Error(err.into()))?;
    let run = std::panic::AssertUnwindSafe(claim_and_process(&mut tx, size, start, trigger, care));
    let failed = match futures::FutureExt::catch_unwind(run).await {
        Ok(Ok(batch)) => {
            crate::db::release_buffers(&mut tx);
            return match tx.commit().await {
                Ok(()) => Ok(batch),
                Err(err) => Err(Failed::Error(err.into())),
            };
        }
        Ok(Err(err)) => Failed::Error(err),
        Err(panic) => Failed::Panic(panic),
    };
    // A rollback that fails leaves the connection to sqlx, which closes a broken one; the
    // batch's own failure is the one to report.
    let _ = tx.rollback().await;
    Err(failed)
}

async fn claim_and_process(
    tx: &mut PgConnection,
    size: i64,
    start: i32,
    trigger: &str,
    care: Care,
) -> AppResult<Batch> {
    // A crash between commit and WAL flush only returns entries to `pending`: they are redone.
    crate::db::relax_commit_durability(tx).await?;
    let claimed = entries_db::claim_pending(tx, size, BATCH_SIZE, start).await?;
    if claimed.is_empty() {
        return Ok(Batch {
            claimed: 0,
            results: Vec::new(),
        });
    }
    let claimed_count = claimed.len();
    let free = defer_locked(tx, claimed).await?;
    let results = process_claimed(tx, &free, trigger, care).await?;
    Ok(Batch {
        claimed: claimed_count,
        results,
    })
}

/// Takes the identity locks of the claimed entries without waiting; an entry whose locks another
/// worker holds is left out (still pending) instead of making the whole batch wait.
async fn defer_locked(
    tx: &mut PgConnection,
    claimed: Vec<SpaceTimeEntry>,
) -> AppResult<Vec<SpaceTimeEntry>> {
    let held = crate::db::try_advisory_xact_locks(tx, &keys::lock_keys(&claimed)).await?;
    if held.is_empty() {
        return Ok(claimed);
    }
    Ok(claimed
        .into_iter()
        .filter(|entry| {
            keys::entry_lock_keys(entry)
                .iter()
                .all(|key| held.binary_search(key).is_err())
        })
        .collect())
}

/// POST /api/v1/transformer/process/{id} (admin). An entry already processed returns its recorded
/// result and changes nothing.
#[tracing::instrument(
    name = "transformer::process_entry", level = "debug", skip_all,
    fields(id = %id)
)]
pub async fn process_entry(state: &AppState, ctx: &Ctx, id: Uuid) -> AppResult<ProcessResult> {
    ctx.require_scope(scopes::ADMIN)?;
    let mut tx = state.pool.begin().await?;
    let entry = entries_db::lock_one(&mut tx, id)
        .await?
        .ok_or(AppError::NotFound("space-time entry"))?;
    if entry.status != EntryStatus::Pending {
        return Ok(ProcessResult::from(&entry));
    }
    crate::db::advisory_xact_locks(&mut tx, &keys::lock_keys(std::slice::from_ref(&entry))).await?;
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
    if claimed.is_empty() {
        return Ok(Vec::new());
    }
    let run_id =
        transformer_runs::start(tx, TRANSFORMER_NAME, TRANSFORMER_VERSION, trigger).await?;
    let mut view = match care {
        Care::Fast => BatchView::fetch_ahead(tx, claimed).await?,
        Care::EntryByEntry => BatchView::per_entry(),
    };
    let mut decided = Vec::with_capacity(claimed.len());
    for entry in claimed {
        let decision = match care {
            Care::Fast => decide_and_apply(tx, &mut view, entry).await?,
            Care::EntryByEntry => decide_carefully(tx, &mut view, entry).await?,
        };
        decided.push((entry, decision));
    }
    let results = outcome::record_all(tx, &decided, run_id, view.held.take()).await?;
    transformer_runs::finish(tx, run_id, results.len() as i32).await?;
    Ok(results)
}

/// The message of a caught panic.
pub(crate) fn panic_text(panic: &Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(ToString::to_string))
        .unwrap_or_else(|| "a panic".to_string())
}

/// Inside a savepoint: a failure or a panic rejects this entry (with the cause kept) and nothing
/// else.
async fn decide_carefully(
    tx: &mut PgConnection,
    view: &mut BatchView,
    entry: &SpaceTimeEntry,
) -> AppResult<Decision> {
    let mut savepoint = tx.begin().await?;
    let attempt = std::panic::AssertUnwindSafe(decide_and_apply(&mut savepoint, view, entry));
    match futures::FutureExt::catch_unwind(attempt).await {
        Ok(Ok(decision)) => {
            savepoint.commit().await?;
            Ok(decision)
        }
        // Not this entry's fault: it stays pending, the batch fails and is tried again later.
        Ok(Err(err)) if is_disk_full(&err) => Err(err),
        Ok(Err(err)) => {
            savepoint.rollback().await?;
            tracing::warn!(entry_id = %entry.id, error = log_text(&err), "entry could not be processed");
            Ok(Decision::rejected("processing failed").with_error(err.public_message()))
        }
        Err(panic) => {
            // A poison entry is rejected with the cause instead of killing every loop that claims it.
            savepoint.rollback().await?;
            let cause = panic_text(&panic);
            tracing::error!(entry_id = %entry.id, cause, "processing an entry panicked");
            Ok(Decision::rejected("processing failed")
                .with_error(format!("the transformer failed on this entry: {cause}")))
        }
    }
}

fn operator_says_new(view: &BatchView) -> bool {
    view.operator == Some(batch_view::OperatorDecision::IsNew)
}

async fn decide_and_apply(
    conn: &mut PgConnection,
    view: &mut BatchView,
    entry: &SpaceTimeEntry,
) -> AppResult<Decision> {
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
    // An entry aimed at a record an operator merged away is about the record it was merged into.
    let redirected;
    let entry = match (entry.target_canonical_table, entry.target_canonical_id) {
        (Some(table), Some(id)) => {
            match crate::db::canonical::follow_merges(conn, table, id).await? {
                Some(survivor) if survivor != id => {
                    redirected = SpaceTimeEntry {
                        target_canonical_id: Some(survivor),
                        ..entry.clone()
                    };
                    &redirected
                }
                _ => entry,
            }
        }
        _ => entry,
    };
    match entry.entry_type {
        EntryType::Entity => entity::apply(conn, view, entry).await,
        EntryType::Listing => {
            offer::apply(
                conn,
                entry,
                CanonicalTable::Listings,
                operator_says_new(view),
            )
            .await
        }
        EntryType::Request => {
            offer::apply(
                conn,
                entry,
                CanonicalTable::Requests,
                operator_says_new(view),
            )
            .await
        }
        EntryType::Observation => observation::apply(conn, view, entry).await,
    }
}

/// An operator's answer to an entry the transformer sent to review.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resolution {
    /// The entry is about this record: it is applied to it as an update or supporting evidence.
    IsRecord(Uuid),
    /// The entry is about a record the service does not have: one is created from it.
    IsNew,
    /// The entry is wrong or not useful: rejected.
    Reject,
}

impl Resolution {
    fn name(self) -> &'static str {
        match self {
            Resolution::IsRecord(_) => "is_record",
            Resolution::IsNew => "is_new",
            Resolution::Reject => "reject",
        }
    }
}

/// Resolves a reviewed entry (admin scope). The entry's row is locked first, so of two operators
/// resolving the same entry at once exactly one does; the other gets a conflict. The entry is
/// then decided as the transformer decides entries, with the operator's answer in place of the
/// matching rules (and of the established-identity guard), and the resolution is kept with the
/// entry's review details and on the contribution it makes: who, when, what.
#[tracing::instrument(
    name = "transformer::resolve", level = "debug", skip_all,
    fields(entry_id = %entry_id)
)]
pub async fn resolve(
    state: &AppState,
    ctx: &Ctx,
    entry_id: Uuid,
    resolution: Resolution,
) -> AppResult<ProcessResult> {
    let operator = ctx.require_scope(scopes::ADMIN)?.agent_id;
    let mut tx = state.pool.begin().await?;
    let entry = entries_db::lock_one(&mut tx, entry_id)
        .await?
        .ok_or(AppError::NotFound("space-time entry"))?;
    if entry.status != EntryStatus::ReviewRequired {
        return Err(AppError::Conflict {
            message: format!(
                "this entry is not waiting for review (it is {})",
                entry.status
            ),
            existing_id: Some(entry.id),
        });
    }
    let table = match entry.entry_type {
        EntryType::Entity | EntryType::Observation => CanonicalTable::Entities,
        EntryType::Listing => CanonicalTable::Listings,
        EntryType::Request => CanonicalTable::Requests,
    };
    let mut decided = entry.clone();
    let mut view = BatchView::per_entry();
    match resolution {
        Resolution::IsRecord(id) => {
            if !crate::db::canonical::exists(&mut tx, table, id).await? {
                return Err(AppError::invalid(
                    &["body", "canonical_id"],
                    format!("names no record in {table}"),
                    "value_error",
                ));
            }
            decided.target_canonical_table = Some(table);
            decided.target_canonical_id = Some(id);
            view.operator = Some(batch_view::OperatorDecision::IsRecord);
        }
        Resolution::IsNew if entry.entry_type == EntryType::Observation => {
            return Err(AppError::invalid(
                &["body", "resolution"],
                "an observation cannot become a record of its own; answer is_record or reject",
                "value_error",
            ));
        }
        Resolution::IsNew => view.operator = Some(batch_view::OperatorDecision::IsNew),
        Resolution::Reject => {}
    }
    crate::db::advisory_xact_locks(&mut tx, &keys::lock_keys(std::slice::from_ref(&entry))).await?;
    let mut decision = match resolution {
        Resolution::Reject => Decision::rejected("rejected by an operator"),
        _ => decide_and_apply(&mut tx, &mut view, &decided).await?,
    };
    let record = json!({
        "resolution": resolution.name(),
        "canonical_id": match resolution { Resolution::IsRecord(id) => Some(id), _ => None },
        "resolved_by_agent_id": operator,
        "resolved_at_tstamp_utc": chrono::Utc::now(),
    });
    let mut review = entries_db::review_of(&mut tx, entry.id)
        .await?
        .unwrap_or_else(|| json!({}));
    review["resolution"] = record.clone();
    if let Some(metadata) = decision.metadata.as_object_mut() {
        metadata.insert("resolution".into(), record);
    }
    let run_id =
        transformer_runs::start(&mut tx, TRANSFORMER_NAME, TRANSFORMER_VERSION, "review").await?;
    decision.reason = format!("{} (resolved by an operator)", decision.reason);
    let mut results = outcome::record_all(&mut tx, &[(&entry, decision)], run_id, None).await?;
    entries_db::set_review(&mut tx, entry.id, &review).await?;
    transformer_runs::finish(&mut tx, run_id, 1).await?;
    tx.commit().await?;
    results
        .pop()
        .ok_or_else(|| AppError::internal(anyhow::anyhow!("no result for a resolved entry")))
}
