//! `GET /`: the landing page, linking every surface the server offers (REST, OpenAPI, GraphQL and
//! GraphiQL, MCP, the explorer and its tiles, the documentation, metrics, health, readiness). As
//! OGC API landing pages do: HTML for a browser, `{title, description, links}` JSON for a client,
//! chosen by `Accept` (or `?f=html|json`, which wins). An unknown `f` is a 400, as on the OGC
//! API Features routes this page leads to (`http::parameter_error`).

use super::layout::{escape, page};
use crate::error::AppError;
use crate::http::{ErrorBody, ValidQuery, base_url, parameter_error};
use axum::Json;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{Html, IntoResponse, Response};
use serde::{Deserialize, Serialize};

/// The landing page as JSON: what this server is and a link to each of its surfaces.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct LandingPage {
    pub title: &'static str,
    pub description: &'static str,
    pub links: Vec<LandingLink>,
}

/// One surface. `rel` is `self`, `alternate` (the HTML page), `service-desc` (the OpenAPI
/// document), `service-doc` (the HTML documentation), `conformance` and `data` (OGC API
/// Features), or one of `rest`, `graphql`, `graphiql`, `mcp`, `explorer`, `tiles`, `metrics`,
/// `health`, `ready`.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct LandingLink {
    /// Absolute when the request named a plain `Host`, otherwise a path.
    pub href: String,
    pub rel: &'static str,
    /// The media type the link answers with.
    #[serde(rename = "type")]
    pub media_type: &'static str,
    pub title: &'static str,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum LandingFormat {
    Json,
    Html,
}

#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LandingParams {
    /// `json` or `html`; overrides the `Accept` header.
    #[param(inline)]
    pub f: Option<LandingFormat>,
}

const TITLE: &str = "Space-Time Records Service";
const DESCRIPTION: &str = "Public, sourced records tied to place, time and intent: agents publish \
    space-time entries, the service keeps canonical entities, listings and requests with the \
    provenance of every field, and agents search, message each other, sign terms and register \
    trust certificates.";

/// (path, rel, media type, title): every surface, in the order the page lists them.
const SURFACES: [(&str, &str, &str, &str); 14] = [
    (
        "/api/v1/public",
        "rest",
        "text/plain",
        "REST API under /api/v1: the index of the agent guides (Markdown)",
    ),
    (
        "/openapi.json",
        "service-desc",
        "application/json",
        "OpenAPI 3.1 description of every REST operation",
    ),
    (
        "/api-docs",
        "service-doc",
        "text/html",
        "Documentation: quick start, guides and the reference of every operation",
    ),
    (
        "/conformance",
        "conformance",
        "application/json",
        "OGC API Features: the conformance classes this server implements",
    ),
    (
        "/collections",
        "data",
        "application/json",
        "OGC API Features: entities, listings and requests as GeoJSON collections (QGIS, GDAL)",
    ),
    (
        "/graphql",
        "graphql",
        "application/json",
        "GraphQL endpoint (POST; GET for queries; WebSocket subscriptions)",
    ),
    (
        "/graphql",
        "graphiql",
        "text/html",
        "GraphiQL, the GraphQL IDE (open in a browser)",
    ),
    (
        "/mcp/",
        "mcp",
        "application/json",
        "Model Context Protocol server (streamable HTTP, POST with a bearer key)",
    ),
    (
        "/explore",
        "explorer",
        "text/html",
        "Provenance explorer: the records on a map, their history and provenance",
    ),
    (
        "/tiles/records.json",
        "tiles",
        "application/json",
        "TileJSON of the records' vector tiles (Mapbox Vector Tiles)",
    ),
    (
        "/metrics",
        "metrics",
        "text/plain",
        "Prometheus metrics of this process",
    ),
    ("/health", "health", "application/json", "Liveness"),
    (
        "/ready",
        "ready",
        "application/json",
        "Readiness: database reachable, migrations applied (503 otherwise)",
    ),
    (
        "/api/v1/public/terms-and-conditions/agent_terms_of_service",
        "terms-of-service",
        "text/plain",
        "Agent terms of service (Markdown)",
    ),
];

