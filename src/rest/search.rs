//! GET /api/v1/search (JSON, or GeoJSON with `Accept: application/geo+json`)

use super::geojson::{WantsGeoJson, geojson_body};
use crate::error::AppError;
use crate::http::Json;
use crate::http::ValidQuery;
use crate::http::ValidationErrorBody;
use crate::search::SearchInput;
use crate::services::search::{self, SearchFeatureCollection, SearchResponse};
use crate::state::AppState;
use axum::extract::State;
use axum::response::{IntoResponse, Response};

#[utoipa::path(get, path = "/api/v1/search", tag = "search", operation_id = "search_records", params(SearchInput, super::geojson::FormatQuery),
    responses((status = 200, description = "Ranked hits; `f=geojson` or `Accept: application/geo+json` gives them as a FeatureCollection",
               content((SearchResponse = "application/json"), (SearchFeatureCollection = "application/geo+json"))),
              (status = 422, body = ValidationErrorBody), (status = 429, body = super::ErrorBody)))]
pub async fn search(
    State(state): State<AppState>,
    format: WantsGeoJson,
    ValidQuery(input): ValidQuery<SearchInput>,
) -> Result<Response, AppError> {
    let response = search::search(&state, input, &["query"]).await?;
    Ok(if format.0 {
        geojson_body(SearchFeatureCollection::from(response))
    } else {
        Json(response).into_response()
    })
}
