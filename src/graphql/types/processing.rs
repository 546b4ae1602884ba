//! Transformer and ranker mutations (admin scope), over the same services as REST.

use crate::graphql::machinery::context::ctx_parts;
use crate::records::processing::{ProcessPendingResult, ProcessResult, RankerResult};
use crate::services::{ranker, transformer};
use async_graphql::{Context, Object, Result};
use uuid::Uuid;

#[derive(Default)]
pub struct ProcessingMutation;

#[Object]
impl ProcessingMutation {
    /// Processes one entry now; an already processed entry returns its recorded result.
    async fn process_entry(&self, ctx: &Context<'_>, id: Uuid) -> Result<ProcessResult> {
        let (state, rctx) = ctx_parts(ctx);
        Ok(transformer::process_entry(state, rctx, id).await?)
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
        Ok(r)
    }

    /// Recomputes one entity's scores.
    async fn run_ranker(&self, ctx: &Context<'_>, entity_id: Uuid) -> Result<RankerResult> {
        let (state, rctx) = ctx_parts(ctx);
        Ok(ranker::run_entity(state, rctx, entity_id).await?)
    }

    /// Recomputes every entity's scores.
    #[graphql(complexity = "crate::graphql::machinery::limits::edge_cost(None, child_complexity)")]
    async fn run_ranker_all(&self, ctx: &Context<'_>) -> Result<Vec<RankerResult>> {
        let (state, rctx) = ctx_parts(ctx);
        Ok(ranker::run_all(state, rctx).await?)
    }
}
