//! The ranker: recomputes a canonical record's scores from its fields, its contributing agents and
//! its signals (formulas in transform/ranker.rs, documented in docs/ranking.md).

use crate::ctx::Ctx;
use crate::db::entities::{Entity, EntityWrite};
use crate::db::listings::Listing;
use crate::db::ranker::{self as db, ScoreUpdate};
use crate::db::requests::CanonicalRequest;
use crate::domain::{CanonicalTable, scopes};
use crate::error::{AppError, AppResult};
pub use crate::records::processing::RankerResult;
use crate::state::AppState;
use crate::transform::ranker::{self, AgentEvidence, SignalInput};
use rust_decimal::Decimal;
use rust_decimal::prelude::{FromPrimitive, ToPrimitive};
use sqlx::PgConnection;
use std::collections::HashMap;
use uuid::Uuid;

const RUN_ALL_PAGE: i64 = 500;

fn present(value: &Option<String>) -> bool {
    value.as_deref().is_some_and(|v| !v.trim().is_empty())
}

fn non_empty(value: &serde_json::Value) -> bool {
    value.as_object().is_some_and(|m| !m.is_empty())
}

pub fn entity_richness(e: &Entity) -> f64 {
    entity_richness_of(EntityFilled {
        name: !e.display_name.is_empty(),
        description: present(&e.description),
        website: present(&e.website_url),
        phone: present(&e.phone),
        email: present(&e.email),
        address: present(&e.address_text),
        city: present(&e.city),
        country: present(&e.country_code),
        categories: !e.categories.is_empty(),
        links: !e.link_urls.is_empty(),
        common_context: non_empty(&e.context_l1_common),
        specific_context: non_empty(&e.context_l2_specific),
    })
}

/// The same measure for an entity about to be written (a created one is scored in its insert).
pub fn entity_write_richness(w: &EntityWrite) -> f64 {
    entity_richness_of(EntityFilled {
        name: !w.display_name.is_empty(),
        description: present(&w.description),
        website: present(&w.website_url),
        phone: present(&w.phone),
        email: present(&w.email),
        address: present(&w.address_text),
        city: present(&w.city),
        country: present(&w.country_code),
        categories: !w.categories.is_empty(),
        links: w.link_urls.as_array().is_some_and(|l| !l.is_empty()),
        common_context: non_empty(&w.context_l1_common),
        specific_context: non_empty(&w.context_l2_specific),
    })
}

/// Which of an entity's weighted fields are filled.
struct EntityFilled {
    name: bool,
    description: bool,
    website: bool,
    phone: bool,
    email: bool,
    address: bool,
    city: bool,
    country: bool,
    categories: bool,
    links: bool,
    common_context: bool,
    specific_context: bool,
}

fn entity_richness_of(f: EntityFilled) -> f64 {
    ranker::data_richness(&[
        (0.10, f.name),
        (0.10, f.description),
        (0.10, f.website),
        (0.10, f.phone),
        (0.05, f.email),
        (0.10, f.address),
        (0.05, f.city),
        (0.05, f.country),
        (0.10, f.categories),
        (0.05, f.links),
        (0.10, f.common_context),
        (0.10, f.specific_context),
    ])
}

pub fn listing_richness(l: &Listing) -> f64 {
    ranker::data_richness(&[
        (0.10, !l.core.title.is_empty()),
        (0.15, present(&l.core.description)),
        (0.10, !l.core.categories.is_empty()),
        (0.15, l.price_amount.is_some()),
        (0.05, present(&l.core.currency_code)),
        (0.05, present(&l.availability_status)),
        (0.10, l.provider_entity_id.is_some()),
        (0.10, present(&l.core.address_text) || present(&l.core.city)),
        (0.05, present(&l.core.country_code)),
        (0.05, !l.core.link_urls.is_empty()),
        (0.05, non_empty(&l.core.context_l1_common)),
        (0.05, non_empty(&l.core.context_l2_specific)),
    ])
}

