//! REST adapters for /api/v1 and the status routes, and the OpenAPI document generated from them.

mod agents;
mod api_keys;
mod canonical;
mod certificates;
mod entries;
mod exports;
mod feedback;
mod geojson;
mod health;
mod messages;
mod multipart;
pub mod openapi_responses;
mod paging;
mod principals;
mod processing;
mod proposals;
mod provenance;
mod public;
mod review;
mod search;
mod terms;
pub mod tiles;

use crate::http::Json;
use crate::http::{ErrorBody, ValidationErrorBody};
use crate::state::AppState;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub const API_VERSION: &str = "0.1.0";

/// A 201 with a JSON body.
pub struct Created<T>(pub T);

impl<T: Serialize> IntoResponse for Created<T> {
    fn into_response(self) -> Response {
        (StatusCode::CREATED, Json(self.0)).into_response()
    }
}

/// `limit` (1 to 500, default 100) and `after` (`paging`): the parameters of a list with no filter.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LimitQuery {
    /// 1 to 500, default 100.
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<i64>,
    /// Where the page starts: the `X-Next-Cursor` of the page before.
    pub after: Option<String>,
}

#[derive(OpenApi)]
#[openapi(
    info(title = "Space-Time Records Service", version = "0.1.0",
         description = "Public, sourced records tied to place, time and intent. GraphQL at /graphql."),
    modifiers(&BearerScheme),
    components(schemas(ErrorBody, ValidationErrorBody, crate::error::FieldError)),
)]
struct ApiDoc;

struct BearerScheme;

impl Modify for BearerScheme {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("API key or JWT")
                    .build(),
            ),
        );
    }
}

/// Every REST route, with its OpenAPI description collected from the handlers themselves.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::with_openapi(ApiDoc::openapi())
        .routes(routes!(health::get_health))
        .routes(routes!(health::get_ready))
        .routes(routes!(health::get_metrics))
        .routes(routes!(
            principals::create_principal,
            principals::list_principals
        ))
        .routes(routes!(principals::get_principal))
        .routes(routes!(principals::grant_membership))
        .routes(routes!(principals::list_memberships))
        .routes(routes!(agents::create_agent, agents::list_agents))
        .routes(routes!(agents::register_agent))
        .routes(routes!(agents::get_me))
        .routes(routes!(agents::create_token))
        .routes(routes!(api_keys::list_keys, api_keys::create_key))
        .routes(routes!(api_keys::revoke_key))
        .routes(routes!(agents::get_agent))
        .merge(entry_routes())
        .routes(routes!(entries::get_entry))
        .routes(routes!(entries::rubric_index))
        .routes(routes!(entries::rubric))
        .routes(routes!(entries::evaluate_draft))
        .routes(routes!(entries::agent_guide))
        .routes(routes!(entries::get_attachment))
        .routes(routes!(canonical::list_entities))
        .routes(routes!(canonical::get_entity))
        .routes(routes!(canonical::list_listings))
        .routes(routes!(canonical::get_listing))
        .routes(routes!(canonical::list_requests))
        .routes(routes!(canonical::get_request))
        .routes(routes!(canonical::get_entity_provenance))
        .routes(routes!(canonical::get_listing_provenance))
        .routes(routes!(canonical::get_request_provenance))
        .routes(routes!(canonical::list_contributions))
        .routes(routes!(canonical::merge_entities))
        .routes(routes!(canonical::unmerge_entity))
        .routes(routes!(canonical::merge_listings))
        .routes(routes!(canonical::unmerge_listing))
        .routes(routes!(canonical::merge_requests))
        .routes(routes!(canonical::unmerge_request))
        .routes(routes!(review::queue))
        .routes(routes!(review::duplicates))
        .routes(routes!(review::dismiss_duplicate))
        .routes(routes!(review::resolve))
        .routes(routes!(proposals::list))
        .routes(routes!(proposals::accept))
        .routes(routes!(proposals::dismiss))
        .routes(routes!(proposals::mine))
        .routes(routes!(processing::process_pending))
        .routes(routes!(processing::process_entry))
        .routes(routes!(processing::rank_entity))
        .routes(routes!(processing::rank_all))
        .routes(routes!(search::search))
        .merge(tiles::routes())
        .merge(exports::routes())
        .merge(feedback_routes())
        .merge(dealings_routes())
        .routes(routes!(public::index))
        .routes(routes!(public::catalogue))
        .routes(routes!(public::agent_doc))
        .routes(routes!(public::terms))
}

/// Notes and signals: small bodies only.
fn feedback_routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(feedback::create_note, feedback::list_notes))
        .routes(routes!(feedback::create_signal, feedback::list_signals))
        .layer(axum::extract::DefaultBodyLimit::max(
            feedback::MAX_FEEDBACK_BODY_BYTES,
        ))
}

/// Messages, terms, signatures and certificates: bodies sized to their longest valid content.
fn dealings_routes() -> OpenApiRouter<AppState> {
    use axum::extract::DefaultBodyLimit;
    let messages = OpenApiRouter::new()
        .routes(routes!(messages::send_message, messages::list_messages))
        .routes(routes!(messages::get_message))
        .routes(routes!(messages::mark_read))
        .layer(DefaultBodyLimit::max(
            crate::services::messages::MAX_BODY_BYTES,
        ));
    let terms = OpenApiRouter::new()
        .routes(routes!(terms::create_term, terms::list_terms))
        .routes(routes!(terms::get_term))
        .layer(DefaultBodyLimit::max(
            crate::services::terms::MAX_BODY_BYTES,
        ));
    let small_bodies = OpenApiRouter::new()
        .routes(routes!(terms::sign_term, terms::list_signatures))
        .routes(routes!(terms::get_signature))
        .routes(routes!(
            certificates::create_certificate,
            certificates::list_certificates
        ))
        .routes(routes!(certificates::ledger_head))
        .routes(routes!(certificates::get_certificate))
        .routes(routes!(certificates::certificate_proof))
        .layer(DefaultBodyLimit::max(feedback::MAX_FEEDBACK_BODY_BYTES * 2));
    messages.merge(terms).merge(small_bodies)
}

/// Entry creation accepts multipart uploads up to 25 MiB; its JSON bodies keep the global limit.
fn entry_routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(entries::create_entry, entries::list_entries))
        .layer(axum::extract::DefaultBodyLimit::max(
            crate::services::entries::MAX_MULTIPART_BYTES,
        ))
}
