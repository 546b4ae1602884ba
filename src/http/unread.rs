//! Request bodies the service answered without reading whole: refused before the handler read
//! it (a 401, a 503 while the database is down, a 413), or still trickling in when the request
//! timed out. The rest of a 413's body is never read (it is over the limit already): the answer
//! closes the connection.
//!
//! A server that answers and closes while the client is still sending makes the client's kernel
//! see a reset: a keep-alive client then often reports a broken pipe instead of the answer. So
//! what is left of a refused body is read, up to `DRAIN_LIMIT` bytes within `DRAIN_TIME`, which
//! keeps the connection usable; a longer or slower body gets `Connection: close`, so the client
//! knows the connection ends with this answer. A body that had not arrived when the request
//! timed out is the client's delay, not the server's: 408, not 503.

use axum::body::Body;
use axum::http::{HeaderValue, Request, header};
use axum::response::Response;
use bytes::Bytes;
use hyper::body::{Body as HttpBody, Frame, SizeHint};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

/// At most this much of a refused body is read to keep its connection open.
pub const DRAIN_LIMIT: usize = 1024 * 1024;
/// And for at most this long.
pub const DRAIN_TIME: Duration = Duration::from_secs(2);

/// What became of one request's body.
#[derive(Default)]
pub struct Tracker {
    finished: AtomicBool,
    /// The body, put back here when whoever held it dropped it unfinished.
    leftover: Mutex<Option<Body>>,
}

impl Tracker {
    /// The body had not been read to its end (still arriving, or dropped half-read).
    pub fn unfinished(&self) -> bool {
        !self.finished.load(Ordering::Relaxed)
    }
}

/// The request with its body watched, and the watch; a request without a body is left as it is.
pub fn track(request: Request<Body>) -> (Request<Body>, Option<Arc<Tracker>>) {
    if request.body().is_end_stream() {
        return (request, None);
    }
    let tracker = Arc::new(Tracker::default());
    let watched = tracker.clone();
    let request = request.map(|inner| {
        Body::new(Tracked {
            inner: Some(inner),
            tracker: watched,
        })
    });
    (request, Some(tracker))
}

struct Tracked {
    inner: Option<Body>,
    tracker: Arc<Tracker>,
}

impl HttpBody for Tracked {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let this = self.get_mut();
        let Some(inner) = this.inner.as_mut() else {
            return Poll::Ready(None);
        };
        let polled = Pin::new(&mut *inner).poll_frame(cx);
        let done = match &polled {
            Poll::Ready(None) | Poll::Ready(Some(Err(_))) => true,
            Poll::Ready(Some(Ok(_))) => inner.is_end_stream(),
            Poll::Pending => false,
        };
        if done {
            this.tracker.finished.store(true, Ordering::Relaxed);
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.as_ref().is_none_or(HttpBody::is_end_stream)
    }

    fn size_hint(&self) -> SizeHint {
        self.inner
            .as_ref()
            .map_or_else(|| SizeHint::with_exact(0), HttpBody::size_hint)
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        if self.tracker.unfinished()
            && let Some(inner) = self.inner.take()
            && let Ok(mut leftover) = self.tracker.leftover.lock()
        {
            *leftover = Some(inner);
        }
    }
}

/// The response, once what is left of the body has been read (bounded), or marked
/// `Connection: close` when it was not. `expects_continue`: the client waits for a `100
/// Continue` before sending the body, so it sends nothing more if the body is never polled.
pub async fn settle(
    mut response: Response,
    tracker: Option<Arc<Tracker>>,
    expects_continue: bool,
) -> Response {
    let Some(tracker) = tracker else {
        return response;
    };
    if !tracker.unfinished() {
        return response;
    }
    let leftover = tracker.leftover.lock().ok().and_then(|mut l| l.take());
    let drained = match leftover {
        // A body that trickled past the request timeout would trickle past this one too, and
        // one refused as too large is known to be larger than anything worth reading on.
        Some(body) if !expects_continue && !matches!(response.status().as_u16(), 408 | 413) => {
            tokio::time::timeout(DRAIN_TIME, drain(body, DRAIN_LIMIT))
                .await
                .unwrap_or(false)
        }
        _ => false,
    };
    if !drained {
        response
            .headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    response
}

/// Reads and discards `body`; true when it ended within `limit` bytes.
pub async fn drain(mut body: Body, limit: usize) -> bool {
    let mut read = 0usize;
    while let Some(frame) = std::future::poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await {
        let Ok(frame) = frame else {
            return false;
        };
        if let Some(data) = frame.data_ref() {
            read += data.len();
            if read > limit {
                return false;
            }
        }
    }
    true
}
