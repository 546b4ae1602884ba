//! Keyset paging. Ids are UUIDv7 (time-ordered), so "newest first" is `ORDER BY id DESC` and a
//! page continues after the last id seen: stable under concurrent inserts (new rows are newer
//! than every page already read), no OFFSET scans. Callers outside the service name that id with
//! an opaque cursor (`domain::cursor`), decoded here for every transport.

use super::Violations;
use super::cursor::{Cursor, Direction};
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

    /// `limit` and `after` of a list read by a client: `after` is a cursor this list wrote (a
    /// `Link: rel="next"` or `X-Next-Cursor` of the page before), `list` the list's name (its
    /// path), `root` where the parameters live (`["query"]`). Every problem is reported at once,
    /// at `root` + the parameter's name.
    pub fn paged(
        limit: Option<i64>,
        after: Option<&str>,
        list: &str,
        root: &[&str],
    ) -> Result<Self, AppError> {
        let mut v = Violations::at(root);
        let limit = limit.unwrap_or(DEFAULT_LIMIT);
        v.check(
            (1..=MAX_LIMIT).contains(&limit),
            "limit",
            &format!("must be between 1 and {MAX_LIMIT}"),
            "range",
        );
        let after = after.map(|text| Cursor::decode(text, list));
        v.check(
            after.is_none_or(|cursor| {
                cursor.is_some_and(|c| c.direction == Direction::After)
            }),
            "after",
            "not a cursor of this list: copy it from the X-Next-Cursor header (or the Link rel=\"next\") of this list's previous page",
            "value_error",
        );
        v.into_result()?;
        Ok(ListParams {
            limit,
            after: after.flatten().map(|cursor| cursor.id),
        })
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
    /// The cursor of the page after this one (valid for `list`), when there is one: it starts
    /// after the last item.
    pub fn next_cursor(&self, list: &str, id_of: impl Fn(&T) -> Uuid) -> Option<String> {
        if !self.has_next_page {
            return None;
        }
        let last = self.items.last()?;
        Some(Cursor::after(id_of(last)).encode(list))
    }

    /// The same page with each item mapped.
    pub fn map<U>(self, item: impl FnMut(T) -> U) -> Page<U> {
        Page {
            items: self.items.into_iter().map(item).collect(),
            has_next_page: self.has_next_page,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::validation_locs as locs;

    const LIST: &str = "/api/v1/notes";

    #[test]
    fn a_page_continues_after_its_last_item_with_a_cursor_of_its_list() {
        let ids: Vec<Uuid> = (0..3).map(|_| Uuid::now_v7()).collect();
        let params = ListParams::paged(Some(2), None, LIST, &["query"]).unwrap();
        let page = Page::from_rows(ids.clone(), &params);
        let next = page.next_cursor(LIST, |id| *id).unwrap();
        let after = ListParams::paged(Some(2), Some(&next), LIST, &["query"]).unwrap();
        assert_eq!(after.after, Some(ids[1]));
        let last = Page::from_rows(ids[2..].to_vec(), &after);
        assert_eq!(last.next_cursor(LIST, |id| *id), None);
    }

    #[test]
    fn a_cursor_of_another_list_a_prev_cursor_and_a_bad_limit_are_all_reported() {
        let id = Uuid::now_v7();
        let foreign = Cursor::after(id).encode("/api/v1/signals");
        let backwards = Cursor {
            direction: Direction::Before,
            id,
        }
        .encode(LIST);
        for after in [foreign.as_str(), backwards.as_str(), "", "garbage"] {
            assert_eq!(
                locs(ListParams::paged(Some(0), Some(after), LIST, &["query"])),
                [r#"["query","limit"]"#, r#"["query","after"]"#],
                "{after}"
            );
        }
    }
}
