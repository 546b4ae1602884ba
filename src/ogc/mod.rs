//! OGC API – Features – Part 1 (Core, GeoJSON, HTML, OpenAPI 3.0) over the canonical records:
//! `/conformance`, `/collections`, `/collections/{collectionId}`, its `/items` and
//! `/items/{featureId}` (and `/schema`, the features' JSON Schema), for QGIS, GDAL/OGR, ArcGIS and every other OAPIF client. An adapter like
//! `rest/`: it reads by id through `services::canonical` as REST does, and pages through
//! `services::features`. The landing page (`/`) is `web::landing`, which links here.
//! See docs/analysts.md.

mod collections;
mod conformance;
mod cursor;
mod error;
mod feature;
mod format;
mod html;
mod items;
mod params;
mod schema;

use crate::state::AppState;
use axum::http::{HeaderValue, header};
use axum::response::{Html, IntoResponse, Response};
use serde::Serialize;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(conformance::conformance))
        .routes(routes!(collections::collections))
        .routes(routes!(collections::one_collection))
        .routes(routes!(items::items))
        .routes(routes!(items::item))
        .routes(routes!(schema::collection_schema))
}

/// Representations depend on `Accept`: caches must keep them apart.
fn vary(mut response: Response) -> Response {
    response
        .headers_mut()
        .insert(header::VARY, HeaderValue::from_static("accept"));
    response
}

fn respond_json<T: Serialize>(body: &T, media_type: &'static str) -> Response {
    vary(
        (
            [(header::CONTENT_TYPE, HeaderValue::from_static(media_type))],
            axum::Json(body),
        )
            .into_response(),
    )
}

fn respond_html(page: String) -> Response {
    vary(Html(page).into_response())
}
