//! Map tiles of the canonical records (Mapbox Vector Tiles built by PostGIS) and their TileJSON
//! descriptions: `GET /tiles/{z}/{x}/{y}.mvt` and `GET /tiles/{tileset}.json`. See
//! docs/explorer.md for the layers, the size bound and the cache policy.

use crate::db;
use crate::db::tiles::{CATEGORY_CHARS, GRID, NAME_CHARS, SPARSE_LIMIT, TileQuery};
use crate::domain::{CanonicalTable, Violations};
use crate::error::{AppError, AppResult};
use crate::records::tiles::{TileJson, TilesetMetadata, VectorLayer};
use crate::state::AppState;
use sha2::{Digest, Sha256};
use uuid::Uuid;

/// Tiles are answered for zoom 0 to this (clients rarely ask past 22).
pub const MAX_ZOOM: i32 = 22;
/// The zoom TileJSON announces as the deepest: past it a client scales tiles of this zoom (a
/// tile there is about 150 m wide, its cluster cells about 10 m).
pub const TILEJSON_MAX_ZOOM: u8 = 18;
/// How long a client or proxy may reuse a tile without asking again (then it revalidates with
/// the ETag). A record changed meanwhile shows up on the map at most this late.
pub const MAX_AGE_SECS: u32 = 60;
/// The statuses a record can have on the map (`merged` records are redirects, never drawn).
const STATUSES: [&str; 5] = [
    "active",
    "review_required",
    "fulfilled",
    "archived",
    "withdrawn",
];
/// Bumped when the layers or their properties change, so cached tiles of another shape are not
/// taken for current ones (it is part of every ETag).
const TILE_FORMAT: &str = "1";

/// The path of a tile as the client wrote it (`y` without `.mvt`).
pub struct TileAddress<'a> {
    pub z: &'a str,
    pub x: &'a str,
    pub y: &'a str,
}

/// The query parameters a tile and a TileJSON accept, as sent.
#[derive(Debug, Default, Clone)]
pub struct TileFilters<'a> {
    /// Comma-separated `entity`, `listing`, `request`.
    pub kind: Option<&'a str>,
    pub status: Option<&'a str>,
    pub category: Option<&'a str>,
    /// An agent id.
    pub agent: Option<&'a str>,
}

/// Filters after validation.
struct Checked<'a> {
    tables: Vec<CanonicalTable>,
    status: Option<&'a str>,
    category: Option<&'a str>,
    agent: Option<Uuid>,
}

/// A built tile: its bytes (empty when nothing is there) and its entity tag.
pub struct Tile {
    pub bytes: Vec<u8>,
    pub etag: String,
}

fn table_of_kind(kind: &str) -> Option<CanonicalTable> {
    CanonicalTable::ALL
        .iter()
        .copied()
        .find(|t| db::tiles::kind_name(*t) == kind)
}

fn check_filters<'a>(filters: &TileFilters<'a>, v: &mut Violations) -> Checked<'a> {
    let mut tables = CanonicalTable::ALL.to_vec();
    if let Some(kinds) = filters.kind {
        let asked: Vec<Option<CanonicalTable>> =
            kinds.split(',').map(str::trim).map(table_of_kind).collect();
        if asked.is_empty() || asked.iter().any(Option::is_none) {
            v.push(
                "kind",
                "a comma-separated list of entity, listing and request",
                "enum",
            );
        } else {
            tables.retain(|t| asked.contains(&Some(*t)));
        }
    }
    match filters.status {
        Some("merged") => v.push(
            "status",
            "merged records are redirects to the record they were merged into and are never drawn",
            "value_error",
        ),
        Some(s) if !STATUSES.contains(&s) => v.push(
            "status",
            format!("must be one of: {}", STATUSES.join(", ")),
            "enum",
        ),
        _ => {}
    }
    if let Some(category) = filters.category {
        v.check_len(Some(category), "category", 1, 100);
    }
    let agent = filters.agent.and_then(|a| match Uuid::parse_str(a) {
        Ok(id) => Some(id),
        Err(_) => {
            v.push(
                "agent",
                format!("'{a}' is not a valid UUID"),
                "uuid_parsing",
            );
            None
        }
    });
    Checked {
        tables,
        status: filters.status,
        category: filters.category,
        agent,
    }
}

