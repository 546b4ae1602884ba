//! GET /api/v1/exports/{collection}.{format}: one URL per kind and format that an analyst pastes
//! into GDAL, DuckDB, geopandas or QGIS (docs/exports.md). The router cannot end a parameter with
//! a suffix, so the route is `/api/v1/exports/{file}` and the suffix is split here; the OpenAPI
//! document names the real path.

use crate::domain::CanonicalTable;
use crate::error::AppError;
use crate::http::{ErrorBody, ValidQuery, ValidationErrorBody};
use crate::services::exports::{self, ExportQuery, Format};
use crate::state::AppState;
use axum::body::Body;
use axum::extract::rejection::RawPathParamsRejection;
use axum::extract::{RawPathParams, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use utoipa::OpenApi;

/// The records to export.
#[derive(Debug, Clone, Copy, utoipa::ToSchema)]
#[schema(rename_all = "lowercase")]
pub enum ExportCollection {
    Entities,
    Listings,
    Requests,
}

impl ExportCollection {
    fn parse(name: &str) -> Option<Self> {
        match name {
            "entities" => Some(ExportCollection::Entities),
            "listings" => Some(ExportCollection::Listings),
            "requests" => Some(ExportCollection::Requests),
            _ => None,
        }
    }

    fn table(self) -> CanonicalTable {
        match self {
            ExportCollection::Entities => CanonicalTable::Entities,
            ExportCollection::Listings => CanonicalTable::Listings,
            ExportCollection::Requests => CanonicalTable::Requests,
        }
    }
}

/// The file format, by its extension.
#[derive(Debug, Clone, Copy, utoipa::ToSchema)]
#[schema(rename_all = "lowercase")]
pub enum ExportFormat {
    Parquet,
    Fgb,
    Geojsons,
    Geojsonl,
    Csv,
}

impl ExportFormat {
    fn parse(extension: &str) -> Option<Self> {
        match extension {
            "parquet" => Some(ExportFormat::Parquet),
            "fgb" => Some(ExportFormat::Fgb),
            "geojsons" => Some(ExportFormat::Geojsons),
            "geojsonl" => Some(ExportFormat::Geojsonl),
            "csv" => Some(ExportFormat::Csv),
            _ => None,
        }
    }

    fn format(self) -> Format {
        match self {
            ExportFormat::Parquet => Format::Parquet,
            ExportFormat::Fgb => Format::FlatGeobuf,
            ExportFormat::Geojsons => Format::GeoJsonSeq,
            ExportFormat::Geojsonl => Format::GeoJsonLines,
            ExportFormat::Csv => Format::Csv,
        }
    }
}

/// Filters of an export; all optional, all combined.
#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct ExportParams {
    /// Only records inside this box: `west,south,east,north` in degrees (west greater than east
    /// crosses the antimeridian).
    #[param(example = "-2.30,53.45,-2.20,53.50")]
    pub bbox: Option<String>,
    /// Only records in these countries: comma-separated ISO 3166-1 alpha-2 codes (at most 50).
    #[param(example = "GB,IE")]
    pub country: Option<String>,
    /// Only records listing any of these categories: comma-separated, exact (at most 50).
    #[param(example = "plumber")]
    pub category: Option<String>,
    /// Only records changed at or after this instant (RFC 3339): what a mirror asks for to pull
    /// the changes since its last pull (merges and withdrawals included).
    #[param(example = "2026-11-01T00:00:00Z")]
    pub updated_since: Option<String>,
    /// Only records with this status (active, review_required, fulfilled, archived, withdrawn,
    /// merged). Default: every status.
    pub status: Option<String>,
}

/// Export canonical records
///
/// Every record of one kind, streamed in one of five formats, in id order (ids are UUIDv7, so
/// creation order): GeoParquet 1.1 (`parquet`), FlatGeobuf (`fgb`, without a spatial index),
/// GeoJSON text sequence (`geojsons`, RFC 8142), newline-delimited GeoJSON (`geojsonl`) and CSV
/// (`csv`, a `wkt` point column). Each row carries the record's fields (scores, confidences and
/// amounts as numbers) and its per-field `sources`. Every status is included, as in the REST
/// lists: merged records carry `merged_into_id`. A body that ends early was cut by a failure:
/// ask again. docs/exports.md lists the columns and the limits.
#[utoipa::path(get, path = "/api/v1/exports/{collection}.{format}", tag = "exports",
    operation_id = "export_records",
    params(("collection" = ExportCollection, Path, description = "entities, listings or requests"),
           ("format" = ExportFormat, Path, description = "parquet, fgb, geojsons, geojsonl or csv"),
           ExportParams),
    responses((status = 200, description = "The file, streamed in id order",
               content(("application/vnd.apache.parquet"), ("application/flatgeobuf"),
                       ("application/geo+json-seq"), ("application/x-ndjson"), ("text/csv")),
               headers(("Content-Disposition" = String, description = "attachment; the file's name"))),
              (status = 404, description = "No such collection or format", body = ErrorBody),
              (status = 422, body = ValidationErrorBody)))]
pub async fn export(
    State(state): State<AppState>,
    path: Result<RawPathParams, RawPathParamsRejection>,
    ValidQuery(params): ValidQuery<ExportParams>,
) -> Result<Response, AppError> {
    let path = path.map_err(|_| AppError::invalid(&["path"], "invalid path", "value_error"))?;
    let file = path
        .iter()
        .find(|(name, _)| *name == "file")
        .map_or("", |(_, value)| value);
    let (table, format) = file_of(file).ok_or(AppError::NotFound("export"))?;
    let query = ExportQuery {
        bbox: params.bbox.as_deref(),
        country: params.country.as_deref(),
        category: params.category.as_deref(),
        updated_since: params.updated_since.as_deref(),
        status: params.status.as_deref(),
    };
    let export = exports::export(&state, table, format, &query).await?;
    let disposition = format!("attachment; filename=\"{}\"", export.file_name);
    Ok((
        [
            (header::CONTENT_TYPE, format.media_type().to_owned()),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        Body::from_stream(export.body),
    )
        .into_response())
}

/// `entities.parquet` → the kind and the format.
fn file_of(file: &str) -> Option<(CanonicalTable, Format)> {
    let (collection, extension) = file.rsplit_once('.')?;
    Some((
        ExportCollection::parse(collection)?.table(),
        ExportFormat::parse(extension)?.format(),
    ))
}

#[derive(OpenApi)]
#[openapi(paths(export), components(schemas(ExportCollection, ExportFormat)))]
struct ExportsDoc;

/// The route under its router path, and its OpenAPI description under the real one.
pub fn routes() -> utoipa_axum::router::OpenApiRouter<AppState> {
    utoipa_axum::router::OpenApiRouter::with_openapi(ExportsDoc::openapi())
        .route("/api/v1/exports/{file}", axum::routing::get(export))
}
