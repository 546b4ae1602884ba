//! Committed trust certificates: an append-only public ledger. Each certificate is chained to the
//! one before it by SHA-256 (`domain::ledger`), appended under one lock for all server processes.

use super::terms::{check_metadata, is_currency_code};
use crate::ctx::Ctx;
use crate::db::certificates::{self as db, CertificateFilter, CertificateKey};
use crate::domain::ledger::{self, GENESIS_HASH};
use crate::domain::{ListParams, Page, Violations};
use crate::error::{AppError, AppResult};
use crate::records::certificates::{
    CertificateProof, CommittedTrustCertificate, CommittedTrustCertificateCreate, LedgerHead,
};
use crate::state::AppState;
use chrono::{SubsecRound, Utc};
use rust_decimal::Decimal;
use uuid::Uuid;

/// Largest amount a certificate can commit, and its decimal places.
pub const MAX_VALUE_AMOUNT: i64 = 1_000_000_000_000_000;
pub const MAX_VALUE_SCALE: u32 = 8;
/// Certificates one proof returns at most (ask the proof of its last one for the next run).
pub const MAX_PROOF_LENGTH: i64 = 500;
pub const DEFAULT_PROOF_LENGTH: i64 = 100;
/// Certificates per signature or agent that one graph edge returns at most.
pub const EDGE_LIMIT: i64 = 100;
pub const GBP: &str = "GBP";

fn at<'a>(loc: &[&'a str], field: &'a str) -> Vec<&'a str> {
    loc.iter().copied().chain([field]).collect()
}

fn validate(input: &CommittedTrustCertificateCreate, v: &mut Violations) {
    v.check(
        is_currency_code(&input.currency_code),
        "currency_code",
        "must be exactly 3 upper-case letters (^[A-Z]{3}$), e.g. GBP",
        "string_pattern_mismatch",
    );
    v.check(
        input.value_amount > Decimal::ZERO,
        "value_amount",
        "must be greater than 0",
        "greater_than",
    );
    v.check(
        input.value_amount <= Decimal::from(MAX_VALUE_AMOUNT),
        "value_amount",
        &format!("must be at most {MAX_VALUE_AMOUNT}"),
        "less_than_equal",
    );
    v.check(
        input.value_amount.scale() <= MAX_VALUE_SCALE,
        "value_amount",
        &format!("at most {MAX_VALUE_SCALE} decimal places"),
        "decimal_max_places",
    );
}

/// Appends a certificate for a signature the caller made. A signature the caller cannot see is
/// answered like a missing one (422); one made by another agent is refused with 403.
#[tracing::instrument(name = "certificates::create", level = "debug", skip_all)]
pub async fn create(
    state: &AppState,
    ctx: &Ctx,
    input: CommittedTrustCertificateCreate,
    loc: &[&str],
) -> AppResult<CommittedTrustCertificate> {
    let agent = ctx.require_active_agent()?.agent_id;
    let mut v = Violations::at(loc);
    validate(&input, &mut v);
    let metadata = check_metadata(input.metadata, &mut v);
    v.into_result()?;
    let mut tx = state.pool.begin().await?;
    let signature = crate::db::signatures::get_many_visible(
        &mut *tx,
        &[input.transaction_terms_signature_id],
        Some(agent),
    )
    .await?
    .pop()
    .ok_or_else(|| {
        AppError::invalid(
            &at(loc, "transaction_terms_signature_id"),
            "no such transaction terms signature",
            "not_found",
        )
    })?;
    if signature.signed_by_agent_id != agent {
        return Err(AppError::Forbidden(
            "only the agent that made the referenced signature can commit a certificate for it"
                .into(),
        ));
    }
    let metadata = db::jsonb_form(&mut tx, &metadata).await?;
    db::lock_ledger(&mut tx).await?;
    let head = db::head(&mut *tx).await?;
    let mut certificate = CommittedTrustCertificate {
        id: Uuid::now_v7(),
        transaction_terms_signature_id: signature.id,
        agent_id: agent,
        currency_code: input.currency_code,
        value_amount: input.value_amount,
        metadata,
        // PostgreSQL keeps microseconds: hash the instant exactly as it will be read back.
        created_at_tstamp_utc: Utc::now().trunc_subsecs(6),
        ledger_seq: head.as_ref().map_or(1, |h| h.ledger_seq + 1),
        prev_hash: head.map_or_else(|| GENESIS_HASH.to_string(), |h| h.entry_hash),
        entry_hash: String::new(),
    };
    certificate.entry_hash = hash_of(&certificate)?;
    let stored = db::insert(&mut tx, &certificate).await?;
    if stored.currency_code == GBP {
        db::add_to_agent_gbp_total(&mut tx, agent, stored.value_amount).await?;
    }
    tx.commit().await?;
    Ok(stored)
}

