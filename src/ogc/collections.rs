//! `GET /collections` and `GET /collections/{collectionId}`: one collection per kind of canonical
//! record, with the extent of its current records read from the data.

use super::error::OgcError;
use super::feature::OgcLink;
use super::format::{Format, GEOJSON, choose};
use super::schema::SCHEMA_JSON;
use super::{conformance::MetadataParams, html, params, respond_html, respond_json};
use crate::domain::CanonicalTable;
use crate::error::AppError;
use crate::http::ErrorBody;
use crate::http::base_url;
use crate::services::features::{self, Extent};
use crate::state::AppState;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, RawQuery, State};
use axum::http::HeaderMap;
use axum::response::Response;
use chrono::{DateTime, Utc};
use serde::Serialize;

pub const CRS84: &str = "http://www.opengis.net/def/crs/OGC/1.3/CRS84";
const GREGORIAN: &str = "http://www.opengis.net/def/uom/ISO-8601/0/Gregorian";

/// The three kinds, in the order `/collections` lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Collection {
    Entities,
    Listings,
    Requests,
}

/// A collection's id.
#[derive(Debug, Clone, Copy, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
#[expect(
    dead_code,
    reason = "only its schema is used: the path is read as text, so an unknown id is a 404"
)]
pub enum CollectionId {
    Entities,
    Listings,
    Requests,
}

impl Collection {
    pub const ALL: [Collection; 3] = [
        Collection::Entities,
        Collection::Listings,
        Collection::Requests,
    ];

    /// An unknown id is a 404 (the standard's answer for a resource that does not exist).
    pub fn parse(id: &str) -> Result<Collection, OgcError> {
        Collection::ALL
            .into_iter()
            .find(|c| c.id() == id)
            .ok_or(OgcError(AppError::NotFound("collection")))
    }

    pub fn id(self) -> &'static str {
        match self {
            Collection::Entities => "entities",
            Collection::Listings => "listings",
            Collection::Requests => "requests",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Collection::Entities => "Entities",
            Collection::Listings => "Listings",
            Collection::Requests => "Requests",
        }
    }

    fn description(self) -> &'static str {
        match self {
            Collection::Entities => {
                "Canonical entities: businesses, places, organisations, people, facilities."
            }
            Collection::Listings => {
                "Canonical listings: concrete offers (products, services, jobs, availability)."
            }
            Collection::Requests => {
                "Canonical requests: concrete needs (quotes, procurement, bookings)."
            }
        }
    }

    pub fn table(self) -> CanonicalTable {
        match self {
            Collection::Entities => CanonicalTable::Entities,
            Collection::Listings => CanonicalTable::Listings,
            Collection::Requests => CanonicalTable::Requests,
        }
    }
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct OgcSpatialExtent {
    /// One box, `[west, south, east, north]` around the current records (the whole world while
    /// there are none).
    pub bbox: Vec<Vec<f64>>,
    pub crs: &'static str,
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct OgcTemporalExtent {
    /// One interval: the first and the last change (`updated_at_tstamp_utc`) of the current
    /// records; null ends while there are none.
    pub interval: Vec<Vec<Option<DateTime<Utc>>>>,
    pub trs: &'static str,
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct OgcExtent {
    pub spatial: OgcSpatialExtent,
    pub temporal: OgcTemporalExtent,
}

/// One collection: a kind of canonical record.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct OgcCollection {
    /// `entities`, `listings` or `requests`.
    pub id: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub links: Vec<OgcLink>,
    pub extent: OgcExtent,
    /// Always `feature`.
    #[serde(rename = "itemType")]
    pub item_type: &'static str,
    /// Only CRS84 (longitude, latitude in degrees, WGS 84).
    pub crs: Vec<&'static str>,
}

/// Every collection.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct OgcCollections {
    pub links: Vec<OgcLink>,
    pub collections: Vec<OgcCollection>,
}

pub fn link(
    href: String,
    rel: &'static str,
    media_type: &'static str,
    title: impl Into<String>,
) -> OgcLink {
    OgcLink {
        href,
        rel,
        media_type,
        title: title.into(),
    }
}

