//! A search as asked (`SearchInput`, raw strings and numbers from any transport) and as validated
//! (`SearchRequest`), with every problem located in the caller's terms.

use super::filters::{self, Filters};
use crate::domain::Violations;
use crate::error::AppResult;

pub const MAX_QUERY_CHARS: usize = 200;
pub const DEFAULT_MAX_RESULTS: i64 = 10;
pub const MAX_RESULTS: i64 = 50;
pub const MAX_RADIUS_M: i64 = crate::domain::geo::MAX_RADIUS_M;

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum CanonicalType {
    Entity,
    Listing,
    Request,
    Mixed,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SortOrder {
    /// Combined score (text relevance, distance, confidence), best first.
    Relevance,
    /// Nearest first (needs a point).
    Distance,
}

/// What the caller sent, before validation: the query parameters of `GET /api/v1/search` and the
/// arguments of the MCP `search_records` tool (one shape for both).
#[derive(Debug, Clone, Default, serde::Deserialize, utoipa::IntoParams, utoipa::ToSchema)]
#[into_params(parameter_in = Query)]
pub struct SearchInput {
    /// Required, 1 to 200 characters: names, titles, categories, city.
    pub query: Option<String>,
    /// With longitude: results carry distance_meters.
    pub latitude: Option<f64>,
    pub longitude: Option<f64>,
    /// 1 to 100000; needs latitude and longitude.
    pub radius_meters: Option<i64>,
    /// entity, listing, request or mixed (default).
    pub canonical_type: Option<String>,
    /// e.g. `country_code:GB,city:Manchester,categories:plumber|heating,status:active`.
    pub filters: Option<String>,
    /// e.g. `phone,website_url`: only results having all of them.
    pub response_must_include_dimensions: Option<String>,
    /// 1 to 50, default 10.
    pub max_results: Option<i64>,
    /// relevance (default) or distance (nearest first; needs a point).
    pub sort: Option<String>,
}

#[derive(Debug, Clone)]
pub struct SearchRequest {
    pub query: String,
    pub point: Option<(f64, f64)>,
    pub radius_m: Option<i64>,
    pub canonical_type: CanonicalType,
    pub filters: Filters,
    pub dimensions: Vec<String>,
    pub max_results: i64,
    pub sort: SortOrder,
}

impl SearchRequest {
    /// `root` locates problems: `["query"]` for REST query strings, `[]` for GraphQL arguments.
    pub fn validate(input: SearchInput, root: &[&str]) -> AppResult<SearchRequest> {
        let mut v = Violations::at(root);
        let query = input
            .query
            .as_deref()
            .map(str::trim)
            .unwrap_or_default()
            .to_string();
        match input.query {
            None => v.push("query", "the query parameter is required", "missing"),
            Some(_) if query.is_empty() => v.push(
                "query",
                "must contain at least 1 character",
                "string_too_short",
            ),
            Some(_) if query.chars().count() > MAX_QUERY_CHARS => v.push(
                "query",
                format!("must be at most {MAX_QUERY_CHARS} characters"),
                "string_too_long",
            ),
            Some(_) => {}
        }
        let point = match (input.latitude, input.longitude) {
            (Some(lat), Some(lng)) => {
                v.check(
                    lat.is_finite() && (-90.0..=90.0).contains(&lat),
                    "latitude",
                    "must be between -90 and 90",
                    "range",
                );
                v.check(
                    lng.is_finite() && (-180.0..=180.0).contains(&lng),
                    "longitude",
                    "must be between -180 and 180",
                    "range",
                );
                Some((lat, lng))
            }
            (Some(_), None) => {
                v.push("longitude", "latitude and longitude go together", "missing");
                None
            }
            (None, Some(_)) => {
                v.push("latitude", "latitude and longitude go together", "missing");
                None
            }
            (None, None) => None,
        };
        if let Some(radius) = input.radius_meters {
            v.check(
                (1..=MAX_RADIUS_M).contains(&radius),
                "radius_meters",
                "must be between 1 and 100000",
                "range",
            );
            v.check(
                point.is_some() || input.latitude.is_some() || input.longitude.is_some(),
                "radius_meters",
                "needs latitude and longitude",
                "missing",
            );
        }
        let canonical_type = match input.canonical_type.as_deref().unwrap_or("mixed") {
            "entity" => CanonicalType::Entity,
            "listing" => CanonicalType::Listing,
            "request" => CanonicalType::Request,
            "mixed" => CanonicalType::Mixed,
            _ => {
                v.push(
                    "canonical_type",
                    "must be one of: entity, listing, request, mixed",
                    "enum",
                );
                CanonicalType::Mixed
            }
        };
        let sort = match input.sort.as_deref().unwrap_or("relevance") {
            "relevance" => SortOrder::Relevance,
            "distance" => {
                v.check(
                    point.is_some(),
                    "sort",
                    "sorting by distance needs latitude and longitude",
                    "missing",
                );
                SortOrder::Distance
            }
            _ => {
                v.push("sort", "must be one of: relevance, distance", "enum");
                SortOrder::Relevance
            }
        };
        let filters = filters::parse_filters(input.filters.as_deref().unwrap_or(""))
            .unwrap_or_else(|msg| {
                v.push("filters", msg, "value_error");
                Filters::new()
            });
        let dimensions = filters::parse_dimensions(
            input
                .response_must_include_dimensions
                .as_deref()
                .unwrap_or(""),
        )
        .unwrap_or_else(|msg| {
            v.push("response_must_include_dimensions", msg, "value_error");
            Vec::new()
        });
        let max_results = input.max_results.unwrap_or(DEFAULT_MAX_RESULTS);
        v.check(
            (1..=MAX_RESULTS).contains(&max_results),
            "max_results",
            "must be between 1 and 50",
            "range",
        );
        v.into_result()?;
        Ok(SearchRequest {
            query,
            point,
            radius_m: input.radius_meters,
            canonical_type,
            filters,
            dimensions,
            max_results,
            sort,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::AppError;

    fn locs(input: SearchInput) -> Vec<String> {
        match SearchRequest::validate(input, &["query"]) {
            Err(AppError::Validation(items)) => items
                .iter()
                .map(|i| {
                    serde_json::to_value(&i.loc)
                        .unwrap()
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|p| p.as_str().unwrap().to_string())
                        .collect::<Vec<_>>()
                        .join(".")
                })
                .collect(),
            other => panic!("expected a validation error, got {other:?}"),
        }
    }

    fn base() -> SearchInput {
        SearchInput {
            query: Some("plumber".into()),
            ..SearchInput::default()
        }
    }

    #[test]
    fn every_parameter_is_checked_where_it_was_sent() {
        assert_eq!(locs(SearchInput::default()), ["query.query"]);
        assert_eq!(
            locs(SearchInput {
                query: Some(" ".into()),
                ..base()
            }),
            ["query.query"]
        );
        assert_eq!(
            locs(SearchInput {
                latitude: Some(1.0),
                ..base()
            }),
            ["query.longitude"]
        );
        assert_eq!(
            locs(SearchInput {
                latitude: Some(91.0),
                longitude: Some(0.0),
                ..base()
            }),
            ["query.latitude"]
        );
        assert_eq!(
            locs(SearchInput {
                radius_meters: Some(10),
                ..base()
            }),
            ["query.radius_meters"]
        );
        let point = SearchInput {
            latitude: Some(1.0),
            longitude: Some(1.0),
            ..base()
        };
        assert_eq!(
            locs(SearchInput {
                radius_meters: Some(100_001),
                ..point.clone()
            }),
            ["query.radius_meters"]
        );
        assert_eq!(
            locs(SearchInput {
                canonical_type: Some("thing".into()),
                ..base()
            }),
            ["query.canonical_type"]
        );
        assert_eq!(
            locs(SearchInput {
                max_results: Some(51),
                ..base()
            }),
            ["query.max_results"]
        );
        assert_eq!(
            locs(SearchInput {
                sort: Some("distance".into()),
                ..base()
            }),
            ["query.sort"]
        );
        assert_eq!(
            locs(SearchInput {
                filters: Some("nope:1".into()),
                ..base()
            }),
            ["query.filters"]
        );
        assert_eq!(
            locs(SearchInput {
                response_must_include_dimensions: Some("x".into()),
                ..base()
            }),
            ["query.response_must_include_dimensions"]
        );
    }

    #[test]
    fn defaults_are_mixed_relevance_and_ten_results() {
        let r = SearchRequest::validate(base(), &["query"]).unwrap();
        assert_eq!(r.canonical_type, CanonicalType::Mixed);
        assert_eq!(r.sort, SortOrder::Relevance);
        assert_eq!(r.max_results, 10);
    }
}
