//! GET /tiles/{z}/{x}/{y}.mvt (Mapbox Vector Tiles of the canonical records),
//! GET /tiles/{tileset}.json (their TileJSON) and GET /tiles/metadata.json (their MBTiles
//! metadata, for GDAL). The router's paths cannot end a parameter with a
//! suffix, so the routes are `/tiles/{z}/{x}/{y}` and `/tiles/{file}` and the suffixes are
//! checked here; the OpenAPI document names the real paths (`tiles_openapi`).

use crate::error::AppError;
use crate::http::Json;
use crate::http::ValidQuery;
use crate::http::ValidationErrorBody;
use crate::records::tiles::{TileJson, TilesetMetadata};
use crate::services::tiles::{self, TileAddress, TileFilters};
use crate::state::AppState;
use axum::extract::rejection::RawPathParamsRejection;
use axum::extract::{RawPathParams, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use utoipa::OpenApi;

pub const MVT_MEDIA_TYPE: &str = "application/vnd.mapbox-vector-tile";

/// Filters of a tile or a tileset.
#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct TileParams {
    /// Comma-separated kinds to draw, one MVT layer each: `entity`, `listing`, `request`
    /// (default all three).
    pub kind: Option<String>,
    /// Only records with this status: active, review_required, fulfilled, archived or withdrawn.
    /// Default: all but archived and withdrawn. Merged records are never drawn (`merged` is a 422).
    pub status: Option<String>,
    /// Only records listing this category (exact, 1 to 100 characters), e.g. `plumber`.
    pub category: Option<String>,
    /// Only records this agent's entries contributed to (an agent id).
    pub agent: Option<String>,
}

impl TileParams {
    fn filters(&self) -> TileFilters<'_> {
        TileFilters {
            kind: self.kind.as_deref(),
            status: self.status.as_deref(),
            category: self.category.as_deref(),
            agent: self.agent.as_deref(),
        }
    }
}

/// Get a map tile of the canonical records
///
/// One Mapbox Vector Tile (MVT 2.1, extent 4096) with a layer per kind (`entities`, `listings`,
/// `requests`). Each record is a point with `id`, `kind`, `name`, `category` and `confidence`;
/// a layer with more than 400 records in the tile is clustered on a 16x16 grid (cluster points
/// carry `kind` and `count`), so a layer never holds more than 400 features. An empty tile is an
/// empty body. `ETag` and `Cache-Control: public, max-age=60`; `If-None-Match` answers 304.
/// Coordinates out of the pyramid (z 0 to 22, x and y 0 to 2^z - 1) are a 422.
#[utoipa::path(get, path = "/tiles/{z}/{x}/{y}.mvt", tag = "tiles", operation_id = "get_tile",
    params(("z" = i32, Path, minimum = 0, maximum = 22, description = "Zoom, 0 to 22"),
           ("x" = i64, Path, minimum = 0, description = "Column, 0 to 2^z - 1"),
           ("y" = i64, Path, minimum = 0, description = "Row from the north, 0 to 2^z - 1"),
           TileParams,
           ("If-None-Match" = Option<String>, Header, description = "An ETag of this tile seen before")),
    responses((status = 200, description = "The tile (possibly empty)", content_type = "application/vnd.mapbox-vector-tile",
               headers(("ETag" = String), ("Cache-Control" = String))),
              (status = 304, description = "Unchanged since the ETag in If-None-Match"),
              (status = 404, description = "The last segment does not end in `.mvt`", body = super::ErrorBody),
              (status = 422, body = ValidationErrorBody)))]
pub async fn tile(
    State(state): State<AppState>,
    path: Result<RawPathParams, RawPathParamsRejection>,
    ValidQuery(params): ValidQuery<TileParams>,
    headers: HeaderMap,
) -> Result<Response, AppError> {
    let path = path.map_err(|_| invalid_path())?;
    let [z, x, y] = ["z", "x", "y"].map(|name| segment(&path, name));
    let Some(y) = y.strip_suffix(".mvt") else {
        return Err(AppError::NotFound("route"));
    };
    let address = TileAddress { z, x, y };
    let tile = tiles::tile(&state, &address, &params.filters()).await?;
    let cache = format!("public, max-age={}", tiles::MAX_AGE_SECS);
    let seen = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|tags| {
            tags.split(',')
                .any(|t| t.trim() == tile.etag || t.trim() == "*")
        });
    let headers = [(header::ETAG, tile.etag), (header::CACHE_CONTROL, cache)];
    if seen {
        return Ok((StatusCode::NOT_MODIFIED, headers).into_response());
    }
    Ok((
        headers,
        [(header::CONTENT_TYPE, MVT_MEDIA_TYPE)],
        tile.bytes,
    )
        .into_response())
}

