//! `search(...)`: the same service and the same answer as GET /api/v1/search.

use super::canonical::CanonicalRecord;
use super::ctx_parts;
use crate::domain::CanonicalTable;
use crate::search::SearchInput;
use crate::services::search::{self, CanonicalRecord as Record};
use async_graphql::{Context, Json, Object, Result, SimpleObject};
use uuid::Uuid;

/// The parts a result's score is made of.
#[derive(SimpleObject)]
pub struct ScoreParts {
    pub text: f64,
    pub distance: Option<f64>,
    pub confidence: f64,
}

#[derive(SimpleObject)]
pub struct SearchResult {
    pub canonical_table: CanonicalTable,
    /// entity, listing or request.
    pub canonical_type: String,
    pub id: Uuid,
    pub label: String,
    pub score: f64,
    pub score_parts: ScoreParts,
    pub distance_meters: Option<f64>,
    pub dimensions_present: Vec<String>,
    pub record: CanonicalRecord,
}

#[derive(SimpleObject)]
pub struct SearchResponse {
    /// The search as understood, after defaults (same JSON as REST's `query`).
    pub query: Json<serde_json::Value>,
    pub results: Vec<SearchResult>,
}

#[derive(Default)]
pub struct SearchQuery;

#[Object]
impl SearchQuery {
    /// Search canonical records by text, place and radius (same as GET /api/v1/search).
    #[expect(clippy::too_many_arguments, reason = "one per GraphQL argument")]
    #[graphql(complexity = "super::limits::list_cost(max_results, 10, child_complexity)")]
    async fn search(
        &self,
        ctx: &Context<'_>,
        query: String,
        latitude: Option<f64>,
        longitude: Option<f64>,
        radius_meters: Option<i64>,
        #[graphql(desc = "entity, listing, request or mixed (default)")] canonical_type: Option<
            String,
        >,
        #[graphql(desc = "e.g. country_code:GB,city:Manchester,categories:plumber")]
        filters: Option<String>,
        #[graphql(desc = "e.g. phone,website_url")] response_must_include_dimensions: Option<
            String,
        >,
        max_results: Option<i64>,
        #[graphql(desc = "relevance (default) or distance")] sort: Option<String>,
    ) -> Result<SearchResponse> {
        let (state, _) = ctx_parts(ctx);
        let input = SearchInput {
            query: Some(query),
            latitude,
            longitude,
            radius_meters,
            canonical_type,
            filters,
            response_must_include_dimensions,
            max_results,
            sort,
        };
        let response = search::search(state, input, &[]).await?;
        let query = serde_json::to_value(&response.query).unwrap_or_default();
        let results = response
            .results
            .into_iter()
            .map(|r| SearchResult {
                canonical_table: r.canonical_table,
                canonical_type: r.canonical_type,
                id: r.id,
                label: r.label,
                score: r.score,
                score_parts: ScoreParts {
                    text: r.score_parts.text,
                    distance: r.score_parts.distance,
                    confidence: r.score_parts.confidence,
                },
                distance_meters: r.distance_meters,
                dimensions_present: r.dimensions_present,
                record: match r.record {
                    Record::Entity(e) => CanonicalRecord::Entity(e),
                    Record::Listing(l) => CanonicalRecord::Listing(l),
                    Record::Request(q) => CanonicalRecord::Request(q),
                },
            })
            .collect();
        Ok(SearchResponse {
            query: Json(query),
            results,
        })
    }
}
