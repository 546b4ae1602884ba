//! Relay connections over the services' keyset pages: the cursor is the last node's id.

use super::totals::{Counter, Total};
use crate::domain::{ListParams, Page};
use crate::error::AppError;
use async_graphql::OutputType;
use async_graphql::connection::EmptyFields;
use async_graphql::connection::{Connection, Edge};
use uuid::Uuid;

pub fn params(first: Option<i32>, after: Option<String>) -> Result<ListParams, AppError> {
    let after = match after {
        Some(cursor) => Some(
            Uuid::parse_str(&cursor)
                .map_err(|_| AppError::invalid(&["after"], "not a valid cursor", "value_error"))?,
        ),
        None => None,
    };
    ListParams::new(first.map(i64::from), after, &["first"])
}

pub fn connection<T, N: OutputType>(
    page: Page<T>,
    id_of: impl Fn(&T) -> Uuid,
    node: impl Fn(T) -> N,
    after_given: bool,
) -> Connection<String, N> {
    let mut connection = Connection::new(after_given, page.has_next_page);
    connection.edges.extend(edges(page, id_of, node));
    connection
}

/// A connection with `totalCount` (`graphql::totals`), counted by `counter` when asked for.
pub fn counted<T, N: OutputType>(
    page: Page<T>,
    id_of: impl Fn(&T) -> Uuid,
    node: impl Fn(T) -> N,
    after_given: bool,
    counter: Counter,
) -> Connection<String, N, Total> {
    let mut connection =
        Connection::with_additional_fields(after_given, page.has_next_page, Total::of(counter));
    connection.edges.extend(edges(page, id_of, node));
    connection
}

fn edges<T, N: OutputType>(
    page: Page<T>,
    id_of: impl Fn(&T) -> Uuid,
    node: impl Fn(T) -> N,
) -> impl Iterator<Item = Edge<String, N, EmptyFields>> {
    page.items
        .into_iter()
        .map(move |item| Edge::new(id_of(&item).to_string(), node(item)))
}
