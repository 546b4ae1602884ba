//! AppError → GraphQL error: the same `code` as REST in `extensions.code`, the 422 items in
//! `extensions.detail`, and the HTTP status the REST twin would have answered in `extensions.status`.

use crate::error::AppError;
use async_graphql::ErrorExtensions;

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
