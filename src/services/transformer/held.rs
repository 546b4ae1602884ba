//! Entity writes a fast batch holds until its end: the entities it creates and the merges it
//! makes are written with one statement each when the batch records its decisions, instead of one
//! statement per entity (each paid the statement's set-up: generated columns, constraints,
//! triggers, a round trip). A merged record's scores are computed before it is written, so it is
//! written once, not once for its fields and again by the ranker.
//!
//! While a batch holds a record, the record as it now stands comes from here, never from the
//! database: a later entry of the batch merging into it sees the earlier merge, exactly as if it
//! had been written. Anything that reads or changes records behind this module's back (claims,
//! withdrawals, candidates fetched one entry at a time) first writes everything held
//! ([`HeldEntities::write_now`]).

use crate::db::entities::{self as db, Entity, EntityWrite, LinkUrl, Locked};
use crate::db::ranker::ScoreUpdate;
use crate::domain::CanonicalTable;
use crate::error::{AppError, AppResult};
use crate::services::ranker;
use crate::transform::merge::FieldEvidence;
use serde_json::Value;
use sqlx::PgConnection;
use std::collections::HashMap;
use uuid::Uuid;

/// One record the batch holds, as the database would have it had every write gone through.
enum Held {
    /// Created by this batch; the scores its creator alone gives it. Until a merge changes it,
    /// its field evidence is the creating entry's for every field, kept as that one piece of
    /// evidence (`first_evidence`) rather than as the per-field document (about 10 KB in memory)
    /// written with it.
    Created {
        write: EntityWrite,
        creator: Uuid,
        first_scores: ScoreUpdate,
        first_evidence: Option<FieldEvidence>,
    },
    /// An existing record a merge changed.
    Changed {
        write: EntityWrite,
        created_by: Option<Uuid>,
    },
    /// An existing record read for a merge that changed nothing: only its scores may change.
    Unchanged(Locked<Entity>),
}

#[derive(Default)]
pub struct HeldEntities {
    records: HashMap<Uuid, Held>,
    /// The order records were first held in: writes go in that order.
    order: Vec<Uuid>,
}

impl HeldEntities {
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    fn hold(&mut self, id: Uuid, held: Held) {
        if self.records.insert(id, held).is_none() {
            self.order.push(id);
        }
    }

    /// A new entity, written at the end of the batch; `evidence` is the creating entry's, which
    /// the write's field evidence gives every field.
    pub fn create(
        &mut self,
        id: Uuid,
        mut write: EntityWrite,
        creator: Uuid,
        scores: ScoreUpdate,
        evidence: FieldEvidence,
    ) {
        write.field_evidence = Value::Null;
        self.hold(
            id,
            Held::Created {
                write,
                creator,
                first_scores: scores,
                first_evidence: Some(evidence),
            },
        );
    }

    /// The record `id` as it now stands, locked, if the batch holds it.
    pub fn locked(&self, id: Uuid) -> AppResult<Option<Locked<Entity>>> {
        Ok(match self.records.get(&id) {
            None => None,
            Some(Held::Unchanged(locked)) => Some(locked.clone()),
            Some(Held::Created {
                write,
                creator,
                first_evidence,
                ..
            }) => {
                let mut locked = locked_from(id, write, Some(*creator))?;
                if let Some(evidence) = first_evidence {
                    locked.field_evidence = super::entity::created_evidence(evidence);
                }
                Some(locked)
            }
            Some(Held::Changed { write, created_by }) => Some(locked_from(id, write, *created_by)?),
        })
    }

    /// A merge into `id`: `write` when it changed fields (written at the end of the batch), else
    /// the record as it was before (`original`), kept for its scores and for later merges.
    pub fn merged(
        &mut self,
        id: Uuid,
        write: Option<EntityWrite>,
        created_by: Option<Uuid>,
        original: Locked<Entity>,
    ) {
        match (self.records.get_mut(&id), write) {
            (
                Some(Held::Created {
                    write: held,
                    first_evidence,
                    ..
                }),
                Some(write),
            ) => {
                *held = write;
                *first_evidence = None;
            }
            (Some(Held::Changed { write: held, .. }), Some(write)) => *held = write,
            (Some(_), None) => {}
            (_, Some(write)) => self.hold(id, Held::Changed { write, created_by }),
            (None, None) => self.hold(id, Held::Unchanged(original)),
        }
    }

    /// Writes everything held now, each record with the scores it had (records merged since are
    /// ranked again from the database at the end of the batch), and holds nothing from here on.
    pub async fn write_now(&mut self, conn: &mut PgConnection) -> AppResult<()> {
        let mut created = Vec::new();
        for id in std::mem::take(&mut self.order) {
            match self.records.remove(&id) {
                Some(Held::Created {
                    write,
                    creator,
                    first_scores,
                    first_evidence,
                }) => created.push((id, written(write, first_evidence), creator, first_scores)),
                Some(Held::Changed { write, .. }) => db::update(conn, id, &write).await?,
                Some(Held::Unchanged(_)) | None => {}
            }
        }
        let rows: Vec<_> = created
            .iter()
            .map(|(id, write, creator, scores)| (*id, write, *creator, scores))
            .collect();
        db::insert_many(conn, &rows).await?;
        Ok(())
    }

