//! Canonical records: entities, listings, requests (listings and requests share one offer core)
//! and the provenance links between entries and records.

use crate::domain::{CanonicalTable, LinkType};
use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::FromRow;
use sqlx::postgres::PgRow;
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

#[derive(Debug, Default, Clone)]
pub struct ContributionFilter {
    pub target_canonical_table: Option<CanonicalTable>,
    pub target_canonical_id: Option<Uuid>,
    pub space_time_entry_id: Option<Uuid>,
}

/// A record and its distance in metres from the asked point.
#[derive(Debug, Clone)]
pub struct Near<T> {
    pub record: T,
    pub distance_m: f64,
}

impl<'r, T: FromRow<'r, PgRow>> FromRow<'r, PgRow> for Near<T> {
    fn from_row(row: &'r PgRow) -> sqlx::Result<Self> {
        use sqlx::Row;
        Ok(Near {
            record: T::from_row(row)?,
            distance_m: row.try_get("distance_m")?,
        })
    }
}

/// A kind of canonical record: entity, listing or request. The adapters, the reads and the merges
/// are written once over it; each kind says where its shared fields are.
pub trait CanonicalKind:
    super::geojson::Located + Serialize + Clone + Send + Sync + Unpin + 'static
{
    const TABLE: CanonicalTable;
    /// The noun in messages: "entity", "listing", "request".
    const NOUN: &'static str;
    /// The collection in paths: "entities", "listings", "requests".
    const COLLECTION: &'static str;
    /// The name a map labels it with: an entity's display name, an offer's title.
    fn label(&self) -> &str;
    fn status(&self) -> &str;
    fn score_confidence(&self) -> Decimal;
    fn contact_agent_id(&self) -> Option<Uuid>;
    fn merged_into_id(&self) -> Option<Uuid>;
}

impl CanonicalKind for Entity {
    const TABLE: CanonicalTable = CanonicalTable::Entities;
    const NOUN: &'static str = "entity";
    const COLLECTION: &'static str = "entities";
    fn label(&self) -> &str {
        &self.display_name
    }
    fn status(&self) -> &str {
        &self.status
    }
    fn score_confidence(&self) -> Decimal {
        self.score_confidence
    }
    fn contact_agent_id(&self) -> Option<Uuid> {
        self.contact_agent_id
    }
    fn merged_into_id(&self) -> Option<Uuid> {
        self.merged_into_id
    }
}

/// Listings and requests keep their shared fields in `core`.
macro_rules! offer_kind {
    ($record:ty, $table:expr, $noun:literal, $collection:literal) => {
        impl CanonicalKind for $record {
            const TABLE: CanonicalTable = $table;
            const NOUN: &'static str = $noun;
            const COLLECTION: &'static str = $collection;
            fn label(&self) -> &str {
                &self.core.title
            }
            fn status(&self) -> &str {
                &self.core.status
            }
            fn score_confidence(&self) -> Decimal {
                self.core.score_confidence
            }
            fn contact_agent_id(&self) -> Option<Uuid> {
                self.core.contact_agent_id
            }
            fn merged_into_id(&self) -> Option<Uuid> {
                self.core.merged_into_id
            }
        }
    };
}

offer_kind!(Listing, CanonicalTable::Listings, "listing", "listings");
offer_kind!(
    CanonicalRequest,
    CanonicalTable::Requests,
    "request",
    "requests"
);

/// Any canonical record: a search hit's full record, a contribution's target. The JSON is the
/// record itself (untagged); GraphQL tells the kinds apart by `__typename`.
#[derive(Debug, Clone, Serialize, ToSchema, async_graphql::Union)]
#[serde(untagged)]
pub enum CanonicalRecord {
    Entity(Entity),
    Listing(Listing),
    Request(CanonicalRequest),
}
