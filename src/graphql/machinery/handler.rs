//! POST /graphql (queries and mutations) and GET /graphql (queries only). The body goes through the
//! same size limit, media-type check and authentication as every REST route; media types and
//! statuses follow the GraphQL-over-HTTP spec (`graphql::http`).

use super::compiled::RawFields;
use super::http::{self, Media};
use super::limits::LimitedSchema;
use crate::error::AppError;
use crate::http::{context, may_be_object, parse_json, read_body, require_json};
use crate::state::AppState;
use axum::Extension;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use serde::Deserialize;
use serde_json::value::RawValue;
use std::borrow::Cow;

/// Body: `{"query": "...", "variables": {...}, "operationName": "..."}`. The answer's media type
/// follows `Accept` (`graphql::http`): `application/graphql-response+json` with 400 for request
/// errors, or `application/json` with 200 for every GraphQL result.
#[utoipa::path(post, path = "/graphql", tag = "graphql",
    request_body(content = Object, description = "A GraphQL request"),
    responses((status = 200, description = "A GraphQL response (errors carry extensions.code); with `Accept: application/graphql-response+json`, only results whose execution started",
               content((Object = "application/json"), (Object = "application/graphql-response+json"))),
              (status = 400, description = "A request error: a body that is not a GraphQL request (not JSON, no string `query`), or, with `Accept: application/graphql-response+json`, a document that does not parse or validate or variables that do not coerce. A GraphQL response with `errors` and no `data`",
               content((Object = "application/json"), (Object = "application/graphql-response+json"))),
              (status = 401, body = crate::http::ErrorBody), (status = 413, body = crate::http::ErrorBody),
              (status = 415, body = crate::http::ErrorBody)))]
pub async fn graphql_post(
    State(state): State<AppState>,
    Extension(schema): Extension<LimitedSchema>,
    req: Request,
) -> Result<Response, AppError> {
    let (parts, body) = req.into_parts();
    let media = Media::of(&parts.headers);
    let ctx = context(&parts, &state).await?;
    let (headers, bytes) = read_body(Request::from_parts(parts, body), &state).await?;
    require_json(&headers)?;
    if let Some(answer) = by_plan(&state, &schema, &bytes, media).await {
        return Ok(answer);
    }
    let request: async_graphql::Request = match parse_json(&bytes) {
        Ok(request) => request,
        Err(AppError::Validation(items)) => return Ok(not_a_graphql_request(media, &items)),
        Err(other) => return Err(other),
    };
    if !asks_something(&request) {
        return Ok(missing_query(media, &["body", "query"]));
    }
    // Boxed: inline, the executor's way (the request, its plan, what it learns) would be part of
    // every request's handler future, which the router boxes per request, planned or not (5,768
    // bytes a planned read instead of 4,312; a larger block is a fresh page more often).
    Ok(Box::pin(execute(&state, &schema, request, ctx, media)).await)
}

/// The body of a request whose document has a compiled plan, read without building
/// async-graphql's request: the text, and the variables' values as JSON.
#[derive(Deserialize)]
struct PlainRead<'a> {
    #[serde(borrow)]
    query: Cow<'a, str>,
    #[serde(default, borrow)]
    variables: Option<&'a RawValue>,
    #[serde(default, borrow, rename = "operationName")]
    operation_name: Option<&'a RawValue>,
    #[serde(default, borrow)]
    extensions: Option<&'a RawValue>,
}

/// The answer of the document's compiled plan, when it has one and the request is a plain one:
/// a JSON object, no operation name (a plan's document is one anonymous operation), no
/// extensions (a persisted query). Anything else, or a plan that cannot answer, is `None`, and
/// the request goes the executor's way as if this had not been tried.
async fn by_plan(
    state: &AppState,
    schema: &LimitedSchema,
    bytes: &[u8],
    media: Media,
) -> Option<Response> {
    if !may_be_object(bytes) {
        return None;
    }
    let read: PlainRead = serde_json::from_slice(bytes).ok()?;
    if read.operation_name.is_some() || read.extensions.is_some() {
        return None;
    }
    let admitted = schema.planned(&read.query)?;
    let variables: RawFields = match read.variables {
        Some(raw) => serde_json::from_str(raw.get()).ok()?,
        None => RawFields::default(),
    };
    let body = admitted.plan()?.run(state, &variables).await?;
    crate::telemetry::record_compiled_answer();
    Some(http::body(media, StatusCode::OK, body))
}

/// A document, or a persisted query's hash in place of one.
fn asks_something(request: &async_graphql::Request) -> bool {
    !request.query.trim().is_empty() || request.extensions.contains_key("persistedQuery")
}

fn missing_query(media: Media, loc: &[&str]) -> Response {
    let detail = crate::error::FieldError::new(
        loc.iter().copied(),
        "the GraphQL document goes in `query` (or a persisted query's hash in `extensions`)",
        "missing",
    );
    http::refuse(
        media,
        StatusCode::BAD_REQUEST,
        "BAD_REQUEST",
        "no GraphQL document: POST a JSON body {\"query\": \"{ __typename }\"} or GET /graphql?query={ __typename } \
         (a browser asking for HTML gets the GraphiQL IDE here); see /api/v1/public/agent-docs/agents_interface"
            .to_string(),
        serde_json::to_value([detail]).ok(),
    )
}

/// A body that is not JSON, not an object, or without a string `query`: 400 under either media
/// type (REST answers such bodies 422; GraphQL clients expect 400), the REST items in `detail`.
fn not_a_graphql_request(media: Media, items: &[crate::error::FieldError]) -> Response {
    let message = items
        .iter()
        .map(|item| item.msg.clone())
        .collect::<Vec<_>>()
        .join("; ");
    http::refuse(
        media,
        StatusCode::BAD_REQUEST,
        "BAD_REQUEST",
        format!("not a GraphQL request: {message}"),
        serde_json::to_value(items).ok(),
    )
}

