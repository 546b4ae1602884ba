//! Integration tests: the real router (REST and GraphQL) over a real PostgreSQL + PostGIS.

mod harness;

mod agents;
mod api_docs;
mod api_keys;
mod architecture;
mod attachments;
mod dealings;
mod docs_examples;
mod entries;
mod evaluation;
mod explorer;
mod faults;
mod feedback;
mod graphql_api;
mod graphql_documents;
mod graphql_graph;
mod graphql_limits;
mod graphql_statements;
mod matching_quality;
mod mcp;
mod merges;
mod principals;
mod provenance;
mod review;
mod search;
mod spatial;
mod status;
mod subscriptions;
mod tiles;
mod tokens;
mod transformer;
mod twins;
mod validation;
