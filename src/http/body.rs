//! Request bodies: read within the route's limit (413 past it), the JSON media type (415
//! otherwise) and strict JSON parsing whose every failure is the specification's 422 with `loc`.

use crate::error::{AppError, FieldError, LocPart};
use crate::state::AppState;
use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::{HeaderMap, header};
use serde::de::DeserializeOwned;

pub async fn read_body(req: Request, state: &AppState) -> Result<(HeaderMap, Bytes), AppError> {
    let headers = req.headers().clone();
    let bytes = Bytes::from_request(req, state).await.map_err(|rejection| {
        if rejection.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
            AppError::PayloadTooLarge { limit_bytes: None }
        } else {
            unreadable()
        }
    })?;
    Ok((headers, bytes))
}

/// A body that broke off or was malformed on the wire.
fn unreadable() -> AppError {
    AppError::invalid(
        &["body"],
        "the request body could not be read",
        "body_error",
    )
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
                unreadable()
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

/// Whether a body can be a JSON object: serde would happily read a struct from a JSON array,
/// and every body here is an object. (An empty body passes, and fails as JSON.)
pub fn may_be_object(bytes: &[u8]) -> bool {
    bytes
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_none_or(|b| *b == b'{')
}

pub fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, AppError> {
    if !may_be_object(bytes) {
        return Err(AppError::invalid(
            &["body"],
            "the body must be a JSON object",
            "model_attributes_type",
        ));
    }
    // Most bodies are valid: read them untracked, and only a body that fails is read again,
    // tracking the path its error names (tracking costs something on every member read).
    let mut de = serde_json::Deserializer::from_slice(bytes);
    if let Ok(value) = T::deserialize(&mut de)
        && de.end().is_ok()
    {
        return Ok(value);
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
pub(super) fn serde_error<E: std::fmt::Display + 'static>(
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