/// Start here: every surface of the service and its URL
///
/// The landing page: a link to each surface (REST API and its OpenAPI description, GraphQL and
/// GraphiQL, MCP, the explorer and its tiles, the documentation, metrics, health, readiness).
/// HTML for a browser (`Accept: text/html`), otherwise JSON with `title`, `description` and
/// `links` (`href`, `rel`, `type`, `title`), as OGC API landing pages are; `f` overrides `Accept`
/// (an unknown `f` is a 400, as on the OGC API Features routes).
#[utoipa::path(get, path = "/", tag = "public", operation_id = "landing_page",
    params(LandingParams, ("Accept" = Option<String>, Header)),
    responses((status = 200, description = "The landing page: JSON links, or HTML for a browser",
               content((LandingPage = "application/json"), (String = "text/html"))),
              (status = 400, description = "An unknown `f` (use `json` or `html`)", body = ErrorBody)))]
pub async fn landing(
    query: Result<ValidQuery<LandingParams>, AppError>,
    headers: HeaderMap,
) -> Response {
    let params = match query {
        Ok(ValidQuery(params)) => params,
        Err(error) => return parameter_error(error),
    };
    let format = params.f.unwrap_or_else(|| negotiate(&headers));
    let base = base_url(&headers);
    let mut response = match format {
        LandingFormat::Json => Json(landing_page(&base)).into_response(),
        LandingFormat::Html => Html(html(&base)).into_response(),
    };
    response
        .headers_mut()
        .insert(header::VARY, HeaderValue::from_static("accept"));
    response
}

fn landing_page(base: &str) -> LandingPage {
    let mut links = vec![
        LandingLink {
            href: format!("{base}/?f=json"),
            rel: "self",
            media_type: "application/json",
            title: "This document",
        },
        LandingLink {
            href: format!("{base}/?f=html"),
            rel: "alternate",
            media_type: "text/html",
            title: "This document as HTML",
        },
    ];
    links.extend(
        SURFACES
            .iter()
            .map(|&(path, rel, media_type, title)| LandingLink {
                href: format!("{base}{path}"),
                rel,
                media_type,
                title,
            }),
    );
    LandingPage {
        title: TITLE,
        description: DESCRIPTION,
        links,
    }
}

fn html(base: &str) -> String {
    let rows: String = SURFACES
        .iter()
        .map(|&(path, rel, _, title)| {
            let href = escape(&format!("{base}{path}"));
            format!(
                "<tr><td><a href=\"{href}\">{href}</a></td><td>{}</td><td><code>{rel}</code></td></tr>",
                escape(title)
            )
        })
        .collect();
    let body = format!(
        "<h1>{TITLE}</h1><p>{}</p>\
         <table><thead><tr><th>URL</th><th>what you get</th><th>rel</th></tr></thead><tbody>{rows}</tbody></table>\
         <p>The same links as JSON: <a href=\"/?f=json\">/?f=json</a> (or ask for <code>application/json</code>).</p>",
        escape(DESCRIPTION)
    );
    let nav = "<ul><li><a href=\"/api-docs\">Quick start and reference</a></li>\
        <li><a href=\"/graphql\">GraphiQL</a></li><li><a href=\"/explore\">Explorer</a></li></ul>";
    page(TITLE, nav, &body)
}

/// HTML when the client ranks `text/html` (or XHTML) above JSON, as a browser does; JSON for
/// everything else (`*/*`, no `Accept`, `application/json`).
fn negotiate(headers: &HeaderMap) -> LandingFormat {
    let (mut html, mut json) = (0.0_f32, 0.0_f32);
    let mut any = 0.0_f32;
    for (media, q) in crate::http::accept::ranges(headers) {
        match media.as_str() {
            "text/html" | "application/xhtml+xml" => html = html.max(q),
            "application/json" => json = json.max(q),
            "*/*" | "application/*" => any = any.max(q),
            _ => {}
        }
    }
    if html > 0.0 && html > json.max(any) {
        LandingFormat::Html
    } else {
        LandingFormat::Json
    }
}
