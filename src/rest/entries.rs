//! /api/v1/space-time-entries, its rubrics and guide, and /api/v1/attachments

use super::geojson::{self, WantsGeoJson};
use super::paging::Pager;
use super::{Created, multipart};
use crate::domain::EntryStatus;
use crate::error::AppError;
use crate::http::Json;
use crate::http::{Auth, UuidPath, ValidJson, ValidQuery, parse_json};
use crate::http::{ErrorBody, ValidationErrorBody};
use crate::records::entries::EntryCreate;
use crate::records::entries::SpaceTimeEntry;
use crate::records::evaluation::RubricEvaluation;
use crate::records::geojson::FeatureCollection;
use crate::services::docs::{self, ContextRubric, ContextRubricIndex};
use crate::services::entries;
use crate::services::evaluation;
use crate::state::AppState;
use axum::extract::{Path, Request, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

/// The multipart alternative: `entry` holds the JSON create object, `attachments` the files.
#[derive(utoipa::ToSchema)]
#[expect(dead_code, reason = "a schema only: utoipa reads the fields")]
pub struct EntryMultipart {
    /// The JSON-encoded create object.
    entry: String,
    /// PDF, PNG, JPEG, WebP, GIF or plain text; 10 MiB a file, 16 files, 25 MiB a request.
    #[schema(value_type = Vec<String>, format = Binary)]
    attachments: Vec<Vec<u8>>,
}

#[utoipa::path(post, path = "/api/v1/space-time-entries", tag = "space-time-entries", security(("bearer" = [])),
    request_body(content(
        (EntryCreate = "application/json"),
        (EntryMultipart = "multipart/form-data"))),
    responses((status = 201, description = "The stored entry (status `pending` until the transformer has run)", body = SpaceTimeEntry), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
              (status = 409, description = "idempotency_key already used; body carries existing_id", body = ErrorBody),
              (status = 413, body = ErrorBody), (status = 415, body = ErrorBody), (status = 422, body = ValidationErrorBody)))]
pub async fn create_entry(
    State(state): State<AppState>,
    Auth(ctx): Auth,
    req: Request,
) -> Result<Created<SpaceTimeEntry>, AppError> {
    let content_type = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    let (input, uploads) = if content_type.starts_with("multipart/form-data") {
        multipart::entry_with_attachments(req, &state).await?
    } else {
        crate::http::require_json(req.headers())?;
        let (_, bytes) = crate::http::read_body_limited(req, state.config.max_body_bytes).await?;
        (parse_json::<EntryCreate>(&bytes)?, Vec::new())
    };
    entries::create(&state, &ctx, input, uploads, &["body"])
        .await
        .map(Created)
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct EntryListQuery {
    pub status: Option<EntryStatus>,
    /// 1 to 500, default 100.
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<i64>,
    /// Where the page starts: the `X-Next-Cursor` of the page before.
    pub after: Option<String>,
}

#[utoipa::path(get, path = "/api/v1/space-time-entries", tag = "space-time-entries", params(EntryListQuery, geojson::FormatQuery),
    responses((status = 200, description = "Newest first, a page at a time; `f=geojson` or `Accept: application/geo+json` gives a FeatureCollection",
               content((Vec<SpaceTimeEntry> = "application/json"), (FeatureCollection<SpaceTimeEntry> = "application/geo+json"))),
              (status = 422, body = ValidationErrorBody)))]
pub async fn list_entries(
    State(state): State<AppState>,
    pager: Pager,
    format: WantsGeoJson,
    ValidQuery(q): ValidQuery<EntryListQuery>,
) -> Result<Response, AppError> {
    let params = pager.params(q.limit, q.after.as_deref())?;
    let page = entries::list(&state, q.status, None, params).await?;
    let next = page.next_cursor(pager.list(), |entry| entry.id);
    Ok(pager.with_next(geojson::records(format, page.items), next.as_deref()))
}

#[utoipa::path(get, path = "/api/v1/space-time-entries/{entry_id}", tag = "space-time-entries",
    params(("entry_id" = uuid::Uuid, Path)),
    responses((status = 200, description = "The entry, with its processing outcome once processed", body = SpaceTimeEntry), (status = 404, body = ErrorBody), (status = 422, body = ValidationErrorBody)))]
pub async fn get_entry(
    State(state): State<AppState>,
    UuidPath(id): UuidPath,
) -> Result<Json<SpaceTimeEntry>, AppError> {
    entries::get(&state, id).await.map(Json)
}

#[utoipa::path(get, path = "/api/v1/space-time-entries/context-rubrics", tag = "space-time-entries", operation_id = "list_context_rubrics",
    responses((status = 200, description = "One rubric per entry type", body = ContextRubricIndex)))]
pub async fn rubric_index() -> Json<ContextRubricIndex> {
    Json(docs::rubric_index())
}

#[utoipa::path(get, path = "/api/v1/space-time-entries/context-rubrics/{entry_type}", tag = "space-time-entries", operation_id = "get_context_rubric",
    params(("entry_type" = String, Path, description = "entity, listing or request")),
    responses((status = 200, description = "The rubric of the entry type", body = ContextRubric), (status = 422, body = ValidationErrorBody)))]
pub async fn rubric(Path(entry_type): Path<String>) -> Result<Json<ContextRubric>, AppError> {
    docs::rubric(&entry_type, &["path", "entry_type"]).map(Json)
}

#[utoipa::path(post, path = "/api/v1/space-time-entries/context-rubrics/{entry_type}/evaluate", tag = "space-time-entries", operation_id = "evaluate_entry_draft",
    params(("entry_type" = String, Path, description = "entity, listing or request")),
    request_body(content = EntryCreate, description = "The draft: the same body as a post of the entry; nothing is stored"),
    responses((status = 200, description = "The verdict and every finding; nothing is stored", body = RubricEvaluation), (status = 413, body = ErrorBody),
              (status = 415, body = ErrorBody), (status = 422, body = ValidationErrorBody)))]
pub async fn evaluate_draft(
    State(state): State<AppState>,
    Path(entry_type): Path<String>,
    ValidJson(draft): ValidJson<EntryCreate>,
) -> Result<Json<RubricEvaluation>, AppError> {
    evaluation::evaluate_draft(
        &state,
        &entry_type,
        draft,
        &["path", "entry_type"],
        &["body"],
    )
    .await
    .map(Json)
}

#[utoipa::path(get, path = "/api/v1/space-time-entries/agent-guide", tag = "space-time-entries", operation_id = "get_agent_guide",
    responses((status = 200, description = "The ingestion guide (Markdown)", body = String, content_type = "text/plain")))]
pub async fn agent_guide() -> Result<impl IntoResponse, AppError> {
    let text = docs::agent_doc("agent_ingestion")?;
    Ok(([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], text))
}

#[utoipa::path(get, path = "/api/v1/attachments/{sha256}", tag = "space-time-entries",
    params(("sha256" = String, Path, description = "hex SHA-256 from an entry's attachments")),
    responses((status = 200, description = "The stored bytes, with the media type they were uploaded with", content_type = "*/*"), (status = 404, body = ErrorBody)))]
pub async fn get_attachment(
    State(state): State<AppState>,
    Path(sha256): Path<String>,
) -> Result<impl IntoResponse, AppError> {
    let (media_type, file, size) = entries::attachment(&state, &sha256).await?;
    let body = axum::body::Body::from_stream(tokio_util::io::ReaderStream::new(file));
    Ok((
        [
            (header::CONTENT_TYPE, media_type),
            (header::CONTENT_LENGTH, size.to_string()),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff".to_string()),
        ],
        body,
    ))
}
