//! Shared, immutable per-process state. Nothing mutable lives here: every process sharing the
//! database sees the same truth, so the service can scale out.

use crate::auth::jwt::JwtKeys;
use crate::config::Config;
use sqlx::PgPool;
use std::sync::Arc;

#[derive(Clone)]
pub struct AppState {
    pub pool: PgPool,
    /// Searches only: every statement planned for its values (`db::connect_search`).
    pub search_pool: PgPool,
    pub config: Arc<Config>,
    pub jwt: Arc<JwtKeys>,
}
