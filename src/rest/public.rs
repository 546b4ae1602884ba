//! /api/v1/public: the Markdown index, agent docs and terms.

use crate::error::AppError;
use crate::http::ErrorBody;
use crate::http::Json;
use crate::services::docs;
use axum::extract::Path;
use axum::http::header;
use axum::response::IntoResponse;
use std::collections::BTreeMap;

fn markdown(text: String) -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], text)
}

#[utoipa::path(get, path = "/api/v1/public", tag = "public", operation_id = "get_public_index",
    responses((status = 200, description = "Markdown index", body = String, content_type = "text/plain")))]
pub async fn index() -> Result<impl IntoResponse, AppError> {
    docs::public_index().map(markdown)
}

#[utoipa::path(get, path = "/api/v1/public/agent-docs", tag = "public", operation_id = "list_agent_docs",
    responses((status = 200, description = "Document slugs and hrefs", body = BTreeMap<String, Vec<BTreeMap<String, String>>>)))]
pub async fn catalogue() -> Json<BTreeMap<String, Vec<BTreeMap<String, String>>>> {
    Json(docs::catalogue())
}

#[utoipa::path(get, path = "/api/v1/public/agent-docs/{doc_slug}", tag = "public", operation_id = "get_agent_doc", params(("doc_slug" = String, Path)),
    responses((status = 200, description = "Markdown", body = String, content_type = "text/plain"), (status = 404, body = ErrorBody)))]
pub async fn agent_doc(Path(slug): Path<String>) -> Result<impl IntoResponse, AppError> {
    docs::agent_doc(&slug).map(markdown)
}

#[utoipa::path(get, path = "/api/v1/public/terms-and-conditions/{doc_slug}", tag = "public", operation_id = "get_terms_and_conditions",
    params(("doc_slug" = String, Path)),
    responses((status = 200, description = "Markdown", body = String, content_type = "text/plain"), (status = 404, body = ErrorBody)))]
pub async fn terms(Path(slug): Path<String>) -> Result<impl IntoResponse, AppError> {
    docs::terms(&slug).map(markdown)
}
