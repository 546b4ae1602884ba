//! `entitiesWithin`, `listingsWithin`, `requestsWithin`: canonical records inside a bounding box
//! (antimeridian-safe) or a GeoJSON polygon, newest first, as the plain lists page.

use crate::domain::area::BoundingBox;
use crate::domain::{ListParams, Page};
use crate::graphql::machinery::context::ctx_parts;
use crate::graphql::machinery::paging;
use crate::graphql::machinery::totals::{Counter, Total};
use crate::records::canonical::{CanonicalRequest, Entity, Listing};
use crate::records::geojson::Located;
use crate::services::canonical::CanonicalRow;
use crate::services::within::{self, AreaInput, WithinArgs};
use async_graphql::connection::Connection;
use async_graphql::{Context, InputObject, Json, Object, Result};

/// A box in degrees, as RFC 7946 §5.2: `west` greater than `east` crosses the antimeridian.
#[derive(InputObject, Clone, Copy)]
#[graphql(name = "BoundingBoxInput")]
pub struct BoundingBoxInput {
    /// Western edge, longitude -180 to 180.
    pub west: f64,
    /// Southern edge, latitude -90 to 90.
    pub south: f64,
    /// Eastern edge, longitude -180 to 180.
    pub east: f64,
    /// Northern edge, latitude -90 to 90, not south of `south`.
    pub north: f64,
}

impl From<BoundingBoxInput> for BoundingBox {
    fn from(b: BoundingBoxInput) -> Self {
        BoundingBox {
            west: b.west,
            south: b.south,
            east: b.east,
            north: b.north,
        }
    }
}

struct Arguments {
    bbox: Option<BoundingBoxInput>,
    polygon: Option<Json<serde_json::Value>>,
    status: Option<String>,
    params: ListParams,
    after_given: bool,
}

impl Arguments {
    fn new(
        bbox: Option<BoundingBoxInput>,
        polygon: Option<Json<serde_json::Value>>,
        status: Option<String>,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<Self> {
        Ok(Arguments {
            bbox,
            polygon,
            status,
            after_given: after.is_some(),
            params: paging::params(first, after)?,
        })
    }

    fn service_args(&self) -> WithinArgs<'_> {
        WithinArgs {
            area: AreaInput::Graph {
                bbox: self.bbox.map(Into::into),
                polygon: self.polygon.as_ref().map(|json| &json.0),
            },
            status: self.status.as_deref(),
            params: self.params,
            root: &[],
        }
    }
}

/// Records of kind `K` in the area, newest first: the page, and `totalCount` over the same area
/// and status.
async fn records<K: CanonicalRow + async_graphql::OutputType>(
    ctx: &Context<'_>,
    args: Arguments,
) -> Result<Connection<String, K, Total>> {
    let (state, _) = ctx_parts(ctx);
    let page: Page<K> = within::records::<K>(state, &args.service_args()).await?;
    let counter = Counter::Within {
        table: K::TABLE,
        bbox: args.bbox.map(Into::into),
        polygon: args.polygon.map(|json| json.0),
        status: args.status,
    };
    Ok(paging::counted(
        page,
        Located::feature_id,
        |r| r,
        args.after_given,
        counter,
    ))
}

#[derive(Default)]
pub struct WithinQuery;

/// The three `…Within` fields differ only in name and record (the whole `#[Object]` block lives
/// in the macro, as in `nearby.rs`).
macro_rules! within_fields {
    ($($(#[$doc:meta])* $field:ident: $record:ty;)+) => {
        #[Object]
        impl WithinQuery {
            $(
                $(#[$doc])*
                #[graphql(complexity = "crate::graphql::machinery::limits::page_cost(first, child_complexity)")]
                async fn $field(
                    &self,
                    ctx: &Context<'_>,
                    bbox: Option<BoundingBoxInput>,
                    polygon: Option<Json<serde_json::Value>>,
                    status: Option<String>,
                    first: Option<i32>,
                    after: Option<String>,
                ) -> Result<Connection<String, $record, Total>> {
                    records(ctx, Arguments::new(bbox, polygon, status, first, after)?).await
                }
            )+
        }
    };
}

within_fields! {
    /// Canonical entities inside `bbox` or `polygon` (a GeoJSON Polygon or MultiPolygon, or a
    /// Feature holding one, longitude first, at most 10,000 positions), exactly one of the two;
    /// newest first. Without `status`, archived and withdrawn records are left out.
    /// `first` 1 to 500 (default 100).
    entities_within: Entity;
    /// Canonical listings inside a box or polygon (as `entitiesWithin`).
    listings_within: Listing;
    /// Canonical requests inside a box or polygon (as `entitiesWithin`).
    requests_within: CanonicalRequest;
}
