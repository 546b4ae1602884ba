//! Extractors that turn every malformed input into the specification's 422 body (with `loc`), an
//! oversized body into 413 and a wrong media type into 415, and that authenticate bearers.

use crate::ctx::Ctx;
use crate::error::{AppError, FieldError, LocPart};
use crate::services;
use crate::state::AppState;
use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, RawPathParams, Request};
use axum::http::{HeaderMap, Method, header, request::Parts};
use serde::de::DeserializeOwned;
use uuid::Uuid;

/// A JSON body, parsed strictly (unknown properties rejected by the target type).
pub struct ValidJson<T>(pub T);

/// Like `ValidJson`, but an empty body (no content) means `T::default()`.
pub struct OptionalJson<T>(pub T);

impl<T: DeserializeOwned> FromRequest<AppState> for ValidJson<T> {
    type Rejection = AppError;
    async fn from_request(req: Request, state: &AppState) -> Result<Self, AppError> {
        let (headers, bytes) = read_body(req, state).await?;
        require_json(&headers)?;
        parse_json(&bytes).map(ValidJson)
    }
}

impl<T: DeserializeOwned + Default> FromRequest<AppState> for OptionalJson<T> {
    type Rejection = AppError;
    async fn from_request(req: Request, state: &AppState) -> Result<Self, AppError> {
        let (headers, bytes) = read_body(req, state).await?;
        if bytes.is_empty() {
            return Ok(OptionalJson(T::default()));
        }
        require_json(&headers)?;
        parse_json(&bytes).map(OptionalJson)
    }
}

pub async fn read_body(req: Request, state: &AppState) -> Result<(HeaderMap, Bytes), AppError> {
    let headers = req.headers().clone();
    let bytes = Bytes::from_request(req, state).await.map_err(|rejection| {
        if rejection.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
            AppError::PayloadTooLarge { limit_bytes: None }
        } else {
            AppError::invalid(
                &["body"],
                "the request body could not be read",
                "body_error",
            )
        }
    })?;
    Ok((headers, bytes))
}

/// Reads a body of at most `limit` bytes, whatever larger limit the route allows (the entry route
/// allows multipart uploads of 25 MiB, its JSON bodies only the JSON limit): reading stops, with a
/// 413, as soon as the limit is passed.
pub async fn read_body_limited(req: Request, limit: usize) -> Result<(HeaderMap, Bytes), AppError> {
    let headers = req.headers().clone();
    let bytes = axum::body::to_bytes(req.into_body(), limit)
        .await
        .map_err(|e| {
            let too_long = std::error::Error::source(&e)
                .is_some_and(|cause| cause.to_string().contains("length limit"));
            if too_long || e.to_string().contains("length limit") {
                AppError::PayloadTooLarge {
                    limit_bytes: Some(limit),
                }
            } else {
                AppError::invalid(
                    &["body"],
                    "the request body could not be read",
                    "body_error",
                )
            }
        })?;
    Ok((headers, bytes))
}

pub fn require_json(headers: &HeaderMap) -> Result<(), AppError> {
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let essence = content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    if essence == "application/json"
        || (essence.starts_with("application/") && essence.ends_with("+json"))
    {
        Ok(())
    } else {
        Err(AppError::UnsupportedMediaType(format!(
            "expected Content-Type application/json, got '{}'",
            if content_type.is_empty() {
                "none"
            } else {
                content_type
            }
        )))
    }
}

pub fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, AppError> {
    // serde would happily read a struct from a JSON array; every body here is an object.
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    if first.is_some_and(|b| *b != b'{') {
        return Err(AppError::invalid(
            &["body"],
            "the body must be a JSON object",
            "model_attributes_type",
        ));
    }
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value = serde_path_to_error::deserialize(&mut de).map_err(|e| serde_error("body", e))?;
    de.end()
        .map_err(|e| AppError::Validation(vec![json_syntax_error(&e)]))?;
    Ok(value)
}

fn json_syntax_error(e: &serde_json::Error) -> FieldError {
    FieldError::new(["body"], format!("invalid JSON: {e}"), "json_invalid")
}

