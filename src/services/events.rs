//! Change events for live subscribers. The database announces every change (triggers notify one
//! channel, see migration 0010), so a change made through any server process, or by the
//! transformer, reaches subscribers on every process. Each process keeps one listening connection,
//! opened when its first subscriber arrives, and fans the events out in memory; the events carry
//! ids, and each subscriber fetches what it publishes with its own visibility.

use crate::db;
use crate::domain::CanonicalTable;
use crate::error::{AppError, AppResult};
use serde::Deserialize;
use sqlx::PgPool;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{OnceCell, broadcast, watch};
use uuid::Uuid;

/// Events a subscriber may fall behind by before it skips ahead.
const BUFFERED_EVENTS: usize = 4096;
const RECONNECT_DELAY: Duration = Duration::from_millis(500);
/// How long a new subscriber waits for the listening connection before it is told to retry.
const LISTEN_WAIT: Duration = Duration::from_secs(5);

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ChangeEvent {
    /// An entry left `pending`: processed, rejected or sent to review.
    EntryProcessed {
        id: Uuid,
        agent_id: Uuid,
    },
    /// A canonical record was created or updated.
    CanonicalChanged {
        table: CanonicalTable,
        id: Uuid,
        latitude: f64,
        longitude: f64,
    },
    MessageReceived {
        id: Uuid,
        recipient_agent_id: Uuid,
    },
}

impl ChangeEvent {
    pub fn parse(payload: &str) -> Option<ChangeEvent> {
        serde_json::from_str(payload).ok()
    }
}

/// Subscriptions one WebSocket connection may hold at once.
pub const MAX_SUBSCRIPTIONS_PER_CONNECTION: usize = 20;

/// The id of the caller's own entry this event finished, if it is one.
pub fn own_entry(event: &ChangeEvent, agent_id: Uuid) -> Option<Uuid> {
    match event {
        ChangeEvent::EntryProcessed {
            id,
            agent_id: author,
        } if *author == agent_id => Some(*id),
        _ => None,
    }
}

/// The id of a message sent to the caller, if this event is one.
pub fn own_message(event: &ChangeEvent, agent_id: Uuid) -> Option<Uuid> {
    match event {
        ChangeEvent::MessageReceived {
            id,
            recipient_agent_id,
        } if *recipient_agent_id == agent_id => Some(*id),
        _ => None,
    }
}

/// Which canonical changes a subscriber follows: a kind, one record, or every record.
#[derive(Debug, Clone, Copy, Default)]
pub struct RecordFilter {
    pub table: Option<CanonicalTable>,
    pub id: Option<Uuid>,
}

impl RecordFilter {
    pub fn matches(&self, event: &ChangeEvent) -> Option<(CanonicalTable, Uuid)> {
        match event {
            ChangeEvent::CanonicalChanged { table, id, .. }
                if self.table.is_none_or(|t| t == *table) && self.id.is_none_or(|i| i == *id) =>
            {
                Some((*table, *id))
            }
            _ => None,
        }
    }
}

/// A geo-fence over canonical changes: records within `radius_m` of a point (on PostGIS's
/// sphere), optionally of one kind.
#[derive(Debug, Clone, Copy)]
pub struct Fence {
    latitude: f64,
    longitude: f64,
    radius_m: f64,
    table: Option<CanonicalTable>,
}

impl Fence {
    /// The bounds are those of search: a point on the globe, a radius of 1 m to 100 km.
    pub fn new(
        latitude: f64,
        longitude: f64,
        radius_m: i64,
        table: Option<CanonicalTable>,
    ) -> AppResult<Fence> {
        let mut v = crate::domain::Violations::default();
        crate::domain::geo::check_circle(&mut v, latitude, longitude, radius_m);
        v.into_result()?;
        Ok(Fence {
            latitude,
            longitude,
            radius_m: radius_m as f64,
            table,
        })
    }

    /// The changed record and its distance in metres, when it lies inside the fence.
    pub fn matches(&self, event: &ChangeEvent) -> Option<(CanonicalTable, Uuid, f64)> {
        match event {
            ChangeEvent::CanonicalChanged {
                table,
                id,
                latitude,
                longitude,
            } if self.table.is_none_or(|t| t == *table) => {
                let distance = crate::domain::geo::sphere_distance_m(
                    (self.latitude, self.longitude),
                    (*latitude, *longitude),
                );
                (distance <= self.radius_m).then_some((*table, *id, distance))
            }
            _ => None,
        }
    }
}

/// This process's fan-out of the database's change events.
#[derive(Clone)]
pub struct EventHub {
    sender: broadcast::Sender<Arc<ChangeEvent>>,
    /// Whether the listening connection is up; set once its task is started.
    listening: Arc<OnceCell<watch::Receiver<bool>>>,
    pool: PgPool,
}

impl EventHub {
    pub fn new(pool: PgPool) -> EventHub {
        let (sender, _) = broadcast::channel(BUFFERED_EVENTS);
        EventHub {
            sender,
            listening: Arc::new(OnceCell::new()),
            pool,
        }
    }

    /// A receiver of every change from now on. The first subscriber starts the listening task;
    /// every subscriber waits until it listens, so no change made after this call is missed.
    pub async fn subscribe(&self) -> AppResult<broadcast::Receiver<Arc<ChangeEvent>>> {
        let receiver = self.sender.subscribe();
        let mut listening = self
            .listening
            .get_or_init(|| async {
                let (ready_tx, ready_rx) = watch::channel(false);
                tokio::spawn(forward(
                    self.pool.clone(),
                    self.sender.downgrade(),
                    ready_tx,
                ));
                ready_rx
            })
            .await
            .clone();
        match tokio::time::timeout(LISTEN_WAIT, listening.wait_for(|up| *up)).await {
            Ok(Ok(_)) => Ok(receiver),
            _ => Err(AppError::NotReady(
                "change events are unavailable: the database cannot be reached".into(),
            )),
        }
    }
}

