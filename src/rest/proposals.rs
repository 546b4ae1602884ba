//! /api/v1/review-queue/field-proposals: contested values of established identity fields
//! (public, like the review queue) and their decisions (admin); /api/v1/agents/me/field-proposals:
//! the caller's own.

use super::paging::Pager;
use crate::error::AppError;
use crate::http::Json;
use crate::http::{Auth, UuidPath, ValidQuery};
use crate::http::{ErrorBody, ValidationErrorBody};
use crate::records::proposals::FieldProposal;
use crate::records::proposals::ProposalFilter;
use crate::services::proposals;
use crate::state::AppState;
use axum::extract::State;
use axum::response::Response;

#[derive(Debug, serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ProposalsQuery {
    /// open (the queue), accepted, dismissed or superseded; all when absent.
    pub status: Option<String>,
    /// Only the proposals of this agent's entries.
    pub agent_id: Option<uuid::Uuid>,
    /// Only the proposals on this record.
    pub record_id: Option<uuid::Uuid>,
    /// 1 to 500, default 100.
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<i64>,
    /// Where the page starts: the `X-Next-Cursor` of the page before.
    pub after: Option<String>,
}

#[utoipa::path(get, path = "/api/v1/review-queue/field-proposals", operation_id = "list_field_proposals", tag = "review", params(ProposalsQuery),
    responses((status = 200, description = "Field proposals, newest first: the record's value and the contested one, each with its evidence, and why it is contested",
               body = Vec<FieldProposal>),
              (status = 422, description = "An unknown status, a limit out of range, a malformed id or a cursor of another list", body = ValidationErrorBody)))]
pub async fn list(
    State(state): State<AppState>,
    pager: Pager,
    ValidQuery(q): ValidQuery<ProposalsQuery>,
) -> Result<Response, AppError> {
    let filter = ProposalFilter {
        status: proposals::status_filter(q.status.as_deref(), &["query", "status"])?,
        agent_id: q.agent_id,
        record_id: q.record_id,
    };
    let params = pager.params(q.limit, q.after.as_deref())?;
    let page = proposals::list(&state, filter, params).await?;
    Ok(pager.json(page, |p| p.id))
}

#[derive(Debug, serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct MyProposalsQuery {
    /// open, accepted, dismissed or superseded; all when absent.
    pub status: Option<String>,
    /// 1 to 500, default 100.
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<i64>,
    /// Where the page starts: the `X-Next-Cursor` of the page before.
    pub after: Option<String>,
}

#[utoipa::path(get, path = "/api/v1/agents/me/field-proposals", operation_id = "list_my_field_proposals", tag = "agents", security(("bearer" = [])),
    params(MyProposalsQuery),
    responses((status = 200, description = "The values the caller's entries proposed for established identity fields, newest first, with how each was decided",
               body = Vec<FieldProposal>),
              (status = 401, description = "No valid bearer key or token", body = ErrorBody),
              (status = 422, description = "An unknown status, a limit out of range or a cursor of another list", body = ValidationErrorBody)))]
pub async fn mine(
    State(state): State<AppState>,
    Auth(ctx): Auth,
    pager: Pager,
    ValidQuery(q): ValidQuery<MyProposalsQuery>,
) -> Result<Response, AppError> {
    let status = proposals::status_filter(q.status.as_deref(), &["query", "status"])?;
    let params = pager.params(q.limit, q.after.as_deref())?;
    let page = proposals::mine(&state, &ctx, status, params).await?;
    Ok(pager.json(page, |p| p.id))
}

#[utoipa::path(post, path = "/api/v1/review-queue/field-proposals/{field_proposal_id}/accept", operation_id = "accept_field_proposal", tag = "review",
    security(("bearer" = [])), params(("field_proposal_id" = uuid::Uuid, Path)),
    responses((status = 200, description = "The proposal, now accepted: the record shows the proposed value, and a contribution names the operator", body = FieldProposal),
              (status = 401, description = "No valid bearer key or token", body = ErrorBody),
              (status = 403, description = "The key lacks the admin scope", body = ErrorBody),
              (status = 404, description = "No such field proposal", body = ErrorBody),
              (status = 409, description = "The proposal is not open any more (decided by another operator, or superseded because the record's field changed since)", body = ErrorBody),
              (status = 422, description = "A malformed id", body = ValidationErrorBody)))]
pub async fn accept(
    State(state): State<AppState>,
    Auth(ctx): Auth,
    UuidPath(id): UuidPath,
) -> Result<Json<FieldProposal>, AppError> {
    proposals::accept(&state, &ctx, id).await.map(Json)
}

#[utoipa::path(post, path = "/api/v1/review-queue/field-proposals/{field_proposal_id}/dismiss", operation_id = "dismiss_field_proposal", tag = "review",
    security(("bearer" = [])), params(("field_proposal_id" = uuid::Uuid, Path)),
    responses((status = 200, description = "The proposal, now dismissed: the record keeps its value", body = FieldProposal),
              (status = 401, description = "No valid bearer key or token", body = ErrorBody),
              (status = 403, description = "The key lacks the admin scope", body = ErrorBody),
              (status = 404, description = "No such field proposal", body = ErrorBody),
              (status = 409, description = "The proposal is not open any more", body = ErrorBody),
              (status = 422, description = "A malformed id", body = ValidationErrorBody)))]
pub async fn dismiss(
    State(state): State<AppState>,
    Auth(ctx): Auth,
    UuidPath(id): UuidPath,
) -> Result<Json<FieldProposal>, AppError> {
    proposals::dismiss(&state, &ctx, id).await.map(Json)
}
