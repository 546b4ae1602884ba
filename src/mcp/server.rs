//! The rmcp server handler: lists and calls the tools, lists and reads the resources, lists and
//! gets the prompts, completes their arguments, and sends log notifications at the level a
//! request asks for (`logging`).

use super::tools::ToolDef;
use super::{completion, logging, prompts, resources};
use crate::ctx::Ctx;
use crate::error::AppError;
use crate::state::AppState;
use rmcp::ErrorData as McpError;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CompleteRequestParams, CompleteResult,
    GetPromptRequestParams, GetPromptResponse, Implementation, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, ServerCapabilities,
    ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, ServerHandler};
use serde_json::{Value, json};
use std::sync::Arc;

pub struct McpServer {
    state: AppState,
    tools: Arc<Vec<ToolDef>>,
}

impl McpServer {
    pub fn new(state: AppState, tools: Arc<Vec<ToolDef>>) -> McpServer {
        McpServer { state, tools }
    }
}

const INSTRUCTIONS: &str = "Space-Time Records Service: public, sourced records tied to place, time and intent. \
Flow: read the resource strs://docs/agent_ingestion and the rubric of your entry type (get_context_rubric), \
search_records first (add context to an existing record instead of duplicating it), evaluate_entry_draft, \
create_space_time_entry with one real-world record and an idempotency_key, then get_entry_processing_result \
and get_canonical_record to verify.";

/// The caller, authenticated by the HTTP layer before rmcp saw the request.
fn caller(context: &RequestContext<RoleServer>) -> Option<Ctx> {
    context
        .extensions
        .get::<axum::http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<Ctx>())
        .cloned()
}

/// A service error is a tool error carrying the REST body (and status), never a protocol failure.
fn tool_error(error: AppError) -> CallToolResult {
    if let AppError::Internal(e) = &error {
        tracing::error!(error = ?e, "MCP tool failed");
    }
    let mut body = error.body();
    if let Value::Object(map) = &mut body {
        map.insert("status".into(), json!(error.status()));
        map.entry("code").or_insert(json!(error.code()));
    }
    CallToolResult::structured_error(body)
}

impl ServerHandler for McpServer {
    #[expect(deprecated, reason = "SEP-2577 logging: 2025 clients use it")]
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .enable_prompts()
                .enable_completions()
                .enable_logging()
                .build(),
        )
        .with_server_info(Implementation::new(
            "spacetime-records",
            env!("CARGO_PKG_VERSION"),
        ))
        .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(
            self.tools.iter().map(|t| t.tool.clone()).collect(),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let Some(def) = self.tools.iter().find(|t| t.tool.name == request.name) else {
            return Err(McpError::invalid_params(
                format!("no tool named '{}'", request.name),
                None,
            ));
        };
        let ctx = caller(&context)
            .ok_or_else(|| McpError::internal_error("the caller was not authenticated", None))?;
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        let tool = request.name.as_ref();
        // A tool that writes is refused while the data volume is below its floor, as REST and
        // GraphQL writes are (`storage::space`).
        let writes = def.tool.annotations.as_ref().and_then(|a| a.read_only_hint) != Some(true);
        if writes && let Err(refused) = self.state.disk.ensure_room() {
            return Ok(CallToolResponse::Complete(tool_error(refused)));
        }
        logging::debug(&context, json!({"tool": tool, "event": "called"})).await;
        let started = std::time::Instant::now();
        let outcome = (def.call)(self.state.clone(), ctx, arguments).await;
        let elapsed_ms = started.elapsed().as_millis() as u64;
        let result = match outcome {
            Ok(value) => {
                logging::info(
                    &context,
                    json!({"tool": tool, "event": "succeeded", "elapsed_ms": elapsed_ms}),
                )
                .await;
                CallToolResult::structured(value)
            }
            Err(error) => {
                let line = json!({"tool": tool, "event": "refused", "status": error.status(),
                    "code": error.code(), "elapsed_ms": elapsed_ms});
                if error.status() >= 500 {
                    logging::error(&context, line).await;
                } else {
                    logging::warning(&context, line).await;
                }
                tool_error(error)
            }
        };
        Ok(CallToolResponse::Complete(result))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        Ok(ListResourcesResult::with_all_items(resources::list()))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        match resources::read(&request.uri) {
            Some(contents) => Ok(ReadResourceResponse::Complete(ReadResourceResult::new(
                vec![contents],
            ))),
            None => Err(McpError::resource_not_found(
                format!("no resource {}", request.uri),
                None,
            )),
        }
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        Ok(ListResourceTemplatesResult::with_all_items(
            resources::templates(),
        ))
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        Ok(ListPromptsResult::with_all_items(prompts::list()))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        let ctx = caller(&context)
            .ok_or_else(|| McpError::internal_error("the caller was not authenticated", None))?;
        let arguments = request.arguments.unwrap_or_default();
        let prompt = prompts::get(&self.state, &ctx, &request.name, arguments).await?;
        Ok(GetPromptResponse::Complete(prompt))
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, McpError> {
        match completion::complete(&self.state, &request).await {
            Ok(info) => Ok(CompleteResult::new(info)),
            Err(error) => {
                if let AppError::Internal(e) = &error {
                    tracing::error!(error = ?e, "MCP completion failed");
                }
                Err(McpError::internal_error(error.public_message(), None))
            }
        }
    }

    /// Accepted and answered `{}`: a stateless server has no session to keep the level in; the
    /// level travels with each request instead (`logging`).
    #[expect(deprecated, reason = "SEP-2577 logging: clients still send it")]
    async fn set_level(
        &self,
        _request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        Ok(())
    }
}
