//! /api/v1/entities, /api/v1/listings, /api/v1/requests: read, list (by status or inside a box),
//! merge and unmerge for operators, and each record's provenance. The handlers are written once,
//! generic over the kind (`CanonicalKind`); `kind_routes!` stamps each kind's documented routes
//! (an OpenAPI operation needs its own path, name and record schema). Also
//! /api/v1/canonical-link-contributions.

use super::geojson::{self, WantsGeoJson};
use super::paging::Pager;
use super::provenance;
use crate::domain::{CanonicalTable, ListParams};
use crate::error::AppError;
use crate::http::{Auth, Json, UuidPath, ValidJson, ValidQuery};
use crate::http::{ErrorBody, ValidationErrorBody};
use crate::records::canonical::{
    CanonicalKind, CanonicalRequest, ContributionFilter, Entity, LinkContribution, Listing,
};
use crate::records::geojson::FeatureCollection;
use crate::records::provenance::RecordProvenance;
use crate::services::merge::Mergeable;
use crate::services::within::{self, AreaInput, WithinArgs};
use crate::services::{canonical, merge};
use crate::state::AppState;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use uuid::Uuid;

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct StatusQuery {
    /// e.g. active, review_required, archived, withdrawn, merged.
    pub status: Option<String>,
    /// 1 to 500, default 100.
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<i64>,
    /// Where the page starts: the `X-Next-Cursor` of the page before.
    pub after: Option<String>,
    /// Only records inside this box: `west,south,east,north` in degrees (west greater than east
    /// crosses the antimeridian). Without `status`, a box leaves archived and withdrawn records
    /// out, as search does; merged records (redirects) never show in a box.
    #[param(example = "-2.30,53.45,-2.20,53.50")]
    pub bbox: Option<String>,
}

impl StatusQuery {
    /// The box, when one was asked for: the area service answers instead of the plain list.
    fn within(&self, params: ListParams) -> Option<WithinArgs<'_>> {
        Some(WithinArgs {
            area: AreaInput::BoxText(self.bbox.as_deref()?),
            status: self.status.as_deref(),
            params,
            root: &["query"],
        })
    }
}

const STATUS_LOC: &[&str] = &["query", "status"];
const MERGED_AT: &[&str] = &["body", "merged_id"];

#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct MergeBody {
    /// The duplicate (of the same kind) that becomes a redirect to the record in the path.
    pub merged_id: Uuid,
}

async fn list<K: Mergeable>(
    state: &AppState,
    pager: &Pager,
    format: WantsGeoJson,
    q: &StatusQuery,
) -> Result<Response, AppError> {
    let params = pager.params(q.limit, q.after.as_deref())?;
    let page = match q.within(params) {
        Some(area) => within::records::<K>(state, &area).await?,
        None => canonical::list::<K>(state, q.status.as_deref(), params, STATUS_LOC).await?,
    };
    let next = page.next_cursor(pager.list(), K::feature_id);
    Ok(pager.with_next(geojson::records(format, page.items), next.as_deref()))
}

/// A record read by id: when a merge redirected the id, the record that answers is named in
/// `Content-Location`.
async fn get<K: Mergeable>(state: &AppState, asked: Uuid) -> Result<Response, AppError> {
    let record = canonical::record::<K>(state, asked).await?;
    let found = record.feature_id();
    let mut response = Json(&record).into_response();
    if found != asked
        && let Ok(location) = format!("/api/v1/{}/{found}", K::COLLECTION).parse()
    {
        response
            .headers_mut()
            .insert(axum::http::header::CONTENT_LOCATION, location);
    }
    Ok(response)
}

