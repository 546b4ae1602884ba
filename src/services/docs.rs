//! Public documentation: Markdown guides and context rubrics, embedded from docs/ at build time.

use crate::error::{AppError, AppResult};
use rust_embed::RustEmbed;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

#[derive(RustEmbed)]
#[folder = "docs/"]
#[include = "agent-docs/*.md"]
#[include = "terms/*.md"]
#[include = "rubrics/*.json"]
struct Docs;

pub const AGENT_DOC_SLUGS: &[&str] = &[
    "agents_interface",
    "agent_auth_api",
    "agents",
    "principals",
    "space_time_entries",
    "space_time_entries_context_rubrics",
    "space_time_entries_entity",
    "space_time_entries_listing",
    "space_time_entries_request",
    "agent_ingestion",
    "canonical_records",
    "mcp",
    "search",
    "messages",
    "transaction_terms",
    "committed_trust_certificates",
    "notes",
    "signals",
];
pub const TERMS_SLUGS: &[&str] = &["agent_terms_of_service"];
pub const RUBRIC_TYPES: &[&str] = &["entity", "listing", "request"];

/// What makes one criterion of a useful `context` payload.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Criterion {
    pub description: String,
    pub good_patterns: Vec<String>,
    pub anti_patterns: Vec<String>,
}

/// What a useful `context` payload is, for one entry type.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ContextRubric {
    pub schema_ref: String,
    pub version: i32,
    pub entry_type: String,
    pub purpose: String,
    pub usefulness_rule: String,
    #[schema(value_type = Object)]
    pub canonical_basis: Value,
    #[schema(value_type = Object)]
    pub recommended_context_shape: Value,
    pub criteria: BTreeMap<String, Criterion>,
    pub minimum_viable_context: Vec<String>,
    #[schema(value_type = Option<Object>)]
    pub example: Option<Value>,
}

#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct ContextRubricIndexItem {
    pub entry_type: String,
    pub schema_ref: String,
    pub version: i32,
    pub href: String,
    pub purpose: String,
}

#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct ContextRubricIndex {
    pub rubrics: Vec<ContextRubricIndexItem>,
}

fn text(path: &str) -> Option<String> {
    Docs::get(path).map(|file| String::from_utf8_lossy(&file.data).into_owned())
}

/// The rubric of `entry_type`; `loc` locates a bad type in the caller's transport.
pub fn rubric(entry_type: &str, loc: &[&str]) -> AppResult<ContextRubric> {
    if !RUBRIC_TYPES.contains(&entry_type) {
        return Err(AppError::invalid(
            loc,
            "must be one of: entity, listing, request",
            "enum",
        ));
    }
    let raw = text(&format!("rubrics/{entry_type}.json")).ok_or_else(|| {
        AppError::internal(anyhow::anyhow!("rubric {entry_type} is not embedded"))
    })?;
    serde_json::from_str(&raw)
        .map_err(|e| AppError::internal(anyhow::anyhow!("rubric {entry_type}: {e}")))
}

pub fn rubric_index() -> ContextRubricIndex {
    let rubrics = RUBRIC_TYPES
        .iter()
        .filter_map(|t| rubric(t, &[]).ok())
        .map(|r| ContextRubricIndexItem {
            href: format!(
                "/api/v1/space-time-entries/context-rubrics/{}",
                r.entry_type
            ),
            entry_type: r.entry_type,
            schema_ref: r.schema_ref,
            version: r.version,
            purpose: r.purpose,
        })
        .collect();
    ContextRubricIndex { rubrics }
}

pub fn public_index() -> AppResult<String> {
    text("agent-docs/index.md").ok_or(AppError::NotFound("document"))
}

pub fn agent_doc(slug: &str) -> AppResult<String> {
    if !AGENT_DOC_SLUGS.contains(&slug) {
        return Err(AppError::NotFound("document"));
    }
    text(&format!("agent-docs/{slug}.md")).ok_or(AppError::NotFound("document"))
}

pub fn terms(slug: &str) -> AppResult<String> {
    if !TERMS_SLUGS.contains(&slug) {
        return Err(AppError::NotFound("document"));
    }
    text(&format!("terms/{slug}.md")).ok_or(AppError::NotFound("document"))
}

/// `{"agent_docs": [{slug, href}], "terms_and_conditions": [{slug, href}]}`.
pub fn catalogue() -> BTreeMap<String, Vec<BTreeMap<String, String>>> {
    let item = |slug: &str, base: &str| {
        BTreeMap::from([
            ("slug".to_string(), slug.to_string()),
            ("href".to_string(), format!("{base}/{slug}")),
        ])
    };
    BTreeMap::from([
        (
            "agent_docs".to_string(),
            AGENT_DOC_SLUGS
                .iter()
                .map(|s| item(s, "/api/v1/public/agent-docs"))
                .collect(),
        ),
        (
            "terms_and_conditions".to_string(),
            TERMS_SLUGS
                .iter()
                .map(|s| item(s, "/api/v1/public/terms-and-conditions"))
                .collect(),
        ),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rubric_parses_into_the_specified_shape() {
        for entry_type in RUBRIC_TYPES {
            let rubric = rubric(entry_type, &[])
                .unwrap_or_else(|e| panic!("{entry_type}: {}", e.public_message()));
            assert_eq!(rubric.entry_type, *entry_type);
            assert!(!rubric.criteria.is_empty() && !rubric.minimum_viable_context.is_empty());
        }
        assert_eq!(rubric_index().rubrics.len(), 3);
    }

    #[test]
    fn every_listed_document_exists() {
        for slug in AGENT_DOC_SLUGS {
            assert!(agent_doc(slug).is_ok(), "{slug}");
        }
        for slug in TERMS_SLUGS {
            assert!(terms(slug).is_ok(), "{slug}");
        }
        assert!(public_index().is_ok());
        assert!(agent_doc("nope").is_err());
    }
}
