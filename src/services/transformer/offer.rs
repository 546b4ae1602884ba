//! Listing and request entries: matched within their own kind (same source record, or the same
//! title from the same provider/requester or at the same spot), then created or merged.

use super::entity::{evidence_of, links_json, survivor_of};
use super::outcome::Decision;
use super::ownership;
use crate::db::canonical;
use crate::db::entities::Locked;
use crate::db::entries::SpaceTimeEntry;
use crate::db::offers::{self, OfferRecord, OfferSide, OfferTable, OfferWrite};
use crate::domain::{CanonicalTable, EntryIntent, LinkType};
use crate::error::AppResult;
use crate::records::canonical::{CanonicalRequest, Listing};
use crate::transform::extract::{self, OfferDraft};
use crate::transform::fields::{FieldMerger, initial_evidence};
use crate::transform::matching::{self, MatchDecision, OfferCandidate, OfferKeys};
use crate::transform::merge::{MergeIntent, union_link_urls, union_strings};
use crate::transform::normalize;
use chrono::{DateTime, Utc};
use serde_json::{Value, json};
use sqlx::PgConnection;
use uuid::Uuid;

const OFFER_FIELDS: &[&str] = &[
    "offer_type",
    "title",
    "description",
    "amount",
    "currency_code",
    "availability_status",
    "parent_entity_id",
    "needed_from",
    "needed_by",
    "address_text",
    "city",
    "country_code",
    "location",
];

/// What an offer entry says, as the extractor reads it; the reason when it cannot.
pub(crate) fn draft_of(
    entry: &SpaceTimeEntry,
    table: CanonicalTable,
) -> Result<OfferDraft, String> {
    let is_listing = table == CanonicalTable::Listings;
    let default_type = entry
        .entry_subtype
        .clone()
        .unwrap_or_else(|| (if is_listing { "offer" } else { "request" }).into());
    extract::offer_draft(&entry.context, is_listing, &default_type)
}

pub async fn apply(
    conn: &mut PgConnection,
    entry: &SpaceTimeEntry,
    table: CanonicalTable,
    operator_says_new: bool,
) -> AppResult<Decision> {
    let is_listing = table == CanonicalTable::Listings;
    let intent = entry.entry_intent;
    let needs_content = matches!(
        intent,
        EntryIntent::Observe | EntryIntent::Submit | EntryIntent::AddContext | EntryIntent::Correct
    );
    let draft = match draft_of(entry, table) {
        Ok(draft) => Some(draft),
        Err(reason) if needs_content => return Ok(Decision::rejected(&reason)),
        Err(_) => None,
    };
    if let Some(parent) = draft.as_ref().and_then(|d| d.parent_entity_id)
        && !canonical::exists(conn, CanonicalTable::Entities, parent).await?
    {
        let field = if is_listing {
            "provider_entity_id"
        } else {
            "requester_entity_id"
        };
        return Ok(Decision::rejected(&format!(
            "context.{field} names no existing entity"
        )));
    }
    let found = match (entry.target_canonical_id, &draft) {
        (Some(id), _) => MatchDecision::Match(matching::Scored {
            id,
            score: 1.0,
            reasons: vec!["target".into()],
        }),
        (None, Some(_)) if operator_says_new => MatchDecision::NoMatch { best: None },
        (None, Some(draft)) => find(conn, entry, table, draft).await?,
        (None, None) => MatchDecision::NoMatch { best: None },
    };
    let (id, meta) = match found {
        MatchDecision::Match(best) => (
            best.id,
            json!({"match": {"id": best.id, "score": best.score, "reasons": best.reasons}}),
        ),
        MatchDecision::Ambiguous { candidates, why } => {
            let scored: Vec<Value> = candidates
                .iter()
                .map(|s| json!({"id": s.id, "score": s.score, "reasons": s.reasons}))
                .collect();
            return Ok(Decision::review(
                &format!("ambiguous: {why}"),
                json!({"why": why, "candidates": scored}),
            ));
        }
        MatchDecision::NoMatch { .. } => {
            return Ok(match (intent, draft) {
                (EntryIntent::Observe | EntryIntent::Submit, Some(draft)) => {
                    create(conn, entry, table, draft).await?
                }
                (_, Some(draft)) if operator_says_new => create(conn, entry, table, draft).await?,
                _ => Decision::review(
                    &format!("no record found to {}", intent.as_str().replace('_', " ")),
                    json!({}),
                ),
            });
        }
    };
    match (intent, draft) {
        (EntryIntent::Verify, _) => Ok(Decision::linked(
            table,
            id,
            LinkType::SupportingEvidence,
            "verified by the agent",
            json!({}),
        )),
        (EntryIntent::Claim, _) => ownership::claim(conn, entry, table, id).await,
        (EntryIntent::Withdraw, _) => ownership::withdraw(conn, entry, table, id).await,
        (_, Some(draft)) => merge(conn, entry, table, id, draft, meta).await,
        (_, None) => Ok(Decision::rejected("the entry carries no usable content")),
    }
}

