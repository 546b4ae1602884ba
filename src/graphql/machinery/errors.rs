//! AppError → GraphQL error: the same `code` as REST in `extensions.code`, the 422 items in
//! `extensions.detail`, and the HTTP status the REST twin would have answered in `extensions.status`.

use crate::error::AppError;
use async_graphql::ErrorExtensions;

/// The class of the error in the words GraphQL clients and tools read (graphql-java's error
/// types): whether the caller or the server is at fault, beside the precise `code`. Every refusal
/// of what the caller asked (403 included: an operation it may not perform) is `BAD_REQUEST`; a
/// missing record is `null` in GraphQL, so the only not-found errors are mutation arguments that
/// name no record, which is bad input too.
fn classification(status: u16) -> &'static str {
    match status {
        401 => "UNAUTHORIZED",
        400..=499 => "BAD_REQUEST",
        503 | 507 => "UNAVAILABLE",
        _ => "INTERNAL_ERROR",
    }
}

impl From<AppError> for async_graphql::Error {
    fn from(err: AppError) -> Self {
        if let AppError::Internal(cause) = &err {
            tracing::error!(error = format!("{cause:#}"), "internal error");
        }
        let detail = match &err {
            AppError::Validation(items) => serde_json::to_value(items).ok(),
            _ => None,
        };
        async_graphql::Error::new(err.public_message()).extend_with(|_, ext| {
            ext.set("code", err.code());
            ext.set("status", err.status());
            ext.set("classification", classification(err.status()));
            if let Some(detail) = detail.and_then(|d| async_graphql::Value::from_json(d).ok()) {
                ext.set("detail", detail);
            }
            if let AppError::Conflict {
                existing_id: Some(id),
                ..
            } = &err
            {
                ext.set("existing_id", id.to_string());
            }
        })
    }
}
