//! The GraphQL schema: a navigable graph over the same service functions the REST routes call.
//! `types/` holds what the schema says (one file per part of the graph), `machinery/` how it is
//! served (transports, limits, loaders, paging), `schema.rs` the schema built from the types.

pub mod machinery;
pub mod schema;
pub mod types;

pub use machinery::{handler, limits, websocket};
pub use schema::{AppSchema, build_schema, sdl, service};
