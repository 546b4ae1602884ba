//! Transaction terms (reusable texts agents agree to) and the signatures agents put on them.

use crate::domain::{DecimalInput, TermVisibility};
use crate::domain::{decimal, json};
use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::FromRow;
use utoipa::ToSchema;
use uuid::Uuid;

/// Reusable transaction text. Never edited: new text is a new term (or a new `terms_version`).
#[derive(Debug, Clone, FromRow, Serialize, ToSchema, async_graphql::SimpleObject)]
#[graphql(complex)]
pub struct TransactionTerm {
    pub id: Uuid,
    /// The agent that published the terms (from its bearer credential).
    pub created_by_agent_id: Uuid,
    /// 1 to 300 characters.
    pub title: String,
    /// Markdown, 1 to 100000 characters, stored in its canonical form (line endings `\n`, no
    /// trailing white space at the end of the text).
    pub terms_text: String,
    /// The publisher's own version label, e.g. `1` or `2026-11`; default `1`.
    pub terms_version: String,
    /// Lower-case hex SHA-256 of the UTF-8 bytes of `terms_text` as stored.
    pub content_sha256: String,
    /// `public`: anyone can read it; `private`: only its creator and the agents it is offered to.
    pub visibility: TermVisibility,
    /// The agents a private term is offered to (they may read and sign it); at most 50.
    pub offered_to_agent_ids: Vec<Uuid>,
    /// ISO 4217 code (`^[A-Z]{3}$`) of `value_amount`.
    pub currency_code: Option<String>,
    /// The value the terms are about (0 or more), in `currency_code`.
    pub value_amount: Option<Decimal>,
    /// When the terms start to apply.
    pub valid_from_tstamp_utc: Option<DateTime<Utc>>,
    /// After this instant the terms can no longer be signed.
    pub valid_to_tstamp_utc: Option<DateTime<Utc>>,
    #[schema(value_type = Object)]
    pub metadata: Value,
    pub created_at_tstamp_utc: DateTime<Utc>,
    pub updated_at_tstamp_utc: DateTime<Utc>,
}

/// Body of `POST /api/v1/transaction-terms` and input of `createTransactionTerm`.
#[derive(Debug, Deserialize, ToSchema, async_graphql::InputObject)]
#[serde(deny_unknown_fields)]
#[graphql(name = "TransactionTermCreateInput")]
pub struct TransactionTermCreate {
    /// 1 to 300 characters.
    pub title: String,
    /// Markdown, 1 to 100000 characters.
    pub terms_text: String,
    /// 1 to 64 characters; default `1`.
    #[serde(default)]
    pub terms_version: Option<String>,
    /// `public` (default) or `private`.
    #[serde(default)]
    pub visibility: Option<TermVisibility>,
    /// For private terms: the agents that may read and sign them (at most 50, each must exist).
    #[serde(default)]
    pub offered_to_agent_ids: Option<Vec<Uuid>>,
    /// `^[A-Z]{3}$`; required with `value_amount`.
    #[serde(default)]
    pub currency_code: Option<String>,
    /// 0 or more: a number or a decimal string.
    #[serde(default, deserialize_with = "decimal::deserialize_option")]
    #[schema(value_type = Option<DecimalInput>)]
    pub value_amount: Option<Decimal>,
    #[serde(default)]
    pub valid_from_tstamp_utc: Option<DateTime<Utc>>,
    /// Must be after `valid_from_tstamp_utc`.
    #[serde(default)]
    pub valid_to_tstamp_utc: Option<DateTime<Utc>>,
    /// A JSON object, at most 16 KiB.
    #[serde(default, deserialize_with = "json::deserialize_object_option")]
    #[schema(value_type = Option<Object>)]
    pub metadata: Option<Value>,
}

/// An agent's signature on a term: an opaque string the service stores without verifying it.
#[derive(Debug, Clone, FromRow, Serialize, ToSchema, async_graphql::SimpleObject)]
#[graphql(complex)]
pub struct TransactionTermsSignature {
    pub id: Uuid,
    pub transaction_term_id: Uuid,
    /// The signing agent (from its bearer credential).
    pub signed_by_agent_id: Uuid,
    /// The other party of the deal, when there is one.
    pub counterparty_agent_id: Option<Uuid>,
    /// Opaque, 1 to 8192 characters; not verified by the service.
    pub signature: String,
    /// A free label of how the signature was made, e.g. `ed25519`.
    pub signature_method: Option<String>,
    /// The term's `content_sha256` at signing time: which exact text was signed.
    pub signed_content_sha256: String,
    #[schema(value_type = Object)]
    pub metadata: Value,
    pub created_at_tstamp_utc: DateTime<Utc>,
}

/// Body of `POST /api/v1/transaction-terms-signatures` and input of `signTransactionTerm`.
#[derive(Debug, Deserialize, ToSchema, async_graphql::InputObject)]
#[serde(deny_unknown_fields)]
#[graphql(name = "TransactionTermsSignatureCreateInput")]
pub struct TransactionTermsSignatureCreate {
    /// A term you can read.
    pub transaction_term_id: Uuid,
    /// Opaque, 1 to 8192 characters.
    pub signature: String,
    /// At most 64 characters, e.g. `ed25519`.
    #[serde(default)]
    pub signature_method: Option<String>,
    /// An existing agent, not yourself.
    #[serde(default)]
    pub counterparty_agent_id: Option<Uuid>,
    /// A JSON object, at most 16 KiB.
    #[serde(default, deserialize_with = "json::deserialize_object_option")]
    #[schema(value_type = Option<Object>)]
    pub metadata: Option<Value>,
}

#[derive(Debug, Clone, Copy, Default)]
pub struct SignatureFilter {
    pub transaction_term_id: Option<Uuid>,
    pub signed_by_agent_id: Option<Uuid>,
}

/// Which key a batch of signatures is grouped by.
#[derive(Debug, Clone, Copy)]
pub enum SignatureKey {
    Term,
    Signer,
}
