//! `GET /collections/{collectionId}/items` and `…/items/{featureId}`: the records of a kind as
//! GeoJSON features (or HTML), filtered by `bbox` and `datetime` (on `updated_at_tstamp_utc`),
//! newest first, paged by `next` / `prev` links that carry an opaque cursor.

use super::collections::{Collection, CollectionId, link};
use super::error::OgcError;
use super::feature::{OgcFeature, OgcFeatureCollection, OgcLink, feature};
use super::format::{FeatureFormat, Format, GEOJSON, choose};
use super::{cursor, html, params, respond_html, respond_json};
use crate::error::AppError;
use crate::http::ErrorBody;
use crate::http::base_url;
use crate::records::canonical::{CanonicalRequest, Entity, Listing};
use crate::records::geojson::{FeatureCollectionType, Located};
use crate::services::canonical;
use crate::services::features::{self, FeaturePage, FeatureQuery, Keyset};
use crate::state::AppState;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, RawQuery, State};
use axum::http::HeaderMap;
use axum::response::Response;
use serde::Serialize;
use std::collections::BTreeMap;
use uuid::Uuid;

#[derive(Debug, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[expect(
    dead_code,
    reason = "documents the query parameters in OpenAPI; the handler reads them as text"
)]
pub struct ItemsParams {
    /// Only features inside this box: `minLon,minLat,maxLon,maxLat` in degrees (CRS84; six
    /// numbers with heights are accepted and the heights ignored). `minLon` greater than `maxLon`
    /// crosses the antimeridian.
    #[param(example = "-2.30,53.45,-2.20,53.50")]
    bbox: Option<String>,
    /// Only features last changed (`updated_at_tstamp_utc`) at this instant or in this interval:
    /// `2026-11-01T10:00:00Z`, a date (`2026-11-01`, that whole day), `start/end`, `start/..` or
    /// `../end`. Bounds are inclusive.
    datetime: Option<String>,
    /// Features per page: default 100, at most 1000 (a larger value is lowered to 1000; one past
    /// a 64-bit integer is malformed, 400).
    #[param(minimum = 1)]
    limit: Option<i64>,
    /// Where the page starts: copy it from a `next` or `prev` link; it means nothing else.
    cursor: Option<String>,
    /// `json` or `geojson` (GeoJSON), or `html`; overrides the `Accept` header.
    #[param(inline)]
    f: Option<FeatureFormat>,
}

#[derive(Debug, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[expect(
    dead_code,
    reason = "documents the query parameters in OpenAPI; the handler reads them as text"
)]
pub struct ItemParams {
    /// `json` or `geojson` (GeoJSON), or `html`; overrides the `Accept` header.
    #[param(inline)]
    f: Option<FeatureFormat>,
}

const ITEMS_PARAMETERS: [&str; 5] = ["bbox", "datetime", "limit", "cursor", "f"];

/// The features of a collection, newest first, a page at a time
///
/// GeoJSON (`application/geo+json`) by default, HTML for a browser. Filtered by `bbox` and by
/// `datetime` on the records' last change; `next` and `prev` links page through all of them in a
/// stable order. Scores, confidences and amounts are JSON numbers here. Archived, withdrawn and
/// merged records are left out.
#[utoipa::path(get, path = "/collections/{collectionId}/items", tag = "ogc-features", operation_id = "list_collection_items",
    params(("collectionId" = inline(CollectionId), Path, description = "`entities`, `listings` or `requests`"), ItemsParams),
    responses((status = 200, description = "A page of features",
               content((OgcFeatureCollection = "application/geo+json"), (String = "text/html"))),
              (status = 400, description = "An unknown or malformed parameter (`bbox`, `datetime`, `limit`, `cursor`, `f`)", body = ErrorBody),
              (status = 404, description = "No such collection", body = ErrorBody)))]
pub async fn items(
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Result<Response, OgcError> {
    let c = Collection::parse(&path.map(|Path(id)| id).unwrap_or_default())?;
    let given = params::read(query.as_deref(), &ITEMS_PARAMETERS)?;
    let get = |name: &str| given.get(name).map(String::as_str);
    let format = choose(get("f"), &headers, true)?;
    let bbox = params::bbox(get("bbox"));
    let query = FeatureQuery {
        bbox: bbox.as_deref(),
        changed: params::datetime(get("datetime"))?,
        limit: params::limit(get("limit"))?,
        keyset: params::keyset(get("cursor"))?,
        root: &["query"],
    };
    let page = Page {
        base: base_url(&headers),
        collection: c,
        given: &given,
        limit: query.limit,
        keyset: query.keyset,
    };
    let collection = match c {
        Collection::Entities => page.features(features::records::<Entity>(&state, &query).await?),
        Collection::Listings => page.features(features::records::<Listing>(&state, &query).await?),
        Collection::Requests => {
            page.features(features::records::<CanonicalRequest>(&state, &query).await?)
        }
    };
    Ok(match format {
        Format::Json => respond_json(&collection, GEOJSON),
        Format::Html => respond_html(html::items(c, &collection)),
    })
}

/// What the links of a page are made of.
struct Page<'a> {
    base: String,
    collection: Collection,
    given: &'a BTreeMap<String, String>,
    limit: i64,
    keyset: Keyset,
}

