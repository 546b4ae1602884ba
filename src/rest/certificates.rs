//! /api/v1/committed-trust-certificates: the public, append-only, hash-chained ledger. No route
//! updates or deletes a certificate; those methods answer 405.

use super::Created;
use super::paging::Pager;
use crate::error::AppError;
use crate::http::Json;
use crate::http::{Auth, UuidPath, ValidJson, ValidQuery};
use crate::http::{ErrorBody, ValidationErrorBody};
use crate::records::certificates::CertificateFilter;
use crate::records::certificates::{
    CertificateProof, CommittedTrustCertificate, CommittedTrustCertificateCreate, LedgerHead,
};
use crate::services::certificates;
use crate::state::AppState;
use axum::extract::State;
use axum::response::Response;
use serde::Deserialize;
use uuid::Uuid;

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct CertificateQuery {
    pub agent_id: Option<Uuid>,
    /// Exactly 3 upper-case letters, e.g. GBP.
    #[param(pattern = "^[A-Z]{3}$")]
    pub currency_code: Option<String>,
    /// 1 to 500, default 100.
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<i64>,
    /// Where the page starts: the `X-Next-Cursor` of the page before.
    pub after: Option<String>,
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ProofQuery {
    /// Certificates in the proof: 1 to 500, default 100.
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<i64>,
}

#[utoipa::path(post, path = "/api/v1/committed-trust-certificates", tag = "committed_trust_certificates",
    security(("bearer" = [])), request_body = CommittedTrustCertificateCreate,
    responses((status = 201, description = "The certificate, appended to the ledger", body = CommittedTrustCertificate), (status = 401, body = ErrorBody),
              (status = 403, description = "The referenced signature was made by another agent, or the agent is paused", body = ErrorBody),
              (status = 413, body = ErrorBody), (status = 415, body = ErrorBody),
              (status = 422, description = "Invalid fields, or no such signature the caller can see", body = ValidationErrorBody)))]
pub async fn create_certificate(
    State(state): State<AppState>,
    Auth(ctx): Auth,
    ValidJson(body): ValidJson<CommittedTrustCertificateCreate>,
) -> Result<Created<CommittedTrustCertificate>, AppError> {
    certificates::create(&state, &ctx, body, &["body"])
        .await
        .map(Created)
}

#[utoipa::path(get, path = "/api/v1/committed-trust-certificates", tag = "committed_trust_certificates",
    params(CertificateQuery),
    responses((status = 200, description = "Newest first, a page at a time", body = Vec<CommittedTrustCertificate>),
              (status = 422, body = ValidationErrorBody)))]
pub async fn list_certificates(
    State(state): State<AppState>,
    pager: Pager,
    ValidQuery(q): ValidQuery<CertificateQuery>,
) -> Result<Response, AppError> {
    let params = pager.params(q.limit, q.after.as_deref())?;
    let filter = CertificateFilter {
        agent_id: q.agent_id,
        currency_code: q.currency_code,
    };
    let page = certificates::list(&state, filter, params, &["query", "currency_code"]).await?;
    Ok(pager.json(page, |c| c.id))
}

#[utoipa::path(get, path = "/api/v1/committed-trust-certificates/{certificate_id}", tag = "committed_trust_certificates",
    params(("certificate_id" = Uuid, Path)),
    responses((status = 200, description = "The certificate", body = CommittedTrustCertificate), (status = 404, body = ErrorBody),
              (status = 422, body = ValidationErrorBody)))]
pub async fn get_certificate(
    State(state): State<AppState>,
    UuidPath(id): UuidPath,
) -> Result<Json<CommittedTrustCertificate>, AppError> {
    certificates::get(&state, id).await.map(Json)
}

#[utoipa::path(get, path = "/api/v1/committed-trust-certificates/{certificate_id}/proof", operation_id = "get_certificate_proof",
    tag = "committed_trust_certificates", params(("certificate_id" = Uuid, Path), ProofQuery),
    responses((status = 200, description = "The certificate and its successors towards the head, to recompute the chain",
               body = CertificateProof),
              (status = 404, body = ErrorBody), (status = 422, body = ValidationErrorBody)))]
pub async fn certificate_proof(
    State(state): State<AppState>,
    UuidPath(id): UuidPath,
    ValidQuery(q): ValidQuery<ProofQuery>,
) -> Result<Json<CertificateProof>, AppError> {
    certificates::proof(&state, id, q.limit, &["query", "limit"])
        .await
        .map(Json)
}

#[utoipa::path(get, path = "/api/v1/committed-trust-certificates/ledger/head", tag = "committed_trust_certificates", operation_id = "get_ledger_head",
    responses((status = 200, description = "The newest certificate's sequence and hash (0 and the genesis hash while empty)",
               body = LedgerHead)))]
pub async fn ledger_head(State(state): State<AppState>) -> Result<Json<LedgerHead>, AppError> {
    certificates::head(&state).await.map(Json)
}
