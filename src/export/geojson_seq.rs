//! GeoJSON features one per line: RFC 8142 text sequences (an RS byte before each feature) or
//! plain newline-delimited JSON. Each feature is written straight into the buffer, without an
//! intermediate JSON tree: the record's id is the feature's `id`, every other column a property
//! (numbers as JSON numbers, lists and JSON columns as JSON), and `sources` an array of objects.

use super::Encoder;
use crate::domain::CanonicalTable;
use crate::records::export::{Cell, ExportColumn, ExportRow, columns};
use std::io::Write;
use uuid::Uuid;

/// RFC 8142's record separator.
const RS: u8 = 0x1e;

pub struct GeoJsonSeq {
    columns: &'static [ExportColumn],
    record_separator: bool,
    out: Vec<u8>,
}

impl GeoJsonSeq {
    pub fn new(table: CanonicalTable, record_separator: bool) -> Self {
        GeoJsonSeq {
            columns: columns(table),
            record_separator,
            out: Vec::new(),
        }
    }

    fn feature(&mut self, row: &ExportRow) -> anyhow::Result<()> {
        let out = &mut self.out;
        if self.record_separator {
            out.push(RS);
        }
        out.extend_from_slice(br#"{"type":"Feature","id":""#);
        id_text(out, row.id);
        out.extend_from_slice(br#"","geometry":{"type":"Point","coordinates":["#);
        serde_json::to_writer(&mut *out, &row.lng)?;
        out.push(b',');
        serde_json::to_writer(&mut *out, &row.lat)?;
        out.extend_from_slice(br#"]},"properties":{"#);
        for (column, cell) in self.columns.iter().zip(&row.cells) {
            if column.name == "id" {
                continue;
            }
            serde_json::to_writer(&mut *out, column.name)?;
            out.push(b':');
            match cell {
                Cell::Null => out.extend_from_slice(b"null"),
                Cell::Text(text) => serde_json::to_writer(&mut *out, text)?,
                Cell::Id(id) => {
                    out.push(b'"');
                    id_text(out, *id);
                    out.push(b'"');
                }
                Cell::Number(n) => serde_json::to_writer(&mut *out, n)?,
                Cell::Time(t) => write!(out, "\"{}\"", super::time_text(t))?,
                Cell::TextList(list) => serde_json::to_writer(&mut *out, list)?,
                Cell::Json(json) => out.extend_from_slice(json.as_bytes()),
            }
            out.push(b',');
        }
        out.extend_from_slice(br#""sources":"#);
        super::sources_json(row, out)?;
        out.extend_from_slice(b"}}\n");
        Ok(())
    }
}

/// An id as text: hyphenated lower-case hex, which JSON needs no escape for.
fn id_text(out: &mut Vec<u8>, id: Uuid) {
    let text = id.hyphenated();
    out.extend_from_slice(text.encode_lower(&mut Uuid::encode_buffer()).as_bytes());
}

impl Encoder for GeoJsonSeq {
    fn rows(&mut self, rows: &[ExportRow]) -> anyhow::Result<()> {
        for row in rows {
            self.feature(row)?;
        }
        Ok(())
    }

    fn finish(&mut self) -> anyhow::Result<()> {
        Ok(())
    }

    fn take(&mut self) -> Vec<u8> {
        super::sink::take_sized(&mut self.out)
    }
}
