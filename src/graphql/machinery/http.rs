//! GraphQL over HTTP as its spec says: which media type a client gets, which status goes with a
//! result, and the body of a request that never reached execution.
//!
//! - `application/graphql-response+json` when the client's `Accept` prefers it: a request error
//!   (a body that is not a GraphQL request, a document that does not parse or validate, variables
//!   that do not coerce, a refused shape, an unknown persisted query) is 400 and its body has no
//!   `data`; a result whose execution started is 200, field errors included.
//! - `application/json` otherwise (no `Accept`, `*/*`, `application/json`): the legacy rules,
//!   every GraphQL result is 200; only a body that is not a GraphQL request at all (not JSON, not
//!   an object, no string `query`) is 400.
//!
//! Either way a result whose execution never started has no `data` key (the GraphQL spec: the
//! entry is absent when an error is raised before execution begins).

use async_graphql::{ServerError, Value};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

pub const GRAPHQL_RESPONSE_JSON: &str = "application/graphql-response+json";

/// The media type of the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Media {
    GraphqlResponse,
    Json,
}

impl Media {
    /// The client's preference by `Accept` quality; on a tie the current type wins. Anything
    /// else (no header, `*/*`, types we do not serve) gets `application/json`, as the spec
    /// asks of servers that must keep legacy clients working.
    pub fn of(headers: &HeaderMap) -> Media {
        let Some(accept) = headers
            .get(header::ACCEPT)
            .and_then(|value| value.to_str().ok())
        else {
            return Media::Json;
        };
        let (mut current, mut legacy) = (0.0f32, 0.0f32);
        for (essence, quality) in crate::http::accept::ranges_of(accept) {
            match essence.as_str() {
                GRAPHQL_RESPONSE_JSON => current = current.max(quality),
                "application/json" => legacy = legacy.max(quality),
                _ => {}
            }
        }
        if current > 0.0 && current >= legacy {
            Media::GraphqlResponse
        } else {
            Media::Json
        }
    }

    fn content_type(self) -> HeaderValue {
        match self {
            Media::GraphqlResponse => {
                HeaderValue::from_static("application/graphql-response+json; charset=utf-8")
            }
            Media::Json => HeaderValue::from_static("application/json"),
        }
    }
}

/// A serialised GraphQL response body with its status and media type.
pub fn body(media: Media, status: StatusCode, body: Vec<u8>) -> Response {
    (status, [(header::CONTENT_TYPE, media.content_type())], body).into_response()
}

/// Whether execution never started: async-graphql answers a request it refused (parse,
/// validation, variable coercion) with no data and errors without a path, and the gate's own
/// refusals (`limits`, `persisted`) are the same; an error raised while executing always
/// carries its field's path.
pub fn never_executed(response: &async_graphql::Response) -> bool {
    matches!(response.data, Value::Null)
        && !response.errors.is_empty()
        && response.errors.iter().all(|error| error.path.is_empty())
}

#[derive(Serialize)]
struct ErrorsOnly<'a> {
    errors: &'a [ServerError],
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    extensions: &'a std::collections::BTreeMap<String, Value>,
}

/// The answer to a request the executor saw: 200, or 400 under the current media type when
/// execution never started.
pub fn answer(media: Media, response: &async_graphql::Response) -> Response {
    let (status, bytes) = if never_executed(response) {
        let status = match media {
            Media::GraphqlResponse => StatusCode::BAD_REQUEST,
            Media::Json => StatusCode::OK,
        };
        let errors = ErrorsOnly {
            errors: &response.errors,
            extensions: &response.extensions,
        };
        (status, serde_json::to_vec(&errors))
    } else {
        (StatusCode::OK, serde_json::to_vec(response))
    };
    match bytes {
        Ok(bytes) => body(media, status, bytes),
        Err(e) => crate::error::AppError::internal(e).into_response(),
    }
}

/// A request that is not a GraphQL request (under either media type): `status` with one error
/// carrying `code`, the status, and the REST-style `detail` items when there are some.
pub fn refuse(
    media: Media,
    status: StatusCode,
    code: &str,
    message: String,
    detail: Option<serde_json::Value>,
) -> Response {
    let mut error = serde_json::json!({
        "message": message,
        "extensions": {"code": code, "status": status.as_u16()},
    });
    if let Some(detail) = detail {
        error["extensions"]["detail"] = detail;
    }
    let bytes = serde_json::to_vec(&serde_json::json!({ "errors": [error] })).unwrap_or_default();
    body(media, status, bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accepting(value: &str) -> Media {
        let mut headers = HeaderMap::new();
        headers.insert(header::ACCEPT, HeaderValue::from_str(value).unwrap());
        Media::of(&headers)
    }

    #[test]
    fn the_current_media_type_is_served_when_preferred_or_tied() {
        assert_eq!(Media::of(&HeaderMap::new()), Media::Json);
        assert_eq!(accepting("*/*"), Media::Json);
        assert_eq!(accepting("application/json"), Media::Json);
        assert_eq!(
            accepting("application/graphql-response+json"),
            Media::GraphqlResponse
        );
        assert_eq!(
            accepting("application/graphql-response+json, application/json"),
            Media::GraphqlResponse
        );
        assert_eq!(
            accepting("application/graphql-response+json;q=0.5, application/json"),
            Media::Json
        );
        assert_eq!(
            accepting("application/json;q=0.9, application/graphql-response+json"),
            Media::GraphqlResponse
        );
        assert_eq!(
            accepting("application/graphql-response+json;q=0"),
            Media::Json
        );
    }
}