#[utoipa::path(get, path = "/graphql", tag = "graphql",
    params(("query" = Option<String>, Query, description = "GraphQL query document (queries only); may be left out when `extensions` names a persisted query"),
           ("variables" = Option<String>, Query, description = "JSON-encoded variables"),
           ("operationName" = Option<String>, Query),
           ("extensions" = Option<String>, Query, description = "JSON-encoded extensions, e.g. `{\"persistedQuery\":{\"version\":1,\"sha256Hash\":\"…\"}}` (automatic persisted queries)")),
    responses((status = 101, description = "With `Upgrade: websocket` and the `graphql-transport-ws` (or `graphql-ws`) subprotocol: a WebSocket for subscriptions"),
              (status = 200, description = "A GraphQL response; with `Accept: text/html` (a browser), the GraphiQL IDE (HTML), prefilled from `query` and `variables` when given",
               content((Object = "application/json"), (Object = "application/graphql-response+json"), (String = "text/html"))),
              (status = 400, description = "A request error: no `query` (nor persisted query), parameters that do not decode, or, with `Accept: application/graphql-response+json`, a document that does not parse or validate. A GraphQL response with `errors` and no `data`",
               content((Object = "application/json"), (Object = "application/graphql-response+json"))),
              (status = 401, body = crate::http::ErrorBody),
              (status = 405, description = "A mutation: mutations are only accepted over POST (`Allow: POST`)",
               content((Object = "application/json"), (Object = "application/graphql-response+json")))))]
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
    let media = Media::of(&parts.headers);
    let query_string = parts.uri.query().unwrap_or("");
    let mut request = match parse_get(query_string) {
        Ok(request) => request,
        Err(e) => {
            let detail = crate::error::FieldError::new(
                ["query"],
                format!("invalid GraphQL GET request: {e}"),
                "value_error",
            );
            return Ok(not_a_graphql_request(media, &[detail]));
        }
    };
    if !asks_something(&request) {
        return Ok(missing_query(media, &["query", "query"]));
    }
    if let Err(error) = schema.resolve_persisted(&mut request) {
        return Ok(http::answer(
            media,
            &async_graphql::Response::from_errors(vec![error]),
        ));
    }
    if schema.asks_to_mutate(&request.query, request.operation_name.as_deref()) {
        // The GraphQL-over-HTTP spec: a mutation over GET is 405, and nothing runs.
        let mut refused = http::refuse(
            media,
            StatusCode::METHOD_NOT_ALLOWED,
            "METHOD_NOT_ALLOWED",
            "mutations are only accepted over POST".to_string(),
            None,
        );
        refused
            .headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("POST"));
        return Ok(refused);
    }
    Ok(execute(&state, &schema, request, ctx, media).await)
}

/// A GET's parameters as the GraphQL-over-HTTP spec names them. async-graphql's own
/// `parse_query_string` reads `operation_name`, so a GET naming its operation as every client
/// does (`operationName`) lost it; the snake-case name is still read.
#[derive(Deserialize)]
struct GetParameters {
    #[serde(default)]
    query: String,
    #[serde(rename = "operationName", alias = "operation_name")]
    operation_name: Option<String>,
    variables: Option<String>,
    extensions: Option<String>,
}

fn parse_get(query_string: &str) -> Result<async_graphql::Request, String> {
    let parameters: GetParameters =
        serde_urlencoded::from_str(query_string).map_err(|e| e.to_string())?;
    let mut request = async_graphql::Request::new(parameters.query);
    request.operation_name = parameters.operation_name;
    if let Some(variables) = parameters.variables {
        request.variables =
            serde_json::from_str(&variables).map_err(|e| format!("invalid variables: {e}"))?;
    }
    if let Some(extensions) = parameters.extensions {
        request.extensions =
            serde_json::from_str(&extensions).map_err(|e| format!("invalid extensions: {e}"))?;
    }
    Ok(request)
}

/// Runs a request by its document's compiled plan when it has one (`graphql::compiled`), through
/// async-graphql otherwise; an answer without errors teaches the document's plan.
async fn execute(
    state: &AppState,
    schema: &LimitedSchema,
    mut request: async_graphql::Request,
    ctx: crate::ctx::Ctx,
    media: Media,
) -> Response {
    let admitted = match schema.admit(&mut request) {
        Ok(admitted) => admitted,
        Err(refused) => {
            return http::answer(media, &async_graphql::Response::from_errors(vec![refused]));
        }
    };
    // A plan's document is one anonymous operation: a request naming an operation is answered
    // by the executor (with its error).
    if request.operation_name.is_none()
        && let Some(plan) = admitted.plan()
        && let Some(body) = plan.run(state, &request.variables).await
    {
        crate::telemetry::record_compiled_answer();
        return http::body(media, StatusCode::OK, body);
    }
    let learning = admitted
        .undecided()
        .then(|| (admitted.clone(), request.variables.clone()));
    request.data = super::context::request_data(state, ctx);
    // Boxed: async-graphql's execution is a large future, and inline it would make every
    // request's handler future that large, plan or not (the router boxes the handler's future
    // per request, and a large box costs fresh pages: 4-5% of a planned read's CPU in a profile).
    let response = Box::pin(schema.execute_admitted(request, admitted)).await;
    let Some((admitted, variables)) = learning.filter(|_| response.is_ok()) else {
        return http::answer(media, &response);
    };
    let Ok(body) = serde_json::to_vec(&response) else {
        return http::answer(media, &response);
    };
    Box::pin(admitted.learn(schema, state, &variables, &body)).await;
    http::body(media, StatusCode::OK, body)
}