fn hash_of(certificate: &CommittedTrustCertificate) -> AppResult<String> {
    let json = serde_json::to_value(certificate).map_err(AppError::internal)?;
    ledger::entry_hash(&json).map_err(|e| AppError::internal(anyhow::anyhow!(e)))
}

#[tracing::instrument(name = "certificates::get", level = "debug", skip_all, fields(id = %id))]
pub async fn get(state: &AppState, id: Uuid) -> AppResult<CommittedTrustCertificate> {
    crate::services::read_route::read_many!(state, &[id], |c| c.id, |pool, ids| db::get_many(
        pool, ids
    ))?
    .pop()
    .ok_or(AppError::NotFound("committed trust certificate"))
}

#[tracing::instrument(
    name = "certificates::by_ids", level = "debug", skip_all,
    fields(count = ids.len())
)]
pub async fn by_ids(state: &AppState, ids: &[Uuid]) -> AppResult<Vec<CommittedTrustCertificate>> {
    Ok(crate::services::read_route::read_many!(
        state,
        ids,
        |c| c.id,
        |pool, ids| db::get_many(pool, ids)
    )?)
}

#[tracing::instrument(name = "certificates::list", level = "debug", skip_all)]
pub async fn list(
    state: &AppState,
    filter: CertificateFilter,
    params: ListParams,
    loc: &[&str],
) -> AppResult<Page<CommittedTrustCertificate>> {
    if let Some(code) = &filter.currency_code
        && !is_currency_code(code)
    {
        return Err(AppError::invalid(
            loc,
            "must be exactly 3 upper-case letters, e.g. GBP",
            "string_pattern_mismatch",
        ));
    }
    Ok(Page::from_rows(
        db::list(crate::services::read_route::reads(state), &filter, &params).await?,
        &params,
    ))
}

/// The newest certificates of each signature or agent (loader batch), at most `EDGE_LIMIT` each.
#[tracing::instrument(
    name = "certificates::for_keys", level = "debug", skip_all,
    fields(by = ?by, count = keys.len())
)]
pub async fn for_keys(
    state: &AppState,
    by: CertificateKey,
    keys: &[Uuid],
) -> AppResult<Vec<CommittedTrustCertificate>> {
    Ok(db::for_keys(
        crate::services::read_route::reads(state),
        by,
        keys,
        EDGE_LIMIT,
    )
    .await?)
}

#[tracing::instrument(name = "certificates::head", level = "debug", skip_all)]
pub async fn head(state: &AppState) -> AppResult<LedgerHead> {
    Ok(head_of(db::head(&state.pool).await?))
}

fn head_of(certificate: Option<CommittedTrustCertificate>) -> LedgerHead {
    match certificate {
        Some(c) => LedgerHead {
            ledger_seq: c.ledger_seq,
            entry_hash: c.entry_hash,
            certificate_id: Some(c.id),
            created_at_tstamp_utc: Some(c.created_at_tstamp_utc),
        },
        None => LedgerHead {
            ledger_seq: 0,
            entry_hash: GENESIS_HASH.to_string(),
            certificate_id: None,
            created_at_tstamp_utc: None,
        },
    }
}

/// The certificate and its successors (at most `limit`), with the head read before them, so the
/// chain always reaches a head that existed when the proof was made.
#[tracing::instrument(
    name = "certificates::proof", level = "debug", skip_all,
    fields(id = %id, ?limit)
)]
pub async fn proof(
    state: &AppState,
    id: Uuid,
    limit: Option<i64>,
    loc: &[&str],
) -> AppResult<CertificateProof> {
    let limit = limit.unwrap_or(DEFAULT_PROOF_LENGTH);
    if !(1..=MAX_PROOF_LENGTH).contains(&limit) {
        return Err(AppError::invalid(
            loc,
            format!("must be between 1 and {MAX_PROOF_LENGTH}"),
            "range",
        ));
    }
    let certificate = get(state, id).await?;
    let head = head_of(db::head(&state.pool).await?);
    let chain = db::chain_from(&state.pool, certificate.ledger_seq, limit).await?;
    let reaches_head = chain
        .last()
        .is_some_and(|last| last.ledger_seq >= head.ledger_seq);
    Ok(CertificateProof {
        algorithm: ledger::ALGORITHM.to_string(),
        certificate_id: id,
        head,
        chain,
        reaches_head,
    })
}
