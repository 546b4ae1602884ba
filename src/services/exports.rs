//! Bulk export of one kind's canonical records with their per-field sources, in the analysts'
//! formats (`export/`), streamed: memory stays flat whatever the number of rows.
//!
//! The records are read in id order a chunk of `CHUNK_ROWS` at a time (`db::exports`), each
//! chunk one short statement on a pooled connection; a background task reads ahead at most
//! `READ_AHEAD` chunks, and the response body encodes a chunk's rows a piece of about
//! `PIECE_BYTES` at a time when the client is ready for more, so a slow client slows the reads
//! down instead of piling rows up. A chunk whose rows are written goes back to the reads, which
//! fill the same rows again: a million-row export allocates its rows once. The first chunk is read
//! before the answer starts: a bad filter or a database that does not answer is a proper status
//! (422, 503), not a cut body. After that, a failure ends the body without its proper end (the
//! chunked transfer is cut), so a client can tell a truncated file from a whole one.
//!
//! Visibility is the REST lists' rule (`GET /api/v1/entities` without a box): every record of the
//! kind whatever its status, merged ones (with `merged_into_id`) and withdrawn ones included, so
//! a mirror that pulls `updated_since` its last pull learns of merges and withdrawals; `status=`
//! narrows to one status.

use crate::db::exports::{self, ExportFilter};
use crate::domain::{CanonicalTable, Violations, area};
use crate::error::{AppError, AppResult};
pub use crate::export::Format;
use crate::records::export::ExportRow;
use crate::services::{field_sources, read_route};
use crate::state::AppState;
use bytes::Bytes;
use chrono::{DateTime, Utc};
use futures::stream::BoxStream;
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, mpsc};
use uuid::Uuid;

/// Records per statement (and per piece of the body).
pub const CHUNK_ROWS: i64 = 2_000;
/// Chunks read ahead of the client.
const READ_AHEAD: usize = 2;
/// Exports one process streams at once; past it an export is refused with 503.
pub const MAX_CONCURRENT_EXPORTS: usize = 4;
/// The longest an export may stream: past it the body is cut (at 100,000 rows/s this bounds an
/// export to a few hundred million records).
pub const MAX_EXPORT_DURATION: Duration = Duration::from_secs(3600);
/// The longest the reads wait for a client that stopped reading before giving up.
const CLIENT_STALL: Duration = Duration::from_secs(300);
/// Country codes or categories one filter may list.
const MAX_VALUES: usize = 50;

/// The export's filters as the client sent them (query parameters).
#[derive(Debug, Clone, Copy, Default)]
pub struct ExportQuery<'a> {
    /// `west,south,east,north` in degrees.
    pub bbox: Option<&'a str>,
    /// Comma-separated ISO 3166-1 alpha-2 codes.
    pub country: Option<&'a str>,
    /// Comma-separated categories; a record listing any of them is kept.
    pub category: Option<&'a str>,
    /// An RFC 3339 instant.
    pub updated_since: Option<&'a str>,
    pub status: Option<&'a str>,
}

/// An export ready to stream.
pub struct Export {
    pub format: Format,
    /// `entities.parquet`, …
    pub file_name: String,
    pub body: BoxStream<'static, std::io::Result<Bytes>>,
}

fn list(
    v: &mut Violations,
    field: &str,
    text: &str,
    valid: impl Fn(&str) -> bool,
    what: &str,
) -> Vec<String> {
    let values: Vec<String> = text.split(',').map(|s| s.trim().to_owned()).collect();
    if values.len() > MAX_VALUES {
        v.push(field, format!("at most {MAX_VALUES} values"), "too_long");
    } else if let Some(bad) = values.iter().find(|s| !valid(s.as_str())) {
        v.push(field, format!("'{bad}' is not {what}"), "value_error");
    }
    values
}

