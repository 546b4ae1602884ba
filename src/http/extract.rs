//! Extractors that turn every malformed input into the specification's 422 body (with `loc`), an
//! oversized body into 413 and a wrong media type into 415.

use super::body::{parse_json, read_body, require_json, serde_error};
use crate::error::{AppError, FieldError};
use crate::state::AppState;
use axum::extract::{FromRequest, FromRequestParts, RawPathParams, Request};
use axum::http::request::Parts;
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
