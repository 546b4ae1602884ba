//! Operators merge two canonical records of one kind (entities, listings or requests) and undo
//! merges. Agents never merge: they report duplicates (signals), which queue the pair for review.
//!
//! A merge replays both records' evidence into the survivor: the survivor's own created and
//! updated contributions, then the other record's, through the transformer's pure create and
//! merge functions (`services::history`: entities through `transformer::entity`, listings and
//! requests through the one offer path `transformer::offer`), so every field is decided by the
//! usual merge rules over the union of the evidence. The other record becomes a redirect
//! (`status` `merged`, `merged_into_id`). Every contribution it had is recorded again on the
//! survivor as `merged` (same entry; `metadata.original_link_type`, `merge_id`, `merged_from`,
//! who, when), and one `duplicate_of` contribution on the other record says who decided what and
//! when. An undo adds a `duplicate_of` contribution naming the merge (`undo_of`); replays skip an
//! undone merge's contributions, so both records are rebuilt from their own contributions.

use super::history;
use super::search::CanonicalRecord;
use super::transformer::offer::stored_write;
use crate::ctx::Ctx;
use crate::db;
use crate::db::contributions::NewContribution;
use crate::db::offers::OfferRecord;
use crate::domain::{CanonicalTable, LinkType, scopes};
use crate::error::{AppError, AppResult};
use crate::records::canonical::{CanonicalRequest, Entity, Listing};
use crate::state::AppState;
use crate::transform::{TRANSFORMER_NAME, TRANSFORMER_VERSION};
use chrono::Utc;
use rust_decimal::Decimal;
use serde_json::{Value, json};
use sqlx::PgConnection;
use uuid::Uuid;

/// Most contributions one merge carries over or one replay applies.
const MAX_CONTRIBUTIONS: i64 = 2_000;

/// A kind of canonical record operators merge, and its record type.
pub trait Mergeable: super::canonical::CanonicalRow {
    fn from_record(record: CanonicalRecord) -> Option<Self>;
}

impl Mergeable for Entity {
    fn from_record(record: CanonicalRecord) -> Option<Self> {
        match record {
            CanonicalRecord::Entity(e) => Some(e),
            _ => None,
        }
    }
}

impl Mergeable for Listing {
    fn from_record(record: CanonicalRecord) -> Option<Self> {
        match record {
            CanonicalRecord::Listing(l) => Some(l),
            _ => None,
        }
    }
}

impl Mergeable for CanonicalRequest {
    fn from_record(record: CanonicalRecord) -> Option<Self> {
        match record {
            CanonicalRecord::Request(r) => Some(r),
            _ => None,
        }
    }
}

fn typed<R: Mergeable>(record: CanonicalRecord) -> AppResult<R> {
    R::from_record(record).ok_or_else(|| {
        AppError::internal(anyhow::anyhow!(
            "a merge of {} answered another kind",
            R::TABLE
        ))
    })
}

/// Merges `merged_id` into `survivor_id` (admin scope) and returns the survivor. `merged_at` is
/// where the caller gave `merged_id` (`["body", "merged_id"]`, `["mergedId"]`, …): a refusal of
/// it is located there. An unknown survivor is not found.
#[tracing::instrument(
    name = "merge::merge", level = "debug", skip_all,
    fields(survivor_id = %survivor_id, merged_id = %merged_id)
)]
pub async fn merge<R: Mergeable>(
    state: &AppState,
    ctx: &Ctx,
    survivor_id: Uuid,
    merged_id: Uuid,
    merged_at: &[&str],
) -> AppResult<R> {
    typed(merge_records(state, ctx, R::TABLE, survivor_id, merged_id, merged_at).await?)
}

/// Undoes the merge that made `merged_id` a redirect (admin scope): both records are rebuilt from
/// their own contributions, the redirect's status restored. Returns the restored record.
#[tracing::instrument(
    name = "merge::undo", level = "debug", skip_all,
    fields(merged_id = %merged_id)
)]
pub async fn undo<R: Mergeable>(state: &AppState, ctx: &Ctx, merged_id: Uuid) -> AppResult<R> {
    typed(undo_merge(state, ctx, R::TABLE, merged_id).await?)
}

