//! /api/v1/notes and /api/v1/signals (no key required; a bearer, when sent, must be valid).

use super::Created;
use super::paging::Pager;
use crate::error::AppError;
use crate::http::{ErrorBody, ValidationErrorBody};
use crate::http::{MaybeAuth, ValidJson, ValidQuery};
use crate::records::feedback::Note;
use crate::records::feedback::NoteFilter;
use crate::records::feedback::Signal;
use crate::records::feedback::SignalFilter;
use crate::services::notes::{self, NoteCreate};
use crate::services::signals::{self, SignalCreate};
use crate::state::AppState;
use axum::extract::State;
use axum::response::Response;
use serde::Deserialize;
use uuid::Uuid;

/// Bodies of notes and signals are small; anything larger is refused with 413.
pub const MAX_FEEDBACK_BODY_BYTES: usize = 16 * 1024;

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct TargetQuery {
    pub target_schema: Option<String>,
    pub target_table: Option<String>,
    pub target_id: Option<Uuid>,
    /// 1 to 500, default 100.
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<i64>,
    /// Where the page starts: the `X-Next-Cursor` of the page before.
    pub after: Option<String>,
}

#[utoipa::path(post, path = "/api/v1/notes", tag = "feedback", request_body = NoteCreate,
    responses((status = 201, description = "The note created", body = Note), (status = 401, body = ErrorBody), (status = 413, body = ErrorBody),
              (status = 422, body = ValidationErrorBody), (status = 429, body = ErrorBody)))]
pub async fn create_note(
    State(state): State<AppState>,
    MaybeAuth(ctx): MaybeAuth,
    ValidJson(body): ValidJson<NoteCreate>,
) -> Result<Created<Note>, AppError> {
    notes::create(&state, &ctx, body, &["body"])
        .await
        .map(Created)
}

#[utoipa::path(get, path = "/api/v1/notes", tag = "feedback", params(TargetQuery),
    responses((status = 200, description = "Notes visible to the caller, newest first", body = Vec<Note>),
              (status = 401, body = ErrorBody), (status = 422, body = ValidationErrorBody)))]
pub async fn list_notes(
    State(state): State<AppState>,
    MaybeAuth(ctx): MaybeAuth,
    pager: Pager,
    ValidQuery(q): ValidQuery<TargetQuery>,
) -> Result<Response, AppError> {
    let params = pager.params(q.limit, q.after.as_deref())?;
    let filter = NoteFilter {
        target_schema: q.target_schema,
        target_table: q.target_table,
        target_id: q.target_id,
    };
    let page = notes::list(&state, &ctx, filter, params).await?;
    Ok(pager.json(page, |n| n.id))
}

#[utoipa::path(post, path = "/api/v1/signals", tag = "feedback", request_body = SignalCreate,
    responses((status = 201, description = "The signal created", body = Signal), (status = 401, body = ErrorBody), (status = 413, body = ErrorBody),
              (status = 422, body = ValidationErrorBody), (status = 429, body = ErrorBody)))]
pub async fn create_signal(
    State(state): State<AppState>,
    MaybeAuth(ctx): MaybeAuth,
    ValidJson(body): ValidJson<SignalCreate>,
) -> Result<Created<Signal>, AppError> {
    signals::create(&state, &ctx, body, &["body"])
        .await
        .map(Created)
}

#[utoipa::path(get, path = "/api/v1/signals", tag = "feedback", params(TargetQuery),
    responses((status = 200, description = "Signals on the target, newest first", body = Vec<Signal>), (status = 422, body = ValidationErrorBody)))]
pub async fn list_signals(
    State(state): State<AppState>,
    pager: Pager,
    ValidQuery(q): ValidQuery<TargetQuery>,
) -> Result<Response, AppError> {
    let params = pager.params(q.limit, q.after.as_deref())?;
    let filter = SignalFilter {
        target_schema: q.target_schema,
        target_table: q.target_table,
        target_id: q.target_id,
    };
    let page = signals::list(&state, filter, params).await?;
    Ok(pager.json(page, |s| s.id))
}
