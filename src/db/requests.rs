//! canonical.requests: demand-side needs, quote or procurement requests, bookings (mirrors
//! listings; the queries are the shared offer queries of `offers.rs`).

use super::offers::{OfferRecord, OfferSide, OfferTable};
use crate::domain::CanonicalTable;
pub use crate::records::canonical::CanonicalRequest;
use crate::records::canonical::OfferCore;

pub const COLUMNS: &str = "id, created_by_agent_id, principal_id, requester_entity_id, contact_agent_id, request_type, \
    title, description, categories, link_urls, budget_amount, currency_code, location_lat, \
    location_lng, address_text, city, country_code, needed_from_tstamp_utc, needed_by_tstamp_utc, status, \
    merged_into_id, score_data_richness, score_agent_reputation, score_signal, score_confidence, context_l0_routing, \
    context_l1_common, context_l2_specific, context_l2_available_features, created_at_tstamp_utc, \
    updated_at_tstamp_utc";

impl super::batched::ById for CanonicalRequest {
    const SELECT_WHERE_ID_IN: &'static str =
        const_format::concatcp!("SELECT ", COLUMNS, " FROM canonical.requests WHERE id IN ");
    fn id(&self) -> uuid::Uuid {
        self.id
    }
    fn batcher(batchers: &super::batched::Batchers) -> &super::batched::Batcher<Self> {
        &batchers.requests
    }
}

impl OfferRecord for CanonicalRequest {
    const TABLE: OfferTable = OfferTable {
        kind: CanonicalTable::Requests,
        table: "canonical.requests",
        columns: COLUMNS,
        by_id: const_format::concatcp!(
            "SELECT ",
            COLUMNS,
            " FROM canonical.requests WHERE id = $1"
        ),
        type_column: "request_type",
        parent_column: "requester_entity_id",
        amount_column: "budget_amount",
        has_availability: false,
        window_columns: ["needed_from_tstamp_utc", "needed_by_tstamp_utc"],
    };

    fn core(&self) -> &OfferCore {
        &self.core
    }

    fn into_parts(self) -> (OfferSide, OfferCore) {
        let side = OfferSide {
            parent_entity_id: self.requester_entity_id,
            offer_type: self.request_type,
            amount: self.budget_amount,
            availability_status: None,
            window: [self.needed_from_tstamp_utc, self.needed_by_tstamp_utc],
        };
        (side, self.core)
    }
}
