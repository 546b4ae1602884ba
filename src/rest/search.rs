//! GET /api/v1/search (JSON, or GeoJSON with `Accept: application/geo+json`)

use super::ValidationErrorBody;
use super::extract::ValidQuery;
use crate::error::AppError;
use crate::search::SearchInput;
use crate::services::search::{self, SearchResponse};
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, header};
use axum::response::{IntoResponse, Response};

#[utoipa::path(get, path = "/api/v1/search", tag = "search", params(SearchInput),
    responses((status = 200, description = "Ranked hits; `Accept: application/geo+json` gives a FeatureCollection",
               body = SearchResponse),
              (status = 422, body = ValidationErrorBody), (status = 429, body = super::ErrorBody)))]
pub async fn search(
    State(state): State<AppState>,
    headers: HeaderMap,
    ValidQuery(input): ValidQuery<SearchInput>,
) -> Result<Response, AppError> {
    let response = search::search(&state, input, &["query"]).await?;
    let wants_geojson = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|a| a.contains("application/geo+json"));
    Ok(if wants_geojson {
        (
            [(header::CONTENT_TYPE, "application/geo+json")],
            Json(search::feature_collection(&response)),
        )
            .into_response()
    } else {
        Json(response).into_response()
    })
}
