//! A record as it stood at a past instant (`entity(id, asOf:)`), or as an operator's merge or
//! undo leaves it, rebuilt from its contributions: the entry that created it, then each entry
//! that updated it, in the order the transformer applied them, through the transformer's own pure
//! create and merge functions (entities: `transformer::entity`; listings and requests, one path:
//! `transformer::offer`). `matched` and `supporting_evidence` contributions changed no field, so
//! they are not replayed. An entity contribution whose identity fields the established-identity
//! guard kept (`metadata.contested_fields`) keeps them in the replay too, and an accepted field
//! proposal (`metadata.field_proposal`) sets its one field, as the operator did.
//!
//! What contributions do not carry is today's: `status`, `contact_agent_id` and `principal_id`
//! (operators, claims and withdrawals change them) and the scores (signals and corroboration move
//! them). A replay follows today's merge rules: entries processed under older rules may have
//! merged differently then.

use super::transformer::entity::{
    Identity, apply_field, created_write, draft_keys, keep_fields, merged_write,
};
use super::transformer::offer;
use crate::db;
use crate::db::entities::{EntityWrite, Locked};
use crate::db::offers::OfferWrite;
use crate::db::provenance::ReplayStep;
use crate::domain::{CanonicalTable, EntryIntent};
use crate::error::{AppError, AppResult};
use crate::records::canonical::Entity;
use crate::state::AppState;
use crate::transform::extract;
use chrono::{DateTime, Utc};
use serde_json::Value;
use uuid::Uuid;

/// Most changes one replay applies; a record changed more often than this is refused.
pub const MAX_REPLAYED_CHANGES: i64 = 2_000;

/// The entity as it stood at `as_of`; `None` when it did not exist yet (or does not exist).
#[tracing::instrument(name = "history::entity_as_of", level = "debug", skip_all, fields(id = %id))]
pub async fn entity_as_of(
    state: &AppState,
    id: Uuid,
    as_of: DateTime<Utc>,
) -> AppResult<Option<Entity>> {
    let Some(today) = db::entities::get(crate::services::read_route::reads(state), id).await?
    else {
        return Ok(None);
    };
    let mut conn = crate::services::read_route::reads(state).acquire().await?;
    let steps = db::provenance::replay_steps(
        &mut conn,
        CanonicalTable::Entities,
        id,
        as_of,
        MAX_REPLAYED_CHANGES + 1,
    )
    .await?;
    drop(conn);
    if steps.len() as i64 > MAX_REPLAYED_CHANGES {
        return Err(AppError::invalid(
            &["asOf"],
            format!(
                "this record changed more than {MAX_REPLAYED_CHANGES} times before then; it cannot be replayed"
            ),
            "too_long",
        ));
    }
    Ok(replay(&today, steps).map(|(record, _)| record))
}

/// Claims and withdrawals are `updated` contributions that changed the contact or the status,
/// never a field (whatever context their entry carries): today's contact and status stand for
/// them, and their content is not replayed.
fn changes_content(step: &ReplayStep) -> bool {
    !matches!(
        step.entry.entry_intent,
        EntryIntent::Claim | EntryIntent::Withdraw
    )
}

