//! `Accept: application/geo+json` on the REST lists and search: the same records as an RFC 7946
//! FeatureCollection (`records::geojson`), answered with that content type.

use crate::http::Json;
use crate::records::geojson::{FeatureCollection, Located};
use axum::extract::FromRequestParts;
use axum::http::{header, request::Parts};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use std::convert::Infallible;

pub const GEOJSON: &str = "application/geo+json";

/// Whether the caller's `Accept` names GeoJSON (any other value, or none, gets plain JSON).
#[derive(Debug, Clone, Copy)]
pub struct WantsGeoJson(pub bool);

impl<S: Send + Sync> FromRequestParts<S> for WantsGeoJson {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
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