fn offer_table(table: CanonicalTable) -> &'static OfferTable {
    match table {
        CanonicalTable::Listings => &Listing::TABLE,
        _ => &CanonicalRequest::TABLE,
    }
}

/// The time window an entry brings: a listing is valid when the entry says it is; a request
/// names when it is needed in its content.
fn incoming_window(
    table: CanonicalTable,
    entry: &SpaceTimeEntry,
    d: &OfferDraft,
) -> [Option<DateTime<Utc>>; 2] {
    if table == CanonicalTable::Listings {
        [entry.valid_from_tstamp_utc, entry.valid_to_tstamp_utc]
    } else {
        [d.needed_from, d.needed_by]
    }
}

/// The evidence names of the window fields.
fn window_fields(table: CanonicalTable) -> [&'static str; 2] {
    if table == CanonicalTable::Listings {
        ["valid_from", "valid_to"]
    } else {
        ["needed_from", "needed_by"]
    }
}

async fn find(
    conn: &mut PgConnection,
    entry: &SpaceTimeEntry,
    table: CanonicalTable,
    draft: &OfferDraft,
) -> AppResult<MatchDecision> {
    let keys = OfferKeys {
        parent_id: draft.parent_entity_id,
        title_key: normalize::title_key(&draft.title),
        source_ref_key: entry
            .source_ref
            .as_deref()
            .and_then(normalize::source_ref_key),
    };
    let rows = offers::candidates(
        conn,
        offer_table(table),
        entry.latitude,
        entry.longitude,
        &keys.title_key,
        keys.parent_id,
        keys.source_ref_key.as_deref(),
    )
    .await?;
    let redirects = rows.iter().any(|row| row.merged_into_id.is_some());
    let candidates: Vec<OfferCandidate> = rows
        .into_iter()
        .map(|row| OfferCandidate {
            // A merged record's keys name its survivor.
            id: row.merged_into_id.unwrap_or(row.id),
            distance_m: row.distance_m,
            keys: OfferKeys {
                parent_id: row.parent_id,
                title_key: row.title_key.unwrap_or_default(),
                source_ref_key: row.source_ref,
            },
        })
        .collect();
    Ok(match matching::decide_offer(&keys, &candidates) {
        MatchDecision::Match(mut best) if redirects => {
            best.id = survivor_of(conn, table, best.id).await?;
            MatchDecision::Match(best)
        }
        decision => decision,
    })
}

/// The record an entry creates. Pure, so a merge of two offers replays it from the entry.
pub(crate) fn created_write(
    table: CanonicalTable,
    entry: &SpaceTimeEntry,
    d: OfferDraft,
) -> OfferWrite {
    let evidence = initial_evidence(OFFER_FIELDS, &evidence_of(entry));
    let source_ref = entry
        .source_ref
        .as_deref()
        .and_then(normalize::source_ref_key);
    let title_key = normalize::title_key(&d.title);
    let window = incoming_window(table, entry, &d);
    let t = offer_table(table);
    let c = d.common;
    OfferWrite {
        principal_id: None,
        contact_agent_id: None,
        side: OfferSide {
            parent_entity_id: d.parent_entity_id,
            offer_type: d.offer_type,
            amount: d.amount,
            availability_status: d.availability_status.filter(|_| t.has_availability),
            window,
        },
        title: d.title,
        description: c.description,
        categories: union_strings(&[], &c.categories),
        link_urls: Value::Array(union_link_urls(&[], &c.link_urls)),
        currency_code: d.currency_code,
        location_lat: entry.latitude,
        location_lng: entry.longitude,
        address_text: c.address_text,
        city: c.city,
        country_code: c.country_code,
        status: "active".into(),
        context_l0_routing: Value::Object(c.context_l0_routing),
        context_l1_common: Value::Object(c.context_l1_common),
        context_l2_specific: Value::Object(c.context_l2_specific),
        context_l2_available_features: c.context_l2_available_features,
        source_ref,
        title_key,
        field_evidence: evidence,
    }
}

async fn create(
    conn: &mut PgConnection,
    entry: &SpaceTimeEntry,
    table: CanonicalTable,
    d: OfferDraft,
) -> AppResult<Decision> {
    let id = Uuid::now_v7();
    let write = created_write(table, entry, d);
    offers::insert(conn, offer_table(table), id, &write, entry.agent_id).await?;
    Ok(Decision::linked(
        table,
        id,
        LinkType::Created,
        "no existing record matched this evidence",
        json!({}),
    ))
}

async fn merge(
    conn: &mut PgConnection,
    entry: &SpaceTimeEntry,
    table: CanonicalTable,
    id: Uuid,
    d: OfferDraft,
    meta: Value,
) -> AppResult<Decision> {
    let changed = if table == CanonicalTable::Listings {
        merge_into::<Listing>(conn, entry, id, d).await?
    } else {
        merge_into::<CanonicalRequest>(conn, entry, id, d).await?
    };
    Ok(match changed {
        Some(changed) => Decision::merged(table, id, entry, changed, &meta),
        None => Decision::rejected(&format!(
            "the target {} does not exist",
            table.record_name()
        )),
    })
}