    /// Writes everything held at the end of the batch, after its contributions: created records
    /// with their first scores, and every record the batch's decisions `touched` (merged into,
    /// or evidence for) with scores computed from its contributions and signals. Returns the
    /// touched records ranked here; the caller ranks the others.
    pub async fn write_all(
        mut self,
        conn: &mut PgConnection,
        touched: &[Uuid],
    ) -> AppResult<Vec<Uuid>> {
        let richness: Vec<(Uuid, f64)> = self
            .order
            .iter()
            .filter_map(|id| {
                let held = self.records.get(id)?;
                let rank = matches!(held, Held::Changed { .. }) || touched.contains(id);
                rank.then(|| (*id, richness(held)))
            })
            .collect();
        let mut scores: HashMap<Uuid, ScoreUpdate> = ranker::scores_of(
            conn,
            CanonicalTable::Entities,
            &richness,
            ranker::Freshness::Recent,
        )
        .await?
        .into_iter()
        .collect();
        let mut created = Vec::new();
        let mut changed = Vec::new();
        let mut rescored = Vec::new();
        for id in std::mem::take(&mut self.order) {
            let ranked = scores.remove(&id);
            match self.records.remove(&id) {
                Some(Held::Created {
                    write,
                    creator,
                    first_scores,
                    first_evidence,
                }) => created.push((
                    id,
                    written(write, first_evidence),
                    creator,
                    ranked.unwrap_or(first_scores),
                )),
                Some(Held::Changed { write, .. }) => {
                    let scores = ranked.ok_or_else(|| {
                        AppError::internal(anyhow::anyhow!("a merged record was not ranked"))
                    })?;
                    changed.push((id, write, scores));
                }
                Some(Held::Unchanged(_)) => rescored.extend(ranked.map(|s| (id, s))),
                None => {}
            }
        }
        let inserts: Vec<_> = created
            .iter()
            .map(|(id, write, creator, scores)| (*id, write, *creator, scores))
            .collect();
        db::insert_many(conn, &inserts).await?;
        let updates: Vec<_> = changed
            .iter()
            .map(|(id, write, scores)| (*id, write, scores))
            .collect();
        db::update_many(conn, &updates).await?;
        crate::db::ranker::update_scores(conn, CanonicalTable::Entities, &rescored).await?;
        Ok(richness.into_iter().map(|(id, _)| id).collect())
    }
}

/// A created record's write as it is stored: with the per-field evidence of its creating entry.
fn written(mut write: EntityWrite, first_evidence: Option<FieldEvidence>) -> EntityWrite {
    if let Some(evidence) = first_evidence {
        write.field_evidence = super::entity::created_evidence(&evidence);
    }
    write
}

fn richness(held: &Held) -> f64 {
    match held {
        Held::Created { write, .. } | Held::Changed { write, .. } => {
            ranker::entity_write_richness(write)
        }
        Held::Unchanged(locked) => ranker::entity_richness(&locked.record),
    }
}

/// A held write as the locked record a merge reads. The scores and timestamps are not the
/// record's (merging never reads them): the record's scores are computed when it is written.
fn locked_from(id: Uuid, w: &EntityWrite, created_by: Option<Uuid>) -> AppResult<Locked<Entity>> {
    let link_urls: Vec<LinkUrl> = serde_json::from_value(w.link_urls.clone())
        .map_err(|err| AppError::internal(anyhow::anyhow!("held link_urls: {err}")))?;
    let now = chrono::Utc::now();
    Ok(Locked {
        record: Entity {
            id,
            entity_type: w.entity_type.clone(),
            display_name: w.display_name.clone(),
            legal_name: w.legal_name.clone(),
            description: w.description.clone(),
            website_url: w.website_url.clone(),
            email: w.email.clone(),
            phone: w.phone.clone(),
            address_text: w.address_text.clone(),
            city: w.city.clone(),
            country_code: w.country_code.clone(),
            categories: w.categories.clone(),
            tags: w.tags.clone(),
            link_urls,
            contact_agent_id: w.contact_agent_id,
            location_lat: w.location_lat,
            location_lng: w.location_lng,
            status: w.status.clone(),
            merged_into_id: None,
            score_data_richness: Default::default(),
            score_agent_reputation: None,
            score_signal: None,
            score_confidence: Default::default(),
            context_l0_routing: w.context_l0_routing.clone(),
            context_l1_common: w.context_l1_common.clone(),
            context_l2_specific: w.context_l2_specific.clone(),
            context_l2_available_features: w.context_l2_available_features.clone(),
            created_at_tstamp_utc: now,
            updated_at_tstamp_utc: now,
        },
        field_evidence: w.field_evidence.clone(),
        created_by_agent_id: created_by,
        source_ref: w.source_ref.clone(),
    })
}
