//! Entity entries: find the record the evidence is about (or decide there is none), then create,
//! merge, verify, claim or withdraw, as the entry's intent says. An entry whose identity is
//! settled always links; another agent's replacement of an established identity field becomes a
//! field proposal (`db::proposals`) while the record keeps its value.

use super::batch_view::{BatchView, OperatorDecision};
use super::keys::entity_keys;
use super::outcome::Decision;
use super::ownership;
use crate::db::entities::{self as db, Entity, EntityWrite};
use crate::db::entries::SpaceTimeEntry;
use crate::domain::{CanonicalTable, EntryIntent, LinkType};
use crate::error::AppResult;
use crate::records::proposals::{ContestedValue, ValueEvidence};
use crate::services::ranker;
use crate::transform::extract::{self, EntityDraft};
use crate::transform::fields::{FieldMerger, initial_evidence};
use crate::transform::matching::{self, Candidate, IdentityKeys, MatchDecision, Scored};
use crate::transform::merge::{FieldEvidence, MergeIntent};
use crate::transform::ranker::AgentEvidence;
use crate::transform::{address, display, normalize};
use rust_decimal::prelude::ToPrimitive;
use serde_json::{Value, json};
use sqlx::PgConnection;
use uuid::Uuid;

const TABLE: CanonicalTable = CanonicalTable::Entities;

pub enum Found {
    Record(Uuid, Value),
    Nothing(Value),
    Ambiguous(Value),
}

fn scored_json(s: &Scored) -> Value {
    json!({"id": s.id, "score": s.score, "reasons": s.reasons})
}

pub fn draft_keys(draft: &EntityDraft, entry: &SpaceTimeEntry) -> IdentityKeys {
    IdentityKeys {
        address_key: draft
            .common
            .address_text
            .as_deref()
            .and_then(address::address_key),
        city_key: draft.common.city.as_deref().map(normalize::name_key),
        ..entity_keys(
            Some(&draft.display_name),
            draft.website_url.as_deref(),
            draft.phone.as_deref(),
            draft.common.country_code.as_deref(),
            entry.source_ref.as_deref(),
        )
    }
}

/// Scores the entities near the point or sharing an identity key; only a clear winner matches.
pub async fn find(
    conn: &mut PgConnection,
    view: &mut BatchView,
    entry: &SpaceTimeEntry,
    keys: &IdentityKeys,
) -> AppResult<Found> {
    let rows = view.candidates(conn, entry, keys).await?;
    let redirects = rows.iter().any(|row| row.merged_into_id.is_some());
    let candidates: Vec<Candidate> = rows
        .into_iter()
        .map(|row| Candidate {
            // A merged record's keys name its survivor.
            id: row.merged_into_id.unwrap_or(row.id),
            distance_m: row.distance_m,
            keys: IdentityKeys {
                website_host: row
                    .website_key
                    .as_deref()
                    .map(|k| k.split('/').next().unwrap_or(k).to_string()),
                name_key: row.name_key,
                website_key: row.website_key,
                phone_key: row.phone_key,
                source_ref_key: row.source_ref,
                address_key: row.address_text.as_deref().and_then(address::address_key),
                city_key: row.city.as_deref().map(normalize::name_key),
            },
        })
        .collect();
    Ok(match matching::decide_entity(keys, &candidates) {
        MatchDecision::Match(mut best) => {
            if redirects {
                best.id = survivor_of(conn, TABLE, best.id).await?;
            }
            Found::Record(best.id, json!({"match": scored_json(&best)}))
        }
        MatchDecision::NoMatch { best } => {
            Found::Nothing(json!({"best_candidate": best.as_ref().map(scored_json)}))
        }
        MatchDecision::Ambiguous { candidates, why } => Found::Ambiguous(json!({
            "why": why,
            "candidates": candidates.iter().map(scored_json).collect::<Vec<_>>(),
        })),
    })
}

