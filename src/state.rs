//! Shared per-process state. No truth lives here: every process sharing the database sees the
//! same data, so the service can scale out. (The event hub only fans out what the database
//! announces to every process.)

use crate::auth::jwt::JwtKeys;
use crate::config::Config;
use sqlx::PgPool;
use std::sync::Arc;

/// Cloned for every request (extractors, loaders, tasks): one reference count, not one per part.
#[derive(Clone)]
pub struct AppState(Arc<Shared>);

impl AppState {
    pub fn new(shared: Shared) -> AppState {
        AppState(Arc::new(shared))
    }

    pub fn from_shared(shared: Arc<Shared>) -> AppState {
        AppState(shared)
    }

    pub fn shared(&self) -> &Arc<Shared> {
        &self.0
    }
}

impl std::ops::Deref for AppState {
    type Target = Shared;
    fn deref(&self) -> &Shared {
        &self.0
    }
}

pub struct Shared {
    pub pool: PgPool,
    /// Searches only: every statement planned for its values (`db::connect_search`).
    /// The primary's read pools (`db::lean`): reads and searches, when no replica takes them.
    pub lean: crate::db::LeanPools,
    pub config: Arc<Config>,
    pub jwt: Arc<JwtKeys>,
    /// Requests in flight in this process: past `STRS_MAX_CONCURRENT_REQUESTS` a request is
    /// refused at once (`http::edge`).
    pub permits: tokio::sync::Semaphore,
    /// Open GraphQL WebSockets in this process: past `STRS_MAX_WEBSOCKETS` an upgrade is refused
    /// (`graphql::machinery::websocket`); a connection holds its permit until it closes.
    pub websockets: Arc<tokio::sync::Semaphore>,
    /// Bulk exports streaming from this process: past `services::exports::MAX_CONCURRENT_EXPORTS`
    /// an export is refused with 503; a streaming export holds its permit until its reads end.
    pub exports: Arc<tokio::sync::Semaphore>,
    /// Read replicas and their measured health (`services::read_route`).
    pub replicas: crate::services::read_route::Replicas,
    /// Change events from the database, for subscriptions.
    pub events: crate::services::events::EventHub,
    /// The free-space floor of the data volume: writes are refused (507) below it.
    pub disk: crate::storage::space::DiskFloor,
    /// Whether this process is refreshing the map tiles' counts per cell (`services::tile_counts`):
    /// one refresh at a time here; across processes the database's row lock decides.
    pub tile_counts_refreshing: std::sync::atomic::AtomicBool,
}
