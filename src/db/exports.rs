//! The bulk export's reads: one kind's records in id order, a chunk at a time (keyset on id), with
//! the export's filters, each column cast to the type its format writes; and the same rows as
//! PostgreSQL's own `COPY` would send them (the benchmark's ceiling).
//!
//! A chunk is one short statement whose connection goes back to the pool before the rows are
//! encoded and sent: a download as slow as its client never holds a connection, a snapshot or a
//! statement open, and no statement outlives the session's `statement_timeout`.

use super::canonical::table_name;
use super::lean::LeanPool;
use crate::domain::CanonicalTable;
use crate::records::export::{Cell, ColumnType, ExportColumn, ExportRow, columns};
use crate::records::provenance::FieldSource;
use chrono::{DateTime, Utc};
use futures::TryStreamExt;
use geo_types::Geometry;
use geozero::wkb;
use sqlx::postgres::PgRow;
use sqlx::{Row, ValueRef};
use std::sync::LazyLock;
use uuid::Uuid;

/// Which records an export holds.
#[derive(Debug, Clone, Default)]
pub struct ExportFilter {
    /// Longitude/latitude, SRID 4326.
    pub area: Option<Geometry<f64>>,
    /// Any of these country codes.
    pub countries: Option<Vec<String>>,
    /// Records listing any of these categories.
    pub categories: Option<Vec<String>>,
    /// Changed at or after this instant (`updated_at_tstamp_utc`).
    pub updated_since: Option<DateTime<Utc>>,
    /// Only this status.
    pub status: Option<String>,
}

/// The select list: the geometry's coordinates and the evidence, then the kind's columns cast to
/// what `decode` reads.
fn select_list(cols: &[ExportColumn]) -> String {
    let mut list = String::from("id, location_lng, location_lat, field_evidence");
    for c in cols {
        list.push_str(", ");
        list.push_str(c.name);
        match c.ty {
            ColumnType::Number => list.push_str("::float8"),
            ColumnType::Json => list.push_str("::text"),
            ColumnType::Text | ColumnType::Id | ColumnType::Time | ColumnType::TextList => {}
        }
    }
    list
}

/// $1 the area, $2 the countries, $3 the categories, $4 changed since, $5 the status (each NULL
/// when not asked for), $6 the last id of the previous chunk or NULL, $7 the chunk's size. Run on
/// the pool whose sessions plan each call for its values, so the NULL tests fold away and a box
/// uses the `location::geometry` GiST index when it is small.
fn chunk_statement(table: CanonicalTable) -> String {
    format!(
        "SELECT {list} FROM {table}
         WHERE ($1::geometry IS NULL
                OR ST_Intersects(location::geometry, ST_MakeValid(ST_SetSRID($1::geometry, 4326))))
           AND ($2::text[] IS NULL OR country_code = ANY($2))
           AND ($3::text[] IS NULL OR categories && $3)
           AND ($4::timestamptz IS NULL OR updated_at_tstamp_utc >= $4)
           AND ($5::text IS NULL OR status = $5)
           AND ($6::uuid IS NULL OR id > $6)
         ORDER BY id
         LIMIT $7",
        list = select_list(columns(table)),
        table = table_name(table)
    )
}

/// Built once per kind: the statement's text is the prepared statement's key.
static STATEMENTS: LazyLock<[String; 3]> = LazyLock::new(|| {
    [
        chunk_statement(CanonicalTable::Entities),
        chunk_statement(CanonicalTable::Listings),
        chunk_statement(CanonicalTable::Requests),
    ]
});

fn statement(table: CanonicalTable) -> &'static str {
    let index = match table {
        CanonicalTable::Entities => 0,
        CanonicalTable::Listings => 1,
        CanonicalTable::Requests => 2,
    };
    &STATEMENTS[index]
}

/// Reads a record's stored evidence (JSON text) into its sources.
pub type ReadSources = fn(&[u8], &mut Vec<FieldSource>);

