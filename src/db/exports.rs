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
use chrono::{DateTime, Utc};
use futures::TryStreamExt;
use geo_types::Geometry;
use geozero::wkb;
use serde_json::Value;
use sqlx::Row;
use sqlx::postgres::PgRow;
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

/// A row and its stored per-field evidence (turned into sources by the service).
pub type RawRow = (ExportRow, Value);

/// Up to `limit` records after `after` in id order. The rows are streamed off the connection and
/// decoded one by one; the chunk's size bounds what is held.
pub async fn chunk(
    pool: &LeanPool,
    table: CanonicalTable,
    filter: &ExportFilter,
    after: Option<Uuid>,
    limit: i64,
) -> sqlx::Result<Vec<RawRow>> {
    let cols = columns(table);
    let mut conn = pool.acquire().await?;
    let mut rows = Vec::with_capacity(usize::try_from(limit).unwrap_or(0));
    let mut stream = sqlx::query(statement(table))
        .bind(filter.area.clone().map(wkb::Encode))
        .bind(filter.countries.as_deref())
        .bind(filter.categories.as_deref())
        .bind(filter.updated_since)
        .bind(filter.status.as_deref())
        .bind(after)
        .bind(limit)
        .fetch(&mut *conn);
    while let Some(row) = stream.try_next().await? {
        rows.push(decode(&row, cols)?);
    }
    Ok(rows)
}

fn decode(row: &PgRow, cols: &[ExportColumn]) -> sqlx::Result<RawRow> {
    const FIRST: usize = 4;
    let mut cells = Vec::with_capacity(cols.len());
    for (i, c) in cols.iter().enumerate() {
        let at = FIRST + i;
        let cell = match c.ty {
            ColumnType::Text => row.try_get::<Option<String>, _>(at)?.map(Cell::Text),
            ColumnType::Json => row.try_get::<Option<String>, _>(at)?.map(Cell::Json),
            ColumnType::Id => row.try_get::<Option<Uuid>, _>(at)?.map(Cell::Id),
            ColumnType::Number => row.try_get::<Option<f64>, _>(at)?.map(Cell::Number),
            ColumnType::Time => row.try_get::<Option<DateTime<Utc>>, _>(at)?.map(Cell::Time),
            ColumnType::TextList => row
                .try_get::<Option<Vec<String>>, _>(at)?
                .map(Cell::TextList),
        };
        cells.push(cell.unwrap_or(Cell::Null));
    }
    Ok((
        ExportRow {
            id: row.try_get(0)?,
            lng: row.try_get(1)?,
            lat: row.try_get(2)?,
            cells,
            sources: Vec::new(),
        },
        row.try_get(3)?,
    ))
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
