//! OGC API Features answers a parameter it cannot use with 400 (the standard's
//! `/req/core/query-param-invalid`), where REST answers 422: the same `AppError`, another status.
//! The answer is the HTTP floor's (`http::parameter_error`, which the landing page shares): the
//! service's `{detail, code}` body (`ErrorBody`), with each problem's parameter named in `detail`.

use crate::error::AppError;
use axum::response::{IntoResponse, Response};

pub struct OgcError(pub AppError);

impl From<AppError> for OgcError {
    fn from(error: AppError) -> Self {
        OgcError(error)
    }
}

/// A problem with one query parameter.
pub fn bad_parameter(name: &str, msg: impl Into<String>) -> OgcError {
    OgcError(AppError::invalid(&["query", name], msg, "value_error"))
}

impl IntoResponse for OgcError {
    fn into_response(self) -> Response {
        crate::http::parameter_error(self.0)
    }
}
