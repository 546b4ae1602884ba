//! Map tiles of the canonical records: one Mapbox Vector Tile (MVT) per `z/x/y`, built by PostGIS
//! in one statement (`ST_TileEnvelope`, `ST_AsMVTGeom`, `ST_AsMVT`), one MVT layer per kind.
//!
//! Records are found through the `location::geometry` GiST index (migration 0011) with `&&` on
//! the tile's envelope in longitude/latitude. A layer whose records in the tile are few
//! (`SPARSE_LIMIT` or fewer) carries every record as a point; a denser one is grouped on a
//! `GRID` × `GRID` grid of the tile in Web Mercator: a cell holding several records becomes one
//! cluster point (their mean position, `count`, mean `confidence`), a cell holding one record is
//! that record. So a layer never carries more than `SPARSE_LIMIT` features, whatever is in view,
//! and names and categories are cut to a bounded length: the size bound of docs/explorer.md.
//!
//! A dense layer of zoom `tile_density::MAX_ZOOM` or less, with no filter, is grouped from the
//! counts per cell of `canonical.tile_density` once they have been built (each cell's records
//! in the grid cell of their mean position): what it reads no longer grows with the records in
//! view. The sparse test, the sparse layer and single-record cells still read the records.

use super::tile_density;
use crate::domain::CanonicalTable;
use uuid::Uuid;

/// Tile coordinate space of every layer (the MVT default).
pub const EXTENT: i32 = 4096;
/// At most this many records of a kind in a tile are sent one by one; more are clustered.
pub const SPARSE_LIMIT: i64 = 400;
/// Cells per tile side when a layer is clustered (16 px cells on a 256 px tile): at most
/// `GRID * GRID` = 256 features, fewer than `SPARSE_LIMIT`.
pub const GRID: i32 = 16;
/// Names are cut to this many characters in a tile (the record panel has the full name).
pub const NAME_CHARS: i32 = 48;
/// The first category only, cut to this many characters.
pub const CATEGORY_CHARS: i32 = 32;
/// Statuses a tile leaves out unless asked for by name; `merged` is never shown at all.
pub const HIDDEN_STATUSES: &str = "'archived', 'withdrawn', 'merged'";

/// What a tile shows. Values are bound, never spliced into the statement.
pub struct TileQuery<'a> {
    pub z: i32,
    pub x: i32,
    pub y: i32,
    /// The kinds to draw, one MVT layer each, in this order.
    pub tables: &'a [CanonicalTable],
    /// One status; None shows all but archived and withdrawn. Merged records never show.
    pub status: Option<&'a str>,
    /// Records listing this category.
    pub category: Option<&'a str>,
    /// Records this agent's entries contributed to.
    pub agent: Option<Uuid>,
}

/// The MVT layer name of a kind, also its TileJSON `vector_layers` id.
pub fn layer_name(table: CanonicalTable) -> &'static str {
    match table {
        CanonicalTable::Entities => "entities",
        CanonicalTable::Listings => "listings",
        CanonicalTable::Requests => "requests",
    }
}

/// The `kind` property of a kind's features (the search API's `canonical_type`).
pub fn kind_name(table: CanonicalTable) -> &'static str {
    match table {
        CanonicalTable::Entities => "entity",
        CanonicalTable::Listings => "listing",
        CanonicalTable::Requests => "request",
    }
}

fn name_column(table: CanonicalTable) -> &'static str {
    match table {
        CanonicalTable::Entities => "display_name",
        CanonicalTable::Listings | CanonicalTable::Requests => "title",
    }
}

/// The filters every row of a layer passes ($4 status, $5 category, $6 agent).
fn filters(table: CanonicalTable) -> String {
    format!(
        "r.status <> 'merged'
         AND CASE WHEN $4::text IS NULL THEN r.status NOT IN ({HIDDEN_STATUSES}) ELSE r.status = $4 END
         AND ($5::text IS NULL OR $5 = ANY(r.categories))
         AND ($6::uuid IS NULL OR r.id IN (
             SELECT c.target_canonical_id FROM space_time_entries s
             JOIN canonical_link_contributions c ON c.source_space_time_entry_id = s.id
             WHERE s.agent_id = $6 AND c.target_canonical_table = '{table}'))",
        table = table.as_str()
    )
}

