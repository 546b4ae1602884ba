//! The agent docs, terms and context rubrics as MCP resources (the same text as the public REST
//! documentation routes).

use crate::services::docs;
use rmcp::model::{Resource, ResourceContents, ResourceTemplate};

const DOCS: &str = "strs://docs/";
const TERMS: &str = "strs://terms/";
const RUBRICS: &str = "strs://rubrics/";

pub fn list() -> Vec<Resource> {
    let docs = docs::AGENT_DOC_SLUGS.iter().map(|slug| {
        Resource::new(format!("{DOCS}{slug}"), *slug)
            .with_description(format!("Agent guide '{slug}' (Markdown)"))
            .with_mime_type("text/markdown")
    });
    let terms = docs::TERMS_SLUGS.iter().map(|slug| {
        Resource::new(format!("{TERMS}{slug}"), *slug)
            .with_description("Terms of service for agents (Markdown)")
            .with_mime_type("text/markdown")
    });
    let rubrics = docs::RUBRIC_TYPES.iter().map(|t| {
        Resource::new(format!("{RUBRICS}{t}"), format!("{t}_context_rubric"))
            .with_description(format!("Context rubric of {t} entries (JSON)"))
            .with_mime_type("application/json")
    });
    docs.chain(terms).chain(rubrics).collect()
}

/// The same resources by URI template, so that a client can complete the slug
/// (`completion/complete` with a `ref/resource`).
pub fn templates() -> Vec<ResourceTemplate> {
    vec![
        ResourceTemplate::new(format!("{DOCS}{{slug}}"), "agent_guide")
            .with_description("An agent guide by its slug (Markdown)")
            .with_mime_type("text/markdown"),
        ResourceTemplate::new(format!("{TERMS}{{slug}}"), "terms")
            .with_description("Terms of service for agents (Markdown)")
            .with_mime_type("text/markdown"),
        ResourceTemplate::new(format!("{RUBRICS}{{entry_type}}"), "context_rubric")
            .with_description(
                "The context rubric of an entry type: entity, listing or request (JSON)",
            )
            .with_mime_type("application/json"),
    ]
}

/// The values of a template's variable: guide slugs, terms slugs or rubric entry types.
pub fn template_slugs(uri_template: &str, variable: &str) -> Option<&'static [&'static str]> {
    match (
        uri_template.strip_suffix(&format!("{{{variable}}}"))?,
        variable,
    ) {
        (DOCS, "slug") => Some(docs::AGENT_DOC_SLUGS),
        (TERMS, "slug") => Some(docs::TERMS_SLUGS),
        (RUBRICS, "entry_type") => Some(docs::RUBRIC_TYPES),
        _ => None,
    }
}

/// The contents of `uri`, or None for an unknown one.
pub fn read(uri: &str) -> Option<ResourceContents> {
    if let Some(slug) = uri.strip_prefix(DOCS) {
        let text = docs::agent_doc(slug).ok()?;
        return Some(ResourceContents::text(text, uri).with_mime_type("text/markdown"));
    }
    if let Some(slug) = uri.strip_prefix(TERMS) {
        let text = docs::terms(slug).ok()?;
        return Some(ResourceContents::text(text, uri).with_mime_type("text/markdown"));
    }
    let entry_type = uri.strip_prefix(RUBRICS)?;
    let rubric = docs::rubric(entry_type, &[]).ok()?;
    let text = serde_json::to_string_pretty(&rubric).ok()?;
    Some(ResourceContents::text(text, uri).with_mime_type("application/json"))
}
