//! Transaction terms and their signatures. Terms are never edited; a private term is read and
//! signed only by its creator and the agents it is offered to; one agent signs one term once.

use crate::ctx::Ctx;
use crate::db::signatures::{self, NewSignature, SignatureFilter, SignatureKey};
use crate::db::terms::{self as db, NewTerm};
use crate::domain::{ListParams, Page, TermVisibility, Violations};
use crate::error::{AppError, AppResult};
use crate::records::terms::{
    TransactionTerm, TransactionTermCreate, TransactionTermsSignature,
    TransactionTermsSignatureCreate,
};
use crate::state::AppState;
use chrono::Utc;
use rust_decimal::Decimal;
use serde_json::Value;
use sha2::{Digest, Sha256};
use uuid::Uuid;

pub const MAX_TERMS_TEXT_CHARS: usize = 100_000;
pub const MAX_OFFERED_TO: usize = 50;
pub const MAX_METADATA_JSON_BYTES: usize = 16 * 1024;
/// Room for the longest terms text (4 bytes a character in UTF-8) and the other fields.
pub const MAX_BODY_BYTES: usize = MAX_TERMS_TEXT_CHARS * 4 + 64 * 1024;
/// Signatures per term (or per agent) that one graph edge returns at most.
pub const EDGE_LIMIT: i64 = 100;

fn at<'a>(loc: &[&'a str], field: &'a str) -> Vec<&'a str> {
    loc.iter().copied().chain([field]).collect()
}

fn viewer(ctx: &Ctx) -> Option<Uuid> {
    ctx.actor.as_ref().map(|a| a.agent_id)
}

/// The stored (canonical) form of a terms text: `\n` line endings, no trailing white space at the
/// end, so the same text always has the same `content_sha256`.
pub fn canonical_terms_text(text: &str) -> String {
    text.replace("\r\n", "\n")
        .replace('\r', "\n")
        .trim_end()
        .to_string()
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

pub(crate) fn is_currency_code(code: &str) -> bool {
    code.len() == 3 && code.bytes().all(|b| b.is_ascii_uppercase())
}

/// Metadata is an object of bounded size; absent means `{}`.
pub(crate) fn check_metadata(metadata: Option<Value>, v: &mut Violations) -> Value {
    match metadata {
        None | Some(Value::Null) => Value::Object(Default::default()),
        Some(value) => {
            v.check(
                value.is_object(),
                "metadata",
                "must be an object",
                "object_type",
            );
            let size = serde_json::to_vec(&value).map_or(usize::MAX, |b| b.len());
            v.check(
                size <= MAX_METADATA_JSON_BYTES,
                "metadata",
                &format!("at most {MAX_METADATA_JSON_BYTES} bytes of JSON"),
                "too_long",
            );
            value
        }
    }
}

async fn check_agents_exist(
    conn: &mut sqlx::PgConnection,
    ids: &[Uuid],
    field: &str,
    loc: &[&str],
) -> AppResult<()> {
    let found = crate::db::agents::existing_ids(conn, ids).await?;
    let mut v = Violations::at(loc);
    for (i, id) in ids.iter().enumerate() {
        if !found.contains(id) {
            let path = if field.ends_with("_ids") {
                format!("{field}.{i}")
            } else {
                field.to_string()
            };
            v.push(&path, "no such agent", "not_found");
        }
    }
    v.into_result()
}

#[tracing::instrument(name = "terms::create_term", level = "debug", skip_all)]
pub async fn create_term(
    state: &AppState,
    ctx: &Ctx,
    input: TransactionTermCreate,
    loc: &[&str],
) -> AppResult<TransactionTerm> {
    let creator = ctx.require_active_agent()?.agent_id;
    let mut v = Violations::at(loc);
    v.check_len(Some(&input.title), "title", 1, 300);
    let terms_text = canonical_terms_text(&input.terms_text);
    v.check(
        (1..=MAX_TERMS_TEXT_CHARS).contains(&terms_text.chars().count()),
        "terms_text",
        &format!("must be between 1 and {MAX_TERMS_TEXT_CHARS} characters"),
        "string_length",
    );
    v.check_len(input.terms_version.as_deref(), "terms_version", 1, 64);
    let visibility = input.visibility.unwrap_or(TermVisibility::Public);
    let mut offered_to = input.offered_to_agent_ids.unwrap_or_default();
    offered_to.sort();
    offered_to.dedup();
    v.check(
        offered_to.len() <= MAX_OFFERED_TO,
        "offered_to_agent_ids",
        &format!("at most {MAX_OFFERED_TO} agents"),
        "too_long",
    );
    v.check(
        offered_to.is_empty() || visibility == TermVisibility::Private,
        "offered_to_agent_ids",
        "only private terms are offered to named agents; public terms are open to all",
        "value_error",
    );
    if let Some(code) = &input.currency_code {
        v.check(
            is_currency_code(code),
            "currency_code",
            "must be exactly 3 upper-case letters, e.g. GBP",
            "string_pattern_mismatch",
        );
    }
    if let Some(amount) = input.value_amount {
        v.check(
            amount >= Decimal::ZERO,
            "value_amount",
            "must not be negative",
            "range",
        );
        v.check(
            input.currency_code.is_some(),
            "currency_code",
            "is required with value_amount",
            "missing",
        );
    }
    if let (Some(from), Some(to)) = (input.valid_from_tstamp_utc, input.valid_to_tstamp_utc) {
        v.check(
            to > from,
            "valid_to_tstamp_utc",
            "must be after valid_from_tstamp_utc",
            "value_error",
        );
    }
    let metadata = check_metadata(input.metadata, &mut v);
    v.into_result()?;
    let mut tx = state.pool.begin().await?;
    check_agents_exist(&mut tx, &offered_to, "offered_to_agent_ids", loc).await?;
    let term = db::insert(
        &mut tx,
        &NewTerm {
            created_by_agent_id: creator,
            title: input.title.trim().to_string(),
            content_sha256: sha256_hex(terms_text.as_bytes()),
            terms_text,
            terms_version: input
                .terms_version
                .map_or_else(|| "1".to_string(), |s| s.trim().to_string()),
            visibility,
            offered_to_agent_ids: offered_to,
            currency_code: input.currency_code,
            value_amount: input.value_amount,
            valid_from_tstamp_utc: input.valid_from_tstamp_utc,
            valid_to_tstamp_utc: input.valid_to_tstamp_utc,
            metadata,
        },
    )
    .await?;
    tx.commit().await?;
    Ok(term)
}

/// A term the caller may read; a private term of others answers 404 like a missing one.
#[tracing::instrument(name = "terms::get_term", level = "debug", skip_all, fields(id = %id))]
pub async fn get_term(state: &AppState, ctx: &Ctx, id: Uuid) -> AppResult<TransactionTerm> {
    crate::services::read_route::read_many!(state, &[id], |t| t.id, |pool, ids| {
        db::get_many_visible(pool, ids, viewer(ctx))
    })?
    .pop()
    .ok_or(AppError::NotFound("transaction term"))
}

#[tracing::instrument(
    name = "terms::terms_by_ids", level = "debug", skip_all,
    fields(count = ids.len())
)]
pub async fn terms_by_ids(
    state: &AppState,
    ctx: &Ctx,
    ids: &[Uuid],
) -> AppResult<Vec<TransactionTerm>> {
    Ok(crate::services::read_route::read_many!(
        state,
        ids,
        |t| t.id,
        |pool, ids| db::get_many_visible(pool, ids, viewer(ctx))
    )?)
}