pub fn request_richness(r: &CanonicalRequest) -> f64 {
    ranker::data_richness(&[
        (0.10, !r.core.title.is_empty()),
        (0.15, present(&r.core.description)),
        (0.10, !r.core.categories.is_empty()),
        (0.15, r.budget_amount.is_some()),
        (0.05, present(&r.core.currency_code)),
        (
            0.10,
            r.needed_from_tstamp_utc.is_some() || r.needed_by_tstamp_utc.is_some(),
        ),
        (0.05, r.requester_entity_id.is_some()),
        (0.10, present(&r.core.address_text) || present(&r.core.city)),
        (0.05, present(&r.core.country_code)),
        (0.05, !r.core.link_urls.is_empty()),
        (0.05, non_empty(&r.core.context_l1_common)),
        (0.05, non_empty(&r.core.context_l2_specific)),
    ])
}

fn decimal(x: f64) -> Decimal {
    Decimal::from_f64(x).unwrap_or_default().round_dp(4)
}

fn stored(scores: ranker::Scores) -> ScoreUpdate {
    ScoreUpdate {
        data_richness: decimal(scores.data_richness),
        agent_reputation: scores.agent_reputation.map(decimal),
        signal: scores.signal.map(decimal),
        confidence: decimal(scores.confidence),
    }
}

/// The scores `rank_many` gives a record whose only evidence is the entry that created it (one
/// agent, no signals yet).
pub fn first_scores(richness: f64, creator: AgentEvidence) -> ScoreUpdate {
    stored(ranker::scores(
        richness,
        &[creator],
        &[],
        chrono::Utc::now(),
    ))
}

/// Recomputes and stores the scores of `ids` (one kind of record) inside the caller's transaction:
/// a few set-based statements, whatever the number of records.
pub async fn rank_many(
    conn: &mut PgConnection,
    table: CanonicalTable,
    ids: &[Uuid],
    freshness: Freshness,
) -> AppResult<Vec<RankerResult>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let richness: HashMap<Uuid, f64> = match table {
        CanonicalTable::Entities => crate::db::canonical::get_many::<Entity>(&mut *conn, ids)
            .await?
            .iter()
            .map(|e| (e.id, entity_richness(e)))
            .collect(),
        CanonicalTable::Listings => crate::db::canonical::get_many::<Listing>(&mut *conn, ids)
            .await?
            .iter()
            .map(|l| (l.id, listing_richness(l)))
            .collect(),
        CanonicalTable::Requests => {
            crate::db::canonical::get_many::<CanonicalRequest>(&mut *conn, ids)
                .await?
                .iter()
                .map(|r| (r.id, request_richness(r)))
                .collect()
        }
    };
    let ordered: Vec<(Uuid, f64)> = ids
        .iter()
        .filter_map(|id| richness.get(id).map(|r| (*id, *r)))
        .collect();
    let updates = scores_of(conn, table, &ordered, freshness).await?;
    let results = updates
        .iter()
        .map(|(id, update)| RankerResult {
            entity_id: *id,
            score_confidence: update.confidence,
            score_data_richness: update.data_richness,
            score_signal: update.signal,
        })
        .collect();
    db::update_scores(conn, table, &updates).await?;
    Ok(results)
}

/// The scores of records whose richness the caller knows (read, or about to be written), from
/// their contributing agents and signals as the database has them: nothing is written.
pub async fn scores_of(
    conn: &mut PgConnection,
    table: CanonicalTable,
    richness: &[(Uuid, f64)],
    freshness: Freshness,
) -> AppResult<Vec<(Uuid, ScoreUpdate)>> {
    if richness.is_empty() {
        return Ok(Vec::new());
    }
    let ids: Vec<Uuid> = richness.iter().map(|(id, _)| *id).collect();
    let evidence = db::agent_evidence(conn, table, &ids).await?;
    let mut authors: Vec<Uuid> = evidence.iter().map(|row| row.agent_id).collect();
    authors.sort_unstable();
    authors.dedup();
    let earned = reputations(conn, &authors, freshness).await?;
    let mut agents: HashMap<Uuid, Vec<AgentEvidence>> = HashMap::new();
    for row in evidence {
        agents
            .entry(row.target_id)
            .or_default()
            .push(AgentEvidence {
                confidence: row.confidence.to_f64().unwrap_or(0.5),
                reputation: earned.get(&row.agent_id).copied().unwrap_or(0.5),
                latest_observation: row.latest,
            });
    }
    let mut signals: HashMap<Uuid, Vec<SignalInput>> = HashMap::new();
    for row in db::distinct_signals(conn, table, &ids).await? {
        signals.entry(row.target_id).or_default().push(SignalInput {
            signal_type: row.signal_type,
            weight: row.weight.to_f64().unwrap_or(1.0),
        });
    }
    let now = chrono::Utc::now();
    Ok(richness
        .iter()
        .map(|(id, richness)| {
            let agents = agents.get(id).map(Vec::as_slice).unwrap_or_default();
            let signals = signals.get(id).map(Vec::as_slice).unwrap_or_default();
            (*id, stored(ranker::scores(*richness, agents, signals, now)))
        })
        .collect())
}

