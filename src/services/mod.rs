//! Every operation of the service, once. REST handlers and GraphQL resolvers are thin adapters
//! over these functions, so the two transports cannot disagree.
pub mod agents;
pub mod api_keys;
pub mod auth;
pub mod canonical;
pub mod certificates;
pub mod docs;
pub mod entries;
pub mod evaluation;
pub mod events;
pub mod health;
pub mod history;
pub mod lookup;
pub mod messages;
pub mod nearby;
pub mod notes;
pub mod principals;
pub mod provenance;
pub mod ranker;
pub mod rate_limit;
pub mod search;
pub mod signals;
pub mod terms;
pub mod tokens;
pub mod touched;
pub mod transformer;
mod validate;
pub mod within;