/// The two ids in the order rows are locked: two operations on the same pair cannot deadlock.
fn in_lock_order(a: Uuid, b: Uuid) -> [Uuid; 2] {
    if a < b { [a, b] } else { [b, a] }
}

/// Locks both records (in id order) and returns their `(status, merged_into_id)`, each `None`
/// when that record does not exist.
async fn lock_pair(
    conn: &mut PgConnection,
    table: CanonicalTable,
    a: Uuid,
    b: Uuid,
) -> AppResult<[Option<(String, Option<Uuid>)>; 2]> {
    let mut found = [None, None];
    for id in in_lock_order(a, b) {
        let state = db::canonical::lock_merge_state(conn, table, id).await?;
        found[usize::from(id != a)] = state;
    }
    Ok(found)
}

fn cannot_rebuild(id: Uuid) -> AppError {
    AppError::Conflict {
        message: "the record's first contribution is not a creation; it cannot be rebuilt".into(),
        existing_id: Some(id),
    }
}

/// The record as stored now.
async fn fetch(
    conn: &mut PgConnection,
    table: CanonicalTable,
    id: Uuid,
) -> AppResult<CanonicalRecord> {
    let record = match table {
        CanonicalTable::Entities => db::entities::get(&mut *conn, id)
            .await?
            .map(CanonicalRecord::Entity),
        CanonicalTable::Listings => db::offers::get::<Listing>(&mut *conn, id)
            .await?
            .map(CanonicalRecord::Listing),
        CanonicalTable::Requests => db::offers::get::<CanonicalRequest>(&mut *conn, id)
            .await?
            .map(CanonicalRecord::Request),
    };
    record.ok_or(AppError::NotFound(table.record_name()))
}

/// Rebuilds a record from its contributions and stores it with the given status.
async fn rebuild(
    conn: &mut PgConnection,
    table: CanonicalTable,
    id: Uuid,
    status: &str,
) -> AppResult<CanonicalRecord> {
    let steps =
        db::provenance::replay_steps(conn, table, id, Utc::now(), MAX_CONTRIBUTIONS + 1).await?;
    if steps.len() as i64 > MAX_CONTRIBUTIONS {
        return Err(AppError::Conflict {
            message: format!(
                "the record has more than {MAX_CONTRIBUTIONS} contributions to replay"
            ),
            existing_id: Some(id),
        });
    }
    match table {
        CanonicalTable::Entities => {
            let today = db::entities::get(&mut *conn, id)
                .await?
                .ok_or(AppError::NotFound("entity"))?;
            let (_, mut write) =
                history::replay(&today, steps).ok_or_else(|| cannot_rebuild(id))?;
            write.status = status.to_owned();
            db::entities::update(conn, id, &write).await?;
        }
        CanonicalTable::Listings => rebuild_offer::<Listing>(conn, id, status, steps).await?,
        CanonicalTable::Requests => {
            rebuild_offer::<CanonicalRequest>(conn, id, status, steps).await?;
        }
    }
    crate::services::ranker::rank_many(conn, table, &[id], crate::services::ranker::Freshness::Now)
        .await?;
    fetch(conn, table, id).await
}

async fn rebuild_offer<R: OfferRecord>(
    conn: &mut PgConnection,
    id: Uuid,
    status: &str,
    steps: Vec<db::provenance::ReplayStep>,
) -> AppResult<()> {
    let t = &R::TABLE;
    let today = db::offers::get_for_update::<R>(conn, id)
        .await?
        .ok_or(AppError::NotFound(t.kind.record_name()))?;
    let mut write = history::replay_offer(t.kind, &stored_write(today), steps)
        .ok_or_else(|| cannot_rebuild(id))?;
    write.status = status.to_owned();
    db::offers::update(conn, t, id, &write).await?;
    Ok(())
}

