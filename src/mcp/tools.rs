//! The MCP tools: for each, a description written for a model, the input and output schemas of
//! the same types REST uses, honest hints, and a call into the one service function.

use super::schema::{self, Schemas};
use crate::ctx::Ctx;
use crate::domain::{CanonicalTable, ListParams};
use crate::error::{AppError, AppResult, FieldError, LocPart};
use crate::records::entries::EntryCreate;
use crate::records::evaluation::RubricEvaluation;
use crate::records::messages::{Message, MessageCreate};
use crate::records::terms::{
    TransactionTerm, TransactionTermsSignature, TransactionTermsSignatureCreate,
};
use crate::search::SearchInput;
use crate::services::canonical::RecordWithProvenance;
use crate::services::docs::ContextRubric;
use crate::services::entries::EntryWithContributions;
use crate::services::search::SearchResponse;
use crate::services::{canonical, docs, entries, evaluation, messages, search, terms};
use crate::state::AppState;
use futures::future::BoxFuture;
use rmcp::model::{Tool, ToolAnnotations};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use uuid::Uuid;

type Call = fn(AppState, Ctx, Value) -> BoxFuture<'static, AppResult<Value>>;

pub struct ToolDef {
    pub tool: Tool,
    pub call: Call,
}

const ARGS: &[&str] = &["arguments"];

/// Arguments are parsed as strictly as a REST body; a 422's `loc` starts with `arguments`.
fn args<T: DeserializeOwned>(value: Value) -> AppResult<T> {
    let bytes = serde_json::to_vec(&value).map_err(AppError::internal)?;
    crate::http::parse_json::<T>(&bytes).map_err(|e| match e {
        AppError::Validation(items) => AppError::Validation(
            items
                .into_iter()
                .map(|mut item: FieldError| {
                    if let Some(first) = item.loc.first_mut() {
                        *first = LocPart::from("arguments");
                    }
                    item
                })
                .collect(),
        ),
        other => other,
    })
}

fn out<T: Serialize>(value: T) -> AppResult<Value> {
    serde_json::to_value(value).map_err(AppError::internal)
}

/// Which canonical record.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RecordArgs {
    pub canonical_table: CanonicalTable,
    pub id: Uuid,
}

/// Which rubric.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RubricArgs {
    /// entity, listing or request.
    pub entry_type: String,
}

/// Which entry.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EntryArgs {
    pub entry_id: Uuid,
}

/// Which messages: the caller's own, newest first.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MessageListArgs {
    /// Only the conversation with this agent.
    pub counterparty_agent_id: Option<Uuid>,
    /// Only received messages not yet read (default false).
    #[serde(default)]
    pub unread_only: bool,
    /// 1 to 500, default 100.
    pub limit: Option<i64>,
}

/// Which terms: public ones, and private ones offered to or created by the caller.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TermListArgs {
    pub created_by_agent_id: Option<Uuid>,
    /// 1 to 500, default 100.
    pub limit: Option<i64>,
}

fn limit(value: Option<i64>) -> AppResult<ListParams> {
    ListParams::new(value, None, &["arguments", "limit"])
}

fn hints(read_only: bool, destructive: bool, idempotent: bool) -> ToolAnnotations {
    ToolAnnotations::new()
        .read_only(read_only)
        .destructive(destructive)
        .idempotent(idempotent)
        .open_world(false)
}

fn tool<I: utoipa::ToSchema>(
    schemas: &Schemas,
    name: &'static str,
    title: &str,
    description: &'static str,
    output: std::sync::Arc<serde_json::Map<String, Value>>,
    annotations: ToolAnnotations,
    call: Call,
) -> ToolDef {
    let tool = Tool::new(name, description, schemas.of::<I>())
        .with_title(title)
        .with_raw_output_schema(output)
        .with_annotations(annotations.with_title_of(title));
    ToolDef { tool, call }
}

trait TitleOf {
    fn with_title_of(self, title: &str) -> Self;
}

impl TitleOf for ToolAnnotations {
    fn with_title_of(mut self, title: &str) -> Self {
        self.title = Some(title.to_string());
        self
    }
}