pub async fn apply(
    conn: &mut PgConnection,
    view: &mut BatchView,
    entry: &SpaceTimeEntry,
) -> AppResult<Decision> {
    let intent = entry.entry_intent;
    let needs_content = matches!(
        intent,
        EntryIntent::Observe | EntryIntent::Submit | EntryIntent::AddContext | EntryIntent::Correct
    );
    let draft = match extract::entity_draft(&entry.context) {
        Ok(draft) => Some(draft),
        Err(reason) if needs_content => return Ok(Decision::rejected(&reason)),
        Err(_) => None,
    };
    let operator_says_new = view.operator == Some(OperatorDecision::IsNew);
    let found = match (entry.target_canonical_id, &draft) {
        (None, Some(_)) if operator_says_new => Found::Nothing(json!({"operator": "is new"})),
        (Some(id), _) => Found::Record(id, json!({"target": "supplied by the service"})),
        (None, Some(draft)) => {
            let keys = view.entity_keys(entry, draft);
            find(conn, view, entry, &keys).await?
        }
        (None, None) => Found::Nothing(json!({})),
    };
    let (id, meta) = match found {
        Found::Record(id, _) if intent == EntryIntent::Verify => {
            return Ok(Decision::linked(
                TABLE,
                id,
                LinkType::SupportingEvidence,
                "verified by the agent",
                json!({}),
            ));
        }
        Found::Record(id, meta) => (id, meta),
        Found::Ambiguous(meta) => {
            let why = meta["why"].as_str().unwrap_or("several entities fit");
            return Ok(Decision::review(&format!("ambiguous: {why}"), meta));
        }
        Found::Nothing(meta) => {
            return Ok(match (intent, draft) {
                (EntryIntent::Observe | EntryIntent::Submit, Some(draft)) => {
                    create(conn, view, entry, &draft, meta).await?
                }
                (_, Some(draft)) if operator_says_new => {
                    create(conn, view, entry, &draft, meta).await?
                }
                _ => Decision::review(
                    &format!("no entity found to {}", intent.as_str().replace('_', " ")),
                    meta,
                ),
            });
        }
    };
    match (intent, draft) {
        (EntryIntent::Claim, _) => {
            view.forget_fetched(conn).await?;
            ownership::claim(conn, entry, TABLE, id).await
        }
        (EntryIntent::Withdraw, _) => {
            view.forget_fetched(conn).await?;
            ownership::withdraw(conn, entry, TABLE, id).await
        }
        (_, Some(draft)) => {
            let held = match view.held.as_ref() {
                Some(held) => held.locked(id)?,
                None => None,
            };
            let locked = match held {
                Some(locked) => Some(locked),
                None => db::get_for_update(conn, id).await?,
            };
            match locked {
                Some(locked) => merge(conn, view, entry, locked, &draft, meta).await,
                None => Ok(Decision::rejected("the target entity does not exist")),
            }
        }
        (_, None) => Ok(Decision::rejected("the entry carries no usable content")),
    }
}

/// The record a match through a merged record's keys is about: its survivor, and the survivor's
/// own survivor when that was merged in turn (up to ten merges).
pub async fn survivor_of(
    conn: &mut PgConnection,
    table: CanonicalTable,
    id: Uuid,
) -> AppResult<Uuid> {
    Ok(crate::db::canonical::follow_merges(conn, table, id)
        .await?
        .unwrap_or(id))
}

pub fn evidence_of(entry: &SpaceTimeEntry) -> FieldEvidence {
    FieldEvidence {
        entry_id: entry.id,
        agent_id: entry.agent_id,
        observed_at: entry.observed_at_tstamp_utc,
        confidence: entry.score_confidence.to_f64().unwrap_or(0.5),
    }
}

const ENTITY_FIELDS: &[&str] = &[
    "entity_type",
    "display_name",
    "legal_name",
    "description",
    "website_url",
    "email",
    "phone",
    "address_text",
    "city",
    "country_code",
    "location",
];

/// The field evidence of a record its entry created: that entry's, for every field.
pub fn created_evidence(evidence: &FieldEvidence) -> Value {
    initial_evidence(ENTITY_FIELDS, evidence)
}

/// The record an entry creates. Pure, so `entity(id, asOf:)` replays it from the entry.
pub fn created_write(
    entry: &SpaceTimeEntry,
    draft: &EntityDraft,
    keys: &IdentityKeys,
) -> EntityWrite {
    EntityWrite {
        field_evidence: created_evidence(&evidence_of(entry)),
        ..created_fields(entry, draft, keys)
    }
}

