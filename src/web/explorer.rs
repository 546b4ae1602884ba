//! The provenance explorer: `GET /explore` (the page) and `GET /explore/{file}` (its script,
//! stylesheet, MapLibre's worker and the world-atlas country outlines), built from npm packages
//! by `web/explorer` into `assets/explorer/` and embedded here. The page reads the public API
//! (GraphQL, search, tiles) like any client; its content security policy lets it load and fetch
//! from this server only.

use crate::error::AppError;
use axum::extract::Path;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use rust_embed::RustEmbed;

#[derive(RustEmbed)]
#[folder = "assets/explorer/"]
struct Assets;

/// Nothing but this server: scripts, workers, style sheets, images and every fetch (tiles,
/// GraphQL, search, the country outlines). Style attributes are allowed (MapLibre and Cytoscape
/// size and place their elements with them), and one inline style sheet by its hash: the rule
/// `.__________cytoscape_container { position: relative; }` that Cytoscape adds to the page.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; \
    worker-src 'self'; style-src 'self' 'sha256-pgvDUBa4IjFA2yuSJ2cqcyxmNYJMborsd0ORcRv9vw8='; style-src-attr 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; \
    font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'self'";

fn media_type(file: &str) -> &'static str {
    match file.rsplit('.').next() {
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("json") => "application/json",
        Some("html") => "text/html; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// One embedded file, revalidated on every use (`no-cache` with its content hash as ETag): the
/// file names carry no version, so a cached copy must never outlive a new build.
fn serve(file: &str, request: &HeaderMap) -> Response {
    let Some(found) = Assets::get(file) else {
        return AppError::NotFound("asset").into_response();
    };
    let hash = found.metadata.sha256_hash();
    let etag = format!(
        "\"{}\"",
        hash[..12]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    );
    let mut headers = HeaderMap::new();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    // The policy binds MapLibre's worker too (a worker takes the policy its script came with).
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CONTENT_SECURITY_POLICY),
    );
    if let Ok(value) = HeaderValue::from_str(&etag) {
        headers.insert(header::ETAG, value);
    }
    let seen = request
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|tags| tags.split(',').any(|t| t.trim() == etag));
    if seen {
        return (StatusCode::NOT_MODIFIED, headers).into_response();
    }
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(media_type(file)),
    );
    (headers, found.data.into_owned()).into_response()
}

/// Explore the records on a map and their provenance
///
/// The provenance explorer: a map of the canonical records (the vector tiles of `/tiles`) with
/// country outlines, search, each record's fields with the entry and agent that set them, its
/// contributions, notes, signals and duplicates, a slider replaying its history, the provenance
/// graph, an agent view and the review queue (operators type an admin key into the page). No
/// key is needed to read. Everything loads from this server (see docs/explorer.md).
#[utoipa::path(get, path = "/explore", tag = "explorer", operation_id = "get_explorer_page",
    params(("If-None-Match" = Option<String>, Header)),
    responses((status = 200, description = "The explorer page (HTML)", content_type = "text/html"),
              (status = 304, description = "Unchanged since the ETag in If-None-Match")))]
pub async fn page(headers: HeaderMap) -> Response {
    serve("index.html", &headers)
}

/// Serve one bundled file of the explorer
///
/// `explorer.js`, `explorer.css`, `maplibre-gl-worker.mjs`, `countries-50m.json` (world-atlas,
/// Natural Earth 1:50m) and `index.html`; 404 for anything else.
#[utoipa::path(get, path = "/explore/{file}", tag = "explorer", operation_id = "get_explorer_asset",
    params(("file" = String, Path), ("If-None-Match" = Option<String>, Header)),
    responses((status = 200, description = "A bundled file of the explorer",
               content((String = "text/javascript"), (String = "text/css"), (Object = "application/json"), (String = "text/html"))),
              (status = 304, description = "Unchanged since the ETag in If-None-Match"),
              (status = 404, body = crate::http::ErrorBody)))]
pub async fn asset(Path(file): Path<String>, headers: HeaderMap) -> Response {
    serve(&file, &headers)
}
