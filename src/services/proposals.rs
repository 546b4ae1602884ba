//! Field proposals: the contested values of established identity fields (anyone may read them,
//! like the review queue; an agent lists its own) and their decisions (operators, admin scope):
//! one service for REST, GraphQL and the admin CLI.

use super::transformer::entity::{apply_field, field_text, stored_write};
use crate::ctx::Ctx;
use crate::db;
use crate::db::contributions::NewContribution;
use crate::db::proposals::ProposalFilter;
use crate::domain::{CanonicalTable, LinkType, ListParams, Page, scopes};
use crate::error::{AppError, AppResult};
use crate::records::proposals::FieldProposal;
use crate::state::AppState;
use crate::transform::merge::FieldEvidence;
use crate::transform::{TRANSFORMER_NAME, TRANSFORMER_VERSION};
use rust_decimal::Decimal;
use rust_decimal::prelude::FromPrimitive;
use serde_json::json;
use sqlx::PgConnection;
use uuid::Uuid;

pub const STATUSES: &[&str] = &["open", "accepted", "dismissed", "superseded"];

/// A `status` filter as the caller sent it, checked; `loc` names it in the caller's transport.
pub fn status_filter(status: Option<&str>, loc: &[&str]) -> AppResult<Option<String>> {
    match status {
        None => Ok(None),
        Some(s) if STATUSES.contains(&s) => Ok(Some(s.to_string())),
        Some(_) => Err(AppError::invalid(
            loc,
            "must be open, accepted, dismissed or superseded",
            "enum",
        )),
    }
}

/// Field proposals, newest first, by status, proposing agent and record.
#[tracing::instrument(name = "proposals::list", level = "debug", skip_all)]
pub async fn list(
    state: &AppState,
    filter: ProposalFilter,
    params: ListParams,
) -> AppResult<Page<FieldProposal>> {
    let rows =
        db::proposals::list(crate::services::read_route::reads(state), &filter, &params).await?;
    Ok(Page::from_rows(rows, &params))
}

/// The calling agent's own proposals (bearer required).
#[tracing::instrument(name = "proposals::mine", level = "debug", skip_all)]
pub async fn mine(
    state: &AppState,
    ctx: &Ctx,
    status: Option<String>,
    params: ListParams,
) -> AppResult<Page<FieldProposal>> {
    let agent_id = ctx.require_actor()?.agent_id;
    let filter = ProposalFilter {
        status,
        agent_id: Some(agent_id),
        record_id: None,
    };
    list(state, filter, params).await
}

fn not_open(proposal: &FieldProposal) -> AppError {
    AppError::Conflict {
        message: format!(
            "this field proposal is not open any more (it is {})",
            proposal.status
        ),
        existing_id: Some(proposal.id),
    }
}

/// The proposal, locked in the transformer's order: its record's row first (the transformer holds
/// a record, then writes its proposals), then the proposal's.
async fn open_proposal(conn: &mut PgConnection, id: Uuid) -> AppResult<FieldProposal> {
    let proposal = db::proposals::get(conn, id)
        .await?
        .ok_or(AppError::NotFound("field proposal"))?;
    if proposal.status != "open" {
        return Err(not_open(&proposal));
    }
    Ok(proposal)
}

/// The conflict for a proposal another operator decided first (seen once its row is free).
async fn decided_meanwhile(conn: &mut PgConnection, id: Uuid) -> AppError {
    match db::proposals::get(conn, id).await {
        Ok(Some(proposal)) => not_open(&proposal),
        Ok(None) => AppError::NotFound("field proposal"),
        Err(e) => e.into(),
    }
}

/// Dismisses an open proposal (admin scope): the record keeps its value. A proposal no longer
/// open is a conflict (409), so of two operators at once exactly one decides.
#[tracing::instrument(name = "proposals::dismiss", level = "debug", skip_all, fields(id = %id))]
pub async fn dismiss(state: &AppState, ctx: &Ctx, id: Uuid) -> AppResult<FieldProposal> {
    let operator = ctx.require_scope(scopes::ADMIN)?.agent_id;
    let mut tx = state.pool.begin().await?;
    open_proposal(&mut tx, id).await?;
    let Some(dismissed) = db::proposals::decide(&mut tx, id, "dismissed", Some(operator)).await?
    else {
        return Err(decided_meanwhile(&mut tx, id).await);
    };
    tx.commit().await?;
    Ok(dismissed)
}

