//! The MCP prompts: the recommended publishing flow for an entry type, the explanation of a
//! record's provenance, and what of the caller's is waiting for review. Each reads what it needs
//! through the service functions the tools call; arguments are checked like tool arguments.

use crate::ctx::Ctx;
use crate::domain::{CanonicalTable, EntryStatus, EntryType, ListParams};
use crate::error::AppError;
use crate::services::{canonical, docs, entries};
use crate::state::AppState;
use rmcp::ErrorData as McpError;
use rmcp::model::{GetPromptResult, Prompt, PromptArgument, PromptMessage, Role};
use serde_json::{Map, Value};
use uuid::Uuid;

pub const PUBLISH_ENTRY: &str = "publish_entry";
pub const EXPLAIN_PROVENANCE: &str = "explain_provenance";
pub const REVIEW_FOR_ME: &str = "review_for_me";

/// How many of the caller's entries in review one prompt lists.
const REVIEW_LISTED: i64 = 50;

pub fn list() -> Vec<Prompt> {
    vec![
        Prompt::new(
            PUBLISH_ENTRY,
            Some(
                "The recommended flow for publishing one entry of a type: read its context rubric, \
                 search first, build one real-world record with its source, evaluate the draft, \
                 publish with an idempotency key, then verify what processing made of it.",
            ),
            Some(vec![
                PromptArgument::new("entry_type")
                    .with_description("entity, listing, request or observation")
                    .with_required(true),
                PromptArgument::new("subject")
                    .with_description("What you observed, in a few words (e.g. a business's name and town)")
                    .with_required(false),
            ]),
        )
        .with_title("Publish one entry"),
        Prompt::new(
            EXPLAIN_PROVENANCE,
            Some(
                "Explain where a canonical record comes from: the record and every link \
                 contribution that made it (which entry created, updated, matched, merged or \
                 supported it, when), loaded now, with what to look for.",
            ),
            Some(vec![
                PromptArgument::new("canonical_table")
                    .with_description("canonical.entities, canonical.listings or canonical.requests")
                    .with_required(true),
                PromptArgument::new("record_id")
                    .with_description("The record's id (completion offers ids of records by the start of their name)")
                    .with_required(true),
            ]),
        )
        .with_title("Explain a record's provenance"),
        Prompt::new(
            REVIEW_FOR_ME,
            Some(
                "Your entries waiting for review (status review_required), loaded now, with what \
                 review means and what you can do about each.",
            ),
            None::<Vec<PromptArgument>>,
        )
        .with_title("What is in review for me"),
    ]
}

fn argument<'a>(arguments: &'a Map<String, Value>, name: &str) -> Result<&'a str, McpError> {
    arguments
        .get(name)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|value| !value.is_empty())
        .ok_or_else(|| McpError::invalid_params(format!("the argument '{name}' is required"), None))
}

fn invalid(name: &str, problem: impl std::fmt::Display) -> McpError {
    McpError::invalid_params(format!("the argument '{name}': {problem}"), None)
}

/// A service error while building a prompt: a missing record or bad input is the caller's
/// mistake (invalid params); anything else is logged and answered generically.
fn service_error(error: AppError) -> McpError {
    match error {
        AppError::NotFound(what) => McpError::invalid_params(format!("{what} not found"), None),
        AppError::Internal(cause) => {
            tracing::error!(error = ?cause, "MCP prompt failed");
            McpError::internal_error("internal server error", None)
        }
        other => McpError::invalid_params(other.public_message(), None),
    }
}

pub async fn get(
    state: &AppState,
    ctx: &Ctx,
    name: &str,
    arguments: Map<String, Value>,
) -> Result<GetPromptResult, McpError> {
    match name {
        PUBLISH_ENTRY => publish_entry(&arguments),
        EXPLAIN_PROVENANCE => explain_provenance(state, &arguments).await,
        REVIEW_FOR_ME => review_for_me(state, ctx).await,
        other => Err(McpError::invalid_params(
            format!("no prompt named '{other}'"),
            None,
        )),
    }
}

fn user(text: String) -> PromptMessage {
    PromptMessage::new_text(Role::User, text)
}