fn filter(query: &ExportQuery<'_>) -> AppResult<ExportFilter> {
    let mut v = Violations::at(&["query"]);
    let area = query
        .bbox
        .and_then(|text| area::bounding_box_text(&mut v, "bbox", text));
    let countries = query.country.map(|text| {
        list(
            &mut v,
            "country",
            &text.to_ascii_uppercase(),
            |s| s.len() == 2 && s.bytes().all(|b| b.is_ascii_uppercase()),
            "an ISO 3166-1 alpha-2 country code (e.g. GB)",
        )
    });
    let categories = query.category.map(|text| {
        list(
            &mut v,
            "category",
            text,
            |s| (1..=100).contains(&s.chars().count()),
            "a category of 1 to 100 characters",
        )
    });
    let updated_since =
        query
            .updated_since
            .and_then(|text| match DateTime::parse_from_rfc3339(text.trim()) {
                Ok(t) => Some(t.with_timezone(&Utc)),
                Err(_) => {
                    v.push(
                        "updated_since",
                        "must be an RFC 3339 date-time, e.g. 2026-11-01T00:00:00Z",
                        "datetime_parsing",
                    );
                    None
                }
            });
    if let Some(status) = query.status {
        v.check_len(Some(status), "status", 1, 50);
    }
    v.into_result()?;
    Ok(ExportFilter {
        area,
        countries,
        categories,
        updated_since,
        status: query.status.map(str::to_owned),
    })
}

/// What the reading task hands the body.
enum Message {
    Rows(Vec<ExportRow>),
    /// Every row was read.
    End,
    /// The reads failed (logged); the body is cut.
    Failed,
}

/// Reads the chunk after `after` into `rows` (reused: see `db::exports::chunk`).
async fn read_chunk(
    state: &AppState,
    table: CanonicalTable,
    filter: &ExportFilter,
    after: Option<Uuid>,
    mut rows: Vec<ExportRow>,
) -> AppResult<Vec<ExportRow>> {
    exports::chunk(
        read_route::search_reads(state),
        table,
        filter,
        after,
        CHUNK_ROWS,
        &mut rows,
        field_sources::read_sources,
    )
    .await?;
    Ok(rows)
}

/// Streams a kind's records in `format`, in id order (ids are UUIDv7: creation order). A bad
/// filter is a 422 at `query.<name>`; past `MAX_CONCURRENT_EXPORTS` streaming exports, a 503.
#[tracing::instrument(name = "exports::export", level = "debug", skip_all, fields(table = ?table, format = ?format))]
pub async fn export(
    state: &AppState,
    table: CanonicalTable,
    format: Format,
    query: &ExportQuery<'_>,
) -> AppResult<Export> {
    let filter = filter(query)?;
    let permit =
        state.exports.clone().try_acquire_owned().map_err(|_| {
            AppError::NotReady("too many exports are streaming; retry later".into())
        })?;
    let first = read_chunk(state, table, &filter, None, Vec::new()).await?;
    let (sender, receiver) = mpsc::channel(READ_AHEAD);
    // The body hands each chunk's rows back once written, for the reads to fill again.
    let (recycle, recycled) = mpsc::channel(READ_AHEAD + 1);
    let more = i64::try_from(first.len()).unwrap_or(i64::MAX) >= CHUNK_ROWS;
    let after = first.last().map(|r| r.id);
    sender
        .try_send(Message::Rows(first))
        .map_err(|_| AppError::Internal(anyhow::anyhow!("a fresh channel has room")))?;
    if more {
        tokio::spawn(read_rest(
            state.clone(),
            table,
            filter,
            after,
            Chunks { sender, recycled },
            permit,
        ));
    } else {
        let _ = sender.try_send(Message::End);
        drop(permit);
    }
    let encoder = crate::export::encoder(format, table).map_err(AppError::Internal)?;
    Ok(Export {
        format,
        file_name: format!(
            "{}.{}",
            crate::records::export::collection(table),
            format.extension()
        ),
        body: body(encoder, receiver, recycle),
    })
}

/// The reads' two ends of the channels to the body.
struct Chunks {
    sender: mpsc::Sender<Message>,
    recycled: mpsc::Receiver<Vec<ExportRow>>,
}

