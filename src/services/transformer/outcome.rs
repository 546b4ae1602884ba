//! A decision about one entry, and how it is recorded: the link contribution, the entry's outcome
//! and the ranker's scores, all in the caller's transaction.

use super::ProcessResult;
use super::held::HeldEntities;
use crate::db::contributions::{self, NewContribution};
use crate::db::entries::{self as entries_db, Outcome, SpaceTimeEntry};
use crate::domain::{CanonicalTable, EntryStatus, LinkType};
use crate::error::AppResult;
use crate::transform::{TRANSFORMER_NAME, TRANSFORMER_VERSION};
use rust_decimal::Decimal;
use rust_decimal::prelude::FromPrimitive;
use serde_json::{Value, json};
use sqlx::PgConnection;
use uuid::Uuid;

#[derive(Debug, Clone)]
pub struct Decision {
    pub status: EntryStatus,
    pub target: Option<(CanonicalTable, Uuid)>,
    pub link_type: Option<LinkType>,
    pub reason: String,
    pub error: Option<String>,
    pub metadata: Value,
    /// The record's scores were written with it (a created entity): the ranker may skip it.
    pub ranked: bool,
}

impl Decision {
    pub fn rejected(reason: &str) -> Decision {
        Decision {
            status: EntryStatus::Rejected,
            target: None,
            link_type: None,
            reason: reason.to_string(),
            error: None,
            metadata: json!({}),
            ranked: false,
        }
    }

    /// A human decides: ambiguous matches, claims and withdrawals by another agent, orphans.
    pub fn review(reason: &str, metadata: Value) -> Decision {
        Decision {
            status: EntryStatus::ReviewRequired,
            metadata,
            ..Decision::rejected(reason)
        }
    }

    pub fn linked(
        table: CanonicalTable,
        id: Uuid,
        link_type: LinkType,
        reason: &str,
        metadata: Value,
    ) -> Decision {
        Decision {
            status: EntryStatus::Processed,
            target: Some((table, id)),
            link_type: Some(link_type),
            reason: reason.to_string(),
            error: None,
            metadata,
            ranked: false,
        }
    }

    /// After merging: `updated` when fields changed, else `matched` (or `supporting_evidence` for
    /// `add_context`, whose point is the evidence rather than new facts).
    pub fn merged(
        table: CanonicalTable,
        id: Uuid,
        entry: &SpaceTimeEntry,
        changed: Vec<String>,
        meta: &Value,
    ) -> Decision {
        let meta = json!({"match": meta.get("match"), "changed_fields": changed});
        if changed.is_empty() {
            let link = if entry.entry_intent == crate::domain::EntryIntent::AddContext {
                LinkType::SupportingEvidence
            } else {
                LinkType::Matched
            };
            return Decision::linked(table, id, link, "the evidence agrees with the record", meta);
        }
        let reason = format!("updated {}", changed.join(", "));
        Decision::linked(table, id, LinkType::Updated, &reason, meta)
    }

    pub fn already_ranked(mut self) -> Decision {
        self.ranked = true;
        self
    }

    pub fn with_error(mut self, error: String) -> Decision {
        self.error = Some(error);
        self
    }
}

/// How much an entry can tell: a source, an observation time, evidence and attachments each add.
pub fn information_power(entry: &SpaceTimeEntry) -> f64 {
    let has_evidence = entry
        .context
        .get("context_l1_common")
        .and_then(Value::as_object)
        .is_some_and(|m| !m.is_empty());
    let parts = [
        entry.source_ref.is_some(),
        entry.observed_at_tstamp_utc.is_some(),
        has_evidence,
        !entry.attachments.is_empty(),
    ];
    0.2 + 0.2 * parts.iter().filter(|p| **p).count() as f64
}

fn contribution_weight(link_type: LinkType) -> Decimal {
    match link_type {
        LinkType::Created | LinkType::Updated | LinkType::Merged => Decimal::ONE,
        LinkType::Matched | LinkType::SupportingEvidence | LinkType::DuplicateOf => {
            Decimal::new(5, 1)
        }
    }
}

/// Writes a whole batch's decisions: its contributions (one statement), the entities it held
/// (`held`), the scores of every record it touched (once per record), and the entries' outcomes
/// (one statement).
pub async fn record_all(
    conn: &mut PgConnection,
    decided: &[(&SpaceTimeEntry, Decision)],
    run_id: Uuid,
    mut held: Option<HeldEntities>,
) -> AppResult<Vec<ProcessResult>> {
    let contributions: Vec<NewContribution<'_>> = decided
        .iter()
        .filter_map(|(entry, decision)| {
            let ((table, target_id), link_type) = (decision.target?, decision.link_type?);
            Some(NewContribution {
                entry_id: entry.id,
                table,
                target_id,
                link_type,
                weight: contribution_weight(link_type),
                information_power: Decimal::from_f64(information_power(entry))
                    .unwrap_or_default()
                    .round_dp(4),
                confidence: entry.score_confidence,
                transformer_name: TRANSFORMER_NAME,
                transformer_version: TRANSFORMER_VERSION,
                run_id,
                reason: &decision.reason,
                metadata: std::borrow::Cow::Borrowed(&decision.metadata),
            })
        })
        .collect();
    contributions::insert_many(conn, &contributions).await?;
    for table in [
        CanonicalTable::Entities,
        CanonicalTable::Listings,
        CanonicalTable::Requests,
    ] {
        let mut touched: Vec<Uuid> = decided
            .iter()
            .filter(|(_, d)| !d.ranked && d.link_type.is_some())
            .filter_map(|(_, d)| d.target)
            .filter(|(t, _)| *t == table)
            .map(|(_, id)| id)
            .collect();
        touched.sort_unstable();
        touched.dedup();
        if table == CanonicalTable::Entities
            && let Some(held) = held.take()
        {
            let ranked = held.write_all(conn, &touched).await?;
            touched.retain(|id| !ranked.contains(id));
        }
        crate::services::ranker::rank_many(
            conn,
            table,
            &touched,
            crate::services::ranker::Freshness::Recent,
        )
        .await?;
    }
    let outcomes: Vec<(Uuid, Outcome<'_>)> = decided
        .iter()
        .map(|(entry, d)| {
            let outcome = Outcome {
                status: d.status,
                canonical_table: d.target.map(|t| t.0),
                canonical_id: d.target.map(|t| t.1),
                link_type: d.link_type,
                reason: Some(d.reason.as_str()),
                error: d.error.as_deref(),
                run_id,
                review: (d.status == EntryStatus::ReviewRequired).then_some(&d.metadata),
            };
            (entry.id, outcome)
        })
        .collect();
    entries_db::record_outcomes(conn, &outcomes).await?;
    Ok(decided
        .iter()
        .map(|(entry, d)| ProcessResult {
            space_time_entry_id: entry.id,
            status: d.status,
            canonical_table: d.target.map(|t| t.0),
            canonical_id: d.target.map(|t| t.1),
            link_type: d.link_type,
            reason: Some(d.reason.clone()),
            error: d.error.clone(),
        })
        .collect())
}
