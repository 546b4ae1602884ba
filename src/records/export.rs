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
const SHARED_TAIL: [ExportColumn; 12] = [
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
];

const ENTITY: [ExportColumn; 29] = join(&[
    &[
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
    ],
    &SHARED_TAIL,
]);

const LISTING: [ExportColumn; 32] = offer(
    "listing_type",
    "provider_entity_id",
    "price_amount",
    &[
        col("availability_status", Text),
        col("valid_from_tstamp_utc", Time),
        col("valid_to_tstamp_utc", Time),
    ],
);

const REQUEST: [ExportColumn; 31] = offer(
    "request_type",
    "requester_entity_id",
    "budget_amount",
    &[
        col("needed_from_tstamp_utc", Time),
        col("needed_by_tstamp_utc", Time),
    ],
);

/// The columns of an offer (a listing or a request: one shared core, as in `db/offers.rs`),
/// given the few in which the two differ: the type, the entity offering or asking, the amount,
/// and the terms after the currency (a listing's availability and validity, a request's window).
const fn offer<const N: usize>(
    type_column: &'static str,
    parent_column: &'static str,
    amount_column: &'static str,
    terms: &[ExportColumn],
) -> [ExportColumn; N] {
    join(&[
        &[
            col("id", Id),
            col(type_column, Text),
            col("title", Text),
            col("description", Text),
            col("categories", TextList),
            col("link_urls", Json),
            col(parent_column, Id),
            col("created_by_agent_id", Id),
            col("principal_id", Id),
            col("contact_agent_id", Id),
            col(amount_column, Number),
            col("currency_code", Text),
        ],
        terms,
        &[
            col("address_text", Text),
            col("city", Text),
            col("country_code", Text),
            col("location_lat", Number),
            col("location_lng", Number),
        ],
        &SHARED_TAIL,
    ])
}

/// The parts one after the other, at compile time (the array lengths above are checked by the
/// compiler).
const fn join<const N: usize>(parts: &[&[ExportColumn]]) -> [ExportColumn; N] {
    let mut out = [col("", Text); N];
    let mut n = 0;
    let mut p = 0;
    while p < parts.len() {
        let mut i = 0;
        while i < parts[p].len() {
            out[n] = parts[p][i];
            n += 1;
            i += 1;
        }
        p += 1;
    }
    assert!(n == N, "the column count is the sum of the parts");
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
#[derive(Debug, Clone, Default)]
pub struct ExportRow {
    pub id: Uuid,
    pub lng: f64,
    pub lat: f64,
    /// One per column of `columns(table)`, in order.
    pub cells: Vec<Cell>,
    /// Where each field's current value came from, by field name.
    pub sources: Vec<FieldSource>,
}
