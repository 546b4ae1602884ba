//! The provenance explorer: `GET /explore` (the page) and `GET /explore/{file}` (its script,
//! stylesheet, MapLibre's worker and the basemap's data), built from npm packages by
//! `web/explorer` into `assets/explorer/` and embedded here. The page reads the public API
//! (GraphQL, search, tiles) like any client; its content security policy lets it load and fetch
//! from this server only, and from the origin of `STRS_BASEMAP_STYLE` when one is configured.

use crate::error::AppError;
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use rust_embed::RustEmbed;
use sha2::{Digest, Sha256};

#[derive(RustEmbed)]
#[folder = "assets/explorer/"]
struct Assets;

/// Nothing but this server: scripts, workers, style sheets, images and every fetch (tiles,
/// GraphQL, search, the basemap's data). Style attributes are allowed (MapLibre and Cytoscape
/// size and place their elements with them), and one inline style sheet by its hash: the rule
/// `.__________cytoscape_container { position: relative; }` that Cytoscape adds to the page.
/// `{basemap}` is empty, or the configured basemap style's origin (`content_security_policy`).
const POLICY_TEMPLATE: &str = "default-src 'self'; script-src 'self'; \
    worker-src 'self'; style-src 'self' 'sha256-pgvDUBa4IjFA2yuSJ2cqcyxmNYJMborsd0ORcRv9vw8='; style-src-attr 'unsafe-inline'; img-src 'self' data: blob:{basemap}; connect-src 'self'{basemap}; \
    font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'self'";

/// The policy of the page and its files. A configured basemap style (`STRS_BASEMAP_STYLE`) is
/// fetched by MapLibre, with its sources, sprite and glyphs: its origin joins `connect-src`
/// (fetches, MapLibre's worker included) and `img-src` (the sprite sheet).
pub fn content_security_policy(basemap_style: Option<&str>) -> String {
    let origin = basemap_style
        .and_then(|url| crate::config::basemap_origin(url).ok())
        .map(|origin| format!(" {origin}"))
        .unwrap_or_default();
    POLICY_TEMPLATE.replace("{basemap}", &origin)
}

/// The page names the configured basemap style in a `<meta>` the script reads (empty: the
/// bundled basemap). The URL is written as an HTML attribute value.
fn page_html(template: &[u8], basemap_style: Option<&str>) -> Vec<u8> {
    let Some(style) = basemap_style else {
        return template.to_vec();
    };
    let escaped = style
        .replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    String::from_utf8_lossy(template)
        .replacen(
            r#"<meta name="strs-basemap-style" content="">"#,
            &format!(r#"<meta name="strs-basemap-style" content="{escaped}">"#),
            1,
        )
        .into_bytes()
}

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
/// file names carry no version, so a cached copy must never outlive a new build. The page's hash
/// covers the basemap style written into it.
fn serve(state: &AppState, file: &str, request: &HeaderMap) -> Response {
    let Some(found) = Assets::get(file) else {
        return AppError::NotFound("asset").into_response();
    };
    let style = state.config.basemap_style.as_deref();
    let body = if file == "index.html" {
        page_html(&found.data, style)
    } else {
        found.data.into_owned()
    };
    let hash = if file == "index.html" {
        Sha256::digest(&body).to_vec()
    } else {
        found.metadata.sha256_hash().to_vec()
    };
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
    if let Ok(policy) = HeaderValue::from_str(&content_security_policy(style)) {
        headers.insert(header::CONTENT_SECURITY_POLICY, policy);
    }
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
    (headers, body).into_response()
}

/// Explore the records on a map and their provenance
///
/// The provenance explorer: a map of the canonical records (the vector tiles of `/tiles`) over an
/// offline basemap (or the style of `STRS_BASEMAP_STYLE`), opened where the records are, search, each record's fields with the entry and agent that set them, its
/// contributions, notes, signals and duplicates, a slider replaying its history, the provenance
/// graph, an agent view and the review queue (operators type an admin key into the page). No
/// key is needed to read. Everything loads from this server (see docs/explorer.md).
#[utoipa::path(get, path = "/explore", tag = "explorer", operation_id = "get_explorer_page",
    params(("If-None-Match" = Option<String>, Header)),
    responses((status = 200, description = "The explorer page (HTML)", content_type = "text/html"),
              (status = 304, description = "Unchanged since the ETag in If-None-Match")))]
pub async fn page(State(state): State<AppState>, headers: HeaderMap) -> Response {
    serve(&state, "index.html", &headers)
}

/// Serve one bundled file of the explorer
///
/// `explorer.js`, `explorer.css`, `maplibre-gl-worker.mjs`, `countries-10m.json` (world-atlas,
/// Natural Earth 1:10m countries, TopoJSON), `places.json` (GeoNames places of 15,000 people or
/// more) and `index.html`; 404 for anything else.
#[utoipa::path(get, path = "/explore/{file}", tag = "explorer", operation_id = "get_explorer_asset",
    params(("file" = String, Path), ("If-None-Match" = Option<String>, Header)),
    responses((status = 200, description = "A bundled file of the explorer",
               content((String = "text/javascript"), (String = "text/css"), (Object = "application/json"), (String = "text/html"))),
              (status = 304, description = "Unchanged since the ETag in If-None-Match"),
              (status = 404, body = crate::http::ErrorBody)))]
pub async fn asset(
    State(state): State<AppState>,
    Path(file): Path<String>,
    headers: HeaderMap,
) -> Response {
    serve(&state, &file, &headers)
}
