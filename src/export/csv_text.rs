//! CSV (RFC 4180, UTF-8, a header row): `wkt` first (the point as WKT, which GDAL's CSV driver
//! reads as the geometry), then the record's columns, then `sources` as JSON text. Lists and
//! JSON columns are JSON text too; a null is an empty field; times are RFC 3339.

use super::Encoder;
use super::sink::Sink;
use crate::domain::CanonicalTable;
use crate::records::export::{Cell, ExportColumn, ExportRow, columns};
use std::fmt::Write as _;

pub struct Csv {
    columns: &'static [ExportColumn],
    writer: ::csv::Writer<Sink>,
    sink: Sink,
    header_written: bool,
    /// Reused for each formatted field.
    field: String,
    json: Vec<u8>,
}

impl Csv {
    pub fn new(table: CanonicalTable) -> Self {
        let sink = Sink::default();
        Csv {
            columns: columns(table),
            writer: ::csv::Writer::from_writer(sink.clone()),
            sink,
            header_written: false,
            field: String::new(),
            json: Vec::new(),
        }
    }

    fn header(&mut self) -> anyhow::Result<()> {
        if !self.header_written {
            self.header_written = true;
            self.writer.write_field("wkt")?;
            for column in self.columns {
                self.writer.write_field(column.name)?;
            }
            self.writer.write_field("sources")?;
            self.writer.write_record(None::<&[u8]>)?;
        }
        Ok(())
    }

    fn row(&mut self, row: &ExportRow) -> anyhow::Result<()> {
        self.field.clear();
        write!(self.field, "POINT ({} {})", row.lng, row.lat)?;
        self.writer.write_field(&self.field)?;
        for cell in &row.cells {
            self.field.clear();
            match cell {
                Cell::Null => {}
                Cell::Text(text) | Cell::Json(text) => {
                    self.writer.write_field(text)?;
                    continue;
                }
                Cell::Id(id) => self.field.push_str(
                    id.hyphenated()
                        .encode_lower(&mut uuid::Uuid::encode_buffer()),
                ),
                Cell::Number(n) => write!(self.field, "{n}")?,
                Cell::Time(t) => self.field.push_str(&super::time_text(t)),
                Cell::TextList(list) => {
                    self.json.clear();
                    serde_json::to_writer(&mut self.json, list)?;
                    self.writer.write_field(&self.json)?;
                    continue;
                }
            }
            self.writer.write_field(&self.field)?;
        }
        self.json.clear();
        super::sources_json(row, &mut self.json)?;
        self.writer.write_field(&self.json)?;
        self.writer.write_record(None::<&[u8]>)?;
        Ok(())
    }
}

impl Encoder for Csv {
    fn rows(&mut self, rows: &[ExportRow]) -> anyhow::Result<()> {
        self.header()?;
        for row in rows {
            self.row(row)?;
        }
        self.writer.flush()?;
        Ok(())
    }

    fn finish(&mut self) -> anyhow::Result<()> {
        self.header()?;
        self.writer.flush()?;
        Ok(())
    }

    fn take(&mut self) -> Vec<u8> {
        self.sink.take()
    }
}