/// serde's message is the only place an unknown or missing field's name is found.
fn serde_error<E: std::fmt::Display + 'static>(
    root: &str,
    err: serde_path_to_error::Error<E>,
) -> AppError {
    let mut loc: Vec<LocPart> = vec![root.into()];
    for segment in err.path().iter() {
        match segment {
            serde_path_to_error::Segment::Seq { index } => loc.push((*index).into()),
            serde_path_to_error::Segment::Map { key } => loc.push(key.clone().into()),
            serde_path_to_error::Segment::Enum { variant } => loc.push(variant.clone().into()),
            serde_path_to_error::Segment::Unknown => {}
        }
    }
    let inner = err.inner().to_string();
    if let Some(json) = (err.inner() as &dyn std::any::Any).downcast_ref::<serde_json::Error>()
        && (json.is_syntax() || json.is_eof())
    {
        let msg = if json.is_eof() && json.line() == 1 && json.column() == 0 {
            "a JSON body is required".to_string()
        } else {
            format!("invalid JSON: {json}")
        };
        return AppError::Validation(vec![FieldError::new(["body"], msg, "json_invalid")]);
    }
    let message = inner
        .rsplit_once(" at line ")
        .map_or(inner.as_str(), |(m, _)| m)
        .to_string();
    let named = |prefix: &str| {
        message
            .strip_prefix(prefix)
            .and_then(|r| r.split('`').next())
            .map(str::to_string)
    };
    let mut locate = |field: String| {
        if loc.last() != Some(&LocPart::Field(field.clone())) {
            loc.push(field.into());
        }
    };
    let kind = if let Some(field) = named("unknown field `") {
        locate(field);
        "extra_forbidden"
    } else if let Some(field) = named("missing field `") {
        locate(field);
        "missing"
    } else if message.starts_with("unknown variant") {
        "enum"
    } else if message.starts_with("invalid type") {
        "type_error"
    } else if message.starts_with("invalid length") {
        "length_error"
    } else {
        "value_error"
    };
    AppError::Validation(vec![FieldError {
        loc,
        msg: message,
        kind: kind.to_string(),
    }])
}

/// Query parameters, typed; unknown parameters are ignored, malformed ones answer 422 at `query.<name>`.
pub struct ValidQuery<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequestParts<S> for ValidQuery<T> {
    type Rejection = AppError;
    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, AppError> {
        let query = parts.uri.query().unwrap_or("");
        let de = serde_urlencoded::Deserializer::new(form_urlencoded_parse(query));
        serde_path_to_error::deserialize(de)
            .map(ValidQuery)
            .map_err(|e| serde_error("query", e))
    }
}

fn form_urlencoded_parse(query: &str) -> url::form_urlencoded::Parse<'_> {
    url::form_urlencoded::parse(query.as_bytes())
}

/// One UUID path parameter; a malformed one answers 422 at `path.<name>`.
pub struct UuidPath(pub Uuid);

impl<S: Send + Sync> FromRequestParts<S> for UuidPath {
    type Rejection = AppError;
    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, AppError> {
        let params = RawPathParams::from_request_parts(parts, state)
            .await
            .map_err(|_| AppError::invalid(&["path"], "invalid path", "value_error"))?;
        let (name, value) = params
            .iter()
            .next()
            .ok_or_else(|| AppError::invalid(&["path"], "missing id", "missing"))?;
        Uuid::parse_str(value).map(UuidPath).map_err(|_| {
            AppError::invalid(
                &["path", name],
                format!("'{value}' is not a valid UUID"),
                "uuid_parsing",
            )
        })
    }
}

/// Two UUID path parameters, in path order (`/principals/{principal_id}/members/{agent_id}`).
pub struct UuidPathPair(pub Uuid, pub Uuid);

impl<S: Send + Sync> FromRequestParts<S> for UuidPathPair {
    type Rejection = AppError;
    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, AppError> {
        let params = RawPathParams::from_request_parts(parts, state)
            .await
            .map_err(|_| AppError::invalid(&["path"], "invalid path", "value_error"))?;
        let mut ids = Vec::with_capacity(2);
        let mut problems = Vec::new();
        for (name, value) in params.iter() {
            match Uuid::parse_str(value) {
                Ok(id) => ids.push(id),
                Err(_) => problems.push(FieldError::new(
                    ["path", name],
                    format!("'{value}' is not a valid UUID"),
                    "uuid_parsing",
                )),
            }
        }
        if !problems.is_empty() {
            return Err(AppError::Validation(problems));
        }
        match ids[..] {
            [first, second] => Ok(UuidPathPair(first, second)),
            _ => Err(AppError::invalid(&["path"], "two ids expected", "missing")),
        }
    }
}

