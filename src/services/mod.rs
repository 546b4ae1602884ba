//! Every operation of the service, once. REST handlers and GraphQL resolvers are thin adapters
//! over these functions, so the two transports cannot disagree.
//!
//! Each public operation opens a `tracing` span named `module::function` with the ids and kinds it
//! acts on (`skip_all`: never a key, token, password or body). They are debug spans: at the
//! default `info` every line of a request already carries the request span's id (`app.rs`), and
//! an enabled span per call would add its cost to every read by id, the service's hottest path;
//! `RUST_LOG=info,spacetime_records::services=debug` shows them. The transformer's drains run
//! outside any request, so theirs are info spans.
pub mod agents;
pub mod api_keys;
pub mod auth;
pub mod canonical;
pub mod certificates;
pub mod counts;
pub mod docs;
pub mod entries;
pub mod evaluation;
pub mod events;
pub mod exports;
pub mod features;
mod field_sources;
pub mod health;
pub mod history;
pub mod lookup;
pub mod merge;
pub mod messages;
pub mod metrics;
pub mod names;
pub mod nearby;
pub mod notes;
pub mod place_order;
pub mod principals;
pub mod proposals;
pub mod provenance;
pub mod ranker;
pub mod rate_limit;
pub mod read_route;
pub mod rekey;
pub mod review;
pub mod search;
pub mod signals;
pub mod terms;
pub mod tile_counts;
pub mod tile_extent;
pub mod tiles;
pub mod tokens;
pub mod touched;
pub mod transformer;
mod validate;
pub mod within;