/// `created_write` without its field evidence (`Value::Null`), for a batch that holds the record
/// until it writes it.
fn created_fields(entry: &SpaceTimeEntry, draft: &EntityDraft, keys: &IdentityKeys) -> EntityWrite {
    let d = draft.clone();
    EntityWrite {
        entity_type: d.entity_type,
        legal_name: d.legal_name.or_else(|| {
            normalize::has_legal_form(&d.display_name).then(|| display::tidy(&d.display_name))
        }),
        display_name: display::tidy(&d.display_name),
        description: d.common.description,
        website_url: d.website_url,
        email: d.email,
        phone: d.phone,
        address_text: d.common.address_text,
        city: d.common.city,
        country_code: d.common.country_code,
        categories: crate::transform::merge::union_strings(&[], &d.common.categories),
        tags: crate::transform::merge::union_strings(&[], &d.tags),
        link_urls: Value::Array(crate::transform::merge::union_link_urls(
            &[],
            &d.common.link_urls,
        )),
        contact_agent_id: None,
        location_lat: entry.latitude,
        location_lng: entry.longitude,
        status: "active".into(),
        context_l0_routing: Value::Object(d.common.context_l0_routing),
        context_l1_common: Value::Object(d.common.context_l1_common),
        context_l2_specific: Value::Object(d.common.context_l2_specific),
        context_l2_available_features: d.common.context_l2_available_features,
        source_ref: keys.source_ref_key.clone(),
        website_key: keys.website_key.clone(),
        phone_key: keys.phone_key.clone(),
        name_key: keys.name_key.clone().unwrap_or_default(),
        field_evidence: Value::Null,
    }
}

async fn create(
    conn: &mut PgConnection,
    view: &mut BatchView,
    entry: &SpaceTimeEntry,
    draft: &EntityDraft,
    meta: Value,
) -> AppResult<Decision> {
    let keys = view.entity_keys(entry, draft);
    let write = match view.held {
        Some(_) => created_fields(entry, draft, &keys),
        None => created_write(entry, draft, &keys),
    };
    let creator = AgentEvidence {
        confidence: entry.score_confidence.to_f64().unwrap_or(0.5),
        reputation: view.reputation(conn, entry.agent_id).await?,
        latest_observation: entry
            .observed_at_tstamp_utc
            .unwrap_or(entry.created_at_tstamp_utc),
    };
    let scores = ranker::first_scores(ranker::entity_write_richness(&write), creator);
    let id = Uuid::now_v7();
    view.wrote(
        id,
        (entry.latitude, entry.longitude),
        &keys,
        write_address(&write),
    );
    match view.held.as_mut() {
        Some(held) => held.create(id, write, entry.agent_id, scores, evidence_of(entry)),
        None => db::insert(conn, id, &write, entry.agent_id, &scores).await?,
    }
    Ok(Decision::linked(
        TABLE,
        id,
        LinkType::Created,
        "no existing entity matched this evidence",
        meta,
    )
    .already_ranked())
}

