//! canonical.listings: concrete offers, availability, jobs, products, services, inventory.

use crate::domain::ListParams;
pub use crate::records::canonical::Listing;
use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use serde_json::Value;
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

#[derive(Debug, Clone)]
pub struct ListingWrite {
    pub principal_id: Option<Uuid>,
    pub provider_entity_id: Option<Uuid>,
    pub contact_agent_id: Option<Uuid>,
    pub listing_type: String,
    pub title: String,
    pub description: Option<String>,
    pub categories: Vec<String>,
    pub link_urls: Value,
    pub price_amount: Option<Decimal>,
    pub currency_code: Option<String>,
    pub availability_status: Option<String>,
    pub location_lat: f64,
    pub location_lng: f64,
    pub address_text: Option<String>,
    pub city: Option<String>,
    pub country_code: Option<String>,
    pub valid_from: Option<DateTime<Utc>>,
    pub valid_to: Option<DateTime<Utc>>,
    pub status: String,
    pub context_l0_routing: Value,
    pub context_l1_common: Value,
    pub context_l2_specific: Value,
    pub context_l2_available_features: Vec<String>,
    pub source_ref: Option<String>,
    pub title_key: String,
    pub field_evidence: Value,
}

pub const COLUMNS: &str = "id, created_by_agent_id, principal_id, provider_entity_id, contact_agent_id, listing_type, \
    title, description, categories, link_urls, price_amount, currency_code, availability_status, location_lat, \
    location_lng, address_text, city, country_code, valid_from_tstamp_utc, valid_to_tstamp_utc, status, \
    score_data_richness, score_agent_reputation, score_signal, score_confidence, context_l0_routing, \
    context_l1_common, context_l2_specific, context_l2_available_features, created_at_tstamp_utc, \
    updated_at_tstamp_utc";

/// Works on the pool or inside a transaction.
pub async fn get<'c>(
    executor: impl sqlx::PgExecutor<'c>,
    id: Uuid,
) -> Result<Option<Listing>, sqlx::Error> {
    sqlx::query_as(&format!(
        "SELECT {COLUMNS} FROM canonical.listings WHERE id = $1"
    ))
    .bind(id)
    .fetch_optional(executor)
    .await
}

/// Works on the pool or inside a transaction.
pub async fn get_many<'c>(
    executor: impl sqlx::PgExecutor<'c>,
    ids: &[Uuid],
) -> Result<Vec<Listing>, sqlx::Error> {
    sqlx::query_as(&format!(
        "SELECT {COLUMNS} FROM canonical.listings WHERE id = ANY($1)"
    ))
    .bind(ids)
    .fetch_all(executor)
    .await
}

pub async fn list(
    pool: &PgPool,
    status: Option<&str>,
    params: &ListParams,
) -> Result<Vec<Listing>, sqlx::Error> {
    sqlx::query_as(&format!(
        "SELECT {COLUMNS} FROM canonical.listings
         WHERE ($1::text IS NULL OR status = $1) AND ($2::uuid IS NULL OR id < $2) ORDER BY id DESC LIMIT $3"
    ))
    .bind(status)
    .bind(params.after)
    .bind(params.fetch_limit())
    .fetch_all(pool)
    .await
}

pub async fn list_by_provider(
    pool: &PgPool,
    entity_id: Uuid,
    params: &ListParams,
) -> Result<Vec<Listing>, sqlx::Error> {
    sqlx::query_as(&format!(
        "SELECT {COLUMNS} FROM canonical.listings
         WHERE provider_entity_id = $1 AND ($2::uuid IS NULL OR id < $2) ORDER BY id DESC LIMIT $3"
    ))
    .bind(entity_id)
    .bind(params.after)
    .bind(params.fetch_limit())
    .fetch_all(pool)
    .await
}

pub async fn get_for_update(
    conn: &mut PgConnection,
    id: Uuid,
) -> Result<Option<super::entities::Locked<Listing>>, sqlx::Error> {
    #[derive(sqlx::FromRow)]
    struct Row {
        #[sqlx(flatten)]
        listing: Listing,
        field_evidence: Value,
        source_ref: Option<String>,
    }
    let row: Option<Row> = sqlx::query_as(&format!(
        "SELECT {COLUMNS}, field_evidence, source_ref FROM canonical.listings WHERE id = $1 FOR UPDATE"
    ))
    .bind(id)
    .fetch_optional(conn)
    .await?;
    Ok(row.map(|r| super::entities::Locked {
        created_by_agent_id: r.listing.core.created_by_agent_id,
        record: r.listing,
        field_evidence: r.field_evidence,
        source_ref: r.source_ref,
    }))
}

