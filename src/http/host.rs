//! The host and base URL the client used, for links the server writes.

use axum::http::{HeaderMap, header};

/// The `Host` the client used, when it is a plain host name or address with an optional port;
/// anything else is never echoed into a page or a URL the server writes.
pub fn plain_host(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .filter(|h| {
            !h.is_empty()
                && h.len() <= 255
                && h.chars()
                    .all(|c| c.is_ascii_alphanumeric() || ".-:[]".contains(c))
        })
}

/// `scheme://host` as the client reached the server (`https` behind a proxy that says so in
/// `X-Forwarded-Proto`), or empty when the host is unknown: URLs then start at the path.
pub fn base_url(headers: &HeaderMap) -> String {
    let scheme = match headers
        .get("x-forwarded-proto")
        .and_then(|v| v.to_str().ok())
    {
        Some(proto) if proto.eq_ignore_ascii_case("https") => "https",
        _ => "http",
    };
    plain_host(headers).map_or_else(String::new, |host| format!("{scheme}://{host}"))
}
