//! A record's provenance answer (/api/v1/{entities|listings|requests}/{id}/provenance, routed in
//! `canonical`): its field sources and contributions with their evidence, as JSON or as W3C
//! PROV-O JSON-LD (`Accept: application/ld+json`).

use crate::domain::CanonicalTable;
use crate::error::AppError;
use crate::http::Json;
use crate::services::provenance;
use crate::state::AppState;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};

const JSON_LD: &str = "application/ld+json";

pub(super) async fn answer(
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
    // A link base the client can follow; `localhost` when the host is unknown or not plain.
    let base = match crate::http::base_url(headers) {
        base if base.is_empty() => "http://localhost".to_string(),
        base => base,
    };
    let document = provenance::prov_o(&found, &base);
    let mut response = Json(document).into_response();
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(JSON_LD));
    Ok(response)
}