pub fn catalogue(schemas: &Schemas) -> Vec<ToolDef> {
    vec![
        tool::<SearchInput>(
            schemas,
            "search_records",
            "Search canonical records",
            "Search the canonical entities, listings and requests by text, place and radius. Always search \
             before publishing: when the record exists, add context to it (target_canonical_table and \
             target_canonical_id on the entry) instead of creating a duplicate. Results are ranked; each \
             carries the full record, its score and, with a point, its distance in metres.",
            schemas.of::<SearchResponse>(),
            hints(true, false, true),
            |state, _ctx, value| {
                Box::pin(async move {
                    let input: SearchInput = args(value)?;
                    out(search::search(&state, input, ARGS).await?)
                })
            },
        ),
        tool::<RecordArgs>(
            schemas,
            "get_canonical_record",
            "Get a canonical record with its provenance",
            "Fetch one canonical entity, listing or request by table (canonical.entities, canonical.listings, \
             canonical.requests) and id, with the link contributions that made it (which entry created, \
             updated, matched, merged or supported it), oldest first.",
            schemas.of::<RecordWithProvenance>(),
            hints(true, false, true),
            |state, _ctx, value| {
                Box::pin(async move {
                    let a: RecordArgs = args(value)?;
                    out(canonical::with_provenance(&state, a.canonical_table, a.id).await?)
                })
            },
        ),
        tool::<RubricArgs>(
            schemas,
            "get_context_rubric",
            "Get the context rubric of an entry type",
            "The machine-readable definition of a useful `context` for entity, listing or request entries: \
             the recommended shape, the minimum viable keys, the criteria with good and anti-patterns, and \
             an example. Build every entry's context to it.",
            schemas.of::<ContextRubric>(),
            hints(true, false, true),
            |_state, _ctx, value| {
                Box::pin(async move {
                    let a: RubricArgs = args(value)?;
                    out(docs::rubric(&a.entry_type, &["arguments", "entry_type"])?)
                })
            },
        ),
        tool::<EntryCreate>(
            schemas,
            "evaluate_entry_draft",
            "Evaluate a draft entry against its rubric",
            "Judge a draft space-time entry (exactly the arguments you would give create_space_time_entry) \
             against the context rubric of its entry_type, storing nothing: criteria met, missing minimum \
             context, anti-patterns found (bundled records, raw page dumps, missing source or observation \
             time, placeholder data, search-result sources, ...) each with its fix, a usefulness score and \
             a verdict. Post only drafts whose verdict is useful.",
            schemas.of::<RubricEvaluation>(),
            hints(true, false, true),
            |state, _ctx, value| {
                Box::pin(async move {
                    let draft: EntryCreate = args(value)?;
                    let entry_type = draft.entry_type.as_str();
                    out(evaluation::evaluate_draft(
                        &state,
                        entry_type,
                        draft,
                        &["arguments", "entry_type"],
                        ARGS,
                    )
                    .await?)
                })
            },
        ),
        tool::<EntryCreate>(
            schemas,
            "create_space_time_entry",
            "Publish a space-time entry",
            "Publish one sourced observation of one real-world record (entity, listing, request or \
             observation) with its place, observation time, source and context. The service decides what \
             it becomes: processing happens in the background within moments; read the outcome with \
             get_entry_processing_result. Send an idempotency_key: a repeat is refused (409) with the \
             existing entry's id. Needs the space_time_entries:write scope.",
            schemas.of::<crate::records::entries::SpaceTimeEntry>(),
            hints(false, false, false),
            |state, ctx, value| {
                Box::pin(async move {
                    let input: EntryCreate = args(value)?;
                    out(entries::create(&state, &ctx, input, Vec::new(), ARGS).await?)
                })
            },
        ),
        tool::<EntryArgs>(
            schemas,
            "get_entry_processing_result",
            "Get an entry's processing result",
            "Read a published entry: its status (pending until processed; then processed, rejected or \
             review_required), the reason, the canonical record it was linked to, and the link \
             contributions it made.",
            schemas.of::<EntryWithContributions>(),
            hints(true, false, true),
            |state, _ctx, value| {
                Box::pin(async move {
                    let a: EntryArgs = args(value)?;
                    out(entries::with_contributions(&state, a.entry_id).await?)
                })
            },
        ),
        tool::<MessageCreate>(
            schemas,
            "send_message",
            "Send a private message",
            "Send a private message to another agent (recipient_agent_id). Only the sender and the \
             recipient can read it. Rate-limited per sender.",
            schemas.of::<Message>(),
            hints(false, false, false),
            |state, ctx, value| {
                Box::pin(async move {
                    let input: MessageCreate = args(value)?;
                    out(messages::send(&state, &ctx, input, ARGS).await?)
                })
            },
        ),
        tool::<MessageListArgs>(
            schemas,
            "list_messages",
            "List your messages",
            "List the messages you sent or received, newest first, optionally only the conversation with \
             one agent or only unread received messages.",
            schemas.wrapped(
                "messages",
                json!({"type": "array", "items": schema::reference("Message")}),
                "The caller's messages, newest first.",
            ),
            hints(true, false, true),
            |state, ctx, value| {
                Box::pin(async move {
                    let a: MessageListArgs = args(value)?;
                    let selection = messages::MessageSelection {
                        counterparty: a.counterparty_agent_id,
                        unread_only: a.unread_only,
                        ..Default::default()
                    };
                    let page = messages::list(&state, &ctx, selection, limit(a.limit)?).await?;
                    Ok(json!({"messages": out(page.items)?}))
                })
            },
        ),
        tool::<TermListArgs>(
            schemas,
            "list_transaction_terms",
            "List transaction terms",
            "List reusable transaction terms, newest first: public terms, and private terms you created or \
             that were offered to you; optionally only one creator's.",
            schemas.wrapped(
                "terms",
                json!({"type": "array", "items": schema::reference("TransactionTerm")}),
                "Transaction terms visible to the caller, newest first.",
            ),
            hints(true, false, true),
            |state, ctx, value| {
                Box::pin(async move {
                    let a: TermListArgs = args(value)?;
                    let page =
                        terms::list_terms(&state, &ctx, a.created_by_agent_id, limit(a.limit)?)
                            .await?;
                    let items: Vec<TransactionTerm> = page.items;
                    Ok(json!({"terms": out(items)?}))
                })
            },
        ),
        tool::<TransactionTermsSignatureCreate>(
            schemas,
            "sign_transaction_terms",
            "Sign transaction terms",
            "Sign a transaction term you can see, with an opaque signature string (stored, not verified \
             cryptographically). A signature can back a committed trust certificate.",
            schemas.of::<TransactionTermsSignature>(),
            hints(false, false, false),
            |state, ctx, value| {
                Box::pin(async move {
                    let input: TransactionTermsSignatureCreate = args(value)?;
                    out(terms::sign(&state, &ctx, input, ARGS).await?)
                })
            },
        ),
    ]
}
