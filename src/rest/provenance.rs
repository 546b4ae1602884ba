//! /api/v1/{entities|listings|requests}/{id}/provenance: a record's field sources and
//! contributions with their evidence, as JSON or as W3C PROV-O JSON-LD
//! (`Accept: application/ld+json`).

use super::extract::UuidPath;
use super::json::Json;
use super::{ErrorBody, ValidationErrorBody};
use crate::domain::CanonicalTable;
use crate::error::AppError;
use crate::records::provenance::RecordProvenance;
use crate::services::provenance;
use crate::state::AppState;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};

const JSON_LD: &str = "application/ld+json";

async fn answer(
    state: &AppState,
    headers: &HeaderMap,
    table: CanonicalTable,
    id: uuid::Uuid,
) -> Result<Response, AppError> {
    let found = provenance::of_record(state, table, id).await?;
    let wants_json_ld = headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|accept| accept.contains(JSON_LD));
    if !wants_json_ld {
        return Ok(Json(found).into_response());
    }
    let host = headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .filter(|h| {
            h.chars()
                .all(|c| c.is_ascii_alphanumeric() || ".-:[]".contains(c))
        })
        .unwrap_or("localhost");
    let document = provenance::prov_o(&found, &format!("http://{host}"));
    let mut response = Json(document).into_response();
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(JSON_LD));
    Ok(response)
}

#[utoipa::path(get, path = "/api/v1/entities/{entity_id}/provenance", tag = "canonical", operation_id = "get_entity_provenance",
    params(("entity_id" = Uuid, Path)),
    responses((status = 200, description = "Field sources and contributions with their evidence; W3C PROV-O JSON-LD with `Accept: application/ld+json`",
               content((RecordProvenance = "application/json"), (Object = "application/ld+json"))),
              (status = 404, body = ErrorBody), (status = 422, body = ValidationErrorBody)))]
pub async fn entity_provenance(
    State(state): State<AppState>,
    headers: HeaderMap,
    UuidPath(id): UuidPath,
) -> Result<Response, AppError> {
    answer(&state, &headers, CanonicalTable::Entities, id).await
}

#[utoipa::path(get, path = "/api/v1/listings/{listing_id}/provenance", tag = "canonical", operation_id = "get_listing_provenance",
    params(("listing_id" = Uuid, Path)),
    responses((status = 200, description = "Field sources and contributions with their evidence; W3C PROV-O JSON-LD with `Accept: application/ld+json`",
               content((RecordProvenance = "application/json"), (Object = "application/ld+json"))),
              (status = 404, body = ErrorBody), (status = 422, body = ValidationErrorBody)))]
pub async fn listing_provenance(
    State(state): State<AppState>,
    headers: HeaderMap,
    UuidPath(id): UuidPath,
) -> Result<Response, AppError> {
    answer(&state, &headers, CanonicalTable::Listings, id).await
}

#[utoipa::path(get, path = "/api/v1/requests/{request_id}/provenance", tag = "canonical", operation_id = "get_request_provenance",
    params(("request_id" = Uuid, Path)),
    responses((status = 200, description = "Field sources and contributions with their evidence; W3C PROV-O JSON-LD with `Accept: application/ld+json`",
               content((RecordProvenance = "application/json"), (Object = "application/ld+json"))),
              (status = 404, body = ErrorBody), (status = 422, body = ValidationErrorBody)))]
pub async fn request_provenance(
    State(state): State<AppState>,
    headers: HeaderMap,
    UuidPath(id): UuidPath,
) -> Result<Response, AppError> {
    answer(&state, &headers, CanonicalTable::Requests, id).await
}
