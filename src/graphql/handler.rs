//! POST /graphql (queries and mutations) and GET /graphql (queries only). The body goes through the
//! same size limit, media-type check and authentication as every REST route.

use super::limits::LimitedSchema;
use crate::error::AppError;
use crate::rest::extract::{context, parse_json, read_body, require_json};
use crate::state::AppState;
use async_graphql::parser::types::OperationType;
use axum::extract::{Request, State};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};

/// Body: `{"query": "...", "variables": {...}, "operationName": "..."}`.
#[utoipa::path(post, path = "/graphql", tag = "graphql",
    request_body(content = Object, description = "A GraphQL request"),
    responses((status = 200, description = "A GraphQL response (errors carry extensions.code)", body = Object),
              (status = 401, body = crate::rest::ErrorBody), (status = 413, body = crate::rest::ErrorBody),
              (status = 415, body = crate::rest::ErrorBody), (status = 422, body = crate::rest::ValidationErrorBody)))]
pub async fn graphql_post(
    State(state): State<AppState>,
    Extension(schema): Extension<LimitedSchema>,
    req: Request,
) -> Result<Response, AppError> {
    let (parts, body) = req.into_parts();
    let ctx = context(&parts, &state).await?;
    let (headers, bytes) = read_body(Request::from_parts(parts, body), &state).await?;
    require_json(&headers)?;
    let request: async_graphql::Request = parse_json(&bytes)?;
    Ok(execute(&state, &schema, request, ctx).await)
}

#[utoipa::path(get, path = "/graphql", tag = "graphql",
    params(("query" = Option<String>, Query, description = "GraphQL query document (queries only); may be left out when `extensions` names a persisted query"),
           ("variables" = Option<String>, Query, description = "JSON-encoded variables"),
           ("operationName" = Option<String>, Query),
           ("extensions" = Option<String>, Query, description = "JSON-encoded extensions, e.g. `{\"persistedQuery\":{\"version\":1,\"sha256Hash\":\"…\"}}` (automatic persisted queries)")),
    responses((status = 101, description = "With `Upgrade: websocket` and the `graphql-transport-ws` (or `graphql-ws`) subprotocol: a WebSocket for subscriptions"),
              (status = 200, description = "A GraphQL response; with `Accept: text/html` (a browser), the GraphiQL IDE (HTML), prefilled from `query` and `variables` when given",
               content((Object = "application/json"), (String = "text/html"))),
              (status = 401, body = crate::rest::ErrorBody), (status = 422, body = crate::rest::ValidationErrorBody)))]
pub async fn graphql_get(
    State(state): State<AppState>,
    Extension(schema): Extension<LimitedSchema>,
    req: Request,
) -> Result<Response, AppError> {
    let (parts, _) = req.into_parts();
    let ctx = context(&parts, &state).await?;
    if super::websocket::is_upgrade(&parts.headers) {
        return super::websocket::upgrade(parts, state, schema, ctx).await;
    }
    // A browser gets the IDE, prefilled from `query` and `variables` when given
    // (the IDE reads them from its address): links such as the explorer's "open in GraphiQL".
    if crate::web::graphiql::wants_ide(&parts.headers) {
        return Ok(crate::web::graphiql::ide_page());
    }
    let query_string = parts.uri.query().unwrap_or("");
    let parsed = async_graphql::http::parse_query_string(query_string);
    let asks_something = parsed.as_ref().is_ok_and(|request| {
        !request.query.trim().is_empty() || request.extensions.contains_key("persistedQuery")
    });
    let mut request = parsed.map_err(|e| {
        AppError::invalid(
            &["query"],
            format!("invalid GraphQL GET request: {e}"),
            "value_error",
        )
    })?;
    if !asks_something {
        return Err(AppError::invalid(
            &["query", "query"],
            "a GET request carries the GraphQL document in the `query` parameter (or a persisted query's hash in `extensions`)",
            "missing",
        ));
    }
    if let Err(error) = schema.resolve_persisted(&mut request) {
        return Ok(Json(async_graphql::Response::from_errors(vec![error])).into_response());
    }
    let is_mutation = async_graphql::parser::parse_query(&request.query)
        .map(|doc| {
            doc.operations
                .iter()
                .any(|(_, op)| op.node.ty == OperationType::Mutation)
        })
        .unwrap_or(false);
    if is_mutation {
        return Err(AppError::invalid(
            &["query", "query"],
            "mutations are only accepted over POST",
            "method_not_allowed",
        ));
    }
    Ok(execute(&state, &schema, request, ctx).await)
}

/// Runs a request by its document's compiled plan when it has one (`graphql::compiled`), through
/// async-graphql otherwise; an answer without errors teaches the document's plan.
async fn execute(
    state: &AppState,
    schema: &LimitedSchema,
    mut request: async_graphql::Request,
    ctx: crate::ctx::Ctx,
) -> Response {
    let admitted = match schema.admit(&mut request) {
        Ok(admitted) => admitted,
        Err(refused) => {
            return Json(async_graphql::Response::from_errors(vec![refused])).into_response();
        }
    };
    if let Some(plan) = admitted.plan()
        && let Some(body) = plan.run(state, &request.variables).await
    {
        crate::telemetry::record_compiled_answer();
        return json_body(body);
    }
    let learning = admitted
        .undecided()
        .then(|| (admitted.clone(), request.variables.clone()));
    request.data = super::request_data(state, ctx);
    let response = schema.execute_admitted(request, admitted).await;
    let Some((admitted, variables)) = learning.filter(|_| response.is_ok()) else {
        return Json(response).into_response();
    };
    let Ok(body) = serde_json::to_vec(&response) else {
        return Json(response).into_response();
    };
    admitted.learn(schema, state, &variables, &body).await;
    json_body(body)
}

fn json_body(body: Vec<u8>) -> Response {
    (
        [(
            axum::http::header::CONTENT_TYPE,
            axum::http::HeaderValue::from_static("application/json"),
        )],
        body,
    )
        .into_response()
}
