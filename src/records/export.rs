//! A canonical record as the bulk export writes it (`export/`, `services::exports`): the record's
//! own columns, in the order and with the names REST gives them, each with the type it loads as
//! in an analyst's tool (scores, confidences and amounts are numbers, not REST's decimal
//! strings), plus the record's point and its per-field sources.

use crate::domain::CanonicalTable;
use crate::records::provenance::FieldSource;
use chrono::{DateTime, Utc};
use uuid::Uuid;

/// How a column is stored and how each format writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnType {
    Text,
    /// A record's or an agent's id, written as text.
    Id,
    /// A score, a confidence, an amount or a coordinate: a 64-bit float.
    Number,
    /// A UTC timestamp.
    Time,
    /// A list of strings (categories, tags).
    TextList,
    /// A JSON document (link URLs, the context layers), written as JSON text where the format
    /// has no nested type.
    Json,
}

/// One column of an export.
#[derive(Debug, Clone, Copy)]
pub struct ExportColumn {
    pub name: &'static str,
    pub ty: ColumnType,
}

const fn col(name: &'static str, ty: ColumnType) -> ExportColumn {
    ExportColumn { name, ty }
}

use ColumnType::{Id, Json, Number, Text, TextList, Time};

/// The columns every kind ends with, after its own.
macro_rules! shared_tail {
    () => {
        [
            col("status", Text),
            col("merged_into_id", Id),
            col("score_data_richness", Number),
            col("score_agent_reputation", Number),
            col("score_signal", Number),
            col("score_confidence", Number),
            col("context_l0_routing", Json),
            col("context_l1_common", Json),
            col("context_l2_specific", Json),
            col("context_l2_available_features", TextList),
            col("created_at_tstamp_utc", Time),
            col("updated_at_tstamp_utc", Time),
        ]
    };
}

const ENTITY: [ExportColumn; 29] = {
    let head = [
        col("id", Id),
        col("entity_type", Text),
        col("display_name", Text),
        col("legal_name", Text),
        col("description", Text),
        col("website_url", Text),
        col("email", Text),
        col("phone", Text),
        col("address_text", Text),
        col("city", Text),
        col("country_code", Text),
        col("categories", TextList),
        col("tags", TextList),
        col("link_urls", Json),
        col("contact_agent_id", Id),
        col("location_lat", Number),
        col("location_lng", Number),
    ];
    concat(head, shared_tail!())
};

const LISTING: [ExportColumn; 32] = {
    let head = [
        col("id", Id),
        col("listing_type", Text),
        col("title", Text),
        col("description", Text),
        col("categories", TextList),
        col("link_urls", Json),
        col("provider_entity_id", Id),
        col("created_by_agent_id", Id),
        col("principal_id", Id),
        col("contact_agent_id", Id),
        col("price_amount", Number),
        col("currency_code", Text),
        col("availability_status", Text),
        col("valid_from_tstamp_utc", Time),
        col("valid_to_tstamp_utc", Time),
        col("address_text", Text),
        col("city", Text),
        col("country_code", Text),
        col("location_lat", Number),
        col("location_lng", Number),
    ];
    concat(head, shared_tail!())
};

const REQUEST: [ExportColumn; 31] = {
    let head = [
        col("id", Id),
        col("request_type", Text),
        col("title", Text),
        col("description", Text),
        col("categories", TextList),
        col("link_urls", Json),
        col("requester_entity_id", Id),
        col("created_by_agent_id", Id),
        col("principal_id", Id),
        col("contact_agent_id", Id),
        col("budget_amount", Number),
        col("currency_code", Text),
        col("needed_from_tstamp_utc", Time),
        col("needed_by_tstamp_utc", Time),
        col("address_text", Text),
        col("city", Text),
        col("country_code", Text),
        col("location_lat", Number),
        col("location_lng", Number),
    ];
    concat(head, shared_tail!())
};

/// `head` then `tail`, at compile time (the array lengths above are checked by the compiler).
const fn concat<const H: usize, const T: usize, const N: usize>(
    head: [ExportColumn; H],
    tail: [ExportColumn; T],
) -> [ExportColumn; N] {
    assert!(H + T == N, "the column count is the sum of both parts");
    let mut out = [col("", Text); N];
    let mut i = 0;
    while i < H {
        out[i] = head[i];
        i += 1;
    }
    while i < N {
        out[i] = tail[i - H];
        i += 1;
    }
    out
}

/// The record's own columns of a kind, id first; every format adds `sources` after them (and
/// its geometry where it has one).
pub fn columns(table: CanonicalTable) -> &'static [ExportColumn] {
    match table {
        CanonicalTable::Entities => &ENTITY,
        CanonicalTable::Listings => &LISTING,
        CanonicalTable::Requests => &REQUEST,
    }
}

/// The collection's name in paths and file names: `entities`, `listings`, `requests`.
pub fn collection(table: CanonicalTable) -> &'static str {
    match table {
        CanonicalTable::Entities => "entities",
        CanonicalTable::Listings => "listings",
        CanonicalTable::Requests => "requests",
    }
}

/// One value of a row, as its column's type says.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    Null,
    Text(String),
    Id(Uuid),
    Number(f64),
    Time(DateTime<Utc>),
    TextList(Vec<String>),
    /// JSON text as PostgreSQL wrote it (valid JSON).
    Json(String),
}

/// One record, ready to be written.
#[derive(Debug, Clone)]
pub struct ExportRow {
    pub id: Uuid,
    pub lng: f64,
    pub lat: f64,
    /// One per column of `columns(table)`, in order.
    pub cells: Vec<Cell>,
    /// Where each field's current value came from, by field name.
    pub sources: Vec<FieldSource>,
}
