//! /api/v1/entities, /api/v1/listings, /api/v1/requests (read; merge and unmerge for operators),
//! /api/v1/canonical-link-contributions

use super::extract::{Auth, UuidPath, ValidJson, ValidQuery};
use super::geojson::{self, WantsGeoJson};
use super::json::Json;
use super::{ErrorBody, ValidationErrorBody};
use crate::db::contributions::{ContributionFilter, LinkContribution};
use crate::db::entities::Entity;
use crate::db::listings::Listing;
use crate::db::requests::CanonicalRequest;
use crate::domain::{CanonicalTable, ListParams};
use crate::error::AppError;
use crate::records::geojson::FeatureCollection;
use crate::services::within::{self, AreaInput, WithinArgs};
use crate::services::{canonical, merge};
use crate::state::AppState;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use uuid::Uuid;

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct StatusQuery {
    /// e.g. active, review_required, archived, withdrawn, merged.
    pub status: Option<String>,
    /// 1 to 500, default 100.
    pub limit: Option<i64>,
    /// Only records inside this box: `west,south,east,north` in degrees (west greater than east
    /// crosses the antimeridian). Without `status`, a box leaves archived and withdrawn records
    /// out, as search does; merged records (redirects) never show in a box.
    #[param(example = "-2.30,53.45,-2.20,53.50")]
    pub bbox: Option<String>,
}

impl StatusQuery {
    fn params(&self) -> Result<ListParams, AppError> {
        ListParams::new(self.limit, None, &["query", "limit"])
    }

    /// The box, when one was asked for: the area service answers instead of the plain list.
    fn within(&self) -> Result<Option<WithinArgs<'_>>, AppError> {
        let Some(bbox) = self.bbox.as_deref() else {
            return Ok(None);
        };
        Ok(Some(WithinArgs {
            area: AreaInput::BoxText(bbox),
            status: self.status.as_deref(),
            params: self.params()?,
            root: &["query"],
        }))
    }
}

const STATUS_LOC: &[&str] = &["query", "status"];

#[utoipa::path(get, path = "/api/v1/entities", tag = "canonical", params(StatusQuery, geojson::FormatQuery),
    responses((status = 200, description = "Newest first; `f=geojson` or `Accept: application/geo+json` gives a FeatureCollection",
               content((Vec<Entity> = "application/json"), (FeatureCollection<Entity> = "application/geo+json"))),
              (status = 422, body = ValidationErrorBody)))]
pub async fn list_entities(
    State(state): State<AppState>,
    format: WantsGeoJson,
    ValidQuery(q): ValidQuery<StatusQuery>,
) -> Result<Response, AppError> {
    let page = match q.within()? {
        Some(area) => within::entities(&state, &area).await?,
        None => canonical::entities(&state, q.status.as_deref(), q.params()?, STATUS_LOC).await?,
    };
    Ok(geojson::records(format, page.items))
}

/// A record read by id: when a merge redirected the id, the record that answers is named in
/// `Content-Location`.
fn answered<T: serde::Serialize>(
    record: T,
    found: Uuid,
    asked: Uuid,
    collection: &str,
) -> Response {
    let location = (found != asked).then(|| format!("/api/v1/{collection}/{found}"));
    let mut response = Json(record).into_response();
    if let Some(location) = location.and_then(|l| l.parse().ok()) {
        response
            .headers_mut()
            .insert(axum::http::header::CONTENT_LOCATION, location);
    }
    response
}

#[utoipa::path(get, path = "/api/v1/entities/{entity_id}", tag = "canonical", params(("entity_id" = Uuid, Path)),
    responses((status = 200, description = "The entity. A merged record's id answers with the record it was merged into, \
               and says so: `Content-Location` names that record", body = Entity,
               headers(("Content-Location" = String, description = "Set when a merge redirected the id"))),
              (status = 404, body = ErrorBody), (status = 422, body = ValidationErrorBody)))]
pub async fn get_entity(
    State(state): State<AppState>,
    UuidPath(id): UuidPath,
) -> Result<Response, AppError> {
    let entity = canonical::entity(&state, id).await?;
    Ok(answered(&entity, entity.id, id, "entities"))
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct MergeBody {
    /// The duplicate (of the same kind) that becomes a redirect to the record in the path.
    pub merged_id: Uuid,
}

const MERGED_AT: &[&str] = &["body", "merged_id"];

#[utoipa::path(post, path = "/api/v1/entities/{entity_id}/merge", tag = "review", security(("bearer" = [])),
    params(("entity_id" = Uuid, Path, description = "The survivor")), request_body = MergeBody,
    responses((status = 200, description = "The survivor, rebuilt from both records' evidence", body = Entity),
              (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
              (status = 404, description = "No entity has the survivor's id", body = ErrorBody),
              (status = 409, description = "One of them is already merged", body = ErrorBody),
              (status = 415, body = ErrorBody),
              (status = 422, description = "`merged_id` names no entity, or the survivor itself", body = ValidationErrorBody)))]