pub async fn rank(
    conn: &mut PgConnection,
    table: CanonicalTable,
    id: Uuid,
) -> AppResult<Option<RankerResult>> {
    Ok(rank_many(conn, table, &[id], Freshness::Now).await?.pop())
}

/// POST /api/v1/ranker/run/entity/{id} (admin).
#[tracing::instrument(name = "ranker::run_entity", level = "debug", skip_all, fields(id = %id))]
pub async fn run_entity(state: &AppState, ctx: &Ctx, id: Uuid) -> AppResult<RankerResult> {
    ctx.require_scope(scopes::ADMIN)?;
    let mut tx = state.pool.begin().await?;
    if !db::lock_entity(&mut tx, id).await? {
        return Err(AppError::NotFound("entity"));
    }
    let result = rank(&mut tx, CanonicalTable::Entities, id)
        .await?
        .ok_or(AppError::NotFound("entity"))?;
    tx.commit().await?;
    Ok(result)
}

/// POST /api/v1/ranker/run-all (admin): every entity, a page per transaction.
#[tracing::instrument(name = "ranker::run_all", level = "debug", skip_all)]
pub async fn run_all(state: &AppState, ctx: &Ctx) -> AppResult<Vec<RankerResult>> {
    ctx.require_scope(scopes::ADMIN)?;
    let mut results = Vec::new();
    let mut after = None;
    loop {
        let mut tx = state.pool.begin().await?;
        let ids = db::entity_ids_after(&mut tx, after, RUN_ALL_PAGE).await?;
        results.extend(rank_many(&mut tx, CanonicalTable::Entities, &ids, Freshness::Now).await?);
        tx.commit().await?;
        match ids.last() {
            Some(last) if ids.len() as i64 == RUN_ALL_PAGE => after = Some(*last),
            _ => break,
        }
    }
    Ok(results)
}

/// How old a stored track record may be when the transformer ranks (docs/ranking.md).
const TRACK_RECORD_MAX_AGE_SECS: f64 = 60.0;

/// Whether the track records behind reputations may come from the last minute's reading.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Freshness {
    /// The transformer: a record read within `TRACK_RECORD_MAX_AGE_SECS` will do.
    Recent,
    /// Ranker runs and merges: recount now.
    Now,
}

/// The service's reputation of each agent, earned from its track record (docs/ranking.md); what
/// an agent declares about itself (`score_reputation`, `score_trust`) is stored, never used here.
pub(crate) async fn reputations(
    conn: &mut PgConnection,
    agents: &[Uuid],
    freshness: Freshness,
) -> AppResult<HashMap<Uuid, f64>> {
    if agents.is_empty() {
        return Ok(HashMap::new());
    }
    let mut records = match freshness {
        Freshness::Recent => {
            db::stored_track_records(conn, agents, TRACK_RECORD_MAX_AGE_SECS).await?
        }
        Freshness::Now => Vec::new(),
    };
    let missing: Vec<Uuid> = agents
        .iter()
        .filter(|agent| !records.iter().any(|r| r.agent_id == **agent))
        .copied()
        .collect();
    if !missing.is_empty() {
        let computed = db::compute_track_records(conn, &missing).await?;
        db::store_track_records(conn, &computed).await?;
        records.extend(computed);
    }
    Ok(records
        .into_iter()
        .map(|r| {
            let earned =
                ranker::earned_reputation(r.contributed, r.corroborated, r.confirmed, r.disputed);
            (r.agent_id, earned)
        })
        .collect())
}
