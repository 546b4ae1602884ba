//! `GET /conformance`: the OGC API Features classes this server implements.

use super::error::OgcError;
use super::format::{Format, MetadataFormat, choose};
use super::{html, params, respond_html, respond_json};
use crate::http::ErrorBody;
use axum::extract::RawQuery;
use axum::http::HeaderMap;
use axum::response::Response;
use serde::Serialize;

/// Part 1 Core with GeoJSON and HTML encodings and the OpenAPI description. Not claimed: CRS
/// (Part 2; everything is CRS84), filtering (Part 3).
pub const CLASSES: [&str; 4] = [
    "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core",
    "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/geojson",
    "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/html",
    "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/oas30",
];

/// The conformance declaration.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct OgcConformance {
    #[serde(rename = "conformsTo")]
    pub conforms_to: Vec<&'static str>,
}

#[derive(Debug, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[expect(
    dead_code,
    reason = "documents the query parameters in OpenAPI; the handler reads them as text"
)]
pub struct MetadataParams {
    /// `json` or `html`; overrides the `Accept` header.
    #[param(inline)]
    f: Option<MetadataFormat>,
}

/// The OGC API Features conformance classes this server implements
///
/// Core, GeoJSON, HTML and OpenAPI 3.0 of OGC API – Features – Part 1. JSON by default, HTML for a
/// browser (`Accept: text/html` or `f=html`).
#[utoipa::path(get, path = "/conformance", tag = "ogc-features", operation_id = "get_conformance",
    params(MetadataParams),
    responses((status = 200, description = "The conformance classes",
               content((OgcConformance = "application/json"), (String = "text/html"))),
              (status = 400, description = "An unknown parameter or `f` value", body = ErrorBody)))]
pub async fn conformance(
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Result<Response, OgcError> {
    let query = params::read(query.as_deref(), &["f"])?;
    Ok(
        match choose(query.get("f").map(String::as_str), &headers, false)? {
            Format::Json => respond_json(
                &OgcConformance {
                    conforms_to: CLASSES.to_vec(),
                },
                "application/json",
            ),
            Format::Html => respond_html(html::conformance(&CLASSES)),
        },
    )
}