pub async fn merge_entities(
    State(state): State<AppState>,
    Auth(ctx): Auth,
    UuidPath(id): UuidPath,
    ValidJson(body): ValidJson<MergeBody>,
) -> Result<Json<Entity>, AppError> {
    merge::merge(&state, &ctx, id, body.merged_id, MERGED_AT)
        .await
        .map(Json)
}

#[utoipa::path(post, path = "/api/v1/entities/{entity_id}/unmerge", tag = "review", security(("bearer" = [])),
    params(("entity_id" = Uuid, Path, description = "The merged record (the redirect)")),
    responses((status = 200, description = "The restored record", body = Entity),
              (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody),
              (status = 409, description = "The record is not merged, or the record it was merged into is merged in turn", body = ErrorBody),
              (status = 422, body = ValidationErrorBody)))]
pub async fn unmerge_entity(
    State(state): State<AppState>,
    Auth(ctx): Auth,
    UuidPath(id): UuidPath,
) -> Result<Json<Entity>, AppError> {
    merge::undo(&state, &ctx, id).await.map(Json)
}

#[utoipa::path(get, path = "/api/v1/listings", tag = "canonical", params(StatusQuery, geojson::FormatQuery),
    responses((status = 200, description = "Newest first; `f=geojson` or `Accept: application/geo+json` gives a FeatureCollection",
               content((Vec<Listing> = "application/json"), (FeatureCollection<Listing> = "application/geo+json"))),
              (status = 422, body = ValidationErrorBody)))]
pub async fn list_listings(
    State(state): State<AppState>,
    format: WantsGeoJson,
    ValidQuery(q): ValidQuery<StatusQuery>,
) -> Result<Response, AppError> {
    let page = match q.within()? {
        Some(area) => within::listings(&state, &area).await?,
        None => canonical::listings(&state, q.status.as_deref(), q.params()?, STATUS_LOC).await?,
    };
    Ok(geojson::records(format, page.items))
}

#[utoipa::path(get, path = "/api/v1/listings/{listing_id}", tag = "canonical", params(("listing_id" = Uuid, Path)),
    responses((status = 200, description = "The listing. A merged record's id answers with the record it was merged into, \
               and says so: `Content-Location` names that record", body = Listing,
               headers(("Content-Location" = String, description = "Set when a merge redirected the id"))),
              (status = 404, body = ErrorBody), (status = 422, body = ValidationErrorBody)))]
pub async fn get_listing(
    State(state): State<AppState>,
    UuidPath(id): UuidPath,
) -> Result<Response, AppError> {
    let listing = canonical::listing(&state, id).await?;
    Ok(answered(&listing, listing.id, id, "listings"))
}

#[utoipa::path(post, path = "/api/v1/listings/{listing_id}/merge", tag = "review", security(("bearer" = [])),
    params(("listing_id" = Uuid, Path, description = "The survivor")), request_body = MergeBody,
    responses((status = 200, description = "The survivor, rebuilt from both records' evidence", body = Listing),
              (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
              (status = 404, description = "No listing has the survivor's id", body = ErrorBody),
              (status = 409, description = "One of them is already merged", body = ErrorBody),
              (status = 415, body = ErrorBody),
              (status = 422, description = "`merged_id` names no listing, or the survivor itself", body = ValidationErrorBody)))]
pub async fn merge_listings(
    State(state): State<AppState>,
    Auth(ctx): Auth,
    UuidPath(id): UuidPath,
    ValidJson(body): ValidJson<MergeBody>,
) -> Result<Json<Listing>, AppError> {
    merge::merge(&state, &ctx, id, body.merged_id, MERGED_AT)
        .await
        .map(Json)
}

#[utoipa::path(post, path = "/api/v1/listings/{listing_id}/unmerge", tag = "review", security(("bearer" = [])),
    params(("listing_id" = Uuid, Path, description = "The merged record (the redirect)")),
    responses((status = 200, description = "The restored record", body = Listing),
              (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody),
              (status = 409, description = "The record is not merged, or the record it was merged into is merged in turn", body = ErrorBody),
              (status = 422, body = ValidationErrorBody)))]