/// Listings sharing the source record, or the same title from the same provider or at the same spot.
pub async fn candidates(
    conn: &mut PgConnection,
    latitude: f64,
    longitude: f64,
    title_key: &str,
    provider_entity_id: Option<Uuid>,
    source_ref: Option<&str>,
) -> Result<Vec<super::OfferCandidateRow>, sqlx::Error> {
    sqlx::query_as(
        "WITH point AS (SELECT ST_SetSRID(ST_MakePoint($2, $1), 4326)::geography AS g)
         SELECT id, ST_Distance(location, (SELECT g FROM point)) AS distance_m, provider_entity_id AS parent_id,
                title_key, source_ref
         FROM canonical.listings
         WHERE status <> 'withdrawn' AND (source_ref = $5
            OR (title_key = $3 AND (provider_entity_id = $4 OR ST_DWithin(location, (SELECT g FROM point), 50))))
         LIMIT 50",
    )
    .bind(latitude)
    .bind(longitude)
    .bind(title_key)
    .bind(provider_entity_id)
    .bind(source_ref)
    .fetch_all(conn)
    .await
}

pub async fn insert(
    conn: &mut PgConnection,
    id: Uuid,
    w: &ListingWrite,
    created_by: Uuid,
) -> Result<(), sqlx::Error> {
    let query = sqlx::query(
        "INSERT INTO canonical.listings (principal_id, provider_entity_id, contact_agent_id, listing_type, title,
             description, categories, link_urls, price_amount, currency_code, availability_status, location_lat,
             location_lng, address_text, city, country_code, valid_from_tstamp_utc, valid_to_tstamp_utc, status,
             context_l0_routing, context_l1_common, context_l2_specific, context_l2_available_features, source_ref,
             title_key, field_evidence, id, created_by_agent_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22,
             $23, $24, $25, $26, $27, $28)",
    );
    bind_write(query, w)
        .bind(id)
        .bind(created_by)
        .execute(conn)
        .await?;
    Ok(())
}

pub async fn update(
    conn: &mut PgConnection,
    id: Uuid,
    w: &ListingWrite,
) -> Result<(), sqlx::Error> {
    let query = sqlx::query(
        "UPDATE canonical.listings SET principal_id = $1, provider_entity_id = $2, contact_agent_id = $3,
             listing_type = $4, title = $5, description = $6, categories = $7, link_urls = $8, price_amount = $9,
             currency_code = $10, availability_status = $11, location_lat = $12, location_lng = $13,
             address_text = $14, city = $15, country_code = $16, valid_from_tstamp_utc = $17,
             valid_to_tstamp_utc = $18, status = $19, context_l0_routing = $20, context_l1_common = $21,
             context_l2_specific = $22, context_l2_available_features = $23, source_ref = $24, title_key = $25,
             field_evidence = $26
         WHERE id = $27",
    );
    bind_write(query, w).bind(id).execute(conn).await?;
    Ok(())
}

type PgQuery<'q> = sqlx::query::Query<'q, sqlx::Postgres, sqlx::postgres::PgArguments>;

/// Binds $1..$26 in the column order shared by insert and update.
fn bind_write<'q>(query: PgQuery<'q>, w: &'q ListingWrite) -> PgQuery<'q> {
    query
        .bind(w.principal_id)
        .bind(w.provider_entity_id)
        .bind(w.contact_agent_id)
        .bind(&w.listing_type)
        .bind(&w.title)
        .bind(&w.description)
        .bind(&w.categories)
        .bind(&w.link_urls)
        .bind(w.price_amount)
        .bind(&w.currency_code)
        .bind(&w.availability_status)
        .bind(w.location_lat)
        .bind(w.location_lng)
        .bind(&w.address_text)
        .bind(&w.city)
        .bind(&w.country_code)
        .bind(w.valid_from)
        .bind(w.valid_to)
        .bind(&w.status)
        .bind(&w.context_l0_routing)
        .bind(&w.context_l1_common)
        .bind(&w.context_l2_specific)
        .bind(&w.context_l2_available_features)
        .bind(&w.source_ref)
        .bind(&w.title_key)
        .bind(&w.field_evidence)
}