/// Reads the chunks after the first until the last, each sent when the body has room for it.
async fn read_rest(
    state: AppState,
    table: CanonicalTable,
    filter: ExportFilter,
    mut after: Option<Uuid>,
    mut chunks: Chunks,
    _permit: OwnedSemaphorePermit,
) {
    let deadline = tokio::time::Instant::now() + MAX_EXPORT_DURATION;
    loop {
        let reused = chunks.recycled.try_recv().unwrap_or_default();
        let read =
            tokio::time::timeout_at(deadline, read_chunk(&state, table, &filter, after, reused));
        let rows = match read.await {
            Ok(Ok(rows)) => rows,
            Ok(Err(error)) => {
                tracing::warn!(?error, "an export's read failed; its body is cut");
                let _ = chunks.sender.send(Message::Failed).await;
                return;
            }
            Err(_) => {
                tracing::warn!("an export ran past its time limit; its body is cut");
                let _ = chunks.sender.send(Message::Failed).await;
                return;
            }
        };
        let last = i64::try_from(rows.len()).unwrap_or(i64::MAX) < CHUNK_ROWS;
        after = rows.last().map(|r| r.id).or(after);
        let sent =
            tokio::time::timeout(CLIENT_STALL, chunks.sender.send(Message::Rows(rows))).await;
        if !matches!(sent, Ok(Ok(()))) {
            // The client went away, or stopped reading for too long.
            return;
        }
        if last {
            let _ = chunks.sender.send(Message::End).await;
            return;
        }
    }
}

fn cut(message: &str) -> std::io::Error {
    std::io::Error::other(message.to_owned())
}

/// The size the body's pieces are kept near: small enough to be allocated and freed again and
/// again from the allocator's pooled pages (a whole chunk's bytes, megabytes, were mapped and
/// unmapped each time), large enough that the per-piece costs vanish.
const PIECE_BYTES: usize = 64 * 1024;

/// The body's side of an export.
struct Body {
    encoder: Box<dyn crate::export::Encoder>,
    receiver: mpsc::Receiver<Message>,
    recycle: mpsc::Sender<Vec<ExportRow>>,
    /// The chunk being written, and the first of its rows not written yet.
    rows: Vec<ExportRow>,
    next: usize,
    /// Rows per piece, following the rows' encoded size to keep pieces near `PIECE_BYTES`.
    piece_rows: usize,
}

impl Body {
    /// Writes the next piece's rows; the chunk goes back to the reads when all are written.
    fn write_piece(&mut self) -> anyhow::Result<usize> {
        let end = if self.encoder.whole_chunks() {
            self.rows.len()
        } else {
            (self.next + self.piece_rows).min(self.rows.len())
        };
        self.encoder.rows(&self.rows[self.next..end])?;
        let written = end - self.next;
        self.next = end;
        if self.next == self.rows.len() {
            let _ = self.recycle.try_send(std::mem::take(&mut self.rows));
            self.next = 0;
        }
        Ok(written)
    }
}

/// The response body: the rows encoded a piece at a time as the client reads, then the file's
/// end.
fn body(
    encoder: Box<dyn crate::export::Encoder>,
    receiver: mpsc::Receiver<Message>,
    recycle: mpsc::Sender<Vec<ExportRow>>,
) -> BoxStream<'static, std::io::Result<Bytes>> {
    let state = Some(Body {
        encoder,
        receiver,
        recycle,
        rows: Vec::new(),
        next: 0,
        piece_rows: 16,
    });
    Box::pin(futures::stream::unfold(state, |state| async move {
        let mut body = state?;
        loop {
            if body.next < body.rows.len() {
                let written = match body.write_piece() {
                    Ok(written) => written,
                    Err(error) => {
                        tracing::warn!(?error, "an export could not be encoded; its body is cut");
                        return Some((Err(cut("the export could not be encoded")), None));
                    }
                };
                let bytes = body.encoder.take();
                if bytes.is_empty() {
                    continue;
                }
                let per_row = (bytes.len() / written.max(1)).max(1);
                body.piece_rows =
                    (PIECE_BYTES / per_row).clamp(1, usize::try_from(CHUNK_ROWS).unwrap_or(1));
                return Some((Ok(Bytes::from(bytes)), Some(body)));
            }
            match body.receiver.recv().await {
                Some(Message::Rows(rows)) => {
                    body.rows = rows;
                    body.next = 0;
                }
                Some(Message::End) => {
                    let end = body
                        .encoder
                        .finish()
                        .map(|()| Bytes::from(body.encoder.take()));
                    return Some((end.map_err(|e| cut(&e.to_string())), None));
                }
                Some(Message::Failed) | None => {
                    return Some((Err(cut("the export stopped before its end")), None));
                }
            }
        }
    }))
}