/// Newest first: public terms, plus the caller's own and those offered to the caller.
#[tracing::instrument(
    name = "terms::list_terms", level = "debug", skip_all,
    fields(created_by = ?created_by)
)]
pub async fn list_terms(
    state: &AppState,
    ctx: &Ctx,
    created_by: Option<Uuid>,
    params: ListParams,
) -> AppResult<Page<TransactionTerm>> {
    Ok(Page::from_rows(
        db::list(
            crate::services::read_route::reads(state),
            viewer(ctx),
            created_by,
            &params,
        )
        .await?,
        &params,
    ))
}

/// The newest visible terms of each agent (loader batch), at most `EDGE_LIMIT` each.
#[tracing::instrument(
    name = "terms::terms_of_creators", level = "debug", skip_all,
    fields(count = creators.len())
)]
pub async fn terms_of_creators(
    state: &AppState,
    ctx: &Ctx,
    creators: &[Uuid],
) -> AppResult<Vec<TransactionTerm>> {
    Ok(db::for_creators(
        crate::services::read_route::reads(state),
        viewer(ctx),
        creators,
        EDGE_LIMIT,
    )
    .await?)
}

#[tracing::instrument(name = "terms::sign", level = "debug", skip_all)]
pub async fn sign(
    state: &AppState,
    ctx: &Ctx,
    input: TransactionTermsSignatureCreate,
    loc: &[&str],
) -> AppResult<TransactionTermsSignature> {
    let signer = ctx.require_active_agent()?.agent_id;
    let mut v = Violations::at(loc);
    let chars = input.signature.chars().count();
    v.check(
        (1..=8192).contains(&chars) && !input.signature.trim().is_empty(),
        "signature",
        "must be between 1 and 8192 characters",
        "string_length",
    );
    v.check_len(input.signature_method.as_deref(), "signature_method", 1, 64);
    v.check(
        input.counterparty_agent_id != Some(signer),
        "counterparty_agent_id",
        "the counterparty is another agent than the signer",
        "value_error",
    );
    let metadata = check_metadata(input.metadata, &mut v);
    v.into_result()?;
    let mut tx = state.pool.begin().await?;
    let term = db::get_many_visible(&mut *tx, &[input.transaction_term_id], Some(signer))
        .await?
        .pop()
        .ok_or_else(|| {
            AppError::invalid(
                &at(loc, "transaction_term_id"),
                "no such transaction term among those you can read",
                "not_found",
            )
        })?;
    if term.valid_to_tstamp_utc.is_some_and(|to| to <= Utc::now()) {
        return Err(AppError::invalid(
            &at(loc, "transaction_term_id"),
            "these terms expired (valid_to_tstamp_utc is past) and can no longer be signed",
            "value_error",
        ));
    }
    if let Some(counterparty) = input.counterparty_agent_id {
        check_agents_exist(&mut tx, &[counterparty], "counterparty_agent_id", loc).await?;
    }
    let inserted = signatures::insert(
        &mut tx,
        &NewSignature {
            transaction_term_id: term.id,
            signed_by_agent_id: signer,
            counterparty_agent_id: input.counterparty_agent_id,
            signature: input.signature,
            signature_method: input.signature_method,
            signed_content_sha256: term.content_sha256,
            metadata,
        },
    )
    .await?;
    let Some(signature) = inserted else {
        let existing = signatures::existing(&mut tx, term.id, signer).await?;
        return Err(AppError::Conflict {
            message: "you have signed these terms already".into(),
            existing_id: existing,
        });
    };
    tx.commit().await?;
    Ok(signature)
}