/// Forwards notifications to the in-process channel while anyone could subscribe, reconnecting
/// after a lost connection (events in the gap are lost: subscribers re-read on reconnect).
async fn forward(
    pool: PgPool,
    sender: broadcast::WeakSender<Arc<ChangeEvent>>,
    ready: watch::Sender<bool>,
) {
    loop {
        match db::events::listen(&pool).await {
            Ok(mut listener) => {
                ready.send_replace(true);
                while let Ok(notification) = listener.recv().await {
                    let Some(sender) = sender.upgrade() else {
                        return;
                    };
                    match ChangeEvent::parse(notification.payload()) {
                        Some(event) => {
                            let _ = sender.send(Arc::new(event));
                        }
                        None => tracing::warn!("an unreadable change event was skipped"),
                    }
                }
                ready.send_replace(false);
                tracing::warn!("the change-event connection was lost; reconnecting");
            }
            Err(error) => {
                tracing::warn!(%error, "cannot listen for change events; retrying");
            }
        }
        if sender.upgrade().is_none() {
            return;
        }
        tokio::time::sleep(RECONNECT_DELAY).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::validation_locs;

    #[test]
    fn the_trigger_payloads_parse() {
        let id = Uuid::new_v4();
        let agent = Uuid::new_v4();
        assert_eq!(
            ChangeEvent::parse(&format!(
                r#"{{"kind":"entry_processed","id":"{id}","agent_id":"{agent}"}}"#
            )),
            Some(ChangeEvent::EntryProcessed {
                id,
                agent_id: agent
            })
        );
        assert_eq!(
            ChangeEvent::parse(&format!(
                r#"{{"kind":"canonical_changed","table":"canonical.listings","id":"{id}","latitude":51.5,"longitude":-0.1}}"#
            )),
            Some(ChangeEvent::CanonicalChanged {
                table: CanonicalTable::Listings,
                id,
                latitude: 51.5,
                longitude: -0.1
            })
        );
        assert_eq!(ChangeEvent::parse(r#"{"kind":"unknown"}"#), None);
    }

    fn changed(table: CanonicalTable, latitude: f64, longitude: f64) -> ChangeEvent {
        ChangeEvent::CanonicalChanged {
            table,
            id: Uuid::new_v4(),
            latitude,
            longitude,
        }
    }

    #[test]
    fn own_events_are_only_the_callers() {
        let (me, other) = (Uuid::new_v4(), Uuid::new_v4());
        let id = Uuid::new_v4();
        let mine = ChangeEvent::EntryProcessed { id, agent_id: me };
        assert_eq!(own_entry(&mine, me), Some(id));
        assert_eq!(own_entry(&mine, other), None);
        let message = ChangeEvent::MessageReceived {
            id,
            recipient_agent_id: me,
        };
        assert_eq!(own_message(&message, me), Some(id));
        assert_eq!(own_message(&message, other), None);
        assert_eq!(own_entry(&message, me), None);
    }

    #[test]
    fn record_filters_select_a_kind_or_one_record() {
        let event = changed(CanonicalTable::Listings, 0.0, 0.0);
        let ChangeEvent::CanonicalChanged { id, .. } = event else {
            unreachable!()
        };
        assert!(RecordFilter::default().matches(&event).is_some());
        let listings = RecordFilter {
            table: Some(CanonicalTable::Listings),
            id: None,
        };
        assert_eq!(
            listings.matches(&event),
            Some((CanonicalTable::Listings, id))
        );
        let entities = RecordFilter {
            table: Some(CanonicalTable::Entities),
            id: None,
        };
        assert_eq!(entities.matches(&event), None);
        let other = RecordFilter {
            table: None,
            id: Some(Uuid::new_v4()),
        };
        assert_eq!(other.matches(&event), None);
    }

    #[test]
    fn a_fence_keeps_what_is_inside_its_radius() {
        // 217.72 m apart on PostGIS's sphere (see domain::geo).
        let fence = Fence::new(53.4808, -2.2426, 218, None).unwrap();
        let inside = fence.matches(&changed(CanonicalTable::Entities, 53.4820, -2.2400));
        assert!((inside.unwrap().2 - 217.723).abs() < 0.01);
        let tight = Fence::new(53.4808, -2.2426, 217, None).unwrap();
        assert!(
            tight
                .matches(&changed(CanonicalTable::Entities, 53.4820, -2.2400))
                .is_none()
        );
        let requests_only =
            Fence::new(53.4808, -2.2426, 1000, Some(CanonicalTable::Requests)).unwrap();
        assert!(
            requests_only
                .matches(&changed(CanonicalTable::Entities, 53.4808, -2.2426))
                .is_none()
        );
    }

    #[test]
    fn a_fence_off_the_globe_or_too_wide_is_refused_at_each_argument() {
        assert_eq!(
            validation_locs(Fence::new(91.0, 181.0, 100_001, None)),
            [r#"["latitude"]"#, r#"["longitude"]"#, r#"["radiusMeters"]"#]
        );
        assert!(Fence::new(0.0, 0.0, 0, None).is_err());
        assert!(Fence::new(f64::NAN, 0.0, 10, None).is_err());
    }
}
