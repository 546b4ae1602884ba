//! `?f=geojson` or `Accept: application/geo+json` on the REST lists and search: the same records
//! as an RFC 7946 FeatureCollection (`records::geojson`), answered with that content type. `f`
//! wins over `Accept`; an unknown `f` is a 422 at `query.f`, never ignored (a client that asked
//! for a format must not silently get another).

use crate::error::AppError;
use crate::http::Json;
use crate::records::geojson::{FeatureCollection, Located};
use axum::extract::FromRequestParts;
use axum::http::{header, request::Parts};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

pub const GEOJSON: &str = "application/geo+json";

/// `f`: the format of a list or search answer.
#[derive(Debug, Clone, Copy, serde::Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ListFormat {
    Json,
    Geojson,
}

/// The `f` parameter as the OpenAPI document lists it (read by `WantsGeoJson`).
#[derive(Debug, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[expect(
    dead_code,
    reason = "documents `f` in OpenAPI; WantsGeoJson reads it from the query text"
)]
pub struct FormatQuery {
    /// `geojson` for a FeatureCollection (`application/geo+json`), `json` for plain JSON;
    /// overrides the `Accept` header.
    #[param(inline)]
    f: Option<ListFormat>,
}

/// Whether the caller asked for GeoJSON: `f=geojson`, or without `f` an `Accept` that names
/// GeoJSON (any other value, or none, gets plain JSON).
#[derive(Debug, Clone, Copy)]
pub struct WantsGeoJson(pub bool);

impl<S: Send + Sync> FromRequestParts<S> for WantsGeoJson {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        let f = url::form_urlencoded::parse(parts.uri.query().unwrap_or("").as_bytes())
            .find(|(name, _)| name == "f")
            .map(|(_, value)| value);
        match f.as_deref() {
            Some("geojson") => return Ok(WantsGeoJson(true)),
            Some("json") => return Ok(WantsGeoJson(false)),
            Some(other) => {
                return Err(AppError::invalid(
                    &["query", "f"],
                    format!("unknown format '{other}': use json or geojson"),
                    "enum",
                ));
            }
            None => {}
        }
        let wants = parts
            .headers
            .get_all(header::ACCEPT)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .any(|item| {
                let mut parts = item.split(';').map(str::trim);
                parts.next() == Some(GEOJSON) && !parts.any(|p| p.replace(' ', "") == "q=0")
            });
        Ok(WantsGeoJson(wants))
    }
}

/// A body in GeoJSON with its content type.
pub fn geojson_body(body: impl Serialize) -> Response {
    ([(header::CONTENT_TYPE, GEOJSON)], Json(body)).into_response()
}

/// A list as a JSON array, or as a FeatureCollection when the caller asked for GeoJSON.
pub fn records<T: Serialize + Located>(format: WantsGeoJson, records: Vec<T>) -> Response {
    if format.0 {
        geojson_body(records.into_iter().collect::<FeatureCollection<T>>())
    } else {
        Json(records).into_response()
    }
}