/// Describe a tileset (TileJSON 3.0.0)
///
/// `records` (every kind, one layer each) or `entities`, `listings`, `requests` (one layer).
/// The filters given here are carried into the tile URL, so a map client pointed at
/// `/tiles/records.json?category=plumber` draws plumbers only. `bounds` and `center` say where
/// the records of the tileset's kinds are (filters aside), from the database's statistics; the
/// whole world when there is none. 404 for another tileset.
#[utoipa::path(get, path = "/tiles/{tileset}.json", tag = "tiles", operation_id = "get_tilejson",
    params(("tileset" = String, Path, description = "records, entities, listings or requests",
            pattern = "^(records|entities|listings|requests)$"), TileParams),
    responses((status = 200, description = "The TileJSON 3.0.0 description of the tileset", body = TileJson, headers(("Cache-Control" = String))),
              (status = 404, body = super::ErrorBody),
              (status = 422, body = ValidationErrorBody)))]
pub async fn tilejson(
    State(state): State<AppState>,
    path: Result<RawPathParams, RawPathParamsRejection>,
    ValidQuery(params): ValidQuery<TileParams>,
    headers: HeaderMap,
) -> Result<Response, AppError> {
    let path = path.map_err(|_| invalid_path())?;
    let Some(tileset) = segment(&path, "file").strip_suffix(".json") else {
        return Err(AppError::NotFound("route"));
    };
    let base = crate::http::base_url(&headers);
    let body = tiles::tilejson(&state, tileset, &base, &params.filters()).await?;
    Ok(([(header::CACHE_CONTROL, "public, max-age=300")], Json(body)).into_response())
}

/// Describe the tiles for GDAL (MBTiles metadata)
///
/// The tileset of every kind as tippecanoe describes a directory of tiles (`metadata.json` at its
/// root): text values, the layers and their fields' types in `json`. GDAL's MVT driver reads it
/// beside the zoom levels, so `ogrinfo -oo TILE_EXTENSION=mvt MVT:{base}/tiles/14` lists the
/// three layers and reads their points at zoom 14 within `bounds`.
#[utoipa::path(get, path = "/tiles/metadata.json", tag = "tiles", operation_id = "get_tileset_metadata",
    responses((status = 200, description = "The MBTiles metadata of the tiles (every kind)", body = TilesetMetadata, headers(("Cache-Control" = String)))))]
pub async fn metadata(State(state): State<AppState>) -> Result<Response, AppError> {
    let body = tiles::metadata(&state).await?;
    Ok(([(header::CACHE_CONTROL, "public, max-age=300")], Json(body)).into_response())
}

/// A path that is not valid UTF-8 once decoded.
fn invalid_path() -> AppError {
    AppError::invalid(&["path"], "invalid path", "value_error")
}

fn segment<'a>(path: &'a RawPathParams, name: &str) -> &'a str {
    path.iter()
        .find(|(n, _)| *n == name)
        .map_or("", |(_, value)| value)
}

#[derive(OpenApi)]
#[openapi(
    paths(tile, tilejson, metadata),
    components(schemas(TileJson, TilesetMetadata))
)]
struct TilesDoc;

/// The routes under their router paths (`metadata.json`, a fixed name, wins over `{file}`), and
/// their OpenAPI description under the real ones.
pub fn routes() -> utoipa_axum::router::OpenApiRouter<AppState> {
    utoipa_axum::router::OpenApiRouter::with_openapi(TilesDoc::openapi())
        .route("/tiles/{z}/{x}/{y}", axum::routing::get(tile))
        .route("/tiles/metadata.json", axum::routing::get(metadata))
        .route("/tiles/{file}", axum::routing::get(tilejson))
}
