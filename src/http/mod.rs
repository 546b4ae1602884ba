//! The HTTP edge every transport stands on: reading bodies within their limits, media types, the
//! caller's credentials → `Ctx`, the one error response, JSON bodies, the base URL, and the edge
//! middleware every request passes. REST, GraphQL, MCP and the web pages build on this floor and
//! never on each other.

pub mod accept;
pub mod body;
pub mod cors;
pub mod credentials;
pub mod edge;
pub mod error_response;
pub mod extract;
pub mod host;
pub mod json;
mod unread;

pub use body::{may_be_object, parse_json, read_body, read_body_limited, require_json};
pub use credentials::{Auth, MaybeAuth, authenticate, bearer, context};
pub use error_response::{ErrorBody, ValidationErrorBody, parameter_error};
pub use extract::{OptionalJson, UuidPath, UuidPathPair, ValidJson, ValidQuery};
pub use host::{base_url, plain_host};
pub use json::Json;
