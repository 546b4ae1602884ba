//! Argument completion (`completion/complete`): entry types, canonical tables, record ids by the
//! start of the record's name, and the slugs of the resource templates (rubrics, guides, terms).
//! Values come from the domain's enumerations and the service functions; a reference or
//! argument this server does not know completes to nothing (as rmcp's default does), which is
//! not an error: a client asks while its user types.

use super::prompts::{EXPLAIN_PROVENANCE, PUBLISH_ENTRY};
use super::resources;
use crate::domain::{CanonicalTable, EntryType};
use crate::error::AppResult;
use crate::services::names;
use crate::state::AppState;
use rmcp::model::{CompleteRequestParams, CompletionInfo, Reference};

/// The values that start with `typed` (case-insensitively), in their order.
fn starting_with<'a>(values: impl IntoIterator<Item = &'a str>, typed: &str) -> Vec<String> {
    let typed = typed.trim().to_lowercase();
    values
        .into_iter()
        .filter(|value| value.to_lowercase().starts_with(&typed))
        .map(str::to_owned)
        .collect()
}

/// At most MCP's 100 values (every list here is far shorter).
fn done(mut values: Vec<String>, has_more: bool) -> CompletionInfo {
    let more = has_more || values.len() > CompletionInfo::MAX_VALUES;
    values.truncate(CompletionInfo::MAX_VALUES);
    CompletionInfo::with_pagination(values, None, more).unwrap_or_default()
}

pub async fn complete(
    state: &AppState,
    request: &CompleteRequestParams,
) -> AppResult<CompletionInfo> {
    let typed = request.argument.value.as_str();
    let values = match (&request.r#ref, request.argument.name.as_str()) {
        (Reference::Prompt(prompt), "entry_type") if prompt.name == PUBLISH_ENTRY => {
            starting_with(EntryType::ALL.iter().map(|t| t.as_str()), typed)
        }
        (Reference::Prompt(prompt), "canonical_table") if prompt.name == EXPLAIN_PROVENANCE => {
            starting_with(CanonicalTable::ALL.iter().map(|t| t.as_str()), typed)
        }
        (Reference::Prompt(prompt), "record_id") if prompt.name == EXPLAIN_PROVENANCE => {
            // The table chosen already, when the client passes it as context.
            let table = request
                .context
                .as_ref()
                .and_then(|c| c.arguments.as_ref())
                .and_then(|a| a.get("canonical_table"))
                .and_then(|t| t.parse::<CanonicalTable>().ok());
            let (found, more) = names::by_name_prefix(state, table, typed).await?;
            return Ok(done(
                found.into_iter().map(|r| r.id.to_string()).collect(),
                more,
            ));
        }
        (Reference::Resource(template), argument) => {
            match resources::template_slugs(&template.uri, argument) {
                Some(slugs) => starting_with(slugs.iter().copied(), typed),
                None => Vec::new(),
            }
        }
        _ => Vec::new(),
    };
    Ok(done(values, false))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_kept_by_case_insensitive_prefix() {
        assert_eq!(
            starting_with(["entity", "listing", "observation"], " Li"),
            vec!["listing".to_string()]
        );
        assert_eq!(starting_with(["entity", "listing"], "").len(), 2);
    }
}
