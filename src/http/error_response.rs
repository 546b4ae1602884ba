//! AppError → HTTP response. Status, code and body all come from `AppError` itself.

use crate::error::{AppError, LocPart};
use crate::http::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        if let AppError::Internal(err) = &self {
            // The request span carries the request id; the client only sees a generic message.
            tracing::error!(error = format!("{err:#}"), "internal error");
        }
        let status =
            StatusCode::from_u16(self.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let mut response = (status, Json(self.body())).into_response();
        let headers = response.headers_mut();
        match &self {
            AppError::Unauthorized => {
                headers.insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            }
            AppError::RateLimited { retry_after_secs } => {
                headers.insert(header::RETRY_AFTER, HeaderValue::from(*retry_after_secs));
            }
            AppError::NotReady(_) => {
                // Outages and timeouts are usually over within seconds.
                headers.insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
            }
            AppError::RequestTimeout => {
                // The rest of a body that trickled in must not be read as the next request.
                headers.insert(header::CONNECTION, HeaderValue::from_static("close"));
            }
            _ => {}
        }
        response
    }
}

/// The `code` of a 400 for a query parameter.
pub const BAD_REQUEST: &str = "BAD_REQUEST";

/// The answer of the routes that follow OGC API's rule for query parameters (OGC API Features
/// and the landing page): a parameter it cannot use is a 400 (`/req/core/query-param-invalid`)
/// where REST answers 422. The body keeps the `{detail, code}` shape (`ErrorBody`), each
/// problem's parameter named in `detail`; every other error answers as usual.
pub fn parameter_error(error: AppError) -> Response {
    let AppError::Validation(items) = error else {
        return error.into_response();
    };
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
    (StatusCode::BAD_REQUEST, Json(body)).into_response()
}

fn loc_text(part: &LocPart) -> String {
    match part {
        LocPart::Field(name) => name.clone(),
        LocPart::Index(i) => i.to_string(),
    }
}

/// Body of every non-422 error.
#[derive(utoipa::ToSchema)]
#[expect(dead_code, reason = "a schema only: utoipa reads the fields")]
pub struct ErrorBody {
    /// Human-readable message.
    detail: String,
    /// Stable machine-readable code, also used as GraphQL `extensions.code`: `UNAUTHENTICATED`,
    /// `FORBIDDEN`, `NOT_FOUND`, `CONFLICT`, `PAYLOAD_TOO_LARGE`, `UNSUPPORTED_MEDIA_TYPE`,
    /// `RATE_LIMITED`, `NOT_READY`, `INTERNAL`.
    code: String,
    /// On a 409 about a stored record (an entry's `idempotency_key`, a repeated signature): that
    /// record's id. Absent otherwise.
    existing_id: Option<uuid::Uuid>,
}

/// Body of a 422: every problem of the request at once.
#[derive(utoipa::ToSchema)]
#[expect(dead_code, reason = "a schema only: utoipa reads the fields")]
pub struct ValidationErrorBody {
    detail: Vec<crate::error::FieldError>,
}