/// What merging an entry into a record writes, which fields changed, and the record's identity
/// keys afterwards (without its source reference). Pure, so
/// `entity(id, asOf:)` replays a record's history from its entries.
pub fn merged_write(
    locked: db::Locked<Entity>,
    entry: &SpaceTimeEntry,
    draft: &EntityDraft,
) -> (EntityWrite, Vec<String>, IdentityKeys) {
    let merge_intent = if entry.entry_intent == EntryIntent::Correct {
        MergeIntent::Correct
    } else {
        MergeIntent::Observe
    };
    let mut m = FieldMerger::new(&locked.field_evidence, evidence_of(entry), merge_intent);
    // The entity keeps the source record it was created from; a first source is adopted.
    let source_ref = locked.source_ref.or_else(|| {
        entry
            .source_ref
            .as_deref()
            .and_then(normalize::source_ref_key)
    });
    let e = locked.record;
    let d = draft.clone();
    let location = m.required(
        "location",
        (e.location_lat, e.location_lng),
        Some((entry.latitude, entry.longitude)),
    );
    let incoming_name = display::tidy(&d.display_name);
    let legal_name = d
        .legal_name
        .clone()
        .or_else(|| normalize::has_legal_form(&incoming_name).then(|| incoming_name.clone()));
    // The same name written another way changes no fact: the better-formed variant stays.
    let city = e
        .city
        .as_deref()
        .or(d.common.city.as_deref())
        .map(normalize::name_key);
    let display_name = if matching::same_name(&incoming_name, &e.display_name, city.as_deref()) {
        if display::better_formed(&incoming_name, &e.display_name) {
            m.reform("display_name", e.display_name, incoming_name)
        } else {
            e.display_name
        }
    } else {
        m.required("display_name", e.display_name, Some(incoming_name))
    };
    let website_url = cosmetic_website(&mut m, e.website_url, d.website_url);
    let phone = cosmetic_phone(&mut m, e.phone, d.phone, e.country_code.as_deref());
    let mut write = EntityWrite {
        entity_type: m.required("entity_type", e.entity_type, Some(d.entity_type)),
        display_name,
        legal_name: m.optional("legal_name", e.legal_name, legal_name),
        description: m.optional("description", e.description, d.common.description),
        website_url,
        email: m.optional("email", e.email, d.email),
        phone,
        address_text: m.optional("address_text", e.address_text, d.common.address_text),
        city: m.optional("city", e.city, d.common.city),
        country_code: m.optional("country_code", e.country_code, d.common.country_code),
        categories: m.strings("categories", e.categories, &d.common.categories),
        tags: m.strings("tags", e.tags, &d.tags),
        link_urls: Value::Array(m.links(
            "link_urls",
            links_json(&e.link_urls),
            &d.common.link_urls,
        )),
        contact_agent_id: e.contact_agent_id,
        location_lat: location.0,
        location_lng: location.1,
        status: e.status,
        context_l0_routing: m.layer(
            "context_l0_routing",
            e.context_l0_routing,
            &d.common.context_l0_routing,
        ),
        context_l1_common: m.layer(
            "context_l1_common",
            e.context_l1_common,
            &d.common.context_l1_common,
        ),
        context_l2_specific: m.layer(
            "context_l2_specific",
            e.context_l2_specific,
            &d.common.context_l2_specific,
        ),
        context_l2_available_features: m.strings(
            "context_l2_available_features",
            e.context_l2_available_features,
            &d.common.context_l2_available_features,
        ),
        source_ref: None,
        website_key: None,
        phone_key: None,
        name_key: String::new(),
        field_evidence: Value::Null,
    };
    let changed = m.changed().to_vec();
    write.field_evidence = m.into_evidence();
    let keys = rekey(&mut write);
    write.source_ref = source_ref;
    (write, changed, keys)
}

/// Recomputes a write's identity keys from its fields (not its source reference) and returns
/// them.
fn rekey(write: &mut EntityWrite) -> IdentityKeys {
    let keys = entity_keys(
        Some(&write.display_name),
        write.website_url.as_deref(),
        write.phone.as_deref(),
        write.country_code.as_deref(),
        None,
    );
    write.name_key = keys.name_key.clone().unwrap_or_default();
    write.website_key = keys.website_key.clone();
    write.phone_key = keys.phone_key.clone();
    keys
}

/// The same website written another way is no new fact: another scheme, `www.`, a trailing
/// slash, tracking parameters (the same website key), or another page of the same host (a
/// crawler's `https://acme.com/contact` for a directory's `acme.com`). The record keeps its value,
/// unless the incoming one is the same address better formed (`display::better_formed_url`).
/// Another host follows the merge rules.
fn cosmetic_website(
    m: &mut FieldMerger,
    existing: Option<String>,
    incoming: Option<String>,
) -> Option<String> {
    match (existing, incoming) {
        (Some(existing), Some(incoming))
            if existing != incoming
                && normalize::website_host(&existing).is_some()
                && normalize::website_host(&existing) == normalize::website_host(&incoming) =>
        {
            let same_page = normalize::website_key(&existing) == normalize::website_key(&incoming);
            if same_page && display::better_formed_url(&incoming, &existing) {
                Some(m.reform("website_url", existing, incoming))
            } else {
                Some(existing)
            }
        }
        (existing, incoming) => m.optional("website_url", existing, incoming),
    }
}

