//! Per-request DataLoaders of messages, terms, signatures and certificates. Loaders that return
//! what the caller may see carry the request's `Ctx`; grouped loaders return at most the services'
//! `EDGE_LIMIT` records per key, newest first, in one statement per batch.

use super::batching::DataLoader;
use crate::ctx::Ctx;
use crate::records::certificates::CertificateKey;
use crate::records::certificates::CommittedTrustCertificate;
use crate::records::messages::Message;
use crate::records::terms::SignatureKey;
use crate::records::terms::{TransactionTerm, TransactionTermsSignature};
use crate::services::{certificates, messages, terms};
use crate::state::AppState;
use async_graphql::dataloader::Loader;
use std::collections::HashMap;
use std::sync::Arc;
use uuid::Uuid;

type LoadError = Arc<async_graphql::Error>;

/// A loader of records by id over `$batch(state, ctx, ids)`.
macro_rules! visible_by_id {
    ($loader:ident, $record:ty, |$state:ident, $ctx:ident, $keys:ident| $batch:expr) => {
        pub struct $loader(pub AppState, pub Ctx);

        impl Loader<Uuid> for $loader {
            type Value = $record;
            type Error = LoadError;
            async fn load(&self, $keys: &[Uuid]) -> Result<HashMap<Uuid, $record>, LoadError> {
                let ($state, $ctx) = (&self.0, &self.1);
                let rows = $batch.await.map_err(|e| Arc::new(e.into()))?;
                Ok(rows.into_iter().map(|r| (r.id, r)).collect())
            }
        }
    };
}

/// A loader of records grouped by a key column over `$batch(state, ctx, keys)`.
macro_rules! grouped_by {
    ($loader:ident, $record:ty, $key:ident, |$state:ident, $ctx:ident, $keys:ident| $batch:expr) => {
        pub struct $loader(pub AppState, pub Ctx);

        impl Loader<Uuid> for $loader {
            type Value = Vec<$record>;
            type Error = LoadError;
            async fn load(&self, $keys: &[Uuid]) -> Result<HashMap<Uuid, Vec<$record>>, LoadError> {
                let ($state, $ctx) = (&self.0, &self.1);
                let rows = $batch.await.map_err(|e| Arc::new(e.into()))?;
                let mut grouped: HashMap<Uuid, Vec<$record>> = HashMap::new();
                for row in rows {
                    grouped.entry(row.$key).or_default().push(row);
                }
                Ok(grouped)
            }
        }
    };
}

visible_by_id!(
    MessageLoader,
    Message,
    |s, c, ids| messages::visible_by_ids(s, c, ids)
);
visible_by_id!(
    TermLoader,
    TransactionTerm,
    |s, c, ids| terms::terms_by_ids(s, c, ids)
);
visible_by_id!(SignatureLoader, TransactionTermsSignature, |s, c, ids| {
    terms::signatures_by_ids(s, c, ids)
});
visible_by_id!(
    CertificateLoader,
    CommittedTrustCertificate,
    |s, _c, ids| { certificates::by_ids(s, ids) }
);
grouped_by!(
    TermsByCreator,
    TransactionTerm,
    created_by_agent_id,
    |s, c, keys| { terms::terms_of_creators(s, c, keys) }
);
grouped_by!(
    SignaturesByTerm,
    TransactionTermsSignature,
    transaction_term_id,
    |s, c, keys| { terms::signatures_for(s, c, SignatureKey::Term, keys) }
);
grouped_by!(
    SignaturesBySigner,
    TransactionTermsSignature,
    signed_by_agent_id,
    |s, c, keys| { terms::signatures_for(s, c, SignatureKey::Signer, keys) }
);
grouped_by!(
    CertificatesBySignature,
    CommittedTrustCertificate,
    transaction_terms_signature_id,
    |s, _c, keys| certificates::for_keys(s, CertificateKey::Signature, keys)
);
grouped_by!(
    CertificatesByAgent,
    CommittedTrustCertificate,
    agent_id,
    |s, _c, keys| { certificates::for_keys(s, CertificateKey::Agent, keys) }
);

/// One record through its loader.
pub async fn load_one<L>(
    ctx: &async_graphql::Context<'_>,
    id: Uuid,
) -> async_graphql::Result<Option<L::Value>>
where
    L: Loader<Uuid, Error = LoadError>,
    DataLoader<L>: super::request_loaders::PerRequest,
{
    super::request_loaders::loader::<DataLoader<L>>(ctx)
        .load_one(id)
        .await
        .map_err(|e| (*e).clone())
}

/// The first `first` (1 to the edge limit, default 20) records of a grouped edge.
pub async fn load_group<L, T>(
    ctx: &async_graphql::Context<'_>,
    key: Uuid,
    first: Option<i32>,
) -> async_graphql::Result<Vec<T>>
where
    L: Loader<Uuid, Value = Vec<T>, Error = LoadError>,
    DataLoader<L>: super::request_loaders::PerRequest,
{
    let first = first.unwrap_or(20);
    if !(1..=terms::EDGE_LIMIT as i32).contains(&first) {
        return Err(crate::error::AppError::invalid(
            &["first"],
            format!("must be between 1 and {}", terms::EDGE_LIMIT),
            "range",
        )
        .into());
    }
    let mut rows = load_one::<L>(ctx, key).await?.unwrap_or_default();
    rows.truncate(first as usize);
    Ok(rows)
}
