//! TileJSON 3.0.0 (<https://github.com/mapbox/tilejson-spec>): how a map client finds the vector
//! tiles of the canonical records, which layers they hold and which properties each feature has.

use serde::Serialize;
use std::collections::BTreeMap;
use utoipa::ToSchema;

/// A tileset's description, for MapLibre, OpenLayers, QGIS and other map clients.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TileJson {
    /// Always `3.0.0`.
    pub tilejson: String,
    /// The tileset: `records` (all kinds) or `entities`, `listings`, `requests`.
    pub name: String,
    pub description: String,
    /// The tile format version of this service (changes when the layers' shape does).
    pub version: String,
    /// Always `xyz` (y counted from the north, as in the tile URL).
    pub scheme: String,
    /// The tile URL template, with `{z}`, `{x}` and `{y}`, filters included.
    pub tiles: Vec<String>,
    pub minzoom: u8,
    /// Clients zoom in further by scaling tiles of this zoom.
    pub maxzoom: u8,
    /// West, south, east, north in degrees: where the records of the tileset's kinds are (from
    /// the database's statistics, filters aside; docs/explorer.md), or the whole Web Mercator
    /// world when there is none.
    pub bounds: Vec<f64>,
    /// Longitude, latitude and zoom a client may start at: the middle of `bounds`, at the zoom
    /// that shows all of it on a 512-pixel map (at most 14).
    pub center: Vec<f64>,
    /// The MVT layers of each tile and their feature properties.
    pub vector_layers: Vec<VectorLayer>,
}

/// One MVT layer: one kind of canonical record.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct VectorLayer {
    /// The layer's name inside a tile: `entities`, `listings` or `requests`.
    pub id: String,
    pub description: String,
    pub minzoom: u8,
    pub maxzoom: u8,
    /// Property name → what it holds.
    pub fields: BTreeMap<String, String>,
}

/// The tileset's MBTiles metadata as tippecanoe writes it beside a directory of tiles
/// (`metadata.json`): every value is text, `json` holds the layers. GDAL's MVT driver reads it to
/// open the tiles as a dataset (`MVT:{base}/tiles/{z}` with `-oo TILE_EXTENSION=mvt`).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TilesetMetadata {
    /// Always `records` (every kind).
    pub name: String,
    pub description: String,
    /// The tile format version of this service.
    pub version: String,
    /// `0`.
    pub minzoom: String,
    /// `18`: clients zoom in further by scaling tiles of this zoom.
    pub maxzoom: String,
    /// `west,south,east,north` in degrees, as TileJSON's `bounds`.
    pub bounds: String,
    /// `longitude,latitude,zoom`, as TileJSON's `center`.
    pub center: String,
    /// Always `overlay`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Always `pbf` (Mapbox Vector Tiles).
    pub format: String,
    /// A JSON document as text: `vector_layers` (each layer's `id` and `fields`, a field's
    /// value being its type, `String` or `Number`) and `tilestats` (each layer's geometry,
    /// `Point`).
    pub json: String,
}
