//! Entries waiting for review, newest first, with their review details.

use crate::domain::ListParams;
use crate::records::entries::SpaceTimeEntry;

#[derive(sqlx::FromRow)]
pub struct Waiting {
    #[sqlx(flatten)]
    pub entry: SpaceTimeEntry,
    pub review: Option<serde_json::Value>,
}

fn waiting_statement(columns: &str) -> String {
    format!(
        "SELECT {columns} FROM space_time_entries e
         WHERE e.status = 'review_required' AND ($1::uuid IS NULL OR e.id < $1)
         ORDER BY e.id DESC LIMIT $2"
    )
}

pub async fn waiting<'c>(
    pool: impl super::Reads<'c>,
    params: &ListParams,
) -> sqlx::Result<Vec<Waiting>> {
    sqlx::query_as(&waiting_statement(&format!(
        "{}, e.review",
        super::entries::COLUMNS
    )))
    .bind(params.after)
    .bind(params.fetch_limit())
    .fetch_all(pool)
    .await
}

/// The rows `waiting` would page through, up to `COUNT_CAP + 1`.
pub async fn count_waiting<'c>(pool: impl super::Reads<'c>) -> sqlx::Result<i64> {
    sqlx::query_scalar(&super::counted(&waiting_statement("e.id")))
        .bind(None::<uuid::Uuid>)
        .bind(super::COUNT_CAP + 1)
        .fetch_one(pool)
        .await
}