/// Generates one kind's documented handlers over the generic ones above. Literals are passed as
/// token trees so that utoipa's attribute reads them as plain literals.
macro_rules! kind_routes {
    (
        $record:ident,
        list: $list:ident, get: $get:ident, merge: $merge:ident, unmerge: $unmerge:ident,
        provenance: $provenance:ident,
        paths: ($list_path:tt, $one_path:tt, $merge_path:tt, $unmerge_path:tt, $provenance_path:tt),
        id: $id:tt
    ) => {
        #[utoipa::path(get, path = $list_path, tag = "canonical", params(StatusQuery, geojson::FormatQuery),
            responses((status = 200, description = "Newest first, a page at a time; `f=geojson` or `Accept: application/geo+json` gives a FeatureCollection",
                       content((Vec<$record> = "application/json"), (FeatureCollection<$record> = "application/geo+json"))),
                      (status = 422, body = ValidationErrorBody)))]
        pub async fn $list(
            State(state): State<AppState>,
            pager: Pager,
            format: WantsGeoJson,
            ValidQuery(q): ValidQuery<StatusQuery>,
        ) -> Result<Response, AppError> {
            list::<$record>(&state, &pager, format, &q).await
        }

        #[utoipa::path(get, path = $one_path, tag = "canonical", params(($id = Uuid, Path)),
            responses((status = 200, description = "The record. A merged record's id answers with the record it was merged into, \
                       and says so: `Content-Location` names that record", body = $record,
                       headers(("Content-Location" = String, description = "Set when a merge redirected the id"))),
                      (status = 404, body = ErrorBody), (status = 422, body = ValidationErrorBody)))]
        pub async fn $get(
            State(state): State<AppState>,
            UuidPath(id): UuidPath,
        ) -> Result<Response, AppError> {
            get::<$record>(&state, id).await
        }

        #[utoipa::path(post, path = $merge_path, tag = "review", security(("bearer" = [])),
            params(($id = Uuid, Path, description = "The survivor")), request_body = MergeBody,
            responses((status = 200, description = "The survivor, rebuilt from both records' evidence", body = $record),
                      (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
                      (status = 404, description = "No record of this kind has the survivor's id", body = ErrorBody),
                      (status = 409, description = "One of them is already merged", body = ErrorBody),
                      (status = 415, body = ErrorBody),
                      (status = 422, description = "`merged_id` names no record of this kind, or the survivor itself", body = ValidationErrorBody)))]
        pub async fn $merge(
            State(state): State<AppState>,
            Auth(ctx): Auth,
            UuidPath(id): UuidPath,
            ValidJson(body): ValidJson<MergeBody>,
        ) -> Result<Json<$record>, AppError> {
            merge::merge(&state, &ctx, id, body.merged_id, MERGED_AT)
                .await
                .map(Json)
        }

        #[utoipa::path(post, path = $unmerge_path, tag = "review", security(("bearer" = [])),
            params(($id = Uuid, Path, description = "The merged record (the redirect)")),
            responses((status = 200, description = "The restored record", body = $record),
                      (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody),
                      (status = 409, description = "The record is not merged, or the record it was merged into is merged in turn", body = ErrorBody),
                      (status = 422, body = ValidationErrorBody)))]
        pub async fn $unmerge(
            State(state): State<AppState>,
            Auth(ctx): Auth,
            UuidPath(id): UuidPath,
        ) -> Result<Json<$record>, AppError> {
            merge::undo(&state, &ctx, id).await.map(Json)
        }

        #[utoipa::path(get, path = $provenance_path, tag = "canonical", params(($id = Uuid, Path)),
            responses((status = 200, description = "Field sources and contributions with their evidence; W3C PROV-O JSON-LD with `Accept: application/ld+json`",
                       content((RecordProvenance = "application/json"), (Object = "application/ld+json"))),
                      (status = 404, body = ErrorBody), (status = 422, body = ValidationErrorBody)))]
        pub async fn $provenance(
            State(state): State<AppState>,
            headers: HeaderMap,
            UuidPath(id): UuidPath,
        ) -> Result<Response, AppError> {
            provenance::answer(&state, &headers, <$record as CanonicalKind>::TABLE, id).await
        }
    };
}

kind_routes!(
    Entity,
    list: list_entities, get: get_entity, merge: merge_entities, unmerge: unmerge_entity,
    provenance: get_entity_provenance,
    paths: (
        "/api/v1/entities",
        "/api/v1/entities/{entity_id}",
        "/api/v1/entities/{entity_id}/merge",
        "/api/v1/entities/{entity_id}/unmerge",
        "/api/v1/entities/{entity_id}/provenance"
    ),
    id: "entity_id"
);

kind_routes!(
    Listing,
    list: list_listings, get: get_listing, merge: merge_listings, unmerge: unmerge_listing,
    provenance: get_listing_provenance,
    paths: (
        "/api/v1/listings",
        "/api/v1/listings/{listing_id}",
        "/api/v1/listings/{listing_id}/merge",
        "/api/v1/listings/{listing_id}/unmerge",
        "/api/v1/listings/{listing_id}/provenance"
    ),
    id: "listing_id"
);

kind_routes!(
    CanonicalRequest,
    list: list_requests, get: get_request, merge: merge_requests, unmerge: unmerge_request,
    provenance: get_request_provenance,
    paths: (
        "/api/v1/requests",
        "/api/v1/requests/{request_id}",
        "/api/v1/requests/{request_id}/merge",
        "/api/v1/requests/{request_id}/unmerge",
        "/api/v1/requests/{request_id}/provenance"
    ),
    id: "request_id"
);

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ContributionQuery {
    pub target_canonical_table: Option<CanonicalTable>,
    pub target_canonical_id: Option<Uuid>,
    pub space_time_entry_id: Option<Uuid>,
    /// 1 to 500, default 100.
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<i64>,
    /// Where the page starts: the `X-Next-Cursor` of the page before.
    pub after: Option<String>,
}

#[utoipa::path(get, path = "/api/v1/canonical-link-contributions", tag = "canonical", params(ContributionQuery),
    responses((status = 200, description = "Link contributions, newest first", body = Vec<LinkContribution>), (status = 422, body = ValidationErrorBody)))]
pub async fn list_contributions(
    State(state): State<AppState>,
    pager: Pager,
    ValidQuery(q): ValidQuery<ContributionQuery>,
) -> Result<Response, AppError> {
    let params = pager.params(q.limit, q.after.as_deref())?;
    let filter = ContributionFilter {
        target_canonical_table: q.target_canonical_table,
        target_canonical_id: q.target_canonical_id,
        space_time_entry_id: q.space_time_entry_id,
    };
    let page = canonical::contributions(&state, filter, params).await?;
    Ok(pager.json(page, |c| c.id))
}