fn contribution<'a>(
    table: CanonicalTable,
    entry_id: Uuid,
    target_id: Uuid,
    link_type: LinkType,
    run_id: Uuid,
    reason: &'a str,
    metadata: Value,
) -> NewContribution<'a> {
    NewContribution {
        entry_id,
        table,
        target_id,
        link_type,
        weight: Decimal::ZERO,
        information_power: Decimal::ZERO,
        confidence: Decimal::ONE,
        transformer_name: TRANSFORMER_NAME,
        transformer_version: TRANSFORMER_VERSION,
        run_id,
        reason,
        metadata: std::borrow::Cow::Owned(metadata),
    }
}

async fn merge_records(
    state: &AppState,
    ctx: &Ctx,
    table: CanonicalTable,
    survivor_id: Uuid,
    merged_id: Uuid,
    merged_at: &[&str],
) -> AppResult<CanonicalRecord> {
    let operator = ctx.require_scope(scopes::ADMIN)?.agent_id;
    let kind = table.record_name();
    if survivor_id == merged_id {
        return Err(AppError::invalid(
            merged_at,
            "a record cannot be merged into itself",
            "value_error",
        ));
    }
    let mut tx = state.pool.begin().await?;
    let [survivor, merged] = lock_pair(&mut tx, table, survivor_id, merged_id).await?;
    let (survivor_status, _) = survivor.ok_or(AppError::NotFound(kind))?;
    let (merged_status, _) = merged
        .ok_or_else(|| AppError::invalid(merged_at, format!("names no {kind}"), "not_found"))?;
    for (id, status) in [(survivor_id, &survivor_status), (merged_id, &merged_status)] {
        if status == "merged" {
            return Err(AppError::Conflict {
                message: format!("{kind} {id} is already merged into another record"),
                existing_id: Some(id),
            });
        }
    }
    let carried =
        db::contributions::of_record(&mut tx, table, merged_id, MAX_CONTRIBUTIONS + 1).await?;
    if carried.len() as i64 > MAX_CONTRIBUTIONS || carried.is_empty() {
        return Err(AppError::Conflict {
            message: "the record to merge has no contributions, or too many to carry over".into(),
            existing_id: Some(merged_id),
        });
    }
    let merge_id = Uuid::now_v7();
    let decided = json!({"merge_id": merge_id, "decided_by_agent_id": operator, "decided_at_tstamp_utc": Utc::now()});
    let run_id =
        db::transformer_runs::start(&mut tx, TRANSFORMER_NAME, TRANSFORMER_VERSION, "review")
            .await?;
    let reason = format!("merged from {kind} {merged_id} by an operator");
    let mut rows: Vec<NewContribution<'_>> = carried
        .iter()
        .map(|c| {
            let mut metadata = decided.clone();
            metadata["merged_from"] = json!(merged_id);
            // Evidence the merged record had from an earlier merge keeps its first link type,
            // so a replay of the survivor still applies it.
            metadata["original_link_type"] = match c.link_type {
                LinkType::Merged => c.metadata["original_link_type"].clone(),
                other => json!(other.as_str()),
            };
            metadata["original_contribution_id"] = json!(c.id);
            // What a replay of the survivor needs to apply it as it was applied.
            for kept in ["contested_fields", "field_proposal"] {
                if let Some(value) = c.metadata.get(kept) {
                    metadata[kept] = value.clone();
                }
            }
            contribution(
                table,
                c.source_space_time_entry_id,
                survivor_id,
                LinkType::Merged,
                run_id,
                &reason,
                metadata,
            )
        })
        .collect();
    let mut note = decided.clone();
    note["duplicate_of"] = json!(survivor_id);
    note["previous_status"] = json!(merged_status);
    let dup_reason = format!("a duplicate of {kind} {survivor_id}, merged by an operator");
    rows.push(contribution(
        table,
        carried[0].source_space_time_entry_id,
        merged_id,
        LinkType::DuplicateOf,
        run_id,
        &dup_reason,
        note,
    ));
    db::contributions::insert_many(&mut tx, &rows).await?;
    db::canonical::set_merged_into(&mut tx, table, merged_id, Some(survivor_id), "merged").await?;
    let result = rebuild(&mut tx, table, survivor_id, &survivor_status).await?;
    db::signals::settle_duplicate_pair(&mut tx, table, survivor_id, merged_id, "confirmed").await?;
    db::transformer_runs::finish(&mut tx, run_id, rows.len() as i32).await?;
    tx.commit().await?;
    Ok(result)
}

