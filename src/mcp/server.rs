//! The rmcp server handler: lists and calls the tools, lists and reads the resources.

use super::resources;
use super::tools::ToolDef;
use crate::ctx::Ctx;
use crate::error::AppError;
use crate::state::AppState;
use rmcp::ErrorData as McpError;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse,
    ReadResourceResult, ServerCapabilities, ServerConfig,
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
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
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
        // A tool that writes is refused while the data volume is below its floor, as REST and
        // GraphQL writes are (`storage::space`).
        let writes = def.tool.annotations.as_ref().and_then(|a| a.read_only_hint) != Some(true);
        if writes && let Err(refused) = self.state.disk.ensure_room() {
            return Ok(CallToolResponse::Complete(tool_error(refused)));
        }
        let result = match (def.call)(self.state.clone(), ctx, arguments).await {
            Ok(value) => CallToolResult::structured(value),
            Err(error) => tool_error(error),
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
}
