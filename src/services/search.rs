//! Search by text, place and radius: one service for REST, GraphQL and MCP.

use crate::domain::CanonicalTable;
use crate::error::{AppError, AppResult};
use crate::records::geojson::{Feature, FeatureCollectionType, Located};
use crate::search::filters::{Filters, dimensions_present};
use crate::search::{self, CanonicalType, SearchInput, SearchRequest, SortOrder, TextMatching};
use crate::state::AppState;
use serde::Serialize;
use serde_json::Value;
use uuid::Uuid;

pub use crate::records::canonical::CanonicalRecord;
pub use crate::records::search::{ScoreParts, SearchResult};

/// The search as the service understood it, after defaults.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct EffectiveQuery {
    pub query: String,
    pub latitude: Option<f64>,
    pub longitude: Option<f64>,
    pub radius_meters: Option<i64>,
    pub canonical_type: CanonicalType,
    pub filters: Filters,
    pub response_must_include_dimensions: Vec<String>,
    pub max_results: i64,
    pub sort: SortOrder,
    /// `exact` when records have all the query's words (records having them all as close
    /// spellings may follow, below); `fuzzy` when none had, and the words corrected against the
    /// records' vocabulary (misspellings, partial words) answered instead.
    pub text_matching: TextMatching,
}

#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct SearchResponse {
    pub query: EffectiveQuery,
    pub results: Vec<SearchResult>,
}

#[tracing::instrument(name = "search::search", level = "debug", skip_all)]
pub async fn search(
    state: &AppState,
    input: SearchInput,
    loc: &[&str],
) -> AppResult<SearchResponse> {
    let request = SearchRequest::validate(input, loc)?;
    let (hits, text_matching) =
        search::run(crate::services::read_route::search_reads(state), &request).await?;
    let results = hits
        .into_iter()
        .map(into_result)
        .collect::<AppResult<Vec<_>>>()?;
    let query = EffectiveQuery {
        query: request.query,
        latitude: request.point.map(|p| p.0),
        longitude: request.point.map(|p| p.1),
        radius_meters: request.radius_m,
        canonical_type: request.canonical_type,
        filters: request.filters,
        response_must_include_dimensions: request.dimensions,
        max_results: request.max_results,
        sort: request.sort,
        text_matching,
    };
    Ok(SearchResponse { query, results })
}

/// A hit, with its record read from the JSON the search statement built.
fn into_result(hit: search::Hit) -> AppResult<SearchResult> {
    let table = hit.table();
    let parse_error = |e: serde_json::Error| {
        AppError::internal(anyhow::anyhow!("search record of {}: {e}", hit.id))
    };
    let record = match table {
        CanonicalTable::Entities => {
            CanonicalRecord::Entity(serde_json::from_str(&hit.record).map_err(parse_error)?)
        }
        CanonicalTable::Listings => {
            CanonicalRecord::Listing(serde_json::from_str(&hit.record).map_err(parse_error)?)
        }
        CanonicalTable::Requests => {
            CanonicalRecord::Request(serde_json::from_str(&hit.record).map_err(parse_error)?)
        }
    };
    Ok(SearchResult {
        canonical_table: table,
        canonical_type: table.record_name().to_string(),
        id: hit.id,
        label: hit.label,
        score: hit.score,
        score_parts: ScoreParts {
            text: hit.text_score,
            distance: hit.distance_score,
            confidence: hit.confidence,
        },
        distance_meters: hit.distance_m.map(|d| (d * 10.0).round() / 10.0),
        dimensions_present: dimensions_present(
            &serde_json::to_value(&record).unwrap_or(Value::Null),
        ),
        record,
    })
}

impl Located for SearchResult {
    fn feature_id(&self) -> Uuid {
        self.id
    }
    fn lng_lat(&self) -> [f64; 2] {
        match &self.record {
            CanonicalRecord::Entity(e) => e.lng_lat(),
            CanonicalRecord::Listing(l) => l.lng_lat(),
            CanonicalRecord::Request(r) => r.lng_lat(),
        }
    }
}

/// The same hits as an RFC 7946 FeatureCollection, with the effective query as a foreign member.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct SearchFeatureCollection {
    #[serde(rename = "type")]
    pub kind: FeatureCollectionType,
    pub features: Vec<Feature<SearchResult>>,
    pub query: EffectiveQuery,
}

impl From<SearchResponse> for SearchFeatureCollection {
    fn from(response: SearchResponse) -> Self {
        SearchFeatureCollection {
            kind: FeatureCollectionType::FeatureCollection,
            features: response.results.into_iter().map(Feature::of).collect(),
            query: response.query,
        }
    }
}
