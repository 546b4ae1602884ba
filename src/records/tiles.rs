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
    /// West, south, east, north in degrees: where Web Mercator tiles exist.
    pub bounds: Vec<f64>,
    /// Longitude, latitude, zoom a client may start at.
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