/// The same phone number in another format (the same phone key, e.g. national against
/// international) is no new fact: the record keeps its value unless the incoming one is better
/// formed (`display::better_formed_phone`: the international form).
fn cosmetic_phone(
    m: &mut FieldMerger,
    existing: Option<String>,
    incoming: Option<String>,
    country_code: Option<&str>,
) -> Option<String> {
    match (existing, incoming) {
        (Some(existing), Some(incoming))
            if existing != incoming
                && normalize::phone_key(&existing, country_code).is_some()
                && normalize::phone_key(&existing, country_code)
                    == normalize::phone_key(&incoming, country_code) =>
        {
            if display::better_formed_phone(&incoming, &existing) {
                Some(m.reform("phone", existing, incoming))
            } else {
                Some(existing)
            }
        }
        (existing, incoming) => m.optional("phone", existing, incoming),
    }
}

async fn merge(
    conn: &mut PgConnection,
    view: &mut BatchView,
    entry: &SpaceTimeEntry,
    locked: db::Locked<Entity>,
    draft: &EntityDraft,
    meta: Value,
) -> AppResult<Decision> {
    let id = locked.record.id;
    let before = Identity::of(&locked.record);
    let setters = locked.field_evidence.clone();
    let created_by = locked.created_by_agent_id;
    // A held record that a merge leaves unchanged stays as it was read.
    let original = view.held.is_some().then(|| locked.clone());
    let (mut write, mut changed, mut keys) = merged_write(locked, entry, draft);
    let replaced = replaced_identity(&before, &write, &setters, entry.agent_id);
    let mut contested = Vec::new();
    let mut kept: Vec<&str> = Vec::new();
    if !replaced.is_empty() && view.operator.is_none() {
        let agents = crate::db::contributions::contributing_agents(conn, TABLE, id).await?;
        if agents >= ESTABLISHED_BY_AGENTS {
            for field in &replaced {
                let Some((current, proposed, key)) =
                    contest(&before, &setters, &write, field, entry)
                else {
                    continue;
                };
                let reason = format!(
                    "would replace the {field} another agent set on a record {agents} agents corroborate"
                );
                let proposal_id = crate::db::proposals::propose(
                    conn,
                    &crate::db::proposals::NewProposal {
                        table: TABLE,
                        record_id: id,
                        field,
                        current: &current,
                        proposed: &proposed,
                        proposed_key: &key,
                        reason: &reason,
                    },
                )
                .await?;
                contested.push(json!({"field": field, "field_proposal_id": proposal_id}));
            }
            keys = keep_fields(&mut write, &before, &setters, &replaced);
            changed.retain(|f| !replaced.contains(&f.as_str()));
            kept = replaced;
        }
    }
    // A proposal contests the value the record had: once the field changes otherwise, it is moot.
    let identity_changed: Vec<&str> = IDENTITY_FIELDS
        .iter()
        .copied()
        .filter(|f| changed.iter().any(|c| c == f))
        .collect();
    if !identity_changed.is_empty() {
        crate::db::proposals::supersede(conn, id, &identity_changed).await?;
    }
    view.wrote(
        id,
        (write.location_lat, write.location_lng),
        &IdentityKeys {
            source_ref_key: write.source_ref.clone(),
            ..keys
        },
        write_address(&write),
    );
    match (view.held.as_mut(), original) {
        (Some(held), Some(original)) => {
            held.merged(
                id,
                (!changed.is_empty()).then_some(write),
                created_by,
                original,
            );
        }
        _ if !changed.is_empty() => db::update(conn, id, &write).await?,
        _ => {}
    }
    let mut decision = Decision::merged(TABLE, id, entry, changed, &meta);
    if !kept.is_empty() {
        decision.reason = format!(
            "{}; the record keeps its {} (contested: a field proposal waits for an operator)",
            decision.reason,
            kept.join(", ")
        );
        decision.metadata["contested_fields"] = json!(kept);
        decision.metadata["field_proposals"] = Value::Array(contested);
    }
    Ok(decision)
}

/// The identity fields the established-identity guard watches (and a proposal may contest).
pub const IDENTITY_FIELDS: &[&str] = &["display_name", "website_url", "phone", "location"];

/// A field's value as a proposal shows it: the text, or `latitude,longitude` for the location.
pub fn field_text(write: &EntityWrite, field: &str) -> Option<String> {
    match field {
        "display_name" => Some(write.display_name.clone()),
        "website_url" => write.website_url.clone(),
        "phone" => write.phone.clone(),
        "location" => Some(location_text((write.location_lat, write.location_lng))),
        _ => None,
    }
}

