//! OGC API Features answers a parameter it cannot use with 400 (the standard's
//! `/req/core/query-param-invalid`), where REST answers 422: the same `AppError`, another status.
//! The body keeps the service's `{detail, code}` shape (`ErrorBody`), with each problem's
//! parameter named in `detail`.

use crate::error::{AppError, LocPart};
use axum::http::StatusCode;
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

pub const BAD_REQUEST: &str = "BAD_REQUEST";

impl IntoResponse for OgcError {
    fn into_response(self) -> Response {
        match self.0 {
            AppError::Validation(items) => {
                let detail = items
                    .iter()
                    .map(|item| {
                        // `loc` starts with `query`: the parameter's name is enough here.
                        let at: Vec<String> = item.loc.iter().skip(1).map(loc_text).collect();
                        format!("{}: {}", at.join("."), item.msg)
                    })
                    .collect::<Vec<_>>()
                    .join("; ");
                let body = serde_json::json!({ "detail": detail, "code": BAD_REQUEST });
                (StatusCode::BAD_REQUEST, axum::Json(body)).into_response()
            }
            other => other.into_response(),
        }
    }
}

fn loc_text(part: &LocPart) -> String {
    match part {
        LocPart::Field(name) => name.clone(),
        LocPart::Index(i) => i.to_string(),
    }
}
