//! Transformer and ranker mutations (admin scope), over the same services as REST.

use super::ctx_parts;
use crate::domain::{CanonicalTable, EntryStatus, LinkType};
use crate::services::{ranker, transformer};
use async_graphql::{Context, Object, Result, SimpleObject};
use rust_decimal::Decimal;
use uuid::Uuid;

/// The outcome of processing one entry.
#[derive(SimpleObject)]
pub struct ProcessResult {
    pub space_time_entry_id: Uuid,
    pub status: EntryStatus,
    pub canonical_table: Option<CanonicalTable>,
    pub canonical_id: Option<Uuid>,
    pub link_type: Option<LinkType>,
    pub reason: Option<String>,
    pub error: Option<String>,
}

impl From<transformer::ProcessResult> for ProcessResult {
    fn from(r: transformer::ProcessResult) -> Self {
        ProcessResult {
            space_time_entry_id: r.space_time_entry_id,
            status: r.status,
            canonical_table: r.canonical_table,
            canonical_id: r.canonical_id,
            link_type: r.link_type,
            reason: r.reason,
            error: r.error,
        }
    }
}

#[derive(SimpleObject)]
pub struct ProcessPendingResult {
    pub processed: i64,
    pub results: Vec<ProcessResult>,
}

/// An entity's scores after a ranker run.
#[derive(SimpleObject)]
pub struct RankerResult {
    pub entity_id: Uuid,
    pub score_confidence: Decimal,
    pub score_data_richness: Decimal,
    pub score_signal: Option<Decimal>,
}

impl From<ranker::RankerResult> for RankerResult {
    fn from(r: ranker::RankerResult) -> Self {
        RankerResult {
            entity_id: r.entity_id,
            score_confidence: r.score_confidence,
            score_data_richness: r.score_data_richness,
            score_signal: r.score_signal,
        }
    }
}

#[derive(Default)]
pub struct ProcessingMutation;

#[Object]
impl ProcessingMutation {
    /// Processes one entry now; an already processed entry returns its recorded result.
    async fn process_entry(&self, ctx: &Context<'_>, id: Uuid) -> Result<ProcessResult> {
        let (state, rctx) = ctx_parts(ctx);
        Ok(transformer::process_entry(state, rctx, id).await?.into())
    }

    /// Processes up to `limit` (1..500, default 100) pending entries now.
    async fn process_pending(
        &self,
        ctx: &Context<'_>,
        limit: Option<i64>,
    ) -> Result<ProcessPendingResult> {
        let (state, rctx) = ctx_parts(ctx);
        let r = transformer::process_pending(state, rctx, limit)
            .await
            .map_err(|e| e.under(&["limit"]))?;
        Ok(ProcessPendingResult {
            processed: r.processed,
            results: r.results.into_iter().map(Into::into).collect(),
        })
    }

    /// Recomputes one entity's scores.
    async fn run_ranker(&self, ctx: &Context<'_>, entity_id: Uuid) -> Result<RankerResult> {
        let (state, rctx) = ctx_parts(ctx);
        Ok(ranker::run_entity(state, rctx, entity_id).await?.into())
    }

    /// Recomputes every entity's scores.
    async fn run_ranker_all(&self, ctx: &Context<'_>) -> Result<Vec<RankerResult>> {
        let (state, rctx) = ctx_parts(ctx);
        Ok(ranker::run_all(state, rctx)
            .await?
            .into_iter()
            .map(Into::into)
            .collect())
    }
}
