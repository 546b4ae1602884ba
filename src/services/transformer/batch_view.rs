//! What a batch knows while it decides its entries one by one: the candidate entities of every
//! entry, fetched in one statement before the first decision, kept current with the entities the
//! batch has written since (so a second sighting later in the same batch still finds the first),
//! and the reputations of the entries' authors.

use super::entity::draft_keys;
use super::held::HeldEntities;
use super::keys::entity_keys;
use crate::db::entities::{self as entities_db, CandidateQuery, EntityCandidate};
use crate::db::entries::SpaceTimeEntry;
use crate::domain::EntryType;
use crate::error::AppResult;
use crate::transform::extract::{self, EntityDraft};
use crate::transform::matching::{IdentityKeys, KEY_CANDIDATE_RADIUS_M, NEARBY_CANDIDATE_RADIUS_M};
use sqlx::PgConnection;
use std::collections::HashMap;
use uuid::Uuid;

/// The reputation of an agent the database does not know (it cannot happen for an entry's author).
const DEFAULT_REPUTATION: f64 = 0.5;

/// An entity as this batch last wrote it: what candidate matching compares.
struct Written {
    latitude: f64,
    longitude: f64,
    candidate: EntityCandidate,
}

#[derive(Default)]
pub struct BatchView {
    /// Candidates per entry id, as the database had them when the batch began; `None` when the
    /// batch fetches per entry (the careful path, where a rolled-back entry leaves no trace).
    fetched: Option<HashMap<Uuid, Vec<EntityCandidate>>>,
    written: Vec<Written>,
    reputations: HashMap<Uuid, f64>,
    /// Identity keys computed while fetching (phone parsing is the costly part), per entry id.
    keys: HashMap<Uuid, IdentityKeys>,
    /// The entity writes held until the end of the batch; `None` when every write goes to the
    /// database at once (the careful path, operators' resolutions).
    pub held: Option<HeldEntities>,
    /// Set when an operator resolves a reviewed entry: the decision is theirs, not the rules'.
    pub operator: Option<OperatorDecision>,
}

/// What an operator decided about an entry the transformer sent to review.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OperatorDecision {
    /// The entry is about this record (its target is set to it).
    IsRecord,
    /// The entry is about a record the service does not have yet.
    IsNew,
}

impl BatchView {
    /// Nothing fetched ahead: every entry queries the database when it is decided.
    pub fn per_entry() -> BatchView {
        BatchView::default()
    }

    /// Fetches the candidates of every entry that searches for an entity, in one statement.
    pub async fn fetch_ahead(
        conn: &mut PgConnection,
        entries: &[SpaceTimeEntry],
    ) -> AppResult<BatchView> {
        let keyed: Vec<(&SpaceTimeEntry, IdentityKeys)> = entries
            .iter()
            .filter_map(|entry| search_keys(entry).map(|keys| (entry, keys)))
            .collect();
        let queries: Vec<CandidateQuery<'_>> = keyed
            .iter()
            .map(|(entry, keys)| query(entry, keys))
            .collect();
        let mut fetched: HashMap<Uuid, Vec<EntityCandidate>> = keyed
            .iter()
            .map(|(entry, _)| (entry.id, Vec::new()))
            .collect();
        for (entry_id, candidate) in entities_db::candidates_many(
            conn,
            &queries,
            NEARBY_CANDIDATE_RADIUS_M,
            KEY_CANDIDATE_RADIUS_M,
        )
        .await?
        {
            fetched.entry(entry_id).or_default().push(candidate);
        }
        Ok(BatchView {
            fetched: Some(fetched),
            held: Some(HeldEntities::default()),
            keys: keyed
                .into_iter()
                .map(|(entry, keys)| (entry.id, keys))
                .collect(),
            ..BatchView::default()
        })
    }

    /// The identity keys of an entity entry's draft, computed once per batch.
    pub fn entity_keys(&mut self, entry: &SpaceTimeEntry, draft: &EntityDraft) -> IdentityKeys {
        match self.keys.get(&entry.id) {
            Some(keys) => keys.clone(),
            None => draft_keys(draft, entry),
        }
    }

