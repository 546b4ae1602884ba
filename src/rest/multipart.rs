//! multipart/form-data for entries: the field `entry` (the JSON create object as a string) and
//! `attachments` (files). Sizes are enforced while streaming, so an oversized upload is refused
//! (413) before it is buffered whole.

use crate::error::{AppError, FieldError, LocPart};
use crate::http::parse_json;
use crate::records::entries::EntryCreate;
use crate::services::entries::{
    MAX_ATTACHMENT_BYTES, MAX_ATTACHMENTS, MAX_MULTIPART_BYTES, Upload,
};
use crate::state::AppState;
use axum::extract::multipart::MultipartError;
use axum::extract::{FromRequest, Multipart, Request};

fn stream_error(err: MultipartError) -> AppError {
    if err.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
        AppError::PayloadTooLarge {
            limit_bytes: Some(MAX_MULTIPART_BYTES),
        }
    } else {
        AppError::invalid(
            &["body"],
            format!("malformed multipart body: {}", err.body_text()),
            "multipart_invalid",
        )
    }
}

/// Errors of the embedded JSON are located under `body.entry`.
fn under_entry(err: AppError) -> AppError {
    match err {
        AppError::Validation(items) => AppError::Validation(
            items
                .into_iter()
                .map(|mut item| {
                    item.loc.insert(1, LocPart::from("entry"));
                    item
                })
                .collect(),
        ),
        other => other,
    }
}

pub async fn entry_with_attachments(
    req: Request,
    state: &AppState,
) -> Result<(EntryCreate, Vec<Upload>), AppError> {
    let mut multipart = Multipart::from_request(req, state).await.map_err(|e| {
        AppError::invalid(
            &["body"],
            format!("malformed multipart body: {}", e.body_text()),
            "multipart_invalid",
        )
    })?;
    let mut entry = None;
    let mut uploads = Vec::new();
    while let Some(mut field) = multipart.next_field().await.map_err(stream_error)? {
        let name = field.name().unwrap_or_default().to_string();
        match name.as_str() {
            "entry" => {
                let text = field.text().await.map_err(stream_error)?;
                entry = Some(parse_json::<EntryCreate>(text.as_bytes()).map_err(under_entry)?);
            }
            "attachments" | "attachments[]" => {
                if uploads.len() == MAX_ATTACHMENTS {
                    // A count, not a size: the body may be small.
                    return Err(AppError::invalid(
                        &["body", "attachments"],
                        format!("at most {MAX_ATTACHMENTS} attachments per entry"),
                        "too_long",
                    ));
                }
                let filename = field.file_name().map(str::to_string);
                let declared_type = field.content_type().map(str::to_string);
                let mut bytes = Vec::new();
                while let Some(chunk) = field.chunk().await.map_err(stream_error)? {
                    if bytes.len() + chunk.len() > MAX_ATTACHMENT_BYTES {
                        return Err(AppError::PayloadTooLarge {
                            limit_bytes: Some(MAX_ATTACHMENT_BYTES),
                        });
                    }
                    bytes.extend_from_slice(&chunk);
                }
                uploads.push(Upload {
                    filename,
                    declared_type,
                    bytes: bytes.into(),
                });
            }
            other => {
                return Err(AppError::Validation(vec![FieldError::new(
                    ["body", other],
                    "unknown form field; expected entry and attachments",
                    "extra_forbidden",
                )]));
            }
        }
    }
    let entry = entry.ok_or_else(|| {
        AppError::invalid(&["body", "entry"], "the entry field is required", "missing")
    })?;
    Ok((entry, uploads))
}
