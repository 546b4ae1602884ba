//! Operators merge two canonical entities and undo merges. Agents never merge: they report
//! duplicates (signals), which queue the pair for review.
//!
//! A merge replays both records' evidence into the survivor: the survivor's own created and
//! updated contributions, then the other record's, through the transformer's pure create and
//! merge functions (`services::history::replay`), so every field is decided by the usual merge
//! rules over the union of the evidence. The other record becomes a redirect (`status`
//! `merged`, `merged_into_id`). Every contribution it had is recorded again on the survivor as
//! `merged` (same entry; `metadata.original_link_type`, `merge_id`, `merged_from`, who, when),
//! and one `duplicate_of` contribution on the other record says who decided what and when. An
//! undo adds a `duplicate_of` contribution naming the merge (`undo_of`); replays skip an undone
//! merge's contributions, so both records are rebuilt from their own contributions.

use super::history;
use crate::ctx::Ctx;
use crate::db;
use crate::db::contributions::NewContribution;
use crate::domain::{CanonicalTable, LinkType, scopes};
use crate::error::{AppError, AppResult};
use crate::records::canonical::Entity;
use crate::state::AppState;
use crate::transform::{TRANSFORMER_NAME, TRANSFORMER_VERSION};
use chrono::Utc;
use rust_decimal::Decimal;
use serde_json::{Value, json};
use sqlx::PgConnection;
use uuid::Uuid;

const TABLE: CanonicalTable = CanonicalTable::Entities;
/// Most contributions one merge carries over or one replay applies.
const MAX_CONTRIBUTIONS: i64 = 2_000;

async fn locked(
    conn: &mut PgConnection,
    id: Uuid,
    loc: &str,
) -> AppResult<db::entities::Locked<Entity>> {
    db::entities::get_for_update(conn, id)
        .await?
        .ok_or_else(|| AppError::invalid(&["body", loc], "names no entity", "value_error"))
}

/// Rebuilds a record from its contributions and stores it; its status is given.
async fn rebuild(conn: &mut PgConnection, id: Uuid, status: &str) -> AppResult<Entity> {
    let today = db::entities::get(&mut *conn, id)
        .await?
        .ok_or(AppError::NotFound("entity"))?;
    let steps =
        db::provenance::replay_steps(conn, TABLE, id, Utc::now(), MAX_CONTRIBUTIONS + 1).await?;
    if steps.len() as i64 > MAX_CONTRIBUTIONS {
        return Err(AppError::Conflict {
            message: format!(
                "the record has more than {MAX_CONTRIBUTIONS} contributions to replay"
            ),
            existing_id: Some(id),
        });
    }
    let (_, mut write) = history::replay(&today, steps).ok_or_else(|| AppError::Conflict {
        message: "the record's first contribution is not a creation; it cannot be rebuilt".into(),
        existing_id: Some(id),
    })?;
    write.status = status.to_owned();
    db::entities::update(conn, id, &write).await?;
    crate::services::ranker::rank_many(conn, TABLE, &[id]).await?;
    db::entities::get(&mut *conn, id)
        .await?
        .ok_or(AppError::NotFound("entity"))
}

fn contribution<'a>(
    entry_id: Uuid,
    target_id: Uuid,
    link_type: LinkType,
    run_id: Uuid,
    reason: &'a str,
    metadata: Value,
) -> NewContribution<'a> {
    NewContribution {
        entry_id,
        table: TABLE,
        target_id,
        link_type,
        weight: Decimal::ZERO,
        information_power: Decimal::ZERO,
        confidence: Decimal::ONE,
        transformer_name: TRANSFORMER_NAME,
        transformer_version: TRANSFORMER_VERSION,
        run_id,
        reason,
        metadata,
    }
}