impl Page<'_> {
    /// The items URL with the filters given, this `limit`, `cursor` and `f`.
    fn url(&self, cursor: Option<String>, f: &str) -> String {
        let mut query = url::form_urlencoded::Serializer::new(String::new());
        for name in ["bbox", "datetime"] {
            if let Some(value) = self.given.get(name) {
                query.append_pair(name, value);
            }
        }
        query.append_pair("limit", &self.limit.to_string());
        if let Some(cursor) = cursor {
            query.append_pair("cursor", &cursor);
        }
        query.append_pair("f", f);
        format!(
            "{}/collections/{}/items?{}",
            self.base,
            self.collection.id(),
            query.finish()
        )
    }

    fn features<T: Serialize + Located>(&self, page: FeaturePage<T>) -> OgcFeatureCollection {
        let here = cursor::encode(self.keyset);
        let mut links = vec![
            link(self.url(here.clone(), "json"), "self", GEOJSON, "This page"),
            link(
                self.url(here, "html"),
                "alternate",
                "text/html",
                "This page as HTML",
            ),
            link(
                format!("{}/collections/{}", self.base, self.collection.id()),
                "collection",
                "application/json",
                self.collection.title(),
            ),
        ];
        // Going forward there is a previous page once a cursor was followed; going back, a next
        // page always (the one the cursor came from). `more` says whether the direction of travel
        // goes on.
        let (newer, older) = match self.keyset {
            Keyset::First => (false, page.more),
            Keyset::After(_) => (true, page.more),
            Keyset::Before(_) => (page.more, true),
        };
        if let (true, Some(last)) = (older, page.items.last()) {
            let next = cursor::encode(Keyset::After(last.feature_id()));
            links.push(link(self.url(next, "json"), "next", GEOJSON, "Next page"));
        }
        if let (true, Some(first)) = (newer, page.items.first()) {
            let prev = cursor::encode(Keyset::Before(first.feature_id()));
            links.push(link(
                self.url(prev, "json"),
                "prev",
                GEOJSON,
                "Previous page",
            ));
        }
        let features: Vec<OgcFeature> = page.items.iter().map(|r| feature(r, Vec::new())).collect();
        OgcFeatureCollection {
            kind: FeatureCollectionType::FeatureCollection,
            number_returned: features.len(),
            features,
            links,
            time_stamp: chrono::Utc::now(),
        }
    }
}

/// One feature of a collection
///
/// GeoJSON by default, HTML for a browser. A record merged into another answers with the record
/// it was merged into (its `id` says which).
#[utoipa::path(get, path = "/collections/{collectionId}/items/{featureId}", tag = "ogc-features", operation_id = "get_collection_item",
    params(("collectionId" = inline(CollectionId), Path, description = "`entities`, `listings` or `requests`"),
           ("featureId" = String, Path, description = "The record's id (a UUID)"), ItemParams),
    responses((status = 200, description = "The feature",
               content((OgcFeature = "application/geo+json"), (String = "text/html"))),
              (status = 400, description = "An unknown parameter or `f` value", body = ErrorBody),
              (status = 404, description = "No such collection or feature", body = ErrorBody)))]
pub async fn item(
    State(state): State<AppState>,
    path: Result<Path<(String, String)>, PathRejection>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Result<Response, OgcError> {
    let (collection, id) = path.map(|Path(p)| p).unwrap_or_default();
    let c = Collection::parse(&collection)?;
    let given = params::read(query.as_deref(), &["f"])?;
    let format = choose(given.get("f").map(String::as_str), &headers, true)?;
    // Any id that is not a UUID names no feature.
    let id = Uuid::parse_str(&id).map_err(|_| OgcError(AppError::NotFound("feature")))?;
    let base = base_url(&headers);
    let links = |found: Uuid| item_links(&base, c, found);
    let one = match c {
        Collection::Entities => {
            let r = canonical::record::<Entity>(&state, id).await?;
            feature(&r, links(r.id))
        }
        Collection::Listings => {
            let r = canonical::record::<Listing>(&state, id).await?;
            feature(&r, links(r.id))
        }
        Collection::Requests => {
            let r = canonical::record::<CanonicalRequest>(&state, id).await?;
            feature(&r, links(r.id))
        }
    };
    Ok(match format {
        Format::Json => respond_json(&one, GEOJSON),
        Format::Html => respond_html(html::item(c, &one)),
    })
}

fn item_links(base: &str, c: Collection, id: Uuid) -> Vec<OgcLink> {
    let url = format!("{base}/collections/{}/items/{id}", c.id());
    vec![
        link(format!("{url}?f=json"), "self", GEOJSON, "This feature"),
        link(
            format!("{url}?f=html"),
            "alternate",
            "text/html",
            "This feature as HTML",
        ),
        link(
            format!("{base}/collections/{}", c.id()),
            "collection",
            "application/json",
            c.title(),
        ),
    ]
}
