//! GeoParquet 1.1: one row per record. The record's columns keep their REST names, with scores,
//! confidences and amounts as doubles, times as UTC microsecond timestamps and lists as lists;
//! `sources` is a list of structs (field, entry, agent, observed at, confidence); `geometry` is
//! the point as WKB; `bbox` is the covering struct (`xmin`, `ymin`, `xmax`, `ymax`) that the `geo`
//! metadata declares in the geometry's `covering`, so readers can skip row groups by box. Rows
//! are written a chunk at a time and flushed as row groups of `ROW_GROUP_ROWS` (Snappy), so the
//! writer holds at most one row group; the `geo` metadata, with the data's bounding box, goes
//! into the footer at the end.

use super::Encoder;
use super::sink::Sink;
use crate::domain::CanonicalTable;
use crate::records::export::{Cell, ColumnType, ExportColumn, ExportRow, columns};
use arrow_array::builder::{
    BinaryBuilder, Float64Builder, ListBuilder, StringBuilder, TimestampMicrosecondBuilder,
};
use arrow_array::{ArrayRef, Float64Array, ListArray, RecordBatch, StructArray};
use arrow_buffer::OffsetBuffer;
use arrow_schema::{DataType, Field, FieldRef, Fields, Schema, SchemaRef, TimeUnit};
use geozero::{CoordDimensions, ToWkb};
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_writer::ArrowWriterOptions;
use parquet::basic::Compression;
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;
use serde_json::json;
use std::sync::Arc;

/// Rows per row group: what the writer holds encoded in memory before it flushes them.
pub const ROW_GROUP_ROWS: usize = 10_000;

const UTC: &str = "UTC";

fn timestamp() -> DataType {
    DataType::Timestamp(TimeUnit::Microsecond, Some(UTC.into()))
}

fn source_fields() -> Fields {
    Fields::from(vec![
        Field::new("field", DataType::Utf8, false),
        Field::new("space_time_entry_id", DataType::Utf8, false),
        Field::new("agent_id", DataType::Utf8, false),
        Field::new("observed_at_tstamp_utc", timestamp(), true),
        Field::new("score_confidence", DataType::Float64, false),
    ])
}

fn bbox_fields() -> Fields {
    Fields::from(
        ["xmin", "ymin", "xmax", "ymax"]
            .map(|name| Field::new(name, DataType::Float64, false))
            .to_vec(),
    )
}

fn data_type(ty: ColumnType) -> DataType {
    match ty {
        ColumnType::Text | ColumnType::Id | ColumnType::Json => DataType::Utf8,
        ColumnType::Number => DataType::Float64,
        ColumnType::Time => timestamp(),
        ColumnType::TextList => {
            DataType::List(Arc::new(Field::new_list_field(DataType::Utf8, true)))
        }
    }
}

/// The file's schema: the record's columns, then `sources`, `geometry` and `bbox`.
fn schema(cols: &[ExportColumn], sources_item: &FieldRef) -> SchemaRef {
    let mut fields: Vec<Field> = cols
        .iter()
        .map(|c| Field::new(c.name, data_type(c.ty), c.name != "id"))
        .collect();
    fields.push(Field::new(
        "sources",
        DataType::List(sources_item.clone()),
        false,
    ));
    fields.push(Field::new("geometry", DataType::Binary, false));
    fields.push(Field::new("bbox", DataType::Struct(bbox_fields()), false));
    Arc::new(Schema::new(fields))
}

/// One column's builder, reused from batch to batch.
enum Builder {
    Text(StringBuilder),
    Number(Float64Builder),
    Time(TimestampMicrosecondBuilder),
    List(ListBuilder<StringBuilder>),
}