/// The common table expressions of one layer, ending in `{layer}_features`.
///
/// Whether the layer is dense is counted up to `SPARSE_LIMIT + 1` rows. The grouping of a dense
/// layer reads the covering index on (longitude, latitude) INCLUDE (status) of migration 0016
/// index-only: PostGIS's GiST cannot answer an index-only scan, and reading 100k rows from the
/// heap was 2.5x slower. A cell's column is linear in longitude; its row is found among the
/// latitudes of the grid's Mercator lines (`width_bucket`), so no row is projected. Rows are
/// grouped on one integer (column * 64 + row) with plain sums, then clamped into the grid (a point
/// on the tile's east or north edge lands one past it): a quarter faster than two clamped keys
/// and averages. The sparse layer and the records of single-record cells are found through the
/// GiST index.
fn layer_ctes(table: CanonicalTable) -> String {
    let layer = layer_name(table);
    let kind = kind_name(table);
    let name = name_column(table);
    let relation = table.as_str();
    let filters = filters(table);
    let in_box =
        "r.location_lng BETWEEN g.west AND g.east AND r.location_lat BETWEEN g.south AND g.north";
    let cell_x =
        format!("least(greatest(floor((r.location_lng - g.west) / g.cell_deg), 0), {GRID} - 1)");
    let cell_y = format!(
        "least(greatest({GRID} - width_bucket(r.location_lat, g.lat_lines), 0), {GRID} - 1)"
    );
    let record_columns = format!(
        "ST_Transform(r.location::geometry, 3857) AS point, r.id::text AS id, '{kind}'::text AS kind,
         left(r.{name}, {NAME_CHARS}) AS name, left(r.categories[1], {CATEGORY_CHARS}) AS category,
         round(r.score_confidence, 2)::float8 AS confidence"
    );
    format!(
        "{layer}_count AS MATERIALIZED (
            SELECT count(*) AS n FROM (
                SELECT 1 FROM {relation} r, grid g WHERE {in_box} AND {filters} LIMIT {over}) x),
         {layer}_raw AS (
            SELECT floor((r.location_lng - g.west) / g.cell_deg)::int * 64
                       + width_bucket(r.location_lat, g.lat_lines) AS k,
                   count(*) AS n, sum(r.location_lng) AS lng, sum(r.location_lat) AS lat
            FROM {relation} r, grid g
            WHERE g.density_level IS NULL
              AND (SELECT n FROM {layer}_count) > {SPARSE_LIMIT} AND {in_box} AND {filters}
            GROUP BY 1
            UNION ALL
            SELECT floor((d.sum_lng / d.records - g.west) / g.cell_deg)::int * 64
                       + width_bucket(d.sum_lat / d.records, g.lat_lines),
                   sum(d.records), sum(d.sum_lng), sum(d.sum_lat)
            FROM canonical.tile_density d, grid g
            WHERE g.density_level IS NOT NULL
              AND (SELECT n FROM {layer}_count) > {SPARSE_LIMIT}
              AND d.canonical_table = '{relation}' AND d.level = g.density_level
              AND d.cell_y BETWEEN floor(g.south * 2 ^ g.density_level)::int
                               AND floor(g.north * 2 ^ g.density_level)::int
              AND d.cell_x BETWEEN floor(g.west * 2 ^ g.density_level)::int
                               AND floor(g.east * 2 ^ g.density_level)::int
              AND d.sum_lng / d.records BETWEEN g.west AND g.east
              AND d.sum_lat / d.records BETWEEN g.south AND g.north
            GROUP BY 1),
         {layer}_cells AS (
            SELECT least(k / 64, {GRID} - 1) AS cx, least(greatest({GRID} - k % 64, 0), {GRID} - 1) AS cy,
                   sum(n) AS n, sum(lng) / sum(n) AS lng, sum(lat) / sum(n) AS lat
            FROM {layer}_raw
            GROUP BY 1, 2),
         {layer}_features AS (
            SELECT ST_AsMVTGeom(s.point, g.env, {EXTENT}, 0, true) AS geom,
                   s.id, s.kind, s.name, s.category, s.confidence, NULL::int AS count
            FROM (SELECT {record_columns} FROM {relation} r, grid g
                  WHERE (SELECT n FROM {layer}_count) <= {SPARSE_LIMIT}
                    AND r.location::geometry && g.area AND {filters}) s, grid g
            UNION ALL
            SELECT ST_AsMVTGeom(ST_Transform(ST_SetSRID(ST_MakePoint(c.lng, c.lat), 4326), 3857),
                                g.env, {EXTENT}, 0, true),
                   NULL, '{kind}', NULL, NULL, NULL, c.n::int
            FROM {layer}_cells c, grid g
            WHERE c.n > 1
            UNION ALL
            SELECT ST_AsMVTGeom(one.point, g.env, {EXTENT}, 0, true),
                   one.id, one.kind, one.name, one.category, one.confidence, NULL
            FROM {layer}_cells c, grid g
            CROSS JOIN LATERAL (
                SELECT {record_columns}
                FROM {relation} r
                WHERE r.location::geometry && ST_MakeEnvelope(
                        g.west + (c.cx - 0.01) * g.cell_deg, g.lat_lines[{GRID} - c.cy] - 0.0001,
                        g.west + (c.cx + 1.01) * g.cell_deg, g.lat_lines[{GRID} + 1 - c.cy] + 0.0001, 4326)
                  AND {cell_x} = c.cx AND {cell_y} = c.cy AND {filters}
                LIMIT 1) one
            WHERE c.n = 1)",
        over = SPARSE_LIMIT + 1,
    )
}

