//! The shape of each record, written once. A record struct is at the same time the database row
//! (`sqlx::FromRow`), the JSON body (`serde`), the OpenAPI schema (`utoipa::ToSchema`) and the
//! GraphQL object (`async_graphql::SimpleObject` with `#[graphql(complex)]`; its graph edges are
//! added in `graphql/` by `#[ComplexObject]` blocks). Responses built by services (a search
//! hit, a registration, a new key, an access token) live here too, so that GraphQL answers with
//! the very struct REST serialises. Create bodies are written once too: the body REST and MCP parse
//! is GraphQL's input object (`entries::EntryCreate` is `SpaceTimeEntryInput`), its decimals
//! taking a number or a decimal string on every transport.
//!
//! This module only declares shapes: no SQL, no I/O, no resolver. Deriving a transport's traits
//! here is allowed; naming its runtime (`Context`, handlers, routers) is not
//! (`tests/api/architecture.rs`). That test reads line by line, so a `derive(...)` naming
//! async_graphql stays on one line: `FromRow` and `ToSchema` are imported by name to keep it within
//! rustfmt's width (rustfmt merges adjacent derives, so splitting them does not help).

pub mod agents;
pub mod canonical;
pub mod certificates;
pub mod entries;
pub mod evaluation;
pub mod export;
pub mod feedback;
pub mod geojson;
pub mod messages;
pub mod processing;
pub mod proposals;
pub mod provenance;
pub mod review;
pub mod search;
pub mod terms;
pub mod tiles;
