//! transaction_terms_signatures: one signature per agent and term. A signature is visible to whoever
//! may read its term (the term's rule, joined in the SQL).

use crate::domain::ListParams;
pub use crate::records::terms::SignatureFilter;
pub use crate::records::terms::SignatureKey;
use crate::records::terms::TransactionTermsSignature;
use serde_json::Value;
use sqlx::PgConnection;
use uuid::Uuid;

const COLUMNS: &str = "s.id, s.transaction_term_id, s.signed_by_agent_id, s.counterparty_agent_id, s.signature, \
    s.signature_method, s.signed_content_sha256, s.metadata, s.created_at_tstamp_utc";

/// `$1` is the reading agent (or null).
const VISIBLE_TERM: &str = "EXISTS (SELECT 1 FROM transaction_terms t WHERE t.id = s.transaction_term_id
    AND (t.visibility = 'public' OR t.created_by_agent_id = $1 OR $1 = ANY(t.offered_to_agent_ids)))";

pub struct NewSignature {
    pub transaction_term_id: Uuid,
    pub signed_by_agent_id: Uuid,
    pub counterparty_agent_id: Option<Uuid>,
    pub signature: String,
    pub signature_method: Option<String>,
    pub signed_content_sha256: String,
    pub metadata: Value,
}

/// None when the agent has signed this term already (the unique constraint decides, so two
/// concurrent requests cannot both sign).
pub async fn insert(
    conn: &mut PgConnection,
    n: &NewSignature,
) -> Result<Option<TransactionTermsSignature>, sqlx::Error> {
    sqlx::query_as(&format!(
        "INSERT INTO transaction_terms_signatures AS s (id, transaction_term_id, signed_by_agent_id,
             counterparty_agent_id, signature, signature_method, signed_content_sha256, metadata)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT ON CONSTRAINT transaction_terms_signatures_one_per_signer_key DO NOTHING
         RETURNING {COLUMNS}"
    ))
    .bind(Uuid::now_v7())
    .bind(n.transaction_term_id)
    .bind(n.signed_by_agent_id)
    .bind(n.counterparty_agent_id)
    .bind(&n.signature)
    .bind(&n.signature_method)
    .bind(&n.signed_content_sha256)
    .bind(&n.metadata)
    .fetch_optional(conn)
    .await
}

/// The id of `signer`'s signature on `term`, if any.
pub async fn existing(
    conn: &mut PgConnection,
    term: Uuid,
    signer: Uuid,
) -> Result<Option<Uuid>, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT id FROM transaction_terms_signatures WHERE transaction_term_id = $1 AND signed_by_agent_id = $2",
    )
    .bind(term)
    .bind(signer)
    .fetch_optional(conn)
    .await
}

/// Signatures among `ids` whose term `viewer` may read.
pub async fn get_many_visible<'c>(
    executor: impl sqlx::PgExecutor<'c>,
    ids: &[Uuid],
    viewer: Option<Uuid>,
) -> Result<Vec<TransactionTermsSignature>, sqlx::Error> {
    sqlx::query_as(&format!(
        "SELECT {COLUMNS} FROM transaction_terms_signatures s WHERE s.id = ANY($2) AND {VISIBLE_TERM}"
    ))
    .bind(viewer)
    .bind(ids)
    .fetch_all(executor)
    .await
}

pub async fn list<'c>(
    pool: impl super::Reads<'c>,
    viewer: Option<Uuid>,
    f: SignatureFilter,
    params: &ListParams,
) -> Result<Vec<TransactionTermsSignature>, sqlx::Error> {
    sqlx::query_as(&format!(
        "SELECT {COLUMNS} FROM transaction_terms_signatures s
         WHERE {VISIBLE_TERM} AND ($2::uuid IS NULL OR s.transaction_term_id = $2)
           AND ($3::uuid IS NULL OR s.signed_by_agent_id = $3) AND ($4::uuid IS NULL OR s.id < $4)
         ORDER BY s.id DESC LIMIT $5"
    ))
    .bind(viewer)
    .bind(f.transaction_term_id)
    .bind(f.signed_by_agent_id)
    .bind(params.after)
    .bind(params.fetch_limit())
    .fetch_all(pool)
    .await
}

/// The newest `per_key` visible signatures of each term or signer: one statement for a page.
pub async fn for_keys<'c>(
    pool: impl super::Reads<'c>,
    viewer: Option<Uuid>,
    by: SignatureKey,
    keys: &[Uuid],
    per_key: i64,
) -> Result<Vec<TransactionTermsSignature>, sqlx::Error> {
    let column = match by {
        SignatureKey::Term => "transaction_term_id",
        SignatureKey::Signer => "signed_by_agent_id",
    };
    sqlx::query_as(&format!(
        "SELECT page.* FROM unnest($2::uuid[]) AS k(id)
         CROSS JOIN LATERAL (
            SELECT {COLUMNS} FROM transaction_terms_signatures s
            WHERE s.{column} = k.id AND {VISIBLE_TERM}
            ORDER BY s.id DESC LIMIT $3) page"
    ))
    .bind(viewer)
    .bind(keys)
    .bind(per_key)
    .fetch_all(pool)
    .await
}
