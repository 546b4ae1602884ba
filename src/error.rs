//! The one error type of the service. Every transport maps it through `status()`, `code()` and
//! `body()`, so REST statuses, REST bodies and GraphQL `extensions.code` can never disagree.

use serde::Serialize;
use serde_json::{Value, json};
use uuid::Uuid;

/// One element of a 422 `loc`: a field name or an array index.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(untagged)]
pub enum LocPart {
    Field(String),
    Index(usize),
}

impl From<&str> for LocPart {
    fn from(s: &str) -> Self {
        LocPart::Field(s.to_string())
    }
}
impl From<String> for LocPart {
    fn from(s: String) -> Self {
        LocPart::Field(s)
    }
}
impl From<usize> for LocPart {
    fn from(i: usize) -> Self {
        LocPart::Index(i)
    }
}

/// One item of a 422 body's `detail` array.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct FieldError {
    /// Where the problem is: starts with `body`, `query` or `path`; then field names and array
    /// indexes.
    pub loc: Vec<LocPart>,
    /// Human-readable explanation.
    pub msg: String,
    /// Machine-readable kind, e.g. `missing`, `extra_forbidden`, `enum`, `value_error`.
    #[serde(rename = "type")]
    pub kind: String,
}

impl FieldError {
    pub fn new<L: Into<LocPart>>(
        loc: impl IntoIterator<Item = L>,
        msg: impl Into<String>,
        kind: &str,
    ) -> Self {
        FieldError {
            loc: loc.into_iter().map(Into::into).collect(),
            msg: msg.into(),
            kind: kind.to_string(),
        }
    }
}

/// Deliberately not `Display`: async-graphql converts any `Display` into a code-less error, so
/// without it a resolver cannot drop the code by accident; it must go through `graphql::errors`.
#[derive(Debug)]
pub enum AppError {
    Validation(Vec<FieldError>),
    Unauthorized,
    Forbidden(String),
    NotFound(&'static str),
    Conflict {
        message: String,
        existing_id: Option<Uuid>,
    },
    /// The limit is stated when the code that refused knows it.
    PayloadTooLarge {
        limit_bytes: Option<usize>,
    },
    UnsupportedMediaType(String),
    RateLimited {
        retry_after_secs: u64,
    },
    NotReady(String),
    /// The request's body did not arrive within the request timeout (a client that trickles).
    RequestTimeout,
    /// The disk is full, or below the reserve kept for the database (`storage::space`).
    InsufficientStorage(String),
    Internal(anyhow::Error),
}

impl From<anyhow::Error> for AppError {
    fn from(err: anyhow::Error) -> Self {
        AppError::Internal(err)
    }
}

pub type AppResult<T> = Result<T, AppError>;

impl AppError {
    pub fn invalid(loc: &[&str], msg: impl Into<String>, kind: &str) -> Self {
        AppError::Validation(vec![FieldError::new(loc.iter().copied(), msg, kind)])
    }

    /// Database errors are located under `body`; an input that lives elsewhere (a GraphQL
    /// argument) re-roots them so `loc` always points at what the caller sent.
    pub fn under(self, loc: &[&str]) -> Self {
        match self {
            AppError::Validation(mut items) => {
                let root = loc.first().copied().unwrap_or("body");
                for item in &mut items {
                    if let Some(first) = item.loc.first_mut() {
                        *first = root.into();
                    }
                }
                AppError::Validation(items)
            }
            other => other,
        }
    }

    pub fn internal(err: impl Into<anyhow::Error>) -> Self {
        AppError::Internal(err.into())
    }

    pub fn status(&self) -> u16 {
        match self {
            AppError::Validation(_) => 422,
            AppError::Unauthorized => 401,
            AppError::Forbidden(_) => 403,
            AppError::NotFound(_) => 404,
            AppError::Conflict { .. } => 409,
            AppError::PayloadTooLarge { .. } => 413,
            AppError::UnsupportedMediaType(_) => 415,
            AppError::RateLimited { .. } => 429,
            AppError::NotReady(_) => 503,
            AppError::RequestTimeout => 408,
            AppError::InsufficientStorage(_) => 507,
            AppError::Internal(_) => 500,
        }
    }

    /// Stable code shared by REST bodies and GraphQL `extensions.code`.
    pub fn code(&self) -> &'static str {
        match self {
            AppError::Validation(_) => "VALIDATION_ERROR",
            AppError::Unauthorized => "UNAUTHENTICATED",
            AppError::Forbidden(_) => "FORBIDDEN",
            AppError::NotFound(_) => "NOT_FOUND",
            AppError::Conflict { .. } => "CONFLICT",
            AppError::PayloadTooLarge { .. } => "PAYLOAD_TOO_LARGE",
            AppError::UnsupportedMediaType(_) => "UNSUPPORTED_MEDIA_TYPE",
            AppError::RateLimited { .. } => "RATE_LIMITED",
            AppError::NotReady(_) => "NOT_READY",
            AppError::RequestTimeout => "REQUEST_TIMEOUT",
            AppError::InsufficientStorage(_) => "INSUFFICIENT_STORAGE",
            AppError::Internal(_) => "INTERNAL",
        }
    }

    /// The public message: internal errors never leak their cause.
    pub fn public_message(&self) -> String {
        match self {
            AppError::Validation(items) => items
                .iter()
                .map(|i| i.msg.as_str())
                .collect::<Vec<_>>()
                .join("; "),
            AppError::Unauthorized => {
                "missing, invalid, revoked or expired credentials".to_string()
            }
            AppError::Forbidden(msg)
            | AppError::UnsupportedMediaType(msg)
            | AppError::NotReady(msg)
            | AppError::InsufficientStorage(msg) => msg.clone(),
            AppError::RequestTimeout => {
                "the request body did not arrive in time; send it again".to_string()
            }
            AppError::NotFound(what) => format!("{what} not found"),
            AppError::Conflict { message, .. } => message.clone(),
            AppError::PayloadTooLarge {
                limit_bytes: Some(limit),
            } => {
                format!("request body too large (limit {limit} bytes)")
            }
            AppError::PayloadTooLarge { limit_bytes: None } => "request body too large".to_string(),
            AppError::RateLimited { retry_after_secs } => {
                format!("too many requests; retry after {retry_after_secs} s")
            }
            AppError::Internal(_) => "internal server error".to_string(),
        }
    }

    /// The JSON body: `{detail: [..]}` for 422, `{detail, code}` for everything else.
    pub fn body(&self) -> Value {
        match self {
            AppError::Validation(items) => json!({ "detail": items }),
            AppError::Conflict {
                existing_id: Some(id),
                ..
            } => {
                json!({ "detail": self.public_message(), "code": self.code(), "existing_id": id })
            }
            _ => json!({ "detail": self.public_message(), "code": self.code() }),
        }
    }
}

/// The `loc` of each item of a validation error as JSON text (`["query","first"]`), for unit
/// tests of the checks that build them; any other outcome fails the test.
#[cfg(test)]
pub fn validation_locs<T>(result: Result<T, AppError>) -> Vec<String> {
    match result {
        Err(AppError::Validation(items)) => items
            .iter()
            .map(|i| serde_json::to_string(&i.loc).unwrap())
            .collect(),
        _ => panic!("expected a validation error"),
    }
}
