//! `search(...)`: the same service and the same answer as GET /api/v1/search.

use crate::graphql::machinery::context::ctx_parts;
use crate::records::search::SearchResult;
use crate::search::SearchInput;
use crate::services::search;
use async_graphql::{Context, Json, Object, Result, SimpleObject};

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
    #[graphql(
        complexity = "crate::graphql::machinery::limits::list_cost(max_results, 10, child_complexity)"
    )]
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
        Ok(SearchResponse {
            query: Json(query),
            results: response.results,
        })
    }
}