/// Up to `limit` records after `after` in id order, written into `rows`: the rows already there
/// are overwritten, their text cells' and sources' buffers reused, so a steady export allocates
/// next to nothing per row (each allocation freed by the encoder on another thread, a
/// million times over, cost more than the decoding). The rows are streamed off the connection
/// and decoded one by one; `read_sources` turns each row's evidence into its sources.
pub async fn chunk(
    pool: &LeanPool,
    table: CanonicalTable,
    filter: &ExportFilter,
    after: Option<Uuid>,
    limit: i64,
    rows: &mut Vec<ExportRow>,
    read_sources: ReadSources,
) -> sqlx::Result<()> {
    let cols = columns(table);
    let mut conn = pool.acquire().await?;
    let mut stream = sqlx::query(statement(table))
        .bind(filter.area.clone().map(wkb::Encode))
        .bind(filter.countries.as_deref())
        .bind(filter.categories.as_deref())
        .bind(filter.updated_since)
        .bind(filter.status.as_deref())
        .bind(after)
        .bind(limit)
        .fetch(&mut *conn);
    let mut filled = 0;
    while let Some(row) = stream.try_next().await? {
        if filled == rows.len() {
            rows.push(ExportRow::default());
        }
        decode_into(&row, cols, &mut rows[filled], read_sources)?;
        filled += 1;
    }
    rows.truncate(filled);
    Ok(())
}

/// Overwrites `target` with `row`. Typed reads skip sqlx's per-value type check: the select
/// list casts each column to the type read here, from the same column list.
fn decode_into(
    row: &PgRow,
    cols: &[ExportColumn],
    target: &mut ExportRow,
    read_sources: ReadSources,
) -> sqlx::Result<()> {
    const FIRST: usize = 4;
    target.id = row.try_get_unchecked(0)?;
    target.lng = row.try_get_unchecked(1)?;
    target.lat = row.try_get_unchecked(2)?;
    target.cells.resize_with(cols.len(), || Cell::Null);
    for ((i, c), cell) in cols.iter().enumerate().zip(target.cells.iter_mut()) {
        let at = FIRST + i;
        match c.ty {
            ColumnType::Text => set_text(cell, row.try_get_unchecked(at)?, false),
            ColumnType::Json => set_text(cell, row.try_get_unchecked(at)?, true),
            ColumnType::Id => set(cell, row.try_get_unchecked(at)?, Cell::Id),
            ColumnType::Number => set(cell, row.try_get_unchecked(at)?, Cell::Number),
            ColumnType::Time => set(cell, row.try_get_unchecked(at)?, Cell::Time),
            ColumnType::TextList => set(cell, row.try_get_unchecked(at)?, Cell::TextList),
        }
    }
    let evidence = row.try_get_raw(3)?;
    if evidence.is_null() {
        target.sources.clear();
    } else {
        let json = evidence.as_bytes().map_err(sqlx::Error::Decode)?;
        read_sources(jsonb_text(json), &mut target.sources);
    }
    Ok(())
}

fn set<T>(cell: &mut Cell, value: Option<T>, wrap: fn(T) -> Cell) {
    *cell = value.map_or(Cell::Null, wrap);
}

/// A text or JSON cell, written into the cell's own buffer when it already holds one.
fn set_text(cell: &mut Cell, value: Option<&str>, json: bool) {
    match (value, &mut *cell) {
        (Some(value), Cell::Text(buffer)) if !json => overwrite(buffer, value),
        (Some(value), Cell::Json(buffer)) if json => overwrite(buffer, value),
        (Some(value), _) if json => *cell = Cell::Json(value.to_owned()),
        (Some(value), _) => *cell = Cell::Text(value.to_owned()),
        (None, _) => *cell = Cell::Null,
    }
}

fn overwrite(buffer: &mut String, value: &str) {
    buffer.clear();
    buffer.push_str(value);
}

/// The JSON text of a `jsonb` value in PostgreSQL's binary format: a version byte (1), then the
/// text.
fn jsonb_text(bytes: &[u8]) -> &[u8] {
    match bytes.split_first() {
        Some((1, text)) => text,
        _ => bytes,
    }
}

/// `COPY (SELECT <the same columns> … ORDER BY id) TO STDOUT` of a whole kind: the bytes
/// PostgreSQL itself sends for the rows an unfiltered export writes. The benchmark's ceiling;
/// returns the bytes received and the rows (lines) counted.
pub async fn copy_out(
    conn: &mut sqlx::PgConnection,
    table: CanonicalTable,
) -> sqlx::Result<(u64, u64)> {
    let sql = format!(
        "COPY (SELECT {list} FROM {table} ORDER BY id) TO STDOUT",
        list = select_list(columns(table)),
        table = table_name(table)
    );
    let mut stream = conn.copy_out_raw(&sql).await?;
    let (mut bytes, mut rows) = (0u64, 0u64);
    while let Some(chunk) = stream.try_next().await? {
        bytes += chunk.len() as u64;
        rows += chunk.iter().filter(|b| **b == b'\n').count() as u64;
    }
    Ok((bytes, rows))
}
