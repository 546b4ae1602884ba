//! "I have an id, what is it?": the kind of record an id names, then the record itself through
//! the same read (and visibility rule) as its own getter.

use crate::db;
use crate::error::AppResult;
use crate::state::AppState;
use uuid::Uuid;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordKind {
    Principal,
    Agent,
    SpaceTimeEntry,
    Entity,
    Listing,
    Request,
    Message,
    TransactionTerm,
    TransactionTermsSignature,
    CommittedTrustCertificate,
}

impl RecordKind {
    fn of_table(table: &str) -> Option<RecordKind> {
        Some(match table {
            "principals" => RecordKind::Principal,
            "agents" => RecordKind::Agent,
            "space_time_entries" => RecordKind::SpaceTimeEntry,
            "canonical.entities" => RecordKind::Entity,
            "canonical.listings" => RecordKind::Listing,
            "canonical.requests" => RecordKind::Request,
            "messages" => RecordKind::Message,
            "transaction_terms" => RecordKind::TransactionTerm,
            "transaction_terms_signatures" => RecordKind::TransactionTermsSignature,
            "committed_trust_certificates" => RecordKind::CommittedTrustCertificate,
            _ => return None,
        })
    }
}

/// The kind of record `id` names, if any. Whether the caller may see it is the getter's rule.
#[tracing::instrument(name = "lookup::kind_of", level = "debug", skip_all, fields(id = %id))]
pub async fn kind_of(state: &AppState, id: Uuid) -> AppResult<Option<RecordKind>> {
    let table = db::lookup::table_of(crate::services::read_route::reads(state), id).await?;
    Ok(table.as_deref().and_then(RecordKind::of_table))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_probed_table_has_a_kind() {
        for table in db::lookup::TABLES {
            assert!(RecordKind::of_table(table).is_some(), "{table}");
        }
    }
}
