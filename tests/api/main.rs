//! Integration tests: the real router (REST and GraphQL) over a real PostgreSQL + PostGIS.

// Test code through and through: clippy.toml's test allowances (unwrap, print) cover only
// `#[test]` functions and `#[cfg(test)]` items, not the helpers of an integration test.
#![cfg(test)]

mod harness;

mod agents;
mod api_docs;
mod api_keys;
mod architecture;
mod attachments;
mod candidates;
mod configuration;
mod cors;
mod dealings;
mod disk_full;
mod docs_examples;
mod docs_index;
mod embedded_cluster;
mod entries;
mod evaluation;
mod explorer;
mod export;
mod faults;
mod feedback;
mod geojson_format;
mod graphql_api;
mod graphql_compiled;
mod graphql_documents;
mod graphql_graph;
mod graphql_http;
mod graphql_limits;
mod graphql_statements;
mod graphql_totals;
mod landing;
mod matching_quality;
mod matching_recall;
mod mcp;
mod merges;
mod offer_merges;
mod ogc;
mod openapi_document;
mod paging;
mod place_order;
mod principals;
mod processes;
mod proposals;
mod provenance;
mod reads_by_id;
mod rekey;
mod review;
mod scale_out;
mod search;
mod search_nearest;
mod search_typos;
mod spatial;
mod status;
mod subscriptions;
mod tile_extent;
mod tiles;
mod tokens;
mod transformer;
mod twins;
mod validation;
