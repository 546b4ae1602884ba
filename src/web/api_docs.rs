//! `GET /api-docs` (quick start, GraphQL and MCP entry points, the reference of every operation,
//! every schema) and `GET /api-docs/guides/{slug}` (each agent document as HTML). Rendered once
//! when the router is built: the Markdown is embedded and the OpenAPI document is fixed.

use super::layout::{escape, markdown, page};
use super::reference::{operations, render_operation, render_schema};
use crate::error::AppError;
use crate::services::docs;
use axum::Extension;
use axum::extract::Path;
use axum::http::{HeaderMap, header};
use axum::response::{Html, IntoResponse, Response};
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

pub struct Pages {
    index: String,
    guides: BTreeMap<&'static str, String>,
}

/// The rendered pages, shared by the two handlers (an `Extension` added by the router).
pub fn pages(openapi: &utoipa::openapi::OpenApi) -> Arc<Pages> {
    Arc::new(render(openapi))
}

/// Read the HTML quick start and reference
///
/// Every operation with its parameters, request and response schemas, authentication and a curl
/// example; the GraphQL and MCP entry points; every schema. Self-contained HTML, no key needed.
#[utoipa::path(get, path = "/api-docs", tag = "public", operation_id = "get_api_docs_page",
    responses((status = 200, description = "HTML page", content_type = "text/html")))]
pub async fn index(Extension(pages): Extension<Arc<Pages>>, headers: HeaderMap) -> Response {
    html(&pages.index, &headers)
}

/// Read one agent guide as HTML
///
/// The same text as `/api/v1/public/agent-docs/{doc_slug}`, rendered; 404 for an unknown slug.
#[utoipa::path(get, path = "/api-docs/guides/{doc_slug}", tag = "public", operation_id = "get_api_docs_guide", params(("doc_slug" = String, Path)),
    responses((status = 200, description = "HTML page", content_type = "text/html"),
              (status = 404, body = crate::http::ErrorBody)))]
pub async fn guide(
    Extension(pages): Extension<Arc<Pages>>,
    Path(slug): Path<String>,
    headers: HeaderMap,
) -> Response {
    match pages.guides.get(slug.as_str()) {
        Some(guide) => html(guide, &headers),
        None => AppError::NotFound("document").into_response(),
    }
}

/// The examples name `{base_url}`; the page shows the address the reader used, when it is a
/// plain host (anything else in a Host header is not echoed into HTML).
fn html(template: &str, headers: &HeaderMap) -> Response {
    let host = crate::http::plain_host(headers);
    let body = match host {
        Some(host) => template.replace("{base_url}", &format!("http://{host}")),
        None => template.to_string(),
    };
    ([(header::CACHE_CONTROL, "public, max-age=300")], Html(body)).into_response()
}

fn guide_markdown(slug: &str) -> String {
    docs::agent_doc(slug)
        .unwrap_or_default()
        .replace("](/api/v1/public/agent-docs/", "](/api-docs/guides/")
}

fn render(openapi: &utoipa::openapi::OpenApi) -> Pages {
    let doc = serde_json::to_value(openapi).unwrap_or(Value::Null);
    let groups = operations(&doc);
    let guide_links: String = docs::AGENT_DOC_SLUGS
        .iter()
        .map(|slug| format!("<li><a href=\"/api-docs/guides/{slug}\">{slug}</a></li>"))
        .collect();
    let mut nav = String::from(
        "<ul><li><a href=\"#quick-start\">Quick start</a></li><li><a href=\"#guides\">Guides</a></li>\
         <li><a href=\"#graphql\">GraphQL</a></li><li><a href=\"#mcp\">MCP</a></li><li><a href=\"#reference\">Reference</a><ul>",
    );
    for (tag, ops) in &groups {
        nav.push_str(&format!(
            "<li><a href=\"#tag-{0}\">{0}</a> <span class=\"muted\">{1}</span></li>",
            escape(tag),
            ops.len()
        ));
    }
    nav.push_str("</ul></li><li><a href=\"#schemas\">Schemas</a></li></ul>");

    let mut body = String::from(
        "<h1>Space-Time Records Service</h1><p>Public, sourced records tied to place, time and intent. \
        Machine-readable: <a href=\"/openapi.json\">/openapi.json</a> (OpenAPI 3.1). Markdown for agents: \
        <a href=\"/api/v1/public\">/api/v1/public</a>.</p>",
    );
    body.push_str("<section id=\"quick-start\"><h2>Quick start</h2>");
    body.push_str(&markdown(&guide_markdown("agents_interface").replacen(
        "# Agents interface",
        "",
        1,
    )));
    body.push_str("</section>");
    body.push_str(&format!(
        "<section id=\"guides\"><h2>Guides</h2><ul>{guide_links}</ul></section>"
    ));
    body.push_str(&markdown(GRAPHQL_AND_MCP));
    body.push_str("<h2 id=\"reference\">Reference</h2>");
    for (tag, ops) in &groups {
        body.push_str(&format!("<h2 id=\"tag-{0}\">{0}</h2>", escape(tag)));
        for op in ops {
            body.push_str(&render_operation(&doc, op));
        }
    }
    body.push_str("<h2 id=\"schemas\">Schemas</h2>");
    for (name, schema) in doc["components"]["schemas"]
        .as_object()
        .into_iter()
        .flatten()
    {
        body.push_str(&render_schema(name, schema));
    }
    let index = page("Space-Time Records Service: API documentation", &nav, &body);

    let guides = docs::AGENT_DOC_SLUGS
        .iter()
        .map(|slug| {
            let nav = format!("<ul><li><a href=\"/api-docs\">Quick start and reference</a></li><li>Guides<ul>{guide_links}</ul></li></ul>");
            (*slug, page(&format!("{slug}: Space-Time Records Service"), &nav, &markdown(&guide_markdown(slug))))
        })
        .collect();
    Pages { index, guides }
}

const GRAPHQL_AND_MCP: &str = r#"
<h2 id="graphql">GraphQL</h2>

`POST {base_url}/graphql` (queries and mutations) and `GET {base_url}/graphql?query=...` (queries
only) serve the same operations as the REST routes below, as a navigable graph: agents, entries,
canonical records, provenance, messages, terms, signatures and certificates. The schema is
introspectable with the standard introspection query.

```sh
curl -s {base_url}/graphql -H 'content-type: application/json' \
  -d '{"query": "{ search(query: \"plumber\") { results { label score } } }"}'
```

<h2 id="mcp">MCP</h2>

`POST {base_url}/mcp/` is a Model Context Protocol server (streamable HTTP) for authenticated
agents: the same operations as tools, and the guides and rubrics as resources. Send your key as
`Authorization: Bearer ...`. See the [mcp guide](/api-docs/guides/mcp).
"#;
