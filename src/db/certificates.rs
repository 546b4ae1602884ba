//! committed_trust_certificates: the append-only, hash-chained ledger. Appends are serialised by
//! a transaction-scoped advisory lock shared by every server process; the unique `ledger_seq` and
//! `prev_hash` columns refuse a fork even from a writer that skipped the lock.

use crate::domain::ListParams;
pub use crate::records::certificates::CertificateFilter;
pub use crate::records::certificates::CertificateKey;
use crate::records::certificates::CommittedTrustCertificate;
use rust_decimal::Decimal;
use serde_json::Value;
use sqlx::PgConnection;
use uuid::Uuid;

const COLUMNS: &str = "id, transaction_terms_signature_id, agent_id, currency_code, value_amount, metadata, \
    created_at_tstamp_utc, ledger_seq, prev_hash, entry_hash";

/// Key of the advisory lock that orders appends to the ledger.
const LEDGER_LOCK: i64 = 0x5354_5253_4c45_4447; // "STRSLEDG"

/// Waits for the ledger lock; it is released when the transaction ends.
pub async fn lock_ledger(conn: &mut PgConnection) -> Result<(), sqlx::Error> {
    sqlx::query("SELECT pg_advisory_xact_lock($1)")
        .bind(LEDGER_LOCK)
        .execute(conn)
        .await?;
    Ok(())
}

/// The newest certificate, if the ledger has one.
pub async fn head<'c>(
    executor: impl sqlx::PgExecutor<'c>,
) -> Result<Option<CommittedTrustCertificate>, sqlx::Error> {
    sqlx::query_as(&format!(
        "SELECT {COLUMNS} FROM committed_trust_certificates ORDER BY ledger_seq DESC LIMIT 1"
    ))
    .fetch_optional(executor)
    .await
}

/// PostgreSQL's own form of a JSON value (jsonb orders keys and folds duplicates), so a hash taken
/// before the insert matches the value every later read returns.
pub async fn jsonb_form(conn: &mut PgConnection, value: &Value) -> Result<Value, sqlx::Error> {
    sqlx::query_scalar("SELECT $1::jsonb")
        .bind(value)
        .fetch_one(conn)
        .await
}

pub async fn insert(
    conn: &mut PgConnection,
    c: &CommittedTrustCertificate,
) -> Result<CommittedTrustCertificate, sqlx::Error> {
    sqlx::query_as(&format!(
        "INSERT INTO committed_trust_certificates ({COLUMNS})
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING {COLUMNS}"
    ))
    .bind(c.id)
    .bind(c.transaction_terms_signature_id)
    .bind(c.agent_id)
    .bind(&c.currency_code)
    .bind(c.value_amount)
    .bind(&c.metadata)
    .bind(c.created_at_tstamp_utc)
    .bind(c.ledger_seq)
    .bind(&c.prev_hash)
    .bind(&c.entry_hash)
    .fetch_one(conn)
    .await
}

/// Keeps an agent's `truth_certificate_amount_gbp` equal to the sum of its GBP certificates.
pub async fn add_to_agent_gbp_total(
    conn: &mut PgConnection,
    agent: Uuid,
    amount: Decimal,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE agents SET truth_certificate_amount_gbp = truth_certificate_amount_gbp + $2 WHERE id = $1",
    )
    .bind(agent)
    .bind(amount)
    .execute(conn)
    .await?;
    Ok(())
}

pub async fn get_many<'c>(
    executor: impl sqlx::PgExecutor<'c>,
    ids: &[Uuid],
) -> Result<Vec<CommittedTrustCertificate>, sqlx::Error> {
    sqlx::query_as(&format!(
        "SELECT {COLUMNS} FROM committed_trust_certificates WHERE id = ANY($1)"
    ))
    .bind(ids)
    .fetch_all(executor)
    .await
}

/// Newest first.
pub async fn list<'c>(
    pool: impl super::Reads<'c>,
    f: &CertificateFilter,
    params: &ListParams,
) -> Result<Vec<CommittedTrustCertificate>, sqlx::Error> {
    sqlx::query_as(&format!(
        "SELECT {COLUMNS} FROM committed_trust_certificates
         WHERE ($1::uuid IS NULL OR agent_id = $1) AND ($2::text IS NULL OR currency_code = $2)
           AND ($3::uuid IS NULL OR id < $3)
         ORDER BY id DESC LIMIT $4"
    ))
    .bind(f.agent_id)
    .bind(&f.currency_code)
    .bind(params.after)
    .bind(params.fetch_limit())
    .fetch_all(pool)
    .await
}

/// Certificates from `from_seq` on, in ledger order, at most `limit`.
pub async fn chain_from<'c>(
    pool: impl super::Reads<'c>,
    from_seq: i64,
    limit: i64,
) -> Result<Vec<CommittedTrustCertificate>, sqlx::Error> {
    sqlx::query_as(&format!(
        "SELECT {COLUMNS} FROM committed_trust_certificates WHERE ledger_seq >= $1 ORDER BY ledger_seq LIMIT $2"
    ))
    .bind(from_seq)
    .bind(limit)
    .fetch_all(pool)
    .await
}

/// The newest `per_key` certificates of each signature or agent: one statement for a page.
pub async fn for_keys<'c>(
    pool: impl super::Reads<'c>,
    by: CertificateKey,
    keys: &[Uuid],
    per_key: i64,
) -> Result<Vec<CommittedTrustCertificate>, sqlx::Error> {
    let column = match by {
        CertificateKey::Signature => "transaction_terms_signature_id",
        CertificateKey::Agent => "agent_id",
    };
    sqlx::query_as(&format!(
        "SELECT page.* FROM unnest($1::uuid[]) AS k(id)
         CROSS JOIN LATERAL (
            SELECT {COLUMNS} FROM committed_trust_certificates
            WHERE {column} = k.id ORDER BY id DESC LIMIT $2) page"
    ))
    .bind(keys)
    .bind(per_key)
    .fetch_all(pool)
    .await
}
