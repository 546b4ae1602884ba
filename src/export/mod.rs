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
    /// Whether `rows` wants a whole chunk at a time (a format that writes a batch per call)
    /// rather than the few rows of one piece of the body.
    fn whole_chunks(&self) -> bool {
        false
    }
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

/// The sources of a row as one JSON array (formats without nested columns), byte for byte as
/// serde writes them, but with the ids and times copied in whole: they need no escaping, and
/// serde's path writes them a character at a time (a fifth of the text formats' time went there).
fn sources_json(row: &ExportRow, out: &mut Vec<u8>) -> anyhow::Result<()> {
    let mut id = uuid::Uuid::encode_buffer();
    out.push(b'[');
    for (i, source) in row.sources.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(br#"{"field":"#);
        serde_json::to_writer(&mut *out, &source.field)?;
        out.extend_from_slice(br#","space_time_entry_id":""#);
        let entry = source.space_time_entry_id.hyphenated();
        out.extend_from_slice(entry.encode_lower(&mut id).as_bytes());
        out.extend_from_slice(br#"","agent_id":""#);
        let agent = source.agent_id.hyphenated();
        out.extend_from_slice(agent.encode_lower(&mut id).as_bytes());
        out.extend_from_slice(br#"","observed_at_tstamp_utc":"#);
        match &source.observed_at_tstamp_utc {
            Some(time) => {
                out.push(b'"');
                out.extend_from_slice(time_text(time).as_bytes());
                out.push(b'"');
            }
            None => out.extend_from_slice(b"null"),
        }
        out.extend_from_slice(br#","score_confidence":"#);
        serde_json::to_writer(&mut *out, &source.score_confidence)?;
        out.push(b'}');
    }
    out.push(b']');
    Ok(())
}

/// A timestamp as REST writes it (RFC 3339, UTC, `Z`).
fn time_text(time: &chrono::DateTime<chrono::Utc>) -> String {
    time.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::provenance::FieldSource;
    use chrono::TimeZone;
    use uuid::Uuid;

    #[test]
    fn the_sources_are_written_as_serde_writes_them() {
        let at = |nanos| chrono::Utc.timestamp_opt(1_795_000_000, nanos).single();
        let source = |field: &str, observed_at, score_confidence| FieldSource {
            field: field.to_owned(),
            space_time_entry_id: Uuid::now_v7(),
            agent_id: Uuid::new_v4(),
            observed_at_tstamp_utc: observed_at,
            score_confidence,
        };
        for sources in [
            vec![],
            vec![source("phone", at(0), 0.8)],
            vec![
                source("a \"quoted\" \\ field\n", at(500_000_000), 1.0),
                source("display_name", None, 0.0),
                source("website_url", at(123_456_789), 0.333_333_333_333_333_3),
                source("city", at(1_000), f64::NAN),
            ],
        ] {
            let row = ExportRow {
                sources,
                ..ExportRow::default()
            };
            let mut written = Vec::new();
            sources_json(&row, &mut written).unwrap();
            assert_eq!(
                String::from_utf8(written).unwrap(),
                serde_json::to_string(&row.sources).unwrap()
            );
        }
    }
}
