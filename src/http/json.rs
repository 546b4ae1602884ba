//! JSON response bodies, serialised into one buffer sized up front for a record: axum's `Json`
//! starts at 128 bytes and copies the body each time it doubles (a record of ~1.2 KB was copied
//! four times).

use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

/// Enough for one canonical record with its contexts; lists grow from there.
const INITIAL_CAPACITY: usize = 2048;

pub struct Json<T>(pub T);

impl<T: Serialize> IntoResponse for Json<T> {
    fn into_response(self) -> Response {
        let mut body = Vec::with_capacity(INITIAL_CAPACITY);
        match serde_json::to_writer(&mut body, &self.0) {
            Ok(()) => (
                [(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("application/json"),
                )],
                body,
            )
                .into_response(),
            Err(error) => crate::error::AppError::internal(error).into_response(),
        }
    }
}
