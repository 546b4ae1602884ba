//! canonical.listings: concrete offers, availability, jobs, products, services, inventory. The
//! queries are the shared offer queries of `offers.rs`.

use super::offers::{OfferRecord, OfferSide, OfferTable};
use crate::domain::CanonicalTable;
pub use crate::records::canonical::Listing;
use crate::records::canonical::OfferCore;

pub const COLUMNS: &str = "id, created_by_agent_id, principal_id, provider_entity_id, contact_agent_id, listing_type, \
    title, description, categories, link_urls, price_amount, currency_code, availability_status, location_lat, \
    location_lng, address_text, city, country_code, valid_from_tstamp_utc, valid_to_tstamp_utc, status, \
    merged_into_id, score_data_richness, score_agent_reputation, score_signal, score_confidence, context_l0_routing, \
    context_l1_common, context_l2_specific, context_l2_available_features, created_at_tstamp_utc, \
    updated_at_tstamp_utc";

impl super::batched::ById for Listing {
    const SELECT_WHERE_ID_IN: &'static str =
        const_format::concatcp!("SELECT ", COLUMNS, " FROM canonical.listings WHERE id IN ");
    fn id(&self) -> uuid::Uuid {
        self.id
    }
    fn batcher(batchers: &super::batched::Batchers) -> &super::batched::Batcher<Self> {
        &batchers.listings
    }
}

impl OfferRecord for Listing {
    const TABLE: OfferTable = OfferTable {
        kind: CanonicalTable::Listings,
        table: "canonical.listings",
        columns: COLUMNS,
        by_id: const_format::concatcp!(
            "SELECT ",
            COLUMNS,
            " FROM canonical.listings WHERE id = $1"
        ),
        type_column: "listing_type",
        parent_column: "provider_entity_id",
        amount_column: "price_amount",
        has_availability: true,
        window_columns: ["valid_from_tstamp_utc", "valid_to_tstamp_utc"],
    };

    fn core(&self) -> &OfferCore {
        &self.core
    }

    fn into_parts(self) -> (OfferSide, OfferCore) {
        let side = OfferSide {
            parent_entity_id: self.provider_entity_id,
            offer_type: self.listing_type,
            amount: self.price_amount,
            availability_status: self.availability_status,
            window: [self.valid_from_tstamp_utc, self.valid_to_tstamp_utc],
        };
        (side, self.core)
    }
}
