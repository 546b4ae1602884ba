//! The GraphiQL IDE: `GET /graphql` from a browser (HTML accepted; `query` and `variables` in
//! the address prefill it) and its bundled assets at `/graphiql/{file}`, built from npm packages
//! by `web/graphiql` and embedded here, so the IDE runs with no request to any outside host.

use crate::error::AppError;
use axum::extract::Path;
use axum::http::{HeaderMap, header};
use axum::response::{Html, IntoResponse, Response};
use rust_embed::RustEmbed;

#[derive(RustEmbed)]
#[folder = "assets/graphiql/"]
struct Assets;

/// Whether a `GET /graphql` comes from a browser asking for the IDE rather than a client asking
/// for a result.
pub fn wants_ide(headers: &HeaderMap) -> bool {
    headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|accept| accept.contains("text/html"))
}

pub fn ide_page() -> Response {
    Html(PAGE).into_response()
}

const PAGE: &str = r#"<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>GraphiQL: Space-Time Records Service</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/graphiql/graphiql.css">
<style>body{margin:0;height:100vh}#graphiql{height:100vh}</style>
</head>
<body>
<div id="graphiql">Loading GraphiQL…</div>
<script src="/graphiql/graphiql.js"></script>
</body>
</html>
"#;

/// Serve one bundled file of the GraphiQL IDE
///
/// The JavaScript, stylesheet, font and Monaco workers of the IDE at `GET /graphql`; 404 for
/// anything else.
#[utoipa::path(get, path = "/graphiql/{file}", tag = "graphql", operation_id = "get_graphiql_asset", params(("file" = String, Path)),
    responses((status = 200, description = "A bundled asset of the IDE", content_type = "application/octet-stream"),
              (status = 404, body = crate::http::ErrorBody)))]
pub async fn asset(Path(file): Path<String>) -> Response {
    let Some(found) = Assets::get(&file) else {
        return AppError::NotFound("asset").into_response();
    };
    let media_type = match file.rsplit('.').next() {
        Some("js") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("ttf") => "font/ttf",
        _ => "application/octet-stream",
    };
    (
        [
            (header::CONTENT_TYPE, media_type),
            (header::CACHE_CONTROL, "public, max-age=86400"),
        ],
        found.data.into_owned(),
    )
        .into_response()
}
