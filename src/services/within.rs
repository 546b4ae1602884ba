//! Canonical records inside a box or a polygon, newest first: GraphQL's `entitiesWithin`,
//! `listingsWithin`, `requestsWithin` and the REST lists' `bbox` parameter.

use super::canonical::status_filter;
use crate::db;
use crate::domain::area::{self, BoundingBox};
use crate::domain::{ListParams, Page, Violations};
use crate::error::AppResult;
use crate::services::canonical::CanonicalRow;
use crate::state::AppState;
use geo_types::Geometry;

/// Where the area came from; each form reports its problems at its own name.
pub enum AreaInput<'a> {
    /// GraphQL: `bbox` and `polygon`, exactly one given.
    Graph {
        bbox: Option<BoundingBox>,
        polygon: Option<&'a serde_json::Value>,
    },
    /// REST: `?bbox=west,south,east,north`.
    BoxText(&'a str),
}

pub struct WithinArgs<'a> {
    pub area: AreaInput<'a>,
    /// None leaves archived and withdrawn records out.
    pub status: Option<&'a str>,
    pub params: ListParams,
    /// Where the arguments live: `[]` for GraphQL, `["query"]` for REST.
    pub root: &'a [&'a str],
}

pub(crate) fn area(args: &WithinArgs<'_>) -> AppResult<Geometry<f64>> {
    let mut v = Violations::at(args.root);
    let geometry = match &args.area {
        AreaInput::Graph {
            bbox: Some(b),
            polygon: None,
        } => area::bounding_box(&mut v, "bbox", *b),
        AreaInput::Graph {
            bbox: None,
            polygon: Some(p),
        } => area::polygon(&mut v, "polygon", p),
        AreaInput::Graph { .. } => {
            v.push(
                "bbox",
                "give exactly one of bbox and polygon",
                "value_error",
            );
            None
        }
        AreaInput::BoxText(text) => area::bounding_box_text(&mut v, "bbox", text),
    };
    v.into_result()?;
    Ok(geometry.expect("an area without violations"))
}

/// Records of kind `K` inside the area, newest first.
#[tracing::instrument(name = "within::records", level = "debug", skip_all, fields(kind = K::NOUN))]
pub async fn records<K: CanonicalRow>(
    state: &AppState,
    args: &WithinArgs<'_>,
) -> AppResult<Page<K>> {
    let status_loc: Vec<&str> = args.root.iter().copied().chain(["status"]).collect();
    let status = status_filter(args.status, &status_loc)?;
    let area = area(args)?;
    let rows = db::within::records::<K>(
        crate::services::read_route::search_reads(state),
        area,
        status,
        &args.params,
    )
    .await?;
    Ok(Page::from_rows(rows, &args.params))
}