/// The whole statement for `tables`: $1 z, $2 x, $3 y, $4 status, $5 category, $6 agent; its
/// second column says whether the counts per cell are due for a rebuild (older than
/// `density_max_age_secs`, or never built) for a tile that would read them.
pub fn statement(tables: &[CanonicalTable], density_max_age_secs: u32) -> String {
    // The grid: `cell_deg` degrees of longitude per column, and the latitudes of the Mercator
    // lines between rows, south to north (`GRID + 1` values), for `width_bucket`.
    let mut ctes = vec![format!(
        "tile AS MATERIALIZED (
            SELECT ST_TileEnvelope($1, $2, $3) AS env,
                   ST_Transform(ST_TileEnvelope($1, $2, $3), 4326) AS area),
         grid AS MATERIALIZED (
            SELECT env, area, ST_XMin(area) AS west, ST_XMax(area) AS east,
                   ST_YMin(area) AS south, ST_YMax(area) AS north,
                   (ST_XMax(area) - ST_XMin(area)) / {GRID} AS cell_deg,
                   ARRAY(SELECT degrees(2 * atan(exp((ST_YMin(env) + k * (ST_YMax(env) - ST_YMin(env)) / {GRID})
                                                     / 6378137)) - pi() / 2)
                         FROM generate_series(0, {GRID}) k ORDER BY k) AS lat_lines,
                   CASE WHEN {counted} AND {ready} THEN {level} END AS density_level
            FROM tile)",
        counted = counted(),
        ready = tile_density::READY,
        level = tile_density::level_for_zoom("$1"),
    )];
    let mut layers = Vec::new();
    for table in tables {
        ctes.push(layer_ctes(*table));
        let layer = layer_name(*table);
        layers.push(format!(
            "coalesce((SELECT ST_AsMVT(f, '{layer}', {EXTENT}, 'geom') FROM {layer}_features f
                       WHERE f.geom IS NOT NULL), ''::bytea)"
        ));
    }
    if layers.is_empty() {
        layers.push("''::bytea".into());
    }
    format!(
        "WITH {} SELECT {} AS tile, {} AND {} AS density_due",
        ctes.join(",\n"),
        layers.join(" || "),
        counted(),
        tile_density::due(&density_max_age_secs.to_string()),
    )
}

/// Whether the tile ($1 z, $4 status, $5 category, $6 agent) is one drawn from the counts per
/// cell: a low zoom without filters.
fn counted() -> String {
    format!(
        "($1 <= {} AND $4::text IS NULL AND $5::text IS NULL AND $6::uuid IS NULL)",
        tile_density::MAX_ZOOM
    )
}

/// A tile: its bytes (empty when nothing is in it), and whether the counts it would be drawn
/// from are due for a rebuild.
pub async fn tile<'c>(
    pool: impl super::Reads<'c>,
    q: &TileQuery<'_>,
    density_max_age_secs: u32,
) -> sqlx::Result<(Vec<u8>, bool)> {
    sqlx::query_as(&statement(q.tables, density_max_age_secs))
        .bind(q.z)
        .bind(q.x)
        .bind(q.y)
        .bind(q.status)
        .bind(q.category)
        .bind(q.agent)
        .fetch_one(pool)
        .await
}
