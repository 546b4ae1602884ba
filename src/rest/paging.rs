//! Paging of every REST list. The bodies stay the specification's JSON arrays, so the way to the
//! next page travels in headers, only when there is one: `Link: <url>; rel="next"` (RFC 8288; the
//! same URL with the caller's other parameters and `after` set) and `X-Next-Cursor` (the bare
//! cursor, for clients that build their own URL). A list's cursors are sealed to its path
//! (`domain::cursor`), so one pasted into another list is a 422 at `query.after`. The OpenAPI
//! document declares `after` and both headers on every list (`openapi_responses::paged`).

use crate::domain::{ListParams, Page};
use crate::error::AppError;
use crate::http::{Json, base_url};
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderName, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use uuid::Uuid;

/// The header with the next page's bare cursor.
pub const NEXT_CURSOR: &str = "x-next-cursor";
/// What the `after` parameter of every list says in the OpenAPI document.
pub const AFTER_DESCRIPTION: &str = "Where the page starts: the `X-Next-Cursor` header of the \
    page before (the `Link: rel=\"next\"` header holds the whole next URL). Opaque; absent for \
    the first page. A cursor that this list did not write is a 422 at `query.after`.";

/// A list request as its pager sees it: the list's name (its path) and where its pages live.
pub struct Pager {
    base: String,
    path: String,
    query: String,
}

impl<S: Send + Sync> FromRequestParts<S> for Pager {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        Ok(Pager {
            base: base_url(&parts.headers),
            path: parts.uri.path().to_owned(),
            query: parts.uri.query().unwrap_or("").to_owned(),
        })
    }
}

impl Pager {
    /// `limit` and `after` (a cursor of this list) as the service takes them; 422 with each
    /// problem's `loc`.
    pub fn params(&self, limit: Option<i64>, after: Option<&str>) -> Result<ListParams, AppError> {
        ListParams::paged(limit, after, &self.path, &["query"])
    }

    /// The list's name, which its cursors are sealed to: its path.
    pub fn list(&self) -> &str {
        &self.path
    }

    /// The page as a JSON array, with the next page's headers when there is one.
    pub fn json<T: Serialize>(&self, page: Page<T>, id_of: impl Fn(&T) -> Uuid) -> Response {
        let next = page.next_cursor(&self.path, id_of);
        self.with_next(Json(page.items).into_response(), next.as_deref())
    }

    /// `response` (a page of this list) with `Link: rel="next"` and `X-Next-Cursor` when `next`
    /// is a cursor.
    pub fn with_next(&self, mut response: Response, next: Option<&str>) -> Response {
        let Some(next) = next else {
            return response;
        };
        let link = format!("<{}>; rel=\"next\"", self.url_after(next));
        let headers = response.headers_mut();
        if let Ok(value) = HeaderValue::from_str(&link) {
            headers.insert(header::LINK, value);
        }
        if let Ok(value) = HeaderValue::from_str(next) {
            headers.insert(HeaderName::from_static(NEXT_CURSOR), value);
        }
        response
    }

    /// This list's URL with the caller's parameters, `after` replaced by `cursor`.
    fn url_after(&self, cursor: &str) -> String {
        let mut query = url::form_urlencoded::Serializer::new(String::new());
        for (name, value) in url::form_urlencoded::parse(self.query.as_bytes()) {
            if name != "after" {
                query.append_pair(&name, &value);
            }
        }
        query.append_pair("after", cursor);
        format!("{}{}?{}", self.base, self.path, query.finish())
    }
}