/// Folds a record's steps through the transformer's pure create and merge: the record as they
/// leave it and the write that stores it. `None` when the first step is not a creation (or its
/// entry can no longer be read). `today` gives the id and what contributions do not carry.
pub(crate) fn replay(today: &Entity, steps: Vec<ReplayStep>) -> Option<(Entity, EntityWrite)> {
    let mut steps = steps.into_iter();
    let first = steps.next().filter(|s| s.link_type == "created")?;
    // An entry the extractor no longer reads cannot be replayed; its step is skipped.
    let draft = extract::entity_draft(&first.entry.context).ok()?;
    let mut write = created_write(&first.entry, &draft, &draft_keys(&draft, &first.entry));
    let created_at = first.contributed_at;
    let mut record = entity_from(&write, today, created_at, created_at);
    let creator = Some(first.entry.agent_id);
    for step in steps.filter(changes_content) {
        // An accepted field proposal set one field, as the operator decided.
        if let Some(accepted) = step.metadata.get("field_proposal") {
            let field = accepted["field"].as_str().unwrap_or_default();
            let value = accepted["value"].as_str().unwrap_or_default();
            if let Ok(evidence) = serde_json::from_value(accepted["evidence"].clone())
                && apply_field(&mut write, field, value, &evidence)
            {
                record = entity_from(&write, today, created_at, step.contributed_at);
            }
            continue;
        }
        let Ok(draft) = extract::entity_draft(&step.entry.context) else {
            continue;
        };
        let before = Identity::of(&record);
        let setters = write.field_evidence.clone();
        let locked = Locked {
            record,
            field_evidence: write.field_evidence.clone(),
            created_by_agent_id: creator,
            source_ref: write.source_ref.clone(),
        };
        let (mut next, _, _) = merged_write(locked, &step.entry, &draft);
        // The fields the established-identity guard kept stay as they were.
        let kept: Vec<&str> = step.metadata["contested_fields"]
            .as_array()
            .map(|f| f.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if !kept.is_empty() {
            keep_fields(&mut next, &before, &setters, &kept);
        }
        write = next;
        record = entity_from(&write, today, created_at, step.contributed_at);
    }
    // A record created and never updated kept the creation's (empty) contact: today's stands.
    write.contact_agent_id = today.contact_agent_id;
    Some((record, write))
}

/// The offer (listing or request) a record's steps make, through the transformer's one offer
/// path; `None` when the first step is not a creation (or its entry can no longer be read). The
/// contact, principal and status are today's (`today`), as for entities.
pub(crate) fn replay_offer(
    table: CanonicalTable,
    today: &OfferWrite,
    steps: Vec<ReplayStep>,
) -> Option<OfferWrite> {
    let mut steps = steps.into_iter();
    let first = steps.next().filter(|s| s.link_type == "created")?;
    let draft = offer::draft_of(&first.entry, table).ok()?;
    let mut write = offer::created_write(table, &first.entry, draft);
    for step in steps.filter(changes_content) {
        // An entry the extractor no longer reads cannot be replayed; its step is skipped.
        let Ok(draft) = offer::draft_of(&step.entry, table) else {
            continue;
        };
        write = offer::merged_write(table, write, &step.entry, draft).0;
    }
    write.principal_id = today.principal_id;
    write.contact_agent_id = today.contact_agent_id;
    write.status = today.status.clone();
    Some(write)
}

/// The public record of a replayed write: its fields, today's id, status, contact and scores, and the
/// times of the first and last replayed contribution.
fn entity_from(
    write: &EntityWrite,
    today: &Entity,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
) -> Entity {
    Entity {
        id: today.id,
        entity_type: write.entity_type.clone(),
        display_name: write.display_name.clone(),
        legal_name: write.legal_name.clone(),
        description: write.description.clone(),
        website_url: write.website_url.clone(),
        email: write.email.clone(),
        phone: write.phone.clone(),
        address_text: write.address_text.clone(),
        city: write.city.clone(),
        country_code: write.country_code.clone(),
        categories: write.categories.clone(),
        tags: write.tags.clone(),
        link_urls: serde_json::from_value(write.link_urls.clone()).unwrap_or_default(),
        contact_agent_id: today.contact_agent_id,
        location_lat: write.location_lat,
        location_lng: write.location_lng,
        status: today.status.clone(),
        merged_into_id: today.merged_into_id,
        score_data_richness: today.score_data_richness,
        score_agent_reputation: today.score_agent_reputation,
        score_signal: today.score_signal,
        score_confidence: today.score_confidence,
        context_l0_routing: write.context_l0_routing.clone(),
        context_l1_common: write.context_l1_common.clone(),
        context_l2_specific: write.context_l2_specific.clone(),
        context_l2_available_features: write.context_l2_available_features.clone(),
        created_at_tstamp_utc: created_at,
        updated_at_tstamp_utc: updated_at,
    }
}
