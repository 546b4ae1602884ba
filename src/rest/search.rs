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
use serde::Deserialize;

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SearchQuery {
    /// Required, 1 to 200 characters: names, titles, categories, city.
    pub query: Option<String>,
    /// With longitude: results carry distance_meters.
    pub latitude: Option<f64>,
    pub longitude: Option<f64>,
    /// 1 to 100000; needs latitude and longitude.
    pub radius_meters: Option<i64>,
    /// entity, listing, request or mixed (default).
    pub canonical_type: Option<String>,
    /// e.g. `country_code:GB,city:Manchester,categories:plumber|heating,status:active`.
    pub filters: Option<String>,
    /// e.g. `phone,website_url`: only results having all of them.
    pub response_must_include_dimensions: Option<String>,
    /// 1 to 50, default 10.
    pub max_results: Option<i64>,
    /// relevance (default) or distance (nearest first; needs a point).
    pub sort: Option<String>,
}

#[utoipa::path(get, path = "/api/v1/search", tag = "search", params(SearchQuery),
    responses((status = 200, description = "Ranked hits; `Accept: application/geo+json` gives a FeatureCollection",
               body = SearchResponse),
              (status = 422, body = ValidationErrorBody), (status = 429, body = super::ErrorBody)))]
pub async fn search(
    State(state): State<AppState>,
    headers: HeaderMap,
    ValidQuery(q): ValidQuery<SearchQuery>,
) -> Result<Response, AppError> {
    let input = SearchInput {
        query: q.query,
        latitude: q.latitude,
        longitude: q.longitude,
        radius_meters: q.radius_meters,
        canonical_type: q.canonical_type,
        filters: q.filters,
        response_must_include_dimensions: q.response_must_include_dimensions,
        max_results: q.max_results,
        sort: q.sort,
    };
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
