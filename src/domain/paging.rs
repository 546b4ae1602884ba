//! Keyset paging. Ids are UUIDv7 (time-ordered), so "newest first" is `ORDER BY id DESC` and the
//! cursor is simply the last id seen: stable under concurrent inserts, no OFFSET scans.

use crate::error::AppError;
use uuid::Uuid;

pub const DEFAULT_LIMIT: i64 = 100;
pub const MAX_LIMIT: i64 = 500;

#[derive(Debug, Clone, Copy)]
pub struct ListParams {
    pub limit: i64,
    pub after: Option<Uuid>,
}

impl Default for ListParams {
    fn default() -> Self {
        ListParams {
            limit: DEFAULT_LIMIT,
            after: None,
        }
    }
}

impl ListParams {
    /// `loc` names the parameter in the caller's transport (`["query", "limit"]`, `["first"]`).
    pub fn new(limit: Option<i64>, after: Option<Uuid>, loc: &[&str]) -> Result<Self, AppError> {
        let limit = limit.unwrap_or(DEFAULT_LIMIT);
        if !(1..=MAX_LIMIT).contains(&limit) {
            return Err(AppError::invalid(
                loc,
                format!("must be between 1 and {MAX_LIMIT}"),
                "range",
            ));
        }
        Ok(ListParams { limit, after })
    }

    /// Rows to fetch: one more than asked, to learn whether a next page exists.
    pub fn fetch_limit(&self) -> i64 {
        self.limit + 1
    }
}

#[derive(Debug, Clone)]
pub struct Page<T> {
    pub items: Vec<T>,
    pub has_next_page: bool,
}

impl<T> Page<T> {
    pub fn from_rows(mut rows: Vec<T>, params: &ListParams) -> Self {
        let has_next_page = rows.len() as i64 > params.limit;
        rows.truncate(params.limit as usize);
        Page {
            items: rows,
            has_next_page,
        }
    }
    /// The same page with each item mapped.
    pub fn map<U>(self, item: impl FnMut(T) -> U) -> Page<U> {
        Page {
            items: self.items.into_iter().map(item).collect(),
            has_next_page: self.has_next_page,
        }
    }
}
