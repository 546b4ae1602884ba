//! The analysts' file formats of the bulk export, written incrementally: GeoParquet 1.1,
//! FlatGeobuf (without a spatial index), GeoJSON text sequences (RFC 8142, and newline-delimited)
//! and CSV. An encoder takes rows a chunk at a time and hands back the bytes written so far, so
//! the export holds one chunk and (for GeoParquet) one row group, whatever the number of rows.
//! Pure: no I/O besides the in-memory sink, no database, no transport.

mod csv_text;
mod fgb;
mod geojson_seq;
mod geoparquet;
mod sink;

use crate::domain::CanonicalTable;
use crate::records::export::ExportRow;

/// A format of the export, named by its file extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// GeoParquet 1.1: one row per record, WKB points, a `bbox` covering column.
    Parquet,
    /// FlatGeobuf, streamed: no spatial index, an unknown feature count in the header.
    FlatGeobuf,
    /// RFC 8142 GeoJSON text sequence: each feature after an RS byte, ended by a newline.
    GeoJsonSeq,
    /// Newline-delimited GeoJSON features (GDAL's GeoJSONSeq flavour, `jq`, DuckDB's `read_json`).
    GeoJsonLines,
    /// CSV with a header, a `wkt` point column and the sources as JSON text.
    Csv,
}

impl Format {
    pub fn extension(self) -> &'static str {
        match self {
            Format::Parquet => "parquet",
            Format::FlatGeobuf => "fgb",
            Format::GeoJsonSeq => "geojsons",
            Format::GeoJsonLines => "geojsonl",
            Format::Csv => "csv",
        }
    }

    pub fn media_type(self) -> &'static str {
        match self {
            Format::Parquet => "application/vnd.apache.parquet",
            Format::FlatGeobuf => "application/flatgeobuf",
            Format::GeoJsonSeq => "application/geo+json-seq",
            Format::GeoJsonLines => "application/x-ndjson",
            Format::Csv => "text/csv; charset=utf-8",
        }
    }
}

/// Writes one file of one kind's records, chunk by chunk.
pub trait Encoder: Send {
    /// Writes these rows (the first call writes the header too).
    fn rows(&mut self, rows: &[ExportRow]) -> anyhow::Result<()>;
    /// Ends the file: the header of an empty export, the footer where the format has one.
    fn finish(&mut self) -> anyhow::Result<()>;
    /// The bytes written since the last call.
    fn take(&mut self) -> Vec<u8>;
}

/// A fresh encoder of `format` for records of `table`.
pub fn encoder(format: Format, table: CanonicalTable) -> anyhow::Result<Box<dyn Encoder>> {
    Ok(match format {
        Format::Parquet => Box::new(geoparquet::GeoParquet::new(table)?),
        Format::FlatGeobuf => Box::new(fgb::FlatGeobuf::new(table)),
        Format::GeoJsonSeq => Box::new(geojson_seq::GeoJsonSeq::new(table, true)),
        Format::GeoJsonLines => Box::new(geojson_seq::GeoJsonSeq::new(table, false)),
        Format::Csv => Box::new(csv_text::Csv::new(table)),
    })
}

/// The sources of a row as one JSON array (formats without nested columns).
fn sources_json(row: &ExportRow, out: &mut Vec<u8>) -> anyhow::Result<()> {
    serde_json::to_writer(out, &row.sources)?;
    Ok(())
}

/// A timestamp as REST writes it (RFC 3339, UTC, `Z`).
fn time_text(time: &chrono::DateTime<chrono::Utc>) -> String {
    time.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)
}
