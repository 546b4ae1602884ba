//! Committed trust certificates: an append-only public ledger, hash-chained so anyone can verify it.

use crate::domain::DecimalInput;
use crate::domain::{decimal, json};
use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::FromRow;
use utoipa::ToSchema;
use uuid::Uuid;

/// A public, immutable commitment of a value by the agent that signed the referenced terms.
#[derive(Debug, Clone, FromRow, Serialize, ToSchema, async_graphql::SimpleObject)]
#[graphql(complex)]
pub struct CommittedTrustCertificate {
    pub id: Uuid,
    pub transaction_terms_signature_id: Uuid,
    /// The committing agent: the signer of the referenced signature.
    pub agent_id: Uuid,
    /// `^[A-Z]{3}$`.
    pub currency_code: String,
    /// Greater than 0.
    pub value_amount: Decimal,
    #[schema(value_type = Object)]
    pub metadata: Value,
    pub created_at_tstamp_utc: DateTime<Utc>,
    /// Position in the ledger: 1, 2, 3, … without gaps.
    pub ledger_seq: i64,
    /// `entry_hash` of the certificate at `ledger_seq - 1` (64 zeros for the first).
    pub prev_hash: String,
    /// Hex SHA-256 of this certificate's canonical serialisation (docs/certificate-ledger.md).
    pub entry_hash: String,
}

/// Body of `POST /api/v1/committed-trust-certificates` and input of
/// `createCommittedTrustCertificate`.
#[derive(Debug, Deserialize, ToSchema, async_graphql::InputObject)]
#[serde(deny_unknown_fields)]
#[graphql(name = "CommittedTrustCertificateCreateInput")]
pub struct CommittedTrustCertificateCreate {
    /// A signature made by the calling agent.
    pub transaction_terms_signature_id: Uuid,
    /// Exactly 3 upper-case letters, e.g. `GBP`.
    pub currency_code: String,
    /// Greater than 0: a number or a decimal string, at most 8 decimal places.
    #[serde(deserialize_with = "decimal::deserialize")]
    #[schema(value_type = DecimalInput)]
    pub value_amount: Decimal,
    /// A JSON object, at most 16 KiB.
    #[serde(default, deserialize_with = "json::deserialize_object_option")]
    #[schema(value_type = Option<Object>)]
    pub metadata: Option<Value>,
}

/// The newest certificate of the ledger (sequence 0 and the genesis hash while it is empty).
#[derive(Debug, Clone, Serialize, ToSchema, async_graphql::SimpleObject)]
pub struct LedgerHead {
    pub ledger_seq: i64,
    pub entry_hash: String,
    pub certificate_id: Option<Uuid>,
    pub created_at_tstamp_utc: Option<DateTime<Utc>>,
}

/// What a client needs to recompute the chain from one certificate towards the head.
#[derive(Debug, Clone, Serialize, ToSchema, async_graphql::SimpleObject)]
pub struct CertificateProof {
    /// `strs-ctc-v1`: the canonical serialisation documented in docs/certificate-ledger.md.
    pub algorithm: String,
    pub certificate_id: Uuid,
    /// The head when the proof was made.
    pub head: LedgerHead,
    /// The certificate itself, then its successors in ledger order (at most `limit`).
    pub chain: Vec<CommittedTrustCertificate>,
    /// True when `chain` reaches `head`; otherwise ask again for the proof of its last element.
    pub reaches_head: bool,
}

#[derive(Debug, Clone, Default)]
pub struct CertificateFilter {
    pub agent_id: Option<Uuid>,
    pub currency_code: Option<String>,
}

/// Which key a batch of certificates is grouped by.
#[derive(Debug, Clone, Copy)]
pub enum CertificateKey {
    Signature,
    Agent,
}