/// Merges the draft into the locked record; `None` when the record does not exist.
async fn merge_into<R: OfferRecord>(
    conn: &mut PgConnection,
    entry: &SpaceTimeEntry,
    id: Uuid,
    d: OfferDraft,
) -> AppResult<Option<Vec<String>>> {
    let Some(locked) = offers::get_for_update::<R>(conn, id).await? else {
        return Ok(None);
    };
    let (write, changed) = merged_write(R::TABLE.kind, stored_write(locked), entry, d);
    if !changed.is_empty() {
        offers::update(conn, &R::TABLE, id, &write).await?;
    }
    Ok(Some(changed))
}

/// A stored offer as the transformer writes it, so that merging starts from what is stored.
pub(crate) fn stored_write<R: OfferRecord>(locked: Locked<R>) -> OfferWrite {
    let (side, o) = locked.record.into_parts();
    OfferWrite {
        principal_id: o.principal_id,
        contact_agent_id: o.contact_agent_id,
        side,
        title_key: normalize::title_key(&o.title),
        title: o.title,
        description: o.description,
        categories: o.categories,
        link_urls: Value::Array(links_json(&o.link_urls)),
        currency_code: o.currency_code,
        location_lat: o.location_lat,
        location_lng: o.location_lng,
        address_text: o.address_text,
        city: o.city,
        country_code: o.country_code,
        status: o.status,
        context_l0_routing: o.context_l0_routing,
        context_l1_common: o.context_l1_common,
        context_l2_specific: o.context_l2_specific,
        context_l2_available_features: o.context_l2_available_features,
        source_ref: locked.source_ref,
        field_evidence: locked.field_evidence,
    }
}

/// What merging an entry into an offer writes, and which fields changed. Pure, so a merge of two
/// offers replays their history from the entries.
pub(crate) fn merged_write(
    table: CanonicalTable,
    o: OfferWrite,
    entry: &SpaceTimeEntry,
    d: OfferDraft,
) -> (OfferWrite, Vec<String>) {
    let t = offer_table(table);
    let intent = if entry.entry_intent == EntryIntent::Correct {
        MergeIntent::Correct
    } else {
        MergeIntent::Observe
    };
    let point = Some((entry.latitude, entry.longitude));
    let incoming = incoming_window(table, entry, &d);
    let [from_field, to_field] = window_fields(table);
    let mut m = FieldMerger::new(&o.field_evidence, evidence_of(entry), intent);
    let side = o.side;
    let c = d.common;
    let location = m.required("location", (o.location_lat, o.location_lng), point);
    let parent_entity_id = m.optional(
        "parent_entity_id",
        side.parent_entity_id,
        d.parent_entity_id,
    );
    let offer_type = m.required("offer_type", side.offer_type, Some(d.offer_type));
    let title = m.required("title", o.title, Some(d.title));
    let description = m.optional("description", o.description, c.description);
    let categories = m.strings("categories", o.categories, &c.categories);
    let stored_links = o.link_urls.as_array().cloned().unwrap_or_default();
    let link_urls = Value::Array(m.links("link_urls", stored_links, &c.link_urls));
    let amount = m.optional("amount", side.amount, d.amount);
    let currency_code = m.optional("currency_code", o.currency_code, d.currency_code);
    let availability_status = if t.has_availability {
        m.optional(
            "availability_status",
            side.availability_status,
            d.availability_status,
        )
    } else {
        None
    };
    let address_text = m.optional("address_text", o.address_text, c.address_text);
    let city = m.optional("city", o.city, c.city);
    let country_code = m.optional("country_code", o.country_code, c.country_code);
    let window = [
        m.optional(from_field, side.window[0], incoming[0]),
        m.optional(to_field, side.window[1], incoming[1]),
    ];
    let write = OfferWrite {
        principal_id: o.principal_id,
        contact_agent_id: o.contact_agent_id,
        side: OfferSide {
            parent_entity_id,
            offer_type,
            amount,
            availability_status,
            window,
        },
        title_key: normalize::title_key(&title),
        title,
        description,
        categories,
        link_urls,
        currency_code,
        location_lat: location.0,
        location_lng: location.1,
        address_text,
        city,
        country_code,
        status: o.status,
        context_l0_routing: m.layer(
            "context_l0_routing",
            o.context_l0_routing,
            &c.context_l0_routing,
        ),
        context_l1_common: m.layer(
            "context_l1_common",
            o.context_l1_common,
            &c.context_l1_common,
        ),
        context_l2_specific: m.layer(
            "context_l2_specific",
            o.context_l2_specific,
            &c.context_l2_specific,
        ),
        context_l2_available_features: m.strings(
            "context_l2_available_features",
            o.context_l2_available_features,
            &c.context_l2_available_features,
        ),
        source_ref: o.source_ref,
        field_evidence: Value::Null,
    };
    let changed = m.changed().to_vec();
    let write = OfferWrite {
        field_evidence: m.into_evidence(),
        ..write
    };
    (write, changed)
}