fn collection(base: &str, c: Collection, extent: Extent) -> OgcCollection {
    let url = format!("{base}/collections/{}", c.id());
    let bbox = match extent {
        Extent {
            west: Some(w),
            south: Some(s),
            east: Some(e),
            north: Some(n),
            ..
        } => vec![w, s, e, n],
        _ => vec![-180.0, -90.0, 180.0, 90.0],
    };
    OgcCollection {
        id: c.id(),
        title: c.title(),
        description: c.description(),
        links: vec![
            link(
                format!("{url}?f=json"),
                "self",
                "application/json",
                "This collection",
            ),
            link(
                format!("{url}?f=html"),
                "alternate",
                "text/html",
                "This collection as HTML",
            ),
            // No query here: GDAL appends `/{featureId}` to this URL to read one feature.
            link(
                format!("{url}/items"),
                "items",
                GEOJSON,
                format!("{} as GeoJSON", c.title()),
            ),
            link(
                format!("{url}/items?f=html"),
                "items",
                "text/html",
                format!("{} as HTML", c.title()),
            ),
            // `describedby` is the registered relation; GDAL 3.6 looks for `describedBy`.
            link(
                format!("{url}/schema"),
                "describedby",
                SCHEMA_JSON,
                "JSON Schema of the features",
            ),
            link(
                format!("{url}/schema"),
                "describedBy",
                SCHEMA_JSON,
                "JSON Schema of the features",
            ),
        ],
        extent: OgcExtent {
            spatial: OgcSpatialExtent {
                bbox: vec![bbox],
                crs: CRS84,
            },
            temporal: OgcTemporalExtent {
                interval: vec![vec![extent.first_change, extent.last_change]],
                trs: GREGORIAN,
            },
        },
        item_type: "feature",
        crs: vec![CRS84],
    }
}

/// The collections of this server: entities, listings and requests
///
/// Each with its links and the extent of its current records (archived, withdrawn and merged
/// records are left out), in space (CRS84) and in time (their last changes).
#[utoipa::path(get, path = "/collections", tag = "ogc-features", operation_id = "list_collections",
    params(MetadataParams),
    responses((status = 200, description = "The three collections",
               content((OgcCollections = "application/json"), (String = "text/html"))),
              (status = 400, description = "An unknown parameter or `f` value", body = ErrorBody)))]
pub async fn collections(
    State(state): State<AppState>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Result<Response, OgcError> {
    let query = params::read(query.as_deref(), &["f"])?;
    let format = choose(query.get("f").map(String::as_str), &headers, false)?;
    let base = base_url(&headers);
    let (entities, listings, requests) = tokio::try_join!(
        features::extent(&state, CanonicalTable::Entities),
        features::extent(&state, CanonicalTable::Listings),
        features::extent(&state, CanonicalTable::Requests),
    )?;
    let collections = Collection::ALL
        .into_iter()
        .zip([entities, listings, requests])
        .map(|(c, extent)| collection(&base, c, extent))
        .collect();
    let all = OgcCollections {
        links: vec![
            link(
                format!("{base}/collections?f=json"),
                "self",
                "application/json",
                "The collections",
            ),
            link(
                format!("{base}/collections?f=html"),
                "alternate",
                "text/html",
                "The collections as HTML",
            ),
        ],
        collections,
    };
    Ok(match format {
        Format::Json => respond_json(&all, "application/json"),
        Format::Html => respond_html(html::collections(&all)),
    })
}

/// One collection with its extent
#[utoipa::path(get, path = "/collections/{collectionId}", tag = "ogc-features", operation_id = "get_collection",
    params(("collectionId" = inline(CollectionId), Path, description = "`entities`, `listings` or `requests`"), MetadataParams),
    responses((status = 200, description = "The collection",
               content((OgcCollection = "application/json"), (String = "text/html"))),
              (status = 400, description = "An unknown parameter or `f` value", body = ErrorBody),
              (status = 404, description = "No such collection", body = ErrorBody)))]
pub async fn one_collection(
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Result<Response, OgcError> {
    let c = Collection::parse(&path.map(|Path(id)| id).unwrap_or_default())?;
    let query = params::read(query.as_deref(), &["f"])?;
    let format = choose(query.get("f").map(String::as_str), &headers, false)?;
    let extent = features::extent(&state, c.table()).await?;
    let one = collection(&base_url(&headers), c, extent);
    Ok(match format {
        Format::Json => respond_json(&one, "application/json"),
        Format::Html => respond_html(html::collection(&one)),
    })
}
