//! canonical.listings and canonical.requests: both are offers (an offer and a need) with one
//! shared core, so one set of queries serves both, parameterised by the few columns in which they
//! differ (`OfferTable`). Table and column names come only from the two constants in
//! `listings.rs` and `requests.rs`, never from input text, so formatting them into SQL is safe.

use super::entities::Locked;
use crate::domain::{CanonicalTable, ListParams};
use crate::records::canonical::OfferCore;
use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use serde_json::Value;
use sqlx::postgres::PgRow;
use sqlx::{FromRow, PgConnection, Row};
use uuid::Uuid;

/// Where an offer kind lives and what its differing columns are called.
#[derive(Debug)]
pub struct OfferTable {
    pub kind: CanonicalTable,
    /// `canonical.listings`.
    pub table: &'static str,
    /// The record's columns, for SELECT (also used by the search statement).
    pub columns: &'static str,
    /// `SELECT columns FROM table WHERE id = $1`, fixed at compile time (`const_format`).
    pub by_id: &'static str,
    /// `listing_type` / `request_type`.
    pub type_column: &'static str,
    /// The entity offering or asking: `provider_entity_id` / `requester_entity_id`.
    pub parent_column: &'static str,
    /// `price_amount` / `budget_amount`.
    pub amount_column: &'static str,
    /// Only listings have an availability status.
    pub has_availability: bool,
    /// The time window: `valid_from/to_tstamp_utc` / `needed_from/by_tstamp_utc`.
    pub window_columns: [&'static str; 2],
}

/// A record stored in an offer table.
pub trait OfferRecord: for<'r> FromRow<'r, PgRow> + Send + Unpin {
    const TABLE: OfferTable;
    fn core(&self) -> &OfferCore;
    /// The record split into the columns it does not share and its core.
    fn into_parts(self) -> (OfferSide, OfferCore);
}

/// The columns in which a listing and a request differ, under one name each.
#[derive(Debug, Clone)]
pub struct OfferSide {
    pub parent_entity_id: Option<Uuid>,
    pub offer_type: String,
    pub amount: Option<Decimal>,
    /// Always `None` for requests.
    pub availability_status: Option<String>,
    pub window: [Option<DateTime<Utc>>; 2],
}

/// Everything the transformer writes to an offer; identity keys and per-field evidence travel with
/// the content.
#[derive(Debug, Clone)]
pub struct OfferWrite {
    pub principal_id: Option<Uuid>,
    pub contact_agent_id: Option<Uuid>,
    pub side: OfferSide,
    pub title: String,
    pub description: Option<String>,
    pub categories: Vec<String>,
    pub link_urls: Value,
    pub currency_code: Option<String>,
    pub location_lat: f64,
    pub location_lng: f64,
    pub address_text: Option<String>,
    pub city: Option<String>,
    pub country_code: Option<String>,
    pub status: String,
    pub context_l0_routing: Value,
    pub context_l1_common: Value,
    pub context_l2_specific: Value,
    pub context_l2_available_features: Vec<String>,
    pub source_ref: Option<String>,
    pub title_key: String,
    pub field_evidence: Value,
}

/// Works on the pool or inside a transaction.
pub async fn get<'c, R: OfferRecord>(
    executor: impl sqlx::PgExecutor<'c>,
    id: Uuid,
) -> Result<Option<R>, sqlx::Error> {
    sqlx::query_as(R::TABLE.by_id)
        .bind(id)
        .fetch_optional(executor)
        .await
}

/// The offers of one provider (listings) or requester (requests), newest first.
pub async fn list_by_parent<'c, R: OfferRecord>(
    pool: impl super::Reads<'c>,
    entity_id: Uuid,
    params: &ListParams,
) -> Result<Vec<R>, sqlx::Error> {
    let t = &R::TABLE;
    sqlx::query_as(&format!(
        "SELECT {} FROM {}
         WHERE {} = $1 AND ($2::uuid IS NULL OR id < $2) ORDER BY id DESC LIMIT $3",
        t.columns, t.table, t.parent_column
    ))
    .bind(entity_id)
    .bind(params.after)
    .bind(params.fetch_limit())
    .fetch_all(pool)
    .await
}

/// How many offers each of `entities` provides (listings) or asks (requests), each counted up
/// to `COUNT_CAP + 1`, in one statement.
pub async fn count_by_parents<'c, R: OfferRecord>(
    pool: impl super::Reads<'c>,
    entities: &[Uuid],
) -> sqlx::Result<Vec<(Uuid, i64)>> {
    let t = &R::TABLE;
    sqlx::query_as(&format!(
        "SELECT parent.id, (SELECT count(*) FROM (SELECT 1 FROM {} WHERE {} = parent.id LIMIT $2) AS counted)
         FROM unnest($1::uuid[]) AS parent(id)",
        t.table, t.parent_column
    ))
    .bind(entities)
    .bind(super::COUNT_CAP + 1)
    .fetch_all(pool)
    .await
}

