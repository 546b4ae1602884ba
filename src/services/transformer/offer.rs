//! Listing and request entries: matched within their own kind (same source record, or the same
//! title from the same provider/requester or at the same spot), then created or merged.

use super::entity::{evidence_of, links_json};
use super::outcome::Decision;
use super::ownership;
use crate::db::entries::SpaceTimeEntry;
use crate::db::{canonical, listings, requests};
use crate::domain::{CanonicalTable, EntryIntent, LinkType};
use crate::error::AppResult;
use crate::transform::extract::{self, OfferDraft};
use crate::transform::fields::{FieldMerger, initial_evidence};
use crate::transform::matching::{self, MatchDecision, OfferCandidate, OfferKeys};
use crate::transform::merge::{MergeIntent, union_link_urls, union_strings};
use crate::transform::normalize;
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

pub async fn apply(
    conn: &mut PgConnection,
    entry: &SpaceTimeEntry,
    table: CanonicalTable,
) -> AppResult<Decision> {
    let is_listing = table == CanonicalTable::Listings;
    let default_type = entry
        .entry_subtype
        .clone()
        .unwrap_or_else(|| (if is_listing { "offer" } else { "request" }).into());
    let intent = entry.entry_intent;
    let needs_content = matches!(
        intent,
        EntryIntent::Observe | EntryIntent::Submit | EntryIntent::AddContext | EntryIntent::Correct
    );
    let draft = match extract::offer_draft(&entry.context, is_listing, &default_type) {
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
        (None, Some(draft)) => find(conn, entry, table, draft).await?,
        (None, None) => MatchDecision::NoMatch { best: None },
    };
    let (id, meta) = match found {
        MatchDecision::Match(best) => (
            best.id,
            json!({"match": {"id": best.id, "score": best.score, "reasons": best.reasons}}),
        ),
        MatchDecision::Ambiguous(all) => {
            let ids: Vec<Uuid> = all.iter().map(|s| s.id).collect();
            return Ok(Decision::review(
                "several records match this evidence equally well",
                json!({"candidates": ids}),
            ));
        }
        MatchDecision::NoMatch { .. } => {
            return Ok(match (intent, draft) {
                (EntryIntent::Observe | EntryIntent::Submit, Some(draft)) => {
                    create(conn, entry, table, draft).await?
                }
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
    let (lat, lng, src) = (
        entry.latitude,
        entry.longitude,
        keys.source_ref_key.as_deref(),
    );
    let rows = if table == CanonicalTable::Listings {
        listings::candidates(conn, lat, lng, &keys.title_key, keys.parent_id, src).await?
    } else {
        requests::candidates(conn, lat, lng, &keys.title_key, keys.parent_id, src).await?
    };
    let candidates: Vec<OfferCandidate> = rows
        .into_iter()
        .map(|row| OfferCandidate {
            id: row.id,
            distance_m: row.distance_m,
            keys: OfferKeys {
                parent_id: row.parent_id,
                title_key: row.title_key.unwrap_or_default(),
                source_ref_key: row.source_ref,
            },
        })
        .collect();
    Ok(matching::decide_offer(&keys, &candidates))
}

async fn create(
    conn: &mut PgConnection,
    entry: &SpaceTimeEntry,
    table: CanonicalTable,
    d: OfferDraft,
) -> AppResult<Decision> {
    let id = Uuid::now_v7();
    let evidence = initial_evidence(OFFER_FIELDS, &evidence_of(entry));
    let source_ref = entry
        .source_ref
        .as_deref()
        .and_then(normalize::source_ref_key);
    let title_key = normalize::title_key(&d.title);
    let c = d.common;
    let links = Value::Array(union_link_urls(&[], &c.link_urls));
    if table == CanonicalTable::Listings {
        let write = listings::ListingWrite {
            principal_id: None,
            provider_entity_id: d.parent_entity_id,
            contact_agent_id: None,
            listing_type: d.offer_type,
            title: d.title,
            description: c.description,
            categories: union_strings(&[], &c.categories),
            link_urls: links,
            price_amount: d.amount,
            currency_code: d.currency_code,
            availability_status: d.availability_status,
            location_lat: entry.latitude,
            location_lng: entry.longitude,
            address_text: c.address_text,
            city: c.city,
            country_code: c.country_code,
            valid_from: entry.valid_from_tstamp_utc,
            valid_to: entry.valid_to_tstamp_utc,
            status: "active".into(),
            context_l0_routing: Value::Object(c.context_l0_routing),
            context_l1_common: Value::Object(c.context_l1_common),
            context_l2_specific: Value::Object(c.context_l2_specific),
            context_l2_available_features: c.context_l2_available_features,
            source_ref,
            title_key,
            field_evidence: evidence,
        };
        listings::insert(conn, id, &write, entry.agent_id).await?;
    } else {
        let write = requests::RequestWrite {
            principal_id: None,
            requester_entity_id: d.parent_entity_id,
            contact_agent_id: None,
            request_type: d.offer_type,
            title: d.title,
            description: c.description,
            categories: union_strings(&[], &c.categories),
            link_urls: links,
            budget_amount: d.amount,
            currency_code: d.currency_code,
            location_lat: entry.latitude,
            location_lng: entry.longitude,
            address_text: c.address_text,
            city: c.city,
            country_code: c.country_code,
            needed_from: d.needed_from,
            needed_by: d.needed_by,
            status: "active".into(),
            context_l0_routing: Value::Object(c.context_l0_routing),
            context_l1_common: Value::Object(c.context_l1_common),
            context_l2_specific: Value::Object(c.context_l2_specific),
            context_l2_available_features: c.context_l2_available_features,
            source_ref,
            title_key,
            field_evidence: evidence,
        };
        requests::insert(conn, id, &write, entry.agent_id).await?;
    }
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
    let intent = if entry.entry_intent == EntryIntent::Correct {
        MergeIntent::Correct
    } else {
        MergeIntent::Observe
    };
    let point = Some((entry.latitude, entry.longitude));
    let c = d.common;
    let changed = if table == CanonicalTable::Listings {
        let Some(locked) = listings::get_for_update(conn, id).await? else {
            return Ok(Decision::rejected("the target listing does not exist"));
        };
        let mut m = FieldMerger::new(&locked.field_evidence, evidence_of(entry), intent);
        let l = locked.record;
        let location = m.required(
            "location",
            (l.core.location_lat, l.core.location_lng),
            point,
        );
        let mut write = listings::ListingWrite {
            principal_id: l.core.principal_id,
            provider_entity_id: m.optional(
                "parent_entity_id",
                l.provider_entity_id,
                d.parent_entity_id,
            ),
            contact_agent_id: l.core.contact_agent_id,
            listing_type: m.required("offer_type", l.listing_type, Some(d.offer_type)),
            title: m.required("title", l.core.title, Some(d.title)),
            description: m.optional("description", l.core.description, c.description),
            categories: m.strings("categories", l.core.categories, &c.categories),
            link_urls: Value::Array(m.links(
                "link_urls",
                links_json(&l.core.link_urls),
                &c.link_urls,
            )),
            price_amount: m.optional("amount", l.price_amount, d.amount),
            currency_code: m.optional("currency_code", l.core.currency_code, d.currency_code),
            availability_status: m.optional(
                "availability_status",
                l.availability_status,
                d.availability_status,
            ),
            location_lat: location.0,
            location_lng: location.1,
            address_text: m.optional("address_text", l.core.address_text, c.address_text),
            city: m.optional("city", l.core.city, c.city),
            country_code: m.optional("country_code", l.core.country_code, c.country_code),
            valid_from: m.optional(
                "valid_from",
                l.valid_from_tstamp_utc,
                entry.valid_from_tstamp_utc,
            ),
            valid_to: m.optional("valid_to", l.valid_to_tstamp_utc, entry.valid_to_tstamp_utc),
            status: l.core.status,
            context_l0_routing: m.layer(
                "context_l0_routing",
                l.core.context_l0_routing,
                &c.context_l0_routing,
            ),
            context_l1_common: m.layer(
                "context_l1_common",
                l.core.context_l1_common,
                &c.context_l1_common,
            ),
            context_l2_specific: m.layer(
                "context_l2_specific",
                l.core.context_l2_specific,
                &c.context_l2_specific,
            ),
            context_l2_available_features: m.strings(
                "context_l2_available_features",
                l.core.context_l2_available_features,
                &c.context_l2_available_features,
            ),
            source_ref: locked.source_ref,
            title_key: String::new(),
            field_evidence: Value::Null,
        };
        let changed = m.changed().to_vec();
        write.title_key = normalize::title_key(&write.title);
        write.field_evidence = m.into_evidence();
        if !changed.is_empty() {
            listings::update(conn, id, &write).await?;
        }
        changed
    } else {
        let Some(locked) = requests::get_for_update(conn, id).await? else {
            return Ok(Decision::rejected("the target request does not exist"));
        };
        let mut m = FieldMerger::new(&locked.field_evidence, evidence_of(entry), intent);
        let r = locked.record;
        let location = m.required(
            "location",
            (r.core.location_lat, r.core.location_lng),
            point,
        );
        let mut write = requests::RequestWrite {
            principal_id: r.core.principal_id,
            requester_entity_id: m.optional(
                "parent_entity_id",
                r.requester_entity_id,
                d.parent_entity_id,
            ),
            contact_agent_id: r.core.contact_agent_id,
            request_type: m.required("offer_type", r.request_type, Some(d.offer_type)),
            title: m.required("title", r.core.title, Some(d.title)),
            description: m.optional("description", r.core.description, c.description),
            categories: m.strings("categories", r.core.categories, &c.categories),
            link_urls: Value::Array(m.links(
                "link_urls",
                links_json(&r.core.link_urls),
                &c.link_urls,
            )),
            budget_amount: m.optional("amount", r.budget_amount, d.amount),
            currency_code: m.optional("currency_code", r.core.currency_code, d.currency_code),
            location_lat: location.0,
            location_lng: location.1,
            address_text: m.optional("address_text", r.core.address_text, c.address_text),
            city: m.optional("city", r.core.city, c.city),
            country_code: m.optional("country_code", r.core.country_code, c.country_code),
            needed_from: m.optional("needed_from", r.needed_from_tstamp_utc, d.needed_from),
            needed_by: m.optional("needed_by", r.needed_by_tstamp_utc, d.needed_by),
            status: r.core.status,
            context_l0_routing: m.layer(
                "context_l0_routing",
                r.core.context_l0_routing,
                &c.context_l0_routing,
            ),
            context_l1_common: m.layer(
                "context_l1_common",
                r.core.context_l1_common,
                &c.context_l1_common,
            ),
            context_l2_specific: m.layer(
                "context_l2_specific",
                r.core.context_l2_specific,
                &c.context_l2_specific,
            ),
            context_l2_available_features: m.strings(
                "context_l2_available_features",
                r.core.context_l2_available_features,
                &c.context_l2_available_features,
            ),
            source_ref: locked.source_ref,
            title_key: String::new(),
            field_evidence: Value::Null,
        };
        let changed = m.changed().to_vec();
        write.title_key = normalize::title_key(&write.title);
        write.field_evidence = m.into_evidence();
        if !changed.is_empty() {
            requests::update(conn, id, &write).await?;
        }
        changed
    };
    Ok(Decision::merged(table, id, entry, changed, &meta))
}