pub async fn unmerge_listing(
    State(state): State<AppState>,
    Auth(ctx): Auth,
    UuidPath(id): UuidPath,
) -> Result<Json<Listing>, AppError> {
    merge::undo(&state, &ctx, id).await.map(Json)
}

#[utoipa::path(get, path = "/api/v1/requests", tag = "canonical", params(StatusQuery, geojson::FormatQuery),
    responses((status = 200, description = "Newest first; `f=geojson` or `Accept: application/geo+json` gives a FeatureCollection",
               content((Vec<CanonicalRequest> = "application/json"), (FeatureCollection<CanonicalRequest> = "application/geo+json"))),
              (status = 422, body = ValidationErrorBody)))]
pub async fn list_requests(
    State(state): State<AppState>,
    format: WantsGeoJson,
    ValidQuery(q): ValidQuery<StatusQuery>,
) -> Result<Response, AppError> {
    let page = match q.within()? {
        Some(area) => within::requests(&state, &area).await?,
        None => canonical::requests(&state, q.status.as_deref(), q.params()?, STATUS_LOC).await?,
    };
    Ok(geojson::records(format, page.items))
}

#[utoipa::path(get, path = "/api/v1/requests/{request_id}", tag = "canonical", params(("request_id" = Uuid, Path)),
    responses((status = 200, description = "The request. A merged record's id answers with the record it was merged into, \
               and says so: `Content-Location` names that record", body = CanonicalRequest,
               headers(("Content-Location" = String, description = "Set when a merge redirected the id"))),
              (status = 404, body = ErrorBody), (status = 422, body = ValidationErrorBody)))]
pub async fn get_request(
    State(state): State<AppState>,
    UuidPath(id): UuidPath,
) -> Result<Response, AppError> {
    let request = canonical::request(&state, id).await?;
    Ok(answered(&request, request.id, id, "requests"))
}

#[utoipa::path(post, path = "/api/v1/requests/{request_id}/merge", tag = "review", security(("bearer" = [])),
    params(("request_id" = Uuid, Path, description = "The survivor")), request_body = MergeBody,
    responses((status = 200, description = "The survivor, rebuilt from both records' evidence", body = CanonicalRequest),
              (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
              (status = 404, description = "No request has the survivor's id", body = ErrorBody),
              (status = 409, description = "One of them is already merged", body = ErrorBody),
              (status = 415, body = ErrorBody),
              (status = 422, description = "`merged_id` names no request, or the survivor itself", body = ValidationErrorBody)))]
pub async fn merge_requests(
    State(state): State<AppState>,
    Auth(ctx): Auth,
    UuidPath(id): UuidPath,
    ValidJson(body): ValidJson<MergeBody>,
) -> Result<Json<CanonicalRequest>, AppError> {
    merge::merge(&state, &ctx, id, body.merged_id, MERGED_AT)
        .await
        .map(Json)
}

#[utoipa::path(post, path = "/api/v1/requests/{request_id}/unmerge", tag = "review", security(("bearer" = [])),
    params(("request_id" = Uuid, Path, description = "The merged record (the redirect)")),
    responses((status = 200, description = "The restored record", body = CanonicalRequest),
              (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody),
              (status = 409, description = "The record is not merged, or the record it was merged into is merged in turn", body = ErrorBody),
              (status = 422, body = ValidationErrorBody)))]
pub async fn unmerge_request(
    State(state): State<AppState>,
    Auth(ctx): Auth,
    UuidPath(id): UuidPath,
) -> Result<Json<CanonicalRequest>, AppError> {
    merge::undo(&state, &ctx, id).await.map(Json)
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ContributionQuery {
    pub target_canonical_table: Option<CanonicalTable>,
    pub target_canonical_id: Option<Uuid>,
    pub space_time_entry_id: Option<Uuid>,
    /// 1 to 500, default 100.
    pub limit: Option<i64>,
}

#[utoipa::path(get, path = "/api/v1/canonical-link-contributions", tag = "canonical", params(ContributionQuery),
    responses((status = 200, description = "Link contributions, newest first", body = Vec<LinkContribution>), (status = 422, body = ValidationErrorBody)))]
pub async fn list_contributions(
    State(state): State<AppState>,
    ValidQuery(q): ValidQuery<ContributionQuery>,
) -> Result<Json<Vec<LinkContribution>>, AppError> {
    let params = ListParams::new(q.limit, None, &["query", "limit"])?;
    let filter = ContributionFilter {
        target_canonical_table: q.target_canonical_table,
        target_canonical_id: q.target_canonical_id,
        space_time_entry_id: q.space_time_entry_id,
    };
    Ok(Json(
        canonical::contributions(&state, filter, params)
            .await?
            .items,
    ))
}
