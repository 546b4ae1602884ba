//! The change-event channel the database's triggers notify (migration 0010).

use sqlx::PgPool;
use sqlx::postgres::PgListener;

pub const CHANNEL: &str = "strs_changes";

/// A dedicated connection listening on the change channel.
pub async fn listen(pool: &PgPool) -> sqlx::Result<PgListener> {
    let mut listener = PgListener::connect_with(pool).await?;
    listener.listen(CHANNEL).await?;
    Ok(listener)
}
