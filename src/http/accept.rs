//! The `Accept` header read as media ranges with their weights, for the pages that answer in
//! HTML or JSON (`ogc/format.rs`, `web/landing.rs`); each decides what a range counts for.

use axum::http::{HeaderMap, header};

/// Every media range of every `Accept` header, lower-cased, with its `q` (1 when absent or
/// unreadable).
pub fn ranges(headers: &HeaderMap) -> impl Iterator<Item = (String, f32)> + '_ {
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|range| {
            let mut parts = range.split(';');
            let media = parts.next().unwrap_or("").trim().to_ascii_lowercase();
            let q = parts
                .filter_map(|p| p.trim().strip_prefix("q="))
                .find_map(|q| q.trim().parse::<f32>().ok())
                .unwrap_or(1.0);
            (media, q)
        })
}
