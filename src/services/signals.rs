//! Signals: structured feedback that feeds the ranker at once. A duplicate signal never merges
//! anything (agents do not merge): it queues the pair for review.

use super::notes::{check_author, check_target};
use crate::ctx::Ctx;
use crate::db::signals::{self as db, DuplicateCandidate, NewSignal, Signal, SignalFilter};
use crate::domain::validation::is_unit_interval;
use crate::domain::{CanonicalTable, DecimalInput, ListParams, Page, SignalType, Violations};
use crate::error::{AppError, AppResult};
use crate::state::AppState;
use rust_decimal::Decimal;
use serde::Deserialize;
use serde_json::{Map, Value};
use uuid::Uuid;

/// Body of POST /api/v1/signals.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SignalCreate {
    pub signal_type: SignalType,
    pub target_schema: String,
    pub target_table: String,
    pub target_id: Uuid,
    /// Required exactly for `duplicate`: the record (of the same kind) the target duplicates.
    #[serde(default)]
    pub duplicate_of_id: Option<Uuid>,
    /// 0 to 1, default 1.
    #[serde(default)]
    pub weight: Option<DecimalInput>,
    #[serde(default)]
    pub reason: Option<String>,
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub context: Option<Map<String, Value>>,
    /// Set from the bearer; when sent it must be the caller's own agent id.
    #[serde(default)]
    pub created_by_agent_id: Option<Uuid>,
}

fn at<'a>(loc: &[&'a str], field: &'a str) -> Vec<&'a str> {
    loc.iter().copied().chain([field]).collect()
}

fn canonical_table(schema: &str, table: &str) -> Option<CanonicalTable> {
    (schema == "canonical")
        .then(|| format!("canonical.{table}").parse().ok())
        .flatten()
}

#[tracing::instrument(name = "signals::create", level = "debug", skip_all)]
pub async fn create(
    state: &AppState,
    ctx: &Ctx,
    input: SignalCreate,
    loc: &[&str],
) -> AppResult<Signal> {
    let mut v = Violations::at(loc);
    let author = check_author(ctx, input.created_by_agent_id, &mut v);
    let weight = input.weight.map_or(Decimal::ONE, |w| w.0);
    v.check(
        is_unit_interval(&weight),
        "weight",
        "must be between 0 and 1",
        "range",
    );
    v.check_len(input.reason.as_deref(), "reason", 1, 4000);
    let is_duplicate = input.signal_type == SignalType::Duplicate;
    v.check(
        is_duplicate == input.duplicate_of_id.is_some(),
        "duplicate_of_id",
        "is required for duplicate signals and only for them",
        "value_error",
    );
    v.check(
        input.duplicate_of_id != Some(input.target_id),
        "duplicate_of_id",
        "a record cannot duplicate itself",
        "value_error",
    );
    v.into_result()?;
    super::rate_limit::anonymous_write(state, ctx, "signals").await?;
    let mut tx = state.pool.begin().await?;
    let target = (input.target_schema.as_str(), input.target_table.as_str());
    check_target(&mut tx, target.0, target.1, input.target_id, loc).await?;
    if let Some(other) = input.duplicate_of_id
        && !crate::db::canonical::target_exists(&mut tx, target.0, target.1, other)
            .await?
            .unwrap_or(false)
    {
        return Err(AppError::invalid(
            &at(loc, "duplicate_of_id"),
            "no record of the same kind with this id",
            "not_found",
        ));
    }
    let signal = db::insert(
        &mut tx,
        &NewSignal {
            created_by_agent_id: author,
            signal_type: input.signal_type,
            target_schema: input.target_schema,
            target_table: input.target_table,
            target_id: input.target_id,
            duplicate_of_id: input.duplicate_of_id,
            weight,
            reason: input.reason,
            context: Value::Object(input.context.unwrap_or_default()),
        },
    )
    .await?;
    if let Some(table) = canonical_table(&signal.target_schema, &signal.target_table) {
        if let Some(other) = signal.duplicate_of_id {
            db::queue_duplicate(&mut tx, table, signal.target_id, other, signal.id).await?;
        }
        crate::services::ranker::rank(&mut tx, table, signal.target_id).await?;
    }
    tx.commit().await?;
    Ok(signal)
}

#[tracing::instrument(name = "signals::list", level = "debug", skip_all)]
pub async fn list(
    state: &AppState,
    filter: SignalFilter,
    params: ListParams,
) -> AppResult<Page<Signal>> {
    Ok(Page::from_rows(
        db::list(crate::services::read_route::reads(state), &filter, &params).await?,
        &params,
    ))
}

/// The review queue of reported duplicates (optionally those involving one record).
#[tracing::instrument(
    name = "signals::duplicate_candidates", level = "debug", skip_all,
    fields(record_id = ?record_id)
)]
pub async fn duplicate_candidates(
    state: &AppState,
    status: Option<&str>,
    record_id: Option<Uuid>,
    params: ListParams,
) -> AppResult<Page<DuplicateCandidate>> {
    Ok(Page::from_rows(
        db::duplicate_candidates(
            crate::services::read_route::reads(state),
            status,
            record_id,
            &params,
        )
        .await?,
        &params,
    ))
}

#[tracing::instrument(
    name = "signals::for_targets", level = "debug", skip_all,
    fields(count = targets.len())
)]
pub async fn for_targets(state: &AppState, targets: &[Uuid]) -> AppResult<Vec<Signal>> {
    Ok(db::for_targets(
        crate::services::read_route::reads(state),
        targets,
        super::canonical::EDGE_LIMIT,
    )
    .await?)
}

#[tracing::instrument(
    name = "signals::candidates_for", level = "debug", skip_all,
    fields(count = records.len())
)]
pub async fn candidates_for(
    state: &AppState,
    records: &[Uuid],
) -> AppResult<Vec<DuplicateCandidate>> {
    Ok(db::candidates_for(
        crate::services::read_route::reads(state),
        records,
        super::canonical::EDGE_LIMIT,
    )
    .await?)
}