/// z, x and y as integers within the pyramid: z 0 to `MAX_ZOOM`, x and y 0 to 2^z - 1.
fn check_address(address: &TileAddress<'_>, v: &mut Violations) -> Option<(i32, i32, i32)> {
    let mut number = |name: &str, text: &str, max: i64| -> Option<i32> {
        match text.parse::<i64>() {
            Ok(n) if (0..=max).contains(&n) => Some(n as i32),
            Ok(_) => {
                v.push(name, format!("must be between 0 and {max}"), "value_error");
                None
            }
            Err(_) => {
                v.push(name, format!("'{text}' is not an integer"), "int_parsing");
                None
            }
        }
    };
    let z = number("z", address.z, MAX_ZOOM.into())?;
    let last = (1_i64 << z) - 1;
    let x = number("x", address.x, last);
    let y = number("y", address.y, last);
    Some((z, x?, y?))
}

/// One tile of the canonical records that pass `filters`.
#[tracing::instrument(name = "tiles::tile", level = "debug", skip_all)]
pub async fn tile(
    state: &AppState,
    address: &TileAddress<'_>,
    filters: &TileFilters<'_>,
) -> AppResult<Tile> {
    let mut path = Violations::at(&["path"]);
    let coordinates = check_address(address, &mut path);
    let mut query = Violations::at(&["query"]);
    let checked = check_filters(filters, &mut query);
    let mut problems = Vec::new();
    for violations in [path, query] {
        if let Err(AppError::Validation(items)) = violations.into_result() {
            problems.extend(items);
        }
    }
    if !problems.is_empty() {
        return Err(AppError::Validation(problems));
    }
    let (z, x, y) = coordinates.expect("coordinates without violations");
    let (bytes, counts_due) = db::tiles::tile(
        crate::services::read_route::search_reads(state),
        &TileQuery {
            z,
            x,
            y,
            tables: &checked.tables,
            status: checked.status,
            category: checked.category,
            agent: checked.agent,
        },
        state.config.tile_counts_max_age_secs,
    )
    .await?;
    if counts_due {
        crate::services::tile_counts::refresh_for_a_tile(state);
    }
    let digest = Sha256::new()
        .chain_update(TILE_FORMAT)
        .chain_update(&bytes)
        .finalize();
    let etag = format!("\"{}\"", hex(&digest[..12]));
    Ok(Tile { bytes, etag })
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The tilesets TileJSON describes: `records` holds every kind, the others one kind each.
pub const TILESETS: [&str; 4] = ["records", "entities", "listings", "requests"];

fn layer(table: CanonicalTable) -> VectorLayer {
    let kind = db::tiles::kind_name(table);
    let fields = [
        (
            "id",
            format!("String: the {kind}'s id (absent on a cluster)"),
        ),
        ("kind", format!("String: `{kind}`")),
        (
            "name",
            format!("String: name or title, cut to {NAME_CHARS} characters (absent on a cluster)"),
        ),
        (
            "category",
            format!(
                "String: first category, cut to {CATEGORY_CHARS} characters (absent when none and on a cluster)"
            ),
        ),
        (
            "confidence",
            "Number: score_confidence, 0 to 1, two decimals (absent on a cluster)".to_string(),
        ),
        (
            "count",
            format!(
                "Number: on a cluster only, how many records it stands for (a layer with more than {SPARSE_LIMIT} records in a tile is grouped on a {GRID}x{GRID} grid)"
            ),
        ),
    ];
    VectorLayer {
        id: db::tiles::layer_name(table).to_string(),
        description: format!("Canonical {kind} records, one point each, or clusters where dense"),
        minzoom: 0,
        maxzoom: TILEJSON_MAX_ZOOM,
        fields: fields
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
    }
}

/// The tables of `tileset` (one of `TILESETS`) under the validated filters.
fn tileset_tables(tileset: &str, checked: &Checked<'_>) -> AppResult<Vec<CanonicalTable>> {
    let tables: Vec<CanonicalTable> = match tileset {
        "records" => checked.tables.clone(),
        one => checked
            .tables
            .iter()
            .copied()
            .filter(|t| db::tiles::layer_name(*t) == one)
            .collect(),
    };
    if tables.is_empty() {
        return Err(AppError::invalid(
            &["query", "kind"],
            format!("the {tileset} tileset holds none of these kinds"),
            "value_error",
        ));
    }
    Ok(tables)
}

/// The tile URL template under `base_url` with the validated filters.
fn tile_url(base_url: &str, tables: &[CanonicalTable], checked: &Checked<'_>) -> String {
    let mut params = url::form_urlencoded::Serializer::new(String::new());
    if tables.len() < CanonicalTable::ALL.len() {
        let kinds: Vec<&str> = tables.iter().map(|t| db::tiles::kind_name(*t)).collect();
        params.append_pair("kind", &kinds.join(","));
    }
    for (name, value) in [("status", checked.status), ("category", checked.category)] {
        if let Some(value) = value {
            params.append_pair(name, value);
        }
    }
    if let Some(agent) = checked.agent {
        params.append_pair("agent", &agent.to_string());
    }
    let params = params.finish();
    let mut url = format!("{base_url}/tiles/{{z}}/{{x}}/{{y}}.mvt");
    if !params.is_empty() {
        url.push('?');
        url.push_str(&params);
    }
    url
}

/// The TileJSON of `tileset` (404 for another name), its tile URL under `base_url` (the scheme
/// and host the client used, or empty for a path-only URL) carrying the validated filters, its
/// `bounds` and `center` where the records of its kinds are (`area`).
pub async fn tilejson(
    state: &AppState,
    tileset: &str,
    base_url: &str,
    filters: &TileFilters<'_>,
) -> AppResult<TileJson> {
    if !TILESETS.contains(&tileset) {
        return Err(AppError::NotFound("tileset"));
    }
    let mut query = Violations::at(&["query"]);
    let checked = check_filters(filters, &mut query);
    query.into_result()?;
    let tables = tileset_tables(tileset, &checked)?;
    let area = super::tile_extent::area(state, &tables).await?;
    Ok(TileJson {
        tilejson: "3.0.0".into(),
        name: tileset.to_string(),
        description: DESCRIPTION.into(),
        version: format!("{TILE_FORMAT}.0.0"),
        scheme: "xyz".into(),
        tiles: vec![tile_url(base_url, &tables, &checked)],
        minzoom: 0,
        maxzoom: TILEJSON_MAX_ZOOM,
        bounds: area.bounds.to_vec(),
        center: area.center.to_vec(),
        vector_layers: tables.into_iter().map(layer).collect(),
    })
}

const DESCRIPTION: &str = "Canonical records of the Space-Time Records Service; merged records never, archived and withdrawn ones only when asked for by status";

/// The tileset of every kind as a directory of tiles for GDAL's MVT driver
/// (`MVT:{base}/tiles/{z}` with `-oo TILE_EXTENSION=mvt`), which reads `metadata.json` beside
/// the zoom levels: the MBTiles metadata tippecanoe writes, text values and the layers with their
/// fields' types in `json`.
pub async fn metadata(state: &AppState) -> AppResult<TilesetMetadata> {
    let tables = CanonicalTable::ALL.to_vec();
    let area = super::tile_extent::area(state, &tables).await?;
    let join = |values: &[f64]| -> String {
        values
            .iter()
            .map(|v| format!("{v}"))
            .collect::<Vec<_>>()
            .join(",")
    };
    let layers: Vec<serde_json::Value> = tables
        .iter()
        .map(|t| {
            serde_json::json!({
                "id": db::tiles::layer_name(*t),
                "description": format!("Canonical {} records, one point each, or clusters where dense", db::tiles::kind_name(*t)),
                "minzoom": 0,
                "maxzoom": TILEJSON_MAX_ZOOM,
                "fields": {"id": "String", "kind": "String", "name": "String", "category": "String",
                           "confidence": "Number", "count": "Number"},
            })
        })
        .collect();
    let stats: Vec<serde_json::Value> = tables
        .iter()
        .map(|t| serde_json::json!({"layer": db::tiles::layer_name(*t), "geometry": "Point"}))
        .collect();
    let json = serde_json::json!({
        "vector_layers": layers,
        "tilestats": {"layerCount": stats.len(), "layers": stats},
    });
    Ok(TilesetMetadata {
        name: "records".into(),
        description: DESCRIPTION.into(),
        version: TILE_FORMAT.into(),
        minzoom: "0".into(),
        maxzoom: TILEJSON_MAX_ZOOM.to_string(),
        bounds: join(&area.bounds),
        center: join(&area.center),
        kind: "overlay".into(),
        format: "pbf".into(),
        json: json.to_string(),
    })
}