/// Merges `merged_id` into `survivor_id` (admin scope) and returns the survivor.
pub async fn merge_entities(
    state: &AppState,
    ctx: &Ctx,
    survivor_id: Uuid,
    merged_id: Uuid,
) -> AppResult<Entity> {
    let operator = ctx.require_scope(scopes::ADMIN)?.agent_id;
    if survivor_id == merged_id {
        return Err(AppError::invalid(
            &["body", "merged_id"],
            "a record cannot be merged into itself",
            "value_error",
        ));
    }
    let mut tx = state.pool.begin().await?;
    // Lock in id order: two merges of the same pair cannot deadlock.
    let (first, second) = if survivor_id < merged_id {
        (survivor_id, merged_id)
    } else {
        (merged_id, survivor_id)
    };
    let a = locked(
        &mut tx,
        first,
        if first == survivor_id {
            "survivor_id"
        } else {
            "merged_id"
        },
    )
    .await?;
    let b = locked(
        &mut tx,
        second,
        if second == survivor_id {
            "survivor_id"
        } else {
            "merged_id"
        },
    )
    .await?;
    let (survivor, merged) = if a.record.id == survivor_id {
        (a, b)
    } else {
        (b, a)
    };
    for record in [&survivor.record, &merged.record] {
        if record.status == "merged" {
            return Err(AppError::Conflict {
                message: format!("entity {} is already merged into another record", record.id),
                existing_id: Some(record.id),
            });
        }
    }
    let carried =
        db::contributions::of_record(&mut tx, TABLE, merged_id, MAX_CONTRIBUTIONS + 1).await?;
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
    let reason = format!("merged from entity {merged_id} by an operator");
    let mut rows: Vec<NewContribution<'_>> = carried
        .iter()
        .map(|c| {
            let mut metadata = decided.clone();
            metadata["merged_from"] = json!(merged_id);
            metadata["original_link_type"] = json!(c.link_type.as_str());
            metadata["original_contribution_id"] = json!(c.id);
            contribution(
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
    note["previous_status"] = json!(merged.record.status);
    let dup_reason = format!("a duplicate of entity {survivor_id}, merged by an operator");
    rows.push(contribution(
        carried[0].source_space_time_entry_id,
        merged_id,
        LinkType::DuplicateOf,
        run_id,
        &dup_reason,
        note,
    ));
    db::contributions::insert_many(&mut tx, &rows).await?;
    db::entities::set_merged_into(&mut tx, merged_id, Some(survivor_id), "merged").await?;
    let result = rebuild(&mut tx, survivor_id, &survivor.record.status).await?;
    db::signals::settle_duplicate_pair(&mut tx, TABLE, survivor_id, merged_id, "confirmed").await?;
    db::transformer_runs::finish(&mut tx, run_id, rows.len() as i32).await?;
    tx.commit().await?;
    Ok(result)
}

/// Undoes the merge that made `merged_id` a redirect (admin scope): both records are rebuilt from
/// their own contributions, the redirect's status restored. Returns the restored record.
pub async fn undo_merge(state: &AppState, ctx: &Ctx, merged_id: Uuid) -> AppResult<Entity> {
    let operator = ctx.require_scope(scopes::ADMIN)?.agent_id;
    let mut tx = state.pool.begin().await?;
    let Some(survivor_id) = db::entities::merged_into(&mut tx, merged_id).await? else {
        return Err(AppError::Conflict {
            message: "this entity is not merged into another record".into(),
            existing_id: Some(merged_id),
        });
    };
    let (first, second) = if survivor_id < merged_id {
        (survivor_id, merged_id)
    } else {
        (merged_id, survivor_id)
    };
    locked(&mut tx, first, "id").await?;
    locked(&mut tx, second, "id").await?;
    if db::entities::merged_into(&mut tx, merged_id).await? != Some(survivor_id) {
        return Err(AppError::Conflict {
            message: "the merge changed meanwhile".into(),
            existing_id: Some(merged_id),
        });
    }
    let merge = db::contributions::open_merge(&mut tx, merged_id)
        .await?
        .ok_or_else(|| AppError::Conflict {
            message: "no merge of this entity is on record".into(),
            existing_id: Some(merged_id),
        })?;
    let previous_status = merge["previous_status"]
        .as_str()
        .unwrap_or("active")
        .to_owned();
    let survivor_status = db::entities::get(&mut *tx, survivor_id)
        .await?
        .map(|e| e.status)
        .unwrap_or_else(|| "active".into());
    let carried = db::contributions::of_record(&mut tx, TABLE, merged_id, 1).await?;
    let run_id =
        db::transformer_runs::start(&mut tx, TRANSFORMER_NAME, TRANSFORMER_VERSION, "review")
            .await?;
    let metadata = json!({"undo_of": merge["merge_id"], "duplicate_of": survivor_id,
        "decided_by_agent_id": operator, "decided_at_tstamp_utc": Utc::now()});
    let reason = format!("merge into entity {survivor_id} undone by an operator");
    let entry = carried
        .first()
        .map(|c| c.source_space_time_entry_id)
        .ok_or(AppError::NotFound("entity"))?;
    db::contributions::insert_many(
        &mut tx,
        &[contribution(
            entry,
            merged_id,
            LinkType::DuplicateOf,
            run_id,
            &reason,
            metadata,
        )],
    )
    .await?;
    db::entities::set_merged_into(&mut tx, merged_id, None, &previous_status).await?;
    rebuild(&mut tx, survivor_id, &survivor_status).await?;
    let restored = rebuild(&mut tx, merged_id, &previous_status).await?;
    db::transformer_runs::finish(&mut tx, run_id, 1).await?;
    tx.commit().await?;
    Ok(restored)
}
