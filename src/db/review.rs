//! Entries waiting for review, newest first, with their review details.

use crate::domain::ListParams;
use crate::records::entries::SpaceTimeEntry;

#[derive(sqlx::FromRow)]
pub struct Waiting {
    #[sqlx(flatten)]
    pub entry: SpaceTimeEntry,
    pub review: Option<serde_json::Value>,
}

pub async fn waiting<'c>(
    pool: impl super::Reads<'c>,
    params: &ListParams,
) -> sqlx::Result<Vec<Waiting>> {
    sqlx::query_as(&format!(
        "SELECT {}, e.review FROM space_time_entries e
         WHERE e.status = 'review_required' AND ($1::uuid IS NULL OR e.id < $1)
         ORDER BY e.id DESC LIMIT $2",
        super::entries::COLUMNS
    ))
    .bind(params.after)
    .bind(params.fetch_limit())
    .fetch_all(pool)
    .await
}