impl Builder {
    fn new(ty: ColumnType) -> Self {
        match ty {
            ColumnType::Text | ColumnType::Id | ColumnType::Json => {
                Builder::Text(StringBuilder::new())
            }
            ColumnType::Number => Builder::Number(Float64Builder::new()),
            ColumnType::Time => {
                Builder::Time(TimestampMicrosecondBuilder::new().with_timezone(UTC))
            }
            ColumnType::TextList => Builder::List(ListBuilder::new(StringBuilder::new())),
        }
    }

    fn append(&mut self, cell: &Cell) {
        match (self, cell) {
            (Builder::Text(b), Cell::Text(s) | Cell::Json(s)) => b.append_value(s),
            (Builder::Text(b), Cell::Id(id)) => {
                b.append_value(
                    id.hyphenated()
                        .encode_lower(&mut uuid::Uuid::encode_buffer()),
                );
            }
            (Builder::Number(b), Cell::Number(n)) => b.append_value(*n),
            (Builder::Time(b), Cell::Time(t)) => b.append_value(t.timestamp_micros()),
            (Builder::List(b), Cell::TextList(list)) => {
                for item in list {
                    b.values().append_value(item);
                }
                b.append(true);
            }
            // A null, or a value of another type (the columns and the select list are written
            // together, so this does not happen): null.
            (Builder::Text(b), _) => b.append_null(),
            (Builder::Number(b), _) => b.append_null(),
            (Builder::Time(b), _) => b.append_null(),
            (Builder::List(b), _) => b.append(false),
        }
    }

    fn finish(&mut self) -> ArrayRef {
        match self {
            Builder::Text(b) => Arc::new(b.finish()),
            Builder::Number(b) => Arc::new(b.finish()),
            Builder::Time(b) => Arc::new(b.finish()),
            Builder::List(b) => Arc::new(b.finish()),
        }
    }
}

/// The box around every point written so far.
#[derive(Debug, Clone, Copy)]
struct Extent {
    west: f64,
    south: f64,
    east: f64,
    north: f64,
}

pub struct GeoParquet {
    writer: ArrowWriter<Sink>,
    sink: Sink,
    schema: SchemaRef,
    sources_item: FieldRef,
    builders: Vec<Builder>,
    extent: Option<Extent>,
}

impl GeoParquet {
    pub fn new(table: CanonicalTable) -> anyhow::Result<Self> {
        let cols = columns(table);
        let sources_item = Arc::new(Field::new_list_field(
            DataType::Struct(source_fields()),
            true,
        ));
        let schema = schema(cols, &sources_item);
        let properties = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
            .build();
        let sink = Sink::default();
        // No embedded Arrow schema: readers that find one (pyarrow, so geopandas) take the
        // schema's metadata from it alone, and the `geo` entry, which holds the data's bounding
        // box, can only be written at the end, beside it in the footer.
        let options = ArrowWriterOptions::new()
            .with_properties(properties)
            .with_skip_arrow_metadata(true);
        let writer = ArrowWriter::try_new_with_options(sink.clone(), schema.clone(), options)?;
        Ok(GeoParquet {
            writer,
            sink,
            schema,
            sources_item,
            builders: cols.iter().map(|c| Builder::new(c.ty)).collect(),
            extent: None,
        })
    }

    fn sources(&self, rows: &[ExportRow]) -> anyhow::Result<ArrayRef> {
        let mut field = StringBuilder::new();
        let mut entry = StringBuilder::new();
        let mut agent = StringBuilder::new();
        let mut observed = TimestampMicrosecondBuilder::new().with_timezone(UTC);
        let mut confidence = Float64Builder::new();
        let mut buffer = uuid::Uuid::encode_buffer();
        for source in rows.iter().flat_map(|r| &r.sources) {
            field.append_value(&source.field);
            entry.append_value(
                source
                    .space_time_entry_id
                    .hyphenated()
                    .encode_lower(&mut buffer),
            );
            agent.append_value(source.agent_id.hyphenated().encode_lower(&mut buffer));
            observed.append_option(source.observed_at_tstamp_utc.map(|t| t.timestamp_micros()));
            confidence.append_value(source.score_confidence);
        }
        let values = StructArray::try_new(
            source_fields(),
            vec![
                Arc::new(field.finish()) as ArrayRef,
                Arc::new(entry.finish()),
                Arc::new(agent.finish()),
                Arc::new(observed.finish()),
                Arc::new(confidence.finish()),
            ],
            None,
        )?;
        let offsets = OffsetBuffer::from_lengths(rows.iter().map(|r| r.sources.len()));
        Ok(Arc::new(ListArray::try_new(
            self.sources_item.clone(),
            offsets,
            Arc::new(values),
            None,
        )?))
    }