async fn undo_merge(
    state: &AppState,
    ctx: &Ctx,
    table: CanonicalTable,
    merged_id: Uuid,
) -> AppResult<CanonicalRecord> {
    let operator = ctx.require_scope(scopes::ADMIN)?.agent_id;
    let kind = table.record_name();
    let not_merged = || AppError::Conflict {
        message: format!("this {kind} is not merged into another record"),
        existing_id: Some(merged_id),
    };
    let mut tx = state.pool.begin().await?;
    let survivor_id = db::canonical::merged_into(&mut tx, table, merged_id)
        .await?
        .ok_or(AppError::NotFound(kind))?
        .ok_or_else(not_merged)?;
    let [survivor, merged] = lock_pair(&mut tx, table, survivor_id, merged_id).await?;
    if merged.as_ref().and_then(|(_, into)| *into) != Some(survivor_id) {
        return Err(AppError::Conflict {
            message: "the merge changed meanwhile".into(),
            existing_id: Some(merged_id),
        });
    }
    let (survivor_status, _) = survivor.ok_or(AppError::NotFound(kind))?;
    if survivor_status == "merged" {
        // The survivor's evidence, this merge's included, now lives in a third record: undo
        // that merge first, or this one would leave the third record holding it.
        return Err(AppError::Conflict {
            message: format!(
                "{kind} {survivor_id}, which this one was merged into, is itself merged into another record: undo that merge first"
            ),
            existing_id: Some(survivor_id),
        });
    }
    let merge = db::contributions::open_merge(&mut tx, table, merged_id)
        .await?
        .ok_or_else(|| AppError::Conflict {
            message: format!("no merge of this {kind} is on record"),
            existing_id: Some(merged_id),
        })?;
    let previous_status = merge["previous_status"]
        .as_str()
        .unwrap_or("active")
        .to_owned();
    let carried = db::contributions::of_record(&mut tx, table, merged_id, 1).await?;
    let entry = carried
        .first()
        .map(|c| c.source_space_time_entry_id)
        .ok_or(AppError::NotFound(kind))?;
    let run_id =
        db::transformer_runs::start(&mut tx, TRANSFORMER_NAME, TRANSFORMER_VERSION, "review")
            .await?;
    let metadata = json!({"undo_of": merge["merge_id"], "duplicate_of": survivor_id,
        "decided_by_agent_id": operator, "decided_at_tstamp_utc": Utc::now()});
    let reason = format!("merge into {kind} {survivor_id} undone by an operator");
    db::contributions::insert_many(
        &mut tx,
        &[contribution(
            table,
            entry,
            merged_id,
            LinkType::DuplicateOf,
            run_id,
            &reason,
            metadata,
        )],
    )
    .await?;
    db::canonical::set_merged_into(&mut tx, table, merged_id, None, &previous_status).await?;
    rebuild(&mut tx, table, survivor_id, &survivor_status).await?;
    let restored = rebuild(&mut tx, table, merged_id, &previous_status).await?;
    // The pair is undecided again: back in the queue of reported duplicates, if it was there.
    db::signals::settle_duplicate_pair(&mut tx, table, survivor_id, merged_id, "open").await?;
    db::transformer_runs::finish(&mut tx, run_id, 1).await?;
    tx.commit().await?;
    Ok(restored)
}
