//! Canonical records: entities, listings, requests (listings and requests share one offer core)
//! and the provenance links between entries and records.

use crate::domain::{CanonicalTable, LinkType};
use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::FromRow;
use utoipa::ToSchema;
use uuid::Uuid;

/// A link of a canonical record.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, async_graphql::SimpleObject)]
pub struct LinkUrl {
    pub url: String,
    pub label: Option<String>,
    pub description: Option<String>,
}

/// A canonical entity: the service's current truth about one business, place or organisation.
#[derive(Debug, Clone, FromRow, Serialize, Deserialize, ToSchema, async_graphql::SimpleObject)]
#[graphql(complex)]
pub struct Entity {
    pub id: Uuid,
    pub entity_type: String,
    pub display_name: String,
    pub legal_name: Option<String>,
    pub description: Option<String>,
    pub website_url: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub address_text: Option<String>,
    pub city: Option<String>,
    pub country_code: Option<String>,
    pub categories: Vec<String>,
    pub tags: Vec<String>,
    #[sqlx(json)]
    pub link_urls: Vec<LinkUrl>,
    pub contact_agent_id: Option<Uuid>,
    pub location_lat: f64,
    pub location_lng: f64,
    pub status: String,
    /// With status `merged`: the record an operator merged this one into (GET of this id
    /// answers with that record).
    pub merged_into_id: Option<Uuid>,
    /// 0 to 1: how complete the record and its context are.
    pub score_data_richness: Decimal,
    pub score_agent_reputation: Option<Decimal>,
    /// 0 to 1 from signals; null without signals.
    pub score_signal: Option<Decimal>,
    /// 0 to 1: corroboration by independent agents, recency, signals.
    pub score_confidence: Decimal,
    #[schema(value_type = Object)]
    pub context_l0_routing: Value,
    #[schema(value_type = Object)]
    pub context_l1_common: Value,
    #[schema(value_type = Object)]
    pub context_l2_specific: Value,
    pub context_l2_available_features: Vec<String>,
    pub created_at_tstamp_utc: DateTime<Utc>,
    pub updated_at_tstamp_utc: DateTime<Utc>,
}

/// What a listing (an offer) and a request (a need) have in common: who made it, what it is,
/// where it is, its scores and context. Each record adds its kind, its amount, its time window
/// and the entity offering or asking.
#[derive(Debug, Clone, FromRow, Serialize, Deserialize, ToSchema, async_graphql::SimpleObject)]
pub struct OfferCore {
    pub created_by_agent_id: Option<Uuid>,
    pub principal_id: Option<Uuid>,
    pub contact_agent_id: Option<Uuid>,
    pub title: String,
    pub description: Option<String>,
    pub categories: Vec<String>,
    #[sqlx(json)]
    pub link_urls: Vec<LinkUrl>,
    pub currency_code: Option<String>,
    pub location_lat: f64,
    pub location_lng: f64,
    pub address_text: Option<String>,
    pub city: Option<String>,
    pub country_code: Option<String>,
    pub status: String,
    /// With status `merged`: the record of the same kind an operator merged this one into (GET
    /// of this id answers with that record).
    pub merged_into_id: Option<Uuid>,
    /// 0 to 1: how complete the record and its context are.
    pub score_data_richness: Decimal,
    pub score_agent_reputation: Option<Decimal>,
    /// 0 to 1 from signals; null without signals.
    pub score_signal: Option<Decimal>,
    /// 0 to 1: corroboration by independent agents, recency, signals.
    pub score_confidence: Decimal,
    #[schema(value_type = Object)]
    pub context_l0_routing: Value,
    #[schema(value_type = Object)]
    pub context_l1_common: Value,
    #[schema(value_type = Object)]
    pub context_l2_specific: Value,
    pub context_l2_available_features: Vec<String>,
    pub created_at_tstamp_utc: DateTime<Utc>,
    pub updated_at_tstamp_utc: DateTime<Utc>,
}

/// A canonical listing: one concrete offer.
#[derive(Debug, Clone, FromRow, Serialize, Deserialize, ToSchema, async_graphql::SimpleObject)]
#[graphql(complex)]
pub struct Listing {
    pub id: Uuid,
    pub provider_entity_id: Option<Uuid>,
    pub listing_type: String,
    pub price_amount: Option<Decimal>,
    pub availability_status: Option<String>,
    pub valid_from_tstamp_utc: Option<DateTime<Utc>>,
    pub valid_to_tstamp_utc: Option<DateTime<Utc>>,
    #[sqlx(flatten)]
    #[serde(flatten)]
    #[graphql(flatten)]
    pub core: OfferCore,
}

/// A canonical request: one concrete need.
#[derive(Debug, Clone, FromRow, Serialize, Deserialize, ToSchema, async_graphql::SimpleObject)]
#[graphql(complex)]
pub struct CanonicalRequest {
    pub id: Uuid,
    pub requester_entity_id: Option<Uuid>,
    pub request_type: String,
    pub budget_amount: Option<Decimal>,
    pub needed_from_tstamp_utc: Option<DateTime<Utc>>,
    pub needed_by_tstamp_utc: Option<DateTime<Utc>>,
    #[sqlx(flatten)]
    #[serde(flatten)]
    #[graphql(flatten)]
    pub core: OfferCore,
}

/// Provenance: which entry created, updated, matched or supported which record.
#[derive(Debug, Clone, FromRow, Serialize, ToSchema, async_graphql::SimpleObject)]
#[graphql(complex)]
pub struct LinkContribution {
    pub id: Uuid,
    pub source_space_time_entry_id: Uuid,
    pub target_canonical_table: CanonicalTable,
    pub target_canonical_id: Uuid,
    pub link_type: LinkType,
    pub contribution_weight: Decimal,
    pub information_power: Option<Decimal>,
    pub score_confidence: Decimal,
    pub transformer_name: String,
    pub transformer_version: Option<String>,
    pub transformer_run_id: Uuid,
    pub reason: Option<String>,
    #[schema(value_type = Object)]
    pub metadata: Value,
    pub created_at_tstamp_utc: DateTime<Utc>,
}
