//! FlatGeobuf, streamed: the header (point geometry, EPSG:4326, one column per record field plus
//! `sources`) and then each feature as it comes. The crate's own `FgbWriter` gathers every
//! feature in a temporary file and its offsets in memory to sort them for the spatial index, so
//! nothing would be sent before the last row was read; this writer leaves the index out (its
//! header says `index_node_size = 0`) and the feature count open (`features_count = 0`, "unknown"
//! in the specification), which GDAL, QGIS and the flatgeobuf readers read sequentially. The
//! header and feature tables are the crate's generated FlatBuffers types.

use super::Encoder;
use crate::domain::CanonicalTable;
use crate::records::export::{Cell, ColumnType, ExportColumn, ExportRow, collection, columns};
use flatbuffers::FlatBufferBuilder;
use flatgeobuf::{
    Column, ColumnArgs, Crs, CrsArgs, Feature, FeatureArgs, Geometry, GeometryArgs, GeometryType,
    Header, HeaderArgs,
};

/// "fgb", version 3, "fgb", patch 0.
const MAGIC_BYTES: [u8; 8] = [b'f', b'g', b'b', 3, b'f', b'g', b'b', 0];

pub struct FlatGeobuf {
    table: CanonicalTable,
    columns: &'static [ExportColumn],
    header_written: bool,
    fbb: FlatBufferBuilder<'static>,
    /// One feature's property values, reused.
    properties: Vec<u8>,
    json: Vec<u8>,
    out: Vec<u8>,
}

fn column_type(ty: ColumnType) -> flatgeobuf::ColumnType {
    match ty {
        ColumnType::Text | ColumnType::Id => flatgeobuf::ColumnType::String,
        ColumnType::Number => flatgeobuf::ColumnType::Double,
        ColumnType::Time => flatgeobuf::ColumnType::DateTime,
        ColumnType::TextList | ColumnType::Json => flatgeobuf::ColumnType::Json,
    }
}

impl FlatGeobuf {
    pub fn new(table: CanonicalTable) -> Self {
        FlatGeobuf {
            table,
            columns: columns(table),
            header_written: false,
            fbb: FlatBufferBuilder::new(),
            properties: Vec::new(),
            json: Vec::new(),
            out: Vec::new(),
        }
    }

    fn header(&mut self) {
        if self.header_written {
            return;
        }
        self.header_written = true;
        let fbb = &mut self.fbb;
        fbb.reset();
        let mut cols = Vec::with_capacity(self.columns.len() + 1);
        let named = self
            .columns
            .iter()
            .map(|c| (c.name, column_type(c.ty), c.name != "id"))
            .chain([("sources", flatgeobuf::ColumnType::Json, false)]);
        for (name, type_, nullable) in named {
            let args = ColumnArgs {
                name: Some(fbb.create_string(name)),
                type_,
                nullable,
                ..Default::default()
            };
            cols.push(Column::create(fbb, &args));
        }
        let org = fbb.create_string("EPSG");
        let crs = Crs::create(
            fbb,
            &CrsArgs {
                org: Some(org),
                code: 4326,
                ..Default::default()
            },
        );
        let args = HeaderArgs {
            name: Some(fbb.create_string(collection(self.table))),
            geometry_type: GeometryType::Point,
            columns: Some(fbb.create_vector(&cols)),
            crs: Some(crs),
            // Streamed: the count is not known until the last row, and there is no index.
            features_count: 0,
            index_node_size: 0,
            ..Default::default()
        };
        let header = Header::create(fbb, &args);
        fbb.finish_size_prefixed(header, None);
        self.out.extend_from_slice(&MAGIC_BYTES);
        self.out.extend_from_slice(fbb.finished_data());
    }

    /// A feature's properties as the format encodes them: per non-null value, its column index
    /// (u16) and the value (a little-endian f64, or a u32 length and UTF-8 bytes).
    fn properties(&mut self, row: &ExportRow) -> anyhow::Result<()> {
        let props = &mut self.properties;
        props.clear();
        let text = |props: &mut Vec<u8>, index: usize, bytes: &[u8]| -> anyhow::Result<()> {
            props.extend_from_slice(&u16::try_from(index)?.to_le_bytes());
            props.extend_from_slice(&u32::try_from(bytes.len())?.to_le_bytes());
            props.extend_from_slice(bytes);
            Ok(())
        };
        for (index, cell) in row.cells.iter().enumerate() {
            match cell {
                Cell::Null => {}
                Cell::Text(s) | Cell::Json(s) => text(props, index, s.as_bytes())?,
                Cell::Id(id) => {
                    let id = id.hyphenated();
                    text(
                        props,
                        index,
                        id.encode_lower(&mut uuid::Uuid::encode_buffer()).as_bytes(),
                    )?;
                }
                Cell::Number(n) => {
                    props.extend_from_slice(&u16::try_from(index)?.to_le_bytes());
                    props.extend_from_slice(&n.to_le_bytes());
                }
                Cell::Time(t) => text(props, index, super::time_text(t).as_bytes())?,
                Cell::TextList(list) => text(props, index, &serde_json::to_vec(list)?)?,
            }
        }
        self.json.clear();
        super::sources_json(row, &mut self.json)?;
        text(props, row.cells.len(), &self.json)?;
        Ok(())
    }

    fn feature(&mut self, row: &ExportRow) -> anyhow::Result<()> {
        self.properties(row)?;
        let fbb = &mut self.fbb;
        fbb.reset();
        let xy = fbb.create_vector(&[row.lng, row.lat]);
        let geometry = Geometry::create(
            fbb,
            &GeometryArgs {
                xy: Some(xy),
                ..Default::default()
            },
        );
        let properties = fbb.create_vector(&self.properties);
        let feature = Feature::create(
            fbb,
            &FeatureArgs {
                geometry: Some(geometry),
                properties: Some(properties),
                ..Default::default()
            },
        );
        fbb.finish_size_prefixed(feature, None);
        self.out.extend_from_slice(fbb.finished_data());
        Ok(())
    }
}

impl Encoder for FlatGeobuf {
    fn rows(&mut self, rows: &[ExportRow]) -> anyhow::Result<()> {
        self.header();
        for row in rows {
            self.feature(row)?;
        }
        Ok(())
    }

    fn finish(&mut self) -> anyhow::Result<()> {
        self.header();
        Ok(())
    }

    fn take(&mut self) -> Vec<u8> {
        super::sink::take_sized(&mut self.out)
    }
}