    fn geometry(&mut self, rows: &[ExportRow]) -> anyhow::Result<[ArrayRef; 2]> {
        let mut wkb = BinaryBuilder::new();
        for row in rows {
            let point = geo_types::Geometry::Point(geo_types::Point::new(row.lng, row.lat));
            wkb.append_value(point.to_wkb(CoordDimensions::xy())?);
            let e = self.extent.get_or_insert(Extent {
                west: row.lng,
                south: row.lat,
                east: row.lng,
                north: row.lat,
            });
            e.west = e.west.min(row.lng);
            e.south = e.south.min(row.lat);
            e.east = e.east.max(row.lng);
            e.north = e.north.max(row.lat);
        }
        let lng: ArrayRef = Arc::new(Float64Array::from(
            rows.iter().map(|r| r.lng).collect::<Vec<f64>>(),
        ));
        let lat: ArrayRef = Arc::new(Float64Array::from(
            rows.iter().map(|r| r.lat).collect::<Vec<f64>>(),
        ));
        let bbox = StructArray::try_new(
            bbox_fields(),
            vec![lng.clone(), lat.clone(), lng, lat],
            None,
        )?;
        let wkb: ArrayRef = Arc::new(wkb.finish());
        Ok([wkb, Arc::new(bbox)])
    }

    /// The GeoParquet 1.1 file metadata.
    fn geo_metadata(&self) -> serde_json::Value {
        let mut geometry = json!({
            "encoding": "WKB",
            "geometry_types": ["Point"],
            "covering": {"bbox": {
                "xmin": ["bbox", "xmin"],
                "ymin": ["bbox", "ymin"],
                "xmax": ["bbox", "xmax"],
                "ymax": ["bbox", "ymax"],
            }},
        });
        if let Some(e) = self.extent {
            geometry["bbox"] = json!([e.west, e.south, e.east, e.north]);
        }
        // No `crs`: GeoParquet's default, OGC:CRS84 (longitude, latitude on WGS 84).
        json!({
            "version": "1.1.0",
            "primary_column": "geometry",
            "columns": {"geometry": geometry},
        })
    }
}

impl Encoder for GeoParquet {
    fn rows(&mut self, rows: &[ExportRow]) -> anyhow::Result<()> {
        if rows.is_empty() {
            return Ok(());
        }
        for row in rows {
            for (builder, cell) in self.builders.iter_mut().zip(&row.cells) {
                builder.append(cell);
            }
        }
        let mut arrays: Vec<ArrayRef> = self.builders.iter_mut().map(Builder::finish).collect();
        arrays.push(self.sources(rows)?);
        arrays.extend(self.geometry(rows)?);
        let batch = RecordBatch::try_new(self.schema.clone(), arrays)?;
        self.writer.write(&batch)?;
        Ok(())
    }

    fn finish(&mut self) -> anyhow::Result<()> {
        let geo = self.geo_metadata().to_string();
        self.writer
            .append_key_value_metadata(KeyValue::new("geo".to_owned(), geo));
        self.writer.finish()?;
        Ok(())
    }

    fn take(&mut self) -> Vec<u8> {
        self.sink.take()
    }

    /// One record batch per call: a batch of a few rows costs the writer as much as 2,000.
    fn whole_chunks(&self) -> bool {
        true
    }
}