fn location_text((lat, lng): (f64, f64)) -> String {
    format!("{lat:.6},{lng:.6}")
}

fn value_evidence(evidence: &FieldEvidence) -> ValueEvidence {
    ValueEvidence {
        space_time_entry_id: evidence.entry_id,
        agent_id: evidence.agent_id,
        observed_at_tstamp_utc: evidence.observed_at,
        confidence: evidence.confidence,
    }
}

fn stored_evidence(setters: &Value, field: &str) -> Option<FieldEvidence> {
    setters
        .get(field)
        .and_then(|e| serde_json::from_value(e.clone()).ok())
}

/// Both sides of a contested field: the record's value and the evidence that set it, the
/// incoming value with the entry's evidence, and the key that makes two proposals the same value
/// (a name, website or phone key; the point rounded to about 10 m).
fn contest(
    before: &Identity,
    setters: &Value,
    after: &EntityWrite,
    field: &str,
    entry: &SpaceTimeEntry,
) -> Option<(ContestedValue, ContestedValue, String)> {
    let current = match field {
        "display_name" => before.display_name.clone(),
        "website_url" => before.website_url.clone()?,
        "phone" => before.phone.clone()?,
        "location" => location_text(before.location),
        _ => return None,
    };
    let proposed = field_text(after, field)?;
    let key = match field {
        "display_name" => after.name_key.clone(),
        "website_url" => after
            .website_key
            .clone()
            .unwrap_or_else(|| proposed.clone()),
        "phone" => after.phone_key.clone().unwrap_or_else(|| proposed.clone()),
        _ => format!("{:.4},{:.4}", after.location_lat, after.location_lng),
    };
    Some((
        ContestedValue {
            value: current,
            evidence: stored_evidence(setters, field).map(|e| value_evidence(&e)),
        },
        ContestedValue {
            value: proposed,
            evidence: Some(value_evidence(&evidence_of(entry))),
        },
        key,
    ))
}

/// Puts back the record's own value (and the evidence that set it) of each of `fields` into a
/// merged write, and recomputes its keys: the guard's "the record keeps its value". Pure, so a
/// replay of the entry's contribution keeps them too.
pub fn keep_fields(
    write: &mut EntityWrite,
    before: &Identity,
    setters: &Value,
    fields: &[&str],
) -> IdentityKeys {
    let mut evidence = write
        .field_evidence
        .as_object_mut()
        .map(std::mem::take)
        .unwrap_or_default();
    for field in fields {
        match *field {
            "display_name" => write.display_name = before.display_name.clone(),
            "website_url" => write.website_url = before.website_url.clone(),
            "phone" => write.phone = before.phone.clone(),
            "location" => (write.location_lat, write.location_lng) = before.location,
            _ => continue,
        }
        match setters.get(*field) {
            Some(stored) => evidence.insert(field.to_string(), stored.clone()),
            None => evidence.remove(*field),
        };
    }
    write.field_evidence = Value::Object(evidence);
    let source_ref = write.source_ref.clone();
    let keys = rekey(write);
    write.source_ref = source_ref;
    keys
}

/// Sets one identity field to an accepted proposal's value (`location`: `latitude,longitude`),
/// naming the proposing entry's evidence as the field's, and recomputes the keys. Pure, so a
/// replay applies an accepted proposal as the operator did. `false` when the value does not fit
/// the field.
pub fn apply_field(
    write: &mut EntityWrite,
    field: &str,
    value: &str,
    evidence: &FieldEvidence,
) -> bool {
    match field {
        "display_name" => write.display_name = value.to_string(),
        "website_url" => write.website_url = Some(value.to_string()),
        "phone" => write.phone = Some(value.to_string()),
        "location" => {
            let point = value
                .split_once(',')
                .and_then(|(lat, lng)| Some((lat.trim().parse().ok()?, lng.trim().parse().ok()?)));
            let Some((lat, lng)) = point else {
                return false;
            };
            (write.location_lat, write.location_lng) = (lat, lng);
        }
        _ => return false,
    }
    if let Some(map) = write.field_evidence.as_object_mut() {
        map.insert(
            field.to_string(),
            serde_json::to_value(evidence).unwrap_or(Value::Null),
        );
    } else {
        write.field_evidence = json!({ field: evidence });
    }
    rekey(write);
    true
}

