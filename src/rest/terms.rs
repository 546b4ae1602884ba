//! /api/v1/transaction-terms and /api/v1/transaction-terms-signatures (bearer to write; reads
//! show what the caller may see: public terms to everyone, private ones to their parties).

use super::Created;
use super::paging::Pager;
use crate::error::AppError;
use crate::http::Json;
use crate::http::{Auth, MaybeAuth, UuidPath, ValidJson, ValidQuery};
use crate::http::{ErrorBody, ValidationErrorBody};
use crate::records::terms::SignatureFilter;
use crate::records::terms::{
    TransactionTerm, TransactionTermCreate, TransactionTermsSignature,
    TransactionTermsSignatureCreate,
};
use crate::services::terms;
use crate::state::AppState;
use axum::extract::State;
use axum::response::Response;
use serde::Deserialize;
use uuid::Uuid;

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct TermQuery {
    pub created_by_agent_id: Option<Uuid>,
    /// 1 to 500, default 100.
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<i64>,
    /// Where the page starts: the `X-Next-Cursor` of the page before.
    pub after: Option<String>,
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SignatureQuery {
    pub transaction_term_id: Option<Uuid>,
    pub signed_by_agent_id: Option<Uuid>,
    /// 1 to 500, default 100.
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<i64>,
    /// Where the page starts: the `X-Next-Cursor` of the page before.
    pub after: Option<String>,
}

#[utoipa::path(post, path = "/api/v1/transaction-terms", tag = "transaction_terms", security(("bearer" = [])),
    request_body = TransactionTermCreate,
    responses((status = 201, description = "The term created", body = TransactionTerm), (status = 401, body = ErrorBody),
              (status = 403, description = "The agent is paused", body = ErrorBody), (status = 413, body = ErrorBody),
              (status = 415, body = ErrorBody), (status = 422, body = ValidationErrorBody)))]
pub async fn create_term(
    State(state): State<AppState>,
    Auth(ctx): Auth,
    ValidJson(body): ValidJson<TransactionTermCreate>,
) -> Result<Created<TransactionTerm>, AppError> {
    terms::create_term(&state, &ctx, body, &["body"])
        .await
        .map(Created)
}

#[utoipa::path(get, path = "/api/v1/transaction-terms", tag = "transaction_terms", params(TermQuery),
    responses((status = 200, description = "Public terms, plus with a bearer the caller's own and those offered to it; newest first",
               body = Vec<TransactionTerm>),
              (status = 401, body = ErrorBody), (status = 422, body = ValidationErrorBody)))]
pub async fn list_terms(
    State(state): State<AppState>,
    MaybeAuth(ctx): MaybeAuth,
    pager: Pager,
    ValidQuery(q): ValidQuery<TermQuery>,
) -> Result<Response, AppError> {
    let params = pager.params(q.limit, q.after.as_deref())?;
    let page = terms::list_terms(&state, &ctx, q.created_by_agent_id, params).await?;
    Ok(pager.json(page, |t| t.id))
}

#[utoipa::path(get, path = "/api/v1/transaction-terms/{transaction_term_id}", tag = "transaction_terms",
    params(("transaction_term_id" = Uuid, Path)),
    responses((status = 200, description = "The term", body = TransactionTerm), (status = 401, body = ErrorBody),
              (status = 404, description = "No such term, or a private term the caller is not a party to", body = ErrorBody),
              (status = 422, body = ValidationErrorBody)))]
pub async fn get_term(
    State(state): State<AppState>,
    MaybeAuth(ctx): MaybeAuth,
    UuidPath(id): UuidPath,
) -> Result<Json<TransactionTerm>, AppError> {
    terms::get_term(&state, &ctx, id).await.map(Json)
}

#[utoipa::path(post, path = "/api/v1/transaction-terms-signatures", tag = "transaction_terms", security(("bearer" = [])),
    request_body = TransactionTermsSignatureCreate,
    responses((status = 201, description = "The signature recorded (not verified cryptographically)", body = TransactionTermsSignature), (status = 401, body = ErrorBody),
              (status = 403, description = "The agent is paused", body = ErrorBody),
              (status = 409, description = "The caller signed this term already; `existing_id` names that signature", body = ErrorBody),
              (status = 413, body = ErrorBody), (status = 415, body = ErrorBody),
              (status = 422, description = "Invalid fields, or a term that does not exist or is private to others", body = ValidationErrorBody)))]
pub async fn sign_term(
    State(state): State<AppState>,
    Auth(ctx): Auth,
    ValidJson(body): ValidJson<TransactionTermsSignatureCreate>,
) -> Result<Created<TransactionTermsSignature>, AppError> {
    terms::sign(&state, &ctx, body, &["body"])
        .await
        .map(Created)
}

#[utoipa::path(get, path = "/api/v1/transaction-terms-signatures", tag = "transaction_terms", params(SignatureQuery),
    responses((status = 200, description = "Signatures on terms the caller may read, newest first", body = Vec<TransactionTermsSignature>),
              (status = 401, body = ErrorBody), (status = 422, body = ValidationErrorBody)))]
pub async fn list_signatures(
    State(state): State<AppState>,
    MaybeAuth(ctx): MaybeAuth,
    pager: Pager,
    ValidQuery(q): ValidQuery<SignatureQuery>,
) -> Result<Response, AppError> {
    let params = pager.params(q.limit, q.after.as_deref())?;
    let filter = SignatureFilter {
        transaction_term_id: q.transaction_term_id,
        signed_by_agent_id: q.signed_by_agent_id,
    };
    let page = terms::list_signatures(&state, &ctx, filter, params).await?;
    Ok(pager.json(page, |s| s.id))
}

#[utoipa::path(get, path = "/api/v1/transaction-terms-signatures/{signature_id}", tag = "transaction_terms",
    params(("signature_id" = Uuid, Path)),
    responses((status = 200, description = "The signature", body = TransactionTermsSignature), (status = 401, body = ErrorBody),
              (status = 404, description = "No such signature, or one on a term private to others", body = ErrorBody),
              (status = 422, body = ValidationErrorBody)))]
pub async fn get_signature(
    State(state): State<AppState>,
    MaybeAuth(ctx): MaybeAuth,
    UuidPath(id): UuidPath,
) -> Result<Json<TransactionTermsSignature>, AppError> {
    terms::get_signature(&state, &ctx, id).await.map(Json)
}
