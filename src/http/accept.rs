//! The `Accept` header read as media ranges with their weights, for the answers that come in
//! more than one media type (`ogc/format.rs`, `web/landing.rs`, `graphql/machinery/http.rs`);
//! each decides what a range counts for.

use axum::http::{HeaderMap, header};

/// Every media range of every `Accept` header.
pub fn ranges(headers: &HeaderMap) -> impl Iterator<Item = (String, f32)> + '_ {
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(ranges_of)
}

/// The media ranges of one `Accept` value, each lower-cased with its `q` (1 when absent or
/// unreadable).
pub fn ranges_of(accept: &str) -> impl Iterator<Item = (String, f32)> + '_ {
    accept.split(',').map(|range| {
        let mut parts = range.split(';');
        let media = parts.next().unwrap_or("").trim().to_ascii_lowercase();
        let q = parts
            .filter_map(|p| p.trim().strip_prefix("q="))
            .find_map(|q| q.trim().parse::<f32>().ok())
            .unwrap_or(1.0);
        (media, q)
    })
}