/// Accepts an open proposal (admin scope): the record takes the proposed value (keys
/// recomputed; the field's evidence becomes the proposing entry's), other open proposals of that
/// field become moot, and a `updated` contribution of the proposing entry records the change and
/// who decided it (`metadata.field_proposal`, `decided_by_agent_id`, `decided_at_tstamp_utc`), so
/// provenance and replays show it. A proposal no longer open is a conflict (409); so is one whose
/// record changed that field since (it becomes `superseded`).
#[tracing::instrument(name = "proposals::accept", level = "debug", skip_all, fields(id = %id))]
pub async fn accept(state: &AppState, ctx: &Ctx, id: Uuid) -> AppResult<FieldProposal> {
    let operator = ctx.require_scope(scopes::ADMIN)?.agent_id;
    let mut tx = state.pool.begin().await?;
    let proposal = open_proposal(&mut tx, id).await?;
    if proposal.canonical_table != CanonicalTable::Entities {
        return Err(AppError::internal(anyhow::anyhow!(
            "a field proposal on {} cannot be applied",
            proposal.canonical_table
        )));
    }
    let locked = db::entities::get_for_update(&mut tx, proposal.record_id)
        .await?
        .ok_or(AppError::NotFound("entity"))?;
    let redirect = locked.record.merged_into_id.is_some();
    let mut write = stored_write(locked);
    let unchanged =
        field_text(&write, &proposal.field).as_deref() == Some(proposal.current.value.as_str());
    if redirect || !unchanged {
        // What it contests is gone: moot, whoever asks.
        let Some(moot) = db::proposals::decide(&mut tx, id, "superseded", None).await? else {
            return Err(decided_meanwhile(&mut tx, id).await);
        };
        tx.commit().await?;
        return Err(not_open(&moot));
    }
    let Some(accepted) = db::proposals::decide(&mut tx, id, "accepted", Some(operator)).await?
    else {
        return Err(decided_meanwhile(&mut tx, id).await);
    };
    let Some(proposed) = accepted.proposed.evidence.clone() else {
        return Err(AppError::internal(anyhow::anyhow!(
            "a field proposal without its evidence"
        )));
    };
    let evidence = FieldEvidence {
        entry_id: proposed.space_time_entry_id,
        agent_id: proposed.agent_id,
        observed_at: proposed.observed_at_tstamp_utc,
        confidence: proposed.confidence,
    };
    if !apply_field(
        &mut write,
        &accepted.field,
        &accepted.proposed.value,
        &evidence,
    ) {
        return Err(AppError::internal(anyhow::anyhow!(
            "a field proposal whose value does not fit its field"
        )));
    }
    db::entities::update(&mut tx, accepted.record_id, &write).await?;
    db::proposals::supersede(&mut tx, accepted.record_id, &[accepted.field.as_str()]).await?;
    let metadata = json!({
        "changed_fields": [accepted.field],
        "field_proposal": {
            "id": accepted.id,
            "field": accepted.field,
            "value": accepted.proposed.value,
            "evidence": evidence,
            "replaced_value": accepted.current.value,
        },
        "proposal_id": accepted.id,
        "decided_by_agent_id": operator,
        "decided_at_tstamp_utc": accepted.decided_at_tstamp_utc,
    });
    let reason = format!(
        "updated {} (field proposal accepted by an operator)",
        accepted.field
    );
    let run_id =
        db::transformer_runs::start(&mut tx, TRANSFORMER_NAME, TRANSFORMER_VERSION, "review")
            .await?;
    db::contributions::insert_many(
        &mut tx,
        &[NewContribution {
            entry_id: accepted.space_time_entry_id,
            table: CanonicalTable::Entities,
            target_id: accepted.record_id,
            link_type: LinkType::Updated,
            weight: Decimal::ONE,
            information_power: Decimal::new(5, 1),
            confidence: Decimal::from_f64(evidence.confidence.clamp(0.0, 1.0))
                .unwrap_or_default()
                .round_dp(4),
            transformer_name: TRANSFORMER_NAME,
            transformer_version: TRANSFORMER_VERSION,
            run_id,
            reason: &reason,
            metadata: std::borrow::Cow::Owned(metadata),
        }],
    )
    .await?;
    db::transformer_runs::finish(&mut tx, run_id, 0).await?;
    crate::services::ranker::rank_many(
        &mut tx,
        CanonicalTable::Entities,
        &[accepted.record_id],
        crate::services::ranker::Freshness::Now,
    )
    .await?;
    tx.commit().await?;
    Ok(accepted)
}