/// A record's stored fields as a write (keys recomputed), for a change outside the transformer's
/// merge (an accepted field proposal).
pub fn stored_write(locked: db::Locked<Entity>) -> EntityWrite {
    let e = locked.record;
    let mut write = EntityWrite {
        entity_type: e.entity_type,
        display_name: e.display_name,
        legal_name: e.legal_name,
        description: e.description,
        website_url: e.website_url,
        email: e.email,
        phone: e.phone,
        address_text: e.address_text,
        city: e.city,
        country_code: e.country_code,
        categories: e.categories,
        tags: e.tags,
        link_urls: Value::Array(links_json(&e.link_urls)),
        contact_agent_id: e.contact_agent_id,
        location_lat: e.location_lat,
        location_lng: e.location_lng,
        status: e.status,
        context_l0_routing: e.context_l0_routing,
        context_l1_common: e.context_l1_common,
        context_l2_specific: e.context_l2_specific,
        context_l2_available_features: e.context_l2_available_features,
        source_ref: None,
        website_key: None,
        phone_key: None,
        name_key: String::new(),
        field_evidence: locked.field_evidence,
    };
    rekey(&mut write);
    write.source_ref = locked.source_ref;
    write
}

fn write_address(write: &EntityWrite) -> (Option<&str>, Option<&str>) {
    (write.address_text.as_deref(), write.city.as_deref())
}

/// A record is established once this many distinct agents have contributed to it.
pub const ESTABLISHED_BY_AGENTS: i64 = 2;
/// A move of the location farther than this replaces where the business is.
pub const ESTABLISHED_LOCATION_MOVE_M: f64 = 100.0;

/// The identity fields of a record as it stood before a merge (what a replacement is judged on).
/// Kept raw: keys are computed only for a field whose value changed (phone parsing is the costly
/// part of a merge, and most merges change no identity field).
pub struct Identity {
    display_name: String,
    website_url: Option<String>,
    phone: Option<String>,
    country_code: Option<String>,
    location: (f64, f64),
}

impl Identity {
    pub fn of(e: &Entity) -> Identity {
        Identity {
            display_name: e.display_name.clone(),
            website_url: e.website_url.clone(),
            phone: e.phone.clone(),
            country_code: e.country_code.clone(),
            location: (e.location_lat, e.location_lng),
        }
    }
}

/// The identity fields a merge would replace (not fill) that another agent set: the name (another
/// name key), the website (another host: a page of the same host is the same website), the phone
/// (another phone key), or the location moved more than 100 m. Adversarial evidence, or a real
/// change: either way an operator decides it (a field proposal) when the record is established.
fn replaced_identity(
    before: &Identity,
    after: &EntityWrite,
    setters: &Value,
    agent: Uuid,
) -> Vec<&'static str> {
    let set_by_other = |field: &str| {
        setters
            .get(field)
            .and_then(|e| e.get("agent_id"))
            .and_then(Value::as_str)
            .is_none_or(|setter| setter != agent.to_string())
    };
    let mut replaced = Vec::new();
    if after.display_name != before.display_name
        && after.name_key != normalize::name_key(&before.display_name)
    {
        replaced.push("display_name");
    }
    if let Some(website) = &before.website_url
        && after.website_url.as_ref() != Some(website)
        && after.website_key != normalize::website_key(website)
        && after
            .website_url
            .as_deref()
            .and_then(normalize::website_host)
            != normalize::website_host(website)
    {
        replaced.push("website_url");
    }
    if let Some(phone) = &before.phone
        && after.phone.as_ref() != Some(phone)
        && after.phone_key != normalize::phone_key(phone, before.country_code.as_deref())
    {
        replaced.push("phone");
    }
    let moved = crate::domain::geo::sphere_distance_m(
        before.location,
        (after.location_lat, after.location_lng),
    );
    if moved > ESTABLISHED_LOCATION_MOVE_M {
        replaced.push("location");
    }
    replaced.retain(|field| set_by_other(field));
    replaced
}

pub fn links_json(links: &[crate::db::entities::LinkUrl]) -> Vec<Value> {
    links
        .iter()
        .filter_map(|l| serde_json::to_value(l).ok())
        .collect()
}
