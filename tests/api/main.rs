//! Integration tests: the real router (REST and GraphQL) over a real PostgreSQL + PostGIS.

mod harness;

mod agents;
mod api_keys;
mod architecture;
mod graphql_api;
mod principals;
mod status;
mod tokens;
mod validation;