/// A signature whose term the caller may read; others answer 404.
#[tracing::instrument(name = "terms::get_signature", level = "debug", skip_all, fields(id = %id))]
pub async fn get_signature(
    state: &AppState,
    ctx: &Ctx,
    id: Uuid,
) -> AppResult<TransactionTermsSignature> {
    crate::services::read_route::read_many!(state, &[id], |s| s.id, |pool, ids| {
        signatures::get_many_visible(pool, ids, viewer(ctx))
    })?
    .pop()
    .ok_or(AppError::NotFound("transaction terms signature"))
}

#[tracing::instrument(
    name = "terms::signatures_by_ids", level = "debug", skip_all,
    fields(count = ids.len())
)]
pub async fn signatures_by_ids(
    state: &AppState,
    ctx: &Ctx,
    ids: &[Uuid],
) -> AppResult<Vec<TransactionTermsSignature>> {
    Ok(crate::services::read_route::read_many!(
        state,
        ids,
        |s| s.id,
        |pool, ids| signatures::get_many_visible(pool, ids, viewer(ctx))
    )?)
}

/// Newest first, signatures on terms the caller may read.
#[tracing::instrument(name = "terms::list_signatures", level = "debug", skip_all)]
pub async fn list_signatures(
    state: &AppState,
    ctx: &Ctx,
    filter: SignatureFilter,
    params: ListParams,
) -> AppResult<Page<TransactionTermsSignature>> {
    Ok(Page::from_rows(
        signatures::list(
            crate::services::read_route::reads(state),
            viewer(ctx),
            filter,
            &params,
        )
        .await?,
        &params,
    ))
}

/// The newest visible signatures of each term or signer (loader batch), at most `EDGE_LIMIT` each.
#[tracing::instrument(
    name = "terms::signatures_for", level = "debug", skip_all,
    fields(by = ?by, count = keys.len())
)]
pub async fn signatures_for(
    state: &AppState,
    ctx: &Ctx,
    by: SignatureKey,
    keys: &[Uuid],
) -> AppResult<Vec<TransactionTermsSignature>> {
    Ok(signatures::for_keys(
        crate::services::read_route::reads(state),
        viewer(ctx),
        by,
        keys,
        EDGE_LIMIT,
    )
    .await?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_text_is_stored_with_unix_line_endings_and_no_trailing_space() {
        assert_eq!(
            canonical_terms_text("1. Pay.\r\n2. Go.\r\n\n  "),
            "1. Pay.\n2. Go."
        );
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn currency_codes_are_three_upper_case_letters() {
        assert!(is_currency_code("GBP"));
        for bad in ["gbp", "GB", "GBPX", "G1P", "ÉUR"] {
            assert!(!is_currency_code(bad), "{bad}");
        }
    }
}
