//! How GraphQL is served rather than what it says: the HTTP and WebSocket transports, limits and
//! complexity, compiled plans for hot documents, persisted queries, per-request loaders and
//! batching, paging, totals, and the mapping of `AppError` to GraphQL errors.

pub mod batching;
pub mod compiled;
pub mod context;
pub mod dealing_loaders;
pub mod errors;
pub mod handler;
pub mod http;
pub mod limits;
pub mod loaders;
pub mod members;
pub mod paging;
pub mod persisted;
pub mod provenance_loaders;
pub mod request_loaders;
pub mod totals;
pub mod websocket;
