//! Which representation a request asks for: `f` when given (an unknown value is a 400, never
//! ignored), otherwise the `Accept` header (HTML only when the client ranks it above JSON, as a
//! browser does; JSON for `*/*`, GIS clients and no header at all).

use super::error::{OgcError, bad_parameter};
use axum::http::HeaderMap;
use serde::Deserialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `application/json` for metadata, `application/geo+json` for features.
    Json,
    Html,
}

/// `f` on the metadata resources (landing page, conformance, collections).
#[derive(Debug, Clone, Copy, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum MetadataFormat {
    Json,
    Html,
}

/// `f` on features: `geojson` is the same as `json`.
#[derive(Debug, Clone, Copy, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum FeatureFormat {
    Json,
    Geojson,
    Html,
}

pub const GEOJSON: &str = "application/geo+json";

/// `geojson` is accepted only where features are answered.
pub fn choose(f: Option<&str>, headers: &HeaderMap, features: bool) -> Result<Format, OgcError> {
    match f {
        Some("json") => Ok(Format::Json),
        Some("geojson") if features => Ok(Format::Json),
        Some("html") => Ok(Format::Html),
        Some(other) => Err(bad_parameter(
            "f",
            format!(
                "unknown format '{other}': use {}",
                if features {
                    "json, geojson or html"
                } else {
                    "json or html"
                }
            ),
        )),
        None => Ok(from_accept(headers)),
    }
}

fn from_accept(headers: &HeaderMap) -> Format {
    let (mut html, mut json) = (0.0_f32, 0.0_f32);
    for (media, q) in crate::http::accept::ranges(headers) {
        match media.as_str() {
            "text/html" | "application/xhtml+xml" => html = html.max(q),
            "application/json" | GEOJSON | "*/*" | "application/*" => json = json.max(q),
            _ => {}
        }
    }
    if html > 0.0 && html > json {
        Format::Html
    } else {
        Format::Json
    }
}