pub async fn get_for_update<R: OfferRecord>(
    conn: &mut PgConnection,
    id: Uuid,
) -> Result<Option<Locked<R>>, sqlx::Error> {
    let t = &R::TABLE;
    let row = sqlx::query(&format!(
        "SELECT {}, field_evidence, source_ref FROM {} WHERE id = $1 FOR UPDATE",
        t.columns, t.table
    ))
    .bind(id)
    .fetch_optional(conn)
    .await?;
    let Some(row) = row else { return Ok(None) };
    let record = R::from_row(&row)?;
    Ok(Some(Locked {
        created_by_agent_id: record.core().created_by_agent_id,
        record,
        field_evidence: row.try_get("field_evidence")?,
        source_ref: row.try_get("source_ref")?,
    }))
}

/// Offers of the same kind sharing the source record, or the same title from the same
/// provider/requester or at the same spot. Withdrawn records are left out; merged ones are in
/// (matching counts them as their survivor).
pub async fn candidates(
    conn: &mut PgConnection,
    t: &OfferTable,
    latitude: f64,
    longitude: f64,
    title_key: &str,
    parent_entity_id: Option<Uuid>,
    source_ref: Option<&str>,
) -> Result<Vec<super::OfferCandidateRow>, sqlx::Error> {
    sqlx::query_as(&format!(
        "WITH point AS (SELECT ST_SetSRID(ST_MakePoint($2, $1), 4326)::geography AS g)
         SELECT id, merged_into_id, ST_Distance(location, (SELECT g FROM point)) AS distance_m,
                {parent} AS parent_id, title_key, source_ref
         FROM {table}
         WHERE status <> 'withdrawn' AND (source_ref = $5
            OR (title_key = $3 AND ({parent} = $4 OR ST_DWithin(location, (SELECT g FROM point), 50))))
         LIMIT 50",
        parent = t.parent_column,
        table = t.table,
    ))
    .bind(latitude)
    .bind(longitude)
    .bind(title_key)
    .bind(parent_entity_id)
    .bind(source_ref)
    .fetch_all(conn)
    .await
}

/// The written columns, in the order `bind_write` binds them.
fn write_columns(t: &OfferTable) -> Vec<&'static str> {
    let mut columns = vec![
        "principal_id",
        t.parent_column,
        "contact_agent_id",
        t.type_column,
        "title",
        "description",
        "categories",
        "link_urls",
        t.amount_column,
        "currency_code",
    ];
    if t.has_availability {
        columns.push("availability_status");
    }
    columns.extend([
        "location_lat",
        "location_lng",
        "address_text",
        "city",
        "country_code",
        t.window_columns[0],
        t.window_columns[1],
        "status",
        "context_l0_routing",
        "context_l1_common",
        "context_l2_specific",
        "context_l2_available_features",
        "source_ref",
        "title_key",
        "field_evidence",
    ]);
    columns
}

pub async fn insert(
    conn: &mut PgConnection,
    t: &OfferTable,
    id: Uuid,
    w: &OfferWrite,
    created_by: Uuid,
) -> Result<(), sqlx::Error> {
    let columns = write_columns(t);
    let placeholders: Vec<String> = (1..=columns.len() + 2).map(|i| format!("${i}")).collect();
    let sql = format!(
        "INSERT INTO {} ({}, id, created_by_agent_id) VALUES ({})",
        t.table,
        columns.join(", "),
        placeholders.join(", ")
    );
    bind_write(sqlx::query(&sql), t, w)
        .bind(id)
        .bind(created_by)
        .execute(conn)
        .await?;
    Ok(())
}

pub async fn update(
    conn: &mut PgConnection,
    t: &OfferTable,
    id: Uuid,
    w: &OfferWrite,
) -> Result<(), sqlx::Error> {
    let columns = write_columns(t);
    let set: Vec<String> = columns
        .iter()
        .enumerate()
        .map(|(i, c)| format!("{c} = ${}", i + 1))
        .collect();
    let sql = format!(
        "UPDATE {} SET {} WHERE id = ${}",
        t.table,
        set.join(", "),
        columns.len() + 1
    );
    bind_write(sqlx::query(&sql), t, w)
        .bind(id)
        .execute(conn)
        .await?;
    Ok(())
}

type PgQuery<'q> = sqlx::query::Query<'q, sqlx::Postgres, sqlx::postgres::PgArguments>;

/// Binds the written columns in the order of `write_columns`.
fn bind_write<'q>(query: PgQuery<'q>, t: &OfferTable, w: &'q OfferWrite) -> PgQuery<'q> {
    let query = query
        .bind(w.principal_id)
        .bind(w.side.parent_entity_id)
        .bind(w.contact_agent_id)
        .bind(&w.side.offer_type)
        .bind(&w.title)
        .bind(&w.description)
        .bind(&w.categories)
        .bind(&w.link_urls)
        .bind(w.side.amount)
        .bind(&w.currency_code);
    let query = if t.has_availability {
        query.bind(&w.side.availability_status)
    } else {
        query
    };
    query
        .bind(w.location_lat)
        .bind(w.location_lng)
        .bind(&w.address_text)
        .bind(&w.city)
        .bind(&w.country_code)
        .bind(w.side.window[0])
        .bind(w.side.window[1])
        .bind(&w.status)
        .bind(&w.context_l0_routing)
        .bind(&w.context_l1_common)
        .bind(&w.context_l2_specific)
        .bind(&w.context_l2_available_features)
        .bind(&w.source_ref)
        .bind(&w.title_key)
        .bind(&w.field_evidence)
}