/// An authenticated caller: 401 without valid credentials.
pub struct Auth(pub Ctx);

/// An optional caller: anonymous without an Authorization header, 401 with an invalid one.
pub struct MaybeAuth(pub Ctx);

impl FromRequestParts<AppState> for Auth {
    type Rejection = AppError;
    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, AppError> {
        let ctx = context(parts, state).await?;
        ctx.require_actor()?;
        Ok(Auth(ctx))
    }
}

impl FromRequestParts<AppState> for MaybeAuth {
    type Rejection = AppError;
    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, AppError> {
        context(parts, state).await.map(MaybeAuth)
    }
}

/// Authenticates every request once, whatever its route: a bearer that is sent must be valid
/// (401 otherwise, also on routes that need none), and the caller's `Ctx` is kept in the
/// request's extensions for the extractors, the GraphQL handler and the MCP layer.
pub async fn authenticate(
    state: &AppState,
    req: Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let (mut parts, body) = req.into_parts();
    let ctx = match context(&parts, state).await {
        Ok(ctx) => ctx,
        Err(error) => return error.into_response(),
    };
    if state.replicas.is_empty() {
        parts.extensions.insert(ctx);
        return next.run(Request::from_parts(parts, body)).await;
    }
    let reads_only = matches!(parts.method, Method::GET | Method::HEAD);
    let is_graphql = parts.uri.path() == "/graphql";
    let writer = ctx.actor.as_ref().map(|a| a.agent_id);
    let replica_allowed = (reads_only || (is_graphql && parts.method == Method::POST))
        && !ctx.actor.as_ref().is_some_and(|a| a.wrote_recently);
    parts.extensions.insert(ctx);
    let (response, graphql_mutated) =
        services::read_route::scoped(replica_allowed, next.run(Request::from_parts(parts, body)))
            .await;
    let wrote = if is_graphql {
        graphql_mutated
    } else {
        !reads_only
    };
    if let Some(agent_id) = writer.filter(|_| wrote && response.status().is_success())
        && let Err(error) = services::auth::note_write(state, agent_id).await
    {
        // The write itself succeeded; only read-your-writes is weakened.
        tracing::warn!(
            error = error.public_message(),
            "marking a recent write failed"
        );
    }
    response
}

/// The request's `Ctx`: the one `authenticate` stored, or built from the headers.
pub async fn context(parts: &Parts, state: &AppState) -> Result<Ctx, AppError> {
    if let Some(ctx) = parts.extensions.get::<Ctx>() {
        return Ok(ctx.clone());
    }
    let request_id = parts
        .headers
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let client = parts
        .extensions
        .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
        .map(|info| info.0.ip().to_string());
    let Some(header) = parts.headers.get(header::AUTHORIZATION) else {
        return Ok(Ctx {
            actor: None,
            request_id,
            client,
        });
    };
    let value = header.to_str().map_err(|_| AppError::Unauthorized)?;
    Ok(Ctx {
        actor: Some(bearer(state, value).await?),
        request_id,
        client,
    })
}

/// The agent an `Authorization` value (`Bearer <api key or access token>`) names.
pub async fn bearer(state: &AppState, authorization: &str) -> Result<crate::ctx::Actor, AppError> {
    let (scheme, credential) = authorization
        .split_once(' ')
        .ok_or(AppError::Unauthorized)?;
    if !scheme.eq_ignore_ascii_case("bearer") || credential.trim().is_empty() {
        return Err(AppError::Unauthorized);
    }
    services::auth::authenticate(state, credential.trim()).await
}

/// The `Host` the client used, when it is a plain host name or address with an optional port;
/// anything else is never echoed into a page or a URL the server writes.
pub fn plain_host(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .filter(|h| {
            !h.is_empty()
                && h.len() <= 255
                && h.chars()
                    .all(|c| c.is_ascii_alphanumeric() || ".-:[]".contains(c))
        })
}

/// `scheme://host` as the client reached the server (`https` behind a proxy that says so in
/// `X-Forwarded-Proto`), or empty when the host is unknown: URLs then start at the path.
pub fn base_url(headers: &HeaderMap) -> String {
    let scheme = match headers
        .get("x-forwarded-proto")
        .and_then(|v| v.to_str().ok())
    {
        Some(proto) if proto.eq_ignore_ascii_case("https") => "https",
        _ => "http",
    };
    plain_host(headers).map_or_else(String::new, |host| format!("{scheme}://{host}"))
}
