//! Live updates over WebSocket (`graphql-transport-ws`, and the older `graphql-ws`). Every feed is
//! a filter over the database's change events (`services::events`); each event is re-read with
//! the subscriber's own visibility before it is sent.

use super::canonical::load_record;
use crate::domain::CanonicalTable;
use crate::error::AppError;
use crate::graphql::machinery::context::ctx_parts;
use crate::graphql::machinery::websocket::SubscriptionSlots;
use crate::records::canonical::CanonicalRecord;
use crate::records::entries::SpaceTimeEntry;
use crate::records::messages::Message;
use crate::services::events::{self, ChangeEvent, Fence, RecordFilter};
use crate::services::{entries, messages};
use async_graphql::{Context, Result, SimpleObject, Subscription};
use futures::{Stream, StreamExt};
use std::sync::Arc;
use tokio::sync::{OwnedSemaphorePermit, broadcast};
use uuid::Uuid;

/// A canonical record that was created or changed.
#[derive(SimpleObject)]
pub struct CanonicalRecordChange {
    pub table: CanonicalTable,
    pub id: Uuid,
    /// The record as it is now.
    pub record: CanonicalRecord,
    /// Metres from the subscribed point (`recordsNear` only).
    pub distance_meters: Option<f64>,
}

#[derive(Default)]
pub struct Subscription;

#[Subscription]
impl Subscription {
    /// Each of your own entries as it leaves `pending` (processed, rejected or sent to review),
    /// with its outcome. Needs credentials on `connection_init`.
    async fn entry_processed<'ctx>(
        &self,
        ctx: &'ctx Context<'ctx>,
    ) -> Result<impl Stream<Item = SpaceTimeEntry> + 'ctx> {
        let (state, rctx) = ctx_parts(ctx);
        let agent_id = rctx.require_actor()?.agent_id;
        let changes = changes(ctx).await?;
        Ok(changes.filter_map(move |event| async move {
            let id = events::own_entry(&event, agent_id)?;
            crate::graphql::machinery::request_loaders::forget(ctx);
            entries::get(state, id).await.ok()
        }))
    }

    /// Canonical records as they are created or changed: all of them, one kind (`table`), or
    /// one record (`id`).
    async fn canonical_record_changed<'ctx>(
        &self,
        ctx: &'ctx Context<'ctx>,
        table: Option<CanonicalTable>,
        id: Option<Uuid>,
    ) -> Result<impl Stream<Item = CanonicalRecordChange> + 'ctx> {
        let filter = RecordFilter { table, id };
        let changes = changes(ctx).await?;
        Ok(changes.filter_map(move |event| async move {
            let (table, id) = filter.matches(&event)?;
            change(ctx, table, id, None).await
        }))
    }

    /// A geo-fenced feed: canonical records created or changed within `radiusMeters` (1 to
    /// 100,000) of a point, optionally of one kind, each with its distance.
    async fn records_near<'ctx>(
        &self,
        ctx: &'ctx Context<'ctx>,
        latitude: f64,
        longitude: f64,
        radius_meters: i64,
        table: Option<CanonicalTable>,
    ) -> Result<impl Stream<Item = CanonicalRecordChange> + 'ctx> {
        let fence = Fence::new(latitude, longitude, radius_meters, table)?;
        let changes = changes(ctx).await?;
        Ok(changes.filter_map(move |event| async move {
            let (table, id, distance) = fence.matches(&event)?;
            change(ctx, table, id, Some(distance)).await
        }))
    }

    /// Each message sent to you, as it arrives. Needs credentials on `connection_init`.
    async fn message_received<'ctx>(
        &self,
        ctx: &'ctx Context<'ctx>,
    ) -> Result<impl Stream<Item = Message> + 'ctx> {
        let (state, rctx) = ctx_parts(ctx);
        let agent_id = rctx.require_actor()?.agent_id;
        let changes = changes(ctx).await?;
        Ok(changes.filter_map(move |event| async move {
            let id = events::own_message(&event, agent_id)?;
            crate::graphql::machinery::request_loaders::forget(ctx);
            messages::get(state, rctx, id).await.ok()
        }))
    }
}

async fn change(
    ctx: &Context<'_>,
    table: CanonicalTable,
    id: Uuid,
    distance_meters: Option<f64>,
) -> Option<CanonicalRecordChange> {
    crate::graphql::machinery::request_loaders::forget(ctx);
    let record = load_record(ctx, table, id).await.ok()??;
    Some(CanonicalRecordChange {
        table,
        id,
        record,
        distance_meters,
    })
}

/// Every change from now on, holding one of the connection's subscription slots while it runs.
async fn changes(ctx: &Context<'_>) -> Result<impl Stream<Item = Arc<ChangeEvent>> + 'static> {
    let (state, _) = ctx_parts(ctx);
    let slot = match ctx.data_opt::<SubscriptionSlots>() {
        Some(slots) => Some(slots.take().ok_or_else(|| {
            AppError::Forbidden(format!(
                "a connection holds at most {} subscriptions: complete one first",
                events::MAX_SUBSCRIPTIONS_PER_CONNECTION
            ))
        })?),
        None => None,
    };
    let receiver = state.events.subscribe().await?;
    Ok(receive(receiver, slot))
}

fn receive(
    receiver: broadcast::Receiver<Arc<ChangeEvent>>,
    slot: Option<OwnedSemaphorePermit>,
) -> impl Stream<Item = Arc<ChangeEvent>> {
    futures::stream::unfold((receiver, slot), |(mut receiver, slot)| async move {
        loop {
            match receiver.recv().await {
                Ok(event) => return Some((event, (receiver, slot))),
                Err(broadcast::error::RecvError::Lagged(skipped)) => {
                    tracing::warn!(skipped, "a subscriber fell behind and skipped events");
                }
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    })
}