    /// The entities that may be what `entry` is about.
    pub async fn candidates(
        &mut self,
        conn: &mut PgConnection,
        entry: &SpaceTimeEntry,
        keys: &IdentityKeys,
    ) -> AppResult<Vec<EntityCandidate>> {
        let ahead = self.fetched.as_mut().and_then(|f| f.remove(&entry.id));
        let Some(rows) = ahead else {
            // Fetched now, the rows include whatever this batch wrote once nothing is held.
            self.write_held_now(conn).await?;
            let rows = entities_db::candidates_many(
                conn,
                &[query(entry, keys)],
                NEARBY_CANDIDATE_RADIUS_M,
                KEY_CANDIDATE_RADIUS_M,
            )
            .await?;
            return Ok(rows.into_iter().map(|(_, c)| c).collect());
        };
        let mut current: Vec<EntityCandidate> = rows
            .into_iter()
            .filter(|row| !self.written.iter().any(|w| w.candidate.id == row.id))
            .collect();
        for written in &self.written {
            let distance_m = crate::domain::geo::sphere_distance_m(
                (entry.latitude, entry.longitude),
                (written.latitude, written.longitude),
            );
            if distance_m <= NEARBY_CANDIDATE_RADIUS_M
                || (distance_m <= KEY_CANDIDATE_RADIUS_M && shares_key(keys, &written.candidate))
            {
                current.push(EntityCandidate {
                    distance_m,
                    ..written.candidate.clone()
                });
            }
        }
        Ok(current)
    }

    /// Records an entity this batch created or merged into, as it now stands.
    pub fn wrote(
        &mut self,
        id: Uuid,
        (latitude, longitude): (f64, f64),
        keys: &IdentityKeys,
        (address_text, city): (Option<&str>, Option<&str>),
    ) {
        self.written.retain(|w| w.candidate.id != id);
        self.written.push(Written {
            latitude,
            longitude,
            candidate: EntityCandidate {
                id,
                merged_into_id: None,
                distance_m: 0.0,
                name_key: keys.name_key.clone(),
                website_key: keys.website_key.clone(),
                phone_key: keys.phone_key.clone(),
                source_ref: keys.source_ref_key.clone(),
                address_text: address_text.map(str::to_owned),
                city: city.map(str::to_owned),
            },
        });
    }

    /// Another kind of change (a claim, a withdrawal) may make fetched candidates stale: what the
    /// batch holds is written now, and from here on entries query the database and write at once.
    pub async fn forget_fetched(&mut self, conn: &mut PgConnection) -> AppResult<()> {
        self.write_held_now(conn).await?;
        self.held = None;
        self.fetched = None;
        Ok(())
    }

    async fn write_held_now(&mut self, conn: &mut PgConnection) -> AppResult<()> {
        match self.held.as_mut() {
            Some(held) if !held.is_empty() => held.write_now(conn).await,
            _ => Ok(()),
        }
    }

    pub async fn reputation(&mut self, conn: &mut PgConnection, agent_id: Uuid) -> AppResult<f64> {
        if let Some(known) = self.reputations.get(&agent_id) {
            return Ok(*known);
        }
        let reputation = crate::services::ranker::reputations(
            conn,
            &[agent_id],
            crate::services::ranker::Freshness::Recent,
        )
        .await?
        .get(&agent_id)
        .copied()
        .unwrap_or(DEFAULT_REPUTATION);
        self.reputations.insert(agent_id, reputation);
        Ok(reputation)
    }
}

/// The identity an entry searches for, when it searches (an entity or observation entry without a
/// target whose content can be read); any other entry never asks for candidates.
fn search_keys(entry: &SpaceTimeEntry) -> Option<IdentityKeys> {
    if entry.target_canonical_id.is_some() {
        return None;
    }
    match entry.entry_type {
        EntryType::Entity => extract::entity_draft(&entry.context)
            .ok()
            .map(|draft| draft_keys(&draft, entry)),
        EntryType::Observation => extract::observation_keys(&entry.context).ok().map(|k| {
            entity_keys(
                k.display_name.as_deref(),
                k.website_url.as_deref(),
                k.phone.as_deref(),
                k.country_code.as_deref(),
                entry.source_ref.as_deref(),
            )
        }),
        EntryType::Listing | EntryType::Request => None,
    }
}

fn query<'a>(entry: &SpaceTimeEntry, keys: &'a IdentityKeys) -> CandidateQuery<'a> {
    CandidateQuery {
        entry_id: entry.id,
        latitude: entry.latitude,
        longitude: entry.longitude,
        name_key: keys.name_key.as_deref().unwrap_or(""),
        website_key: keys.website_key.as_deref(),
        phone_key: keys.phone_key.as_deref(),
        source_ref: keys.source_ref_key.as_deref(),
    }
}

/// The key search's condition, for an entity the batch wrote after fetching.
fn shares_key(keys: &IdentityKeys, candidate: &EntityCandidate) -> bool {
    let same = |ours: &Option<String>, theirs: &Option<String>| {
        ours.as_deref()
            .is_some_and(|k| !k.is_empty() && theirs.as_deref() == Some(k))
    };
    same(&keys.name_key, &candidate.name_key)
        || same(&keys.website_key, &candidate.website_key)
        || same(&keys.phone_key, &candidate.phone_key)
        || same(&keys.source_ref_key, &candidate.source_ref)
}