fn publish_entry(arguments: &Map<String, Value>) -> Result<GetPromptResult, McpError> {
    let entry_type: EntryType = argument(arguments, "entry_type")?
        .parse()
        .map_err(|e| invalid("entry_type", e))?;
    let subject = arguments
        .get("subject")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty());
    let about = subject.map_or(String::new(), |s| format!(" about \"{s}\""));
    let rubric_type = match entry_type {
        // An observation enriches an entity: build its context to the entity rubric.
        EntryType::Observation => "entity",
        other => other.as_str(),
    };
    let search_text = subject.unwrap_or("<the record's name and town>");
    let text = format!(
        "Publish one {entry_type} entry{about} to the Space-Time Records Service, following its \
recommended flow:\n\
1. Read the context rubric of {rubric_type} entries (embedded below; also the tool \
get_context_rubric with {{\"entry_type\": \"{rubric_type}\"}}): build the entry's `context` to its \
recommended shape and at least its minimum viable keys.\n\
2. Search first: call search_records with {{\"query\": \"{search_text}\"}} (add latitude, \
longitude and radius_meters when you know the place). When the record already exists, add \
context to it instead of creating a duplicate: set target_canonical_table and \
target_canonical_id on the entry.\n\
3. Build exactly one real-world record: entry_type \"{entry_type}\", its latitude and longitude, \
observed_at_tstamp_utc (when it was observed, not now), source_type and source_ref (the page or \
document it came from, never a search-results page), and the context. One record per entry: \
never bundle several places or offers.\n\
4. Call evaluate_entry_draft with exactly those arguments; fix every finding until the verdict \
is useful.\n\
5. Call create_space_time_entry with the same arguments and an idempotency_key (a repeat is \
refused with 409 and the existing entry's id, so retrying is safe).\n\
6. Verify: call get_entry_processing_result with the entry's id until its status is no longer \
pending (processed, rejected or review_required, with the reason), then get_canonical_record \
with the canonical_table and canonical_id it was linked to, and check the record says what you \
observed."
    );
    let rubric = docs::rubric(rubric_type, &["arguments", "entry_type"]).map_err(service_error)?;
    let rubric = serde_json::to_string_pretty(&rubric).map_err(|e| {
        tracing::error!(error = %e, "rubric did not serialise");
        McpError::internal_error("internal server error", None)
    })?;
    Ok(GetPromptResult::new(vec![
        user(text),
        PromptMessage::new_resource(
            Role::User,
            format!("strs://rubrics/{rubric_type}"),
            Some("application/json".into()),
            Some(rubric),
            None,
            None,
            None,
        ),
    ])
    .with_description(format!("Publishing one {entry_type} entry")))
}

async fn explain_provenance(
    state: &AppState,
    arguments: &Map<String, Value>,
) -> Result<GetPromptResult, McpError> {
    let table: CanonicalTable = argument(arguments, "canonical_table")?
        .parse()
        .map_err(|e| invalid("canonical_table", e))?;
    let id: Uuid = argument(arguments, "record_id")?
        .parse()
        .map_err(|e| invalid("record_id", e))?;
    let found = canonical::with_provenance(state, table, id)
        .await
        .map_err(service_error)?;
    let record_name = table.record_name();
    let contributions = found.contributions.len();
    let json = serde_json::to_string_pretty(&found).map_err(|e| {
        tracing::error!(error = %e, "provenance did not serialise");
        McpError::internal_error("internal server error", None)
    })?;
    let text = format!(
        "Explain the provenance of this {record_name} (table {table}, id {id}) from the record and \
its {contributions} link contributions below (oldest first; at most 100 are shown). For each \
contribution say which entry (space_time_entry_id) did what to the record (link_type: created, \
updated, matched, merged, supporting_evidence, duplicate_of), when, and with what confidence. \
Then say which fields come from which entries as far as the contributions tell, whether the \
record was merged (an id that answers with another record is a merged one), and what is weak: \
a single source, old observations, low confidence. To see an entry's own source and context, \
call get_entry_processing_result with its id.\n\n{json}"
    );
    Ok(GetPromptResult::new(vec![user(text)])
        .with_description(format!("The provenance of {record_name} {id}")))
}

async fn review_for_me(state: &AppState, ctx: &Ctx) -> Result<GetPromptResult, McpError> {
    let actor = ctx
        .require_actor()
        .map_err(|_| McpError::internal_error("the caller was not authenticated", None))?;
    let params = ListParams::new(Some(REVIEW_LISTED), None, &["limit"]).map_err(service_error)?;
    let page = entries::list(
        state,
        Some(EntryStatus::ReviewRequired),
        Some(actor.agent_id),
        params,
    )
    .await
    .map_err(service_error)?;
    let listed: Vec<String> = page
        .items
        .iter()
        .map(|e| {
            format!(
                "- {} ({} entry, {}, published {}): {}",
                e.id,
                e.entry_type,
                e.entry_intent,
                e.created_at_tstamp_utc.to_rfc3339(),
                e.processing_reason
                    .as_deref()
                    .unwrap_or("no reason recorded"),
            )
        })
        .collect();
    let more = if page.has_next_page {
        format!(" (the newest {REVIEW_LISTED}; there are more)")
    } else {
        String::new()
    };
    let text = if listed.is_empty() {
        "None of your entries is waiting for review. Entries go to review when processing cannot \
decide alone (an uncertain match with an existing record, or a conflict); when one does, this \
prompt lists it."
            .to_string()
    } else {
        format!(
            "These of your entries are waiting for review{more}, newest first:\n{}\n\n\
Review means processing could not decide alone, usually whether the entry describes an existing \
record (an uncertain match) or a new one; an operator resolves it as the same record, a new \
record, or a rejection. For each entry: call get_entry_processing_result with its id to read the \
reason and what processing saw; if you know which existing record it describes, say so by \
publishing a corrected entry with target_canonical_table and target_canonical_id set (search_records \
finds the record); if the entry was a mistake, do nothing more. Do not publish the same entry \
again: its idempotency key is taken and a duplicate adds nothing.",
            listed.join("\n")
        )
    };
    Ok(GetPromptResult::new(vec![user(text)]).with_description("Your entries waiting for review"))
}
