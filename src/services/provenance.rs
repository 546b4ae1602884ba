//! Provenance reads for analysts, and its W3C PROV-O (JSON-LD) form.

use super::{agents, canonical, entries, field_sources};
use crate::db;
use crate::db::contributions::ContributionFilter;
use crate::domain::{CanonicalTable, ListParams};
use crate::error::AppResult;
use crate::records::canonical::{CanonicalRequest, Entity, Listing};
use crate::records::provenance::{
    AgentInfluence, ContributionEvidence, FieldSource, RecordProvenance,
};
use crate::state::AppState;
use serde_json::{Value, json};
use std::collections::HashMap;
use uuid::Uuid;

/// Contributions a provenance answer carries, oldest first.
pub const MAX_CONTRIBUTIONS: i64 = 500;

/// The field sources of many records of one table, by record id (one statement).
#[tracing::instrument(
    name = "provenance::field_sources", level = "debug", skip_all,
    fields(table = ?table, count = ids.len())
)]
pub async fn field_sources(
    state: &AppState,
    table: CanonicalTable,
    ids: &[Uuid],
) -> AppResult<HashMap<Uuid, Vec<FieldSource>>> {
    let rows =
        db::provenance::field_evidence(crate::services::read_route::reads(state), table, ids)
            .await?;
    Ok(rows
        .into_iter()
        .map(|(id, evidence)| (id, field_sources::sources_of(&evidence)))
        .collect())
}

/// A record's provenance: 404 when the record does not exist.
#[tracing::instrument(
    name = "provenance::of_record", level = "debug", skip_all,
    fields(table = ?table, id = %id)
)]
pub async fn of_record(
    state: &AppState,
    table: CanonicalTable,
    id: Uuid,
) -> AppResult<RecordProvenance> {
    match table {
        CanonicalTable::Entities => canonical::record::<Entity>(state, id).await.map(|_| ())?,
        CanonicalTable::Listings => canonical::record::<Listing>(state, id).await.map(|_| ())?,
        CanonicalTable::Requests => canonical::record::<CanonicalRequest>(state, id)
            .await
            .map(|_| ())?,
    }
    let fields = field_sources(state, table, &[id])
        .await?
        .remove(&id)
        .unwrap_or_default();
    let filter = ContributionFilter {
        target_canonical_table: Some(table),
        target_canonical_id: Some(id),
        space_time_entry_id: None,
    };
    let params = ListParams::new(Some(MAX_CONTRIBUTIONS), None, &["limit"])?;
    let mut contributions = canonical::contributions(state, filter, params).await?.items;
    contributions.sort_by_key(|c| (c.created_at_tstamp_utc, c.id));
    let entry_ids: Vec<Uuid> = contributions
        .iter()
        .map(|c| c.source_space_time_entry_id)
        .collect();
    let entries: HashMap<Uuid, _> = entries::get_many(state, &entry_ids)
        .await?
        .into_iter()
        .map(|e| (e.id, e))
        .collect();
    let agent_ids: Vec<Uuid> = entries.values().map(|e| e.agent_id).collect();
    let agents: HashMap<Uuid, _> = agents::get_many(state, &agent_ids)
        .await?
        .into_iter()
        .map(|a| (a.id, a))
        .collect();
    let contributions = contributions
        .into_iter()
        .filter_map(|contribution| {
            let entry = entries.get(&contribution.source_space_time_entry_id)?;
            Some(ContributionEvidence {
                agent_id: entry.agent_id,
                agent_display_name: agents
                    .get(&entry.agent_id)
                    .map(|a| a.display_name.clone())
                    .unwrap_or_default(),
                observed_at_tstamp_utc: entry.observed_at_tstamp_utc,
                source_type: entry.source_type.clone(),
                source_ref: entry.source_ref.clone(),
                entry_score_confidence: entry.score_confidence,
                contribution,
            })
        })
        .collect();
    Ok(RecordProvenance {
        canonical_table: table,
        canonical_id: id,
        fields,
        contributions,
    })
}

/// Each agent's influence over its newest `db::COUNT_CAP` entries (zero counts for an agent without
/// contributions), in one statement.
#[tracing::instrument(
    name = "provenance::influence", level = "debug", skip_all,
    fields(count = agent_ids.len())
)]
pub async fn influence(
    state: &AppState,
    agent_ids: &[Uuid],
) -> AppResult<HashMap<Uuid, AgentInfluence>> {
    let reads = crate::services::read_route::reads(state);
    let mut found: HashMap<Uuid, AgentInfluence> =
        db::provenance::influence(reads, agent_ids, db::COUNT_CAP)
            .await?
            .into_iter()
            .collect();
    for id in agent_ids {
        found.entry(*id).or_default();
    }
    Ok(found)
}

/// The provenance as W3C PROV-O in JSON-LD: the record is a `prov:Entity` derived from each
/// contributing entry (a qualified `prov:Derivation` carrying the link type and the transformer
/// run as its activity); each entry is a `prov:Entity` attributed to its agent (`prov:Agent`),
/// with its observation time and primary source; each field's source is a qualified derivation
/// naming the field.
pub fn prov_o(provenance: &RecordProvenance, base_url: &str) -> Value {
    let record = format!("urn:uuid:{}", provenance.canonical_id);
    let mut graph = Vec::new();
    let mut seen_agents = std::collections::HashSet::new();
    let mut derivations = Vec::new();
    for item in &provenance.contributions {
        let c = &item.contribution;
        let entry = format!("urn:uuid:{}", c.source_space_time_entry_id);
        let agent = format!("urn:uuid:{}", item.agent_id);
        derivations.push(json!({
            "@id": format!("urn:uuid:{}", c.id),
            "@type": "prov:Derivation",
            "prov:entity": {"@id": entry},
            "prov:hadActivity": {"@id": format!("urn:uuid:{}", c.transformer_run_id)},
            "prov:atTime": {"@value": c.created_at_tstamp_utc.to_rfc3339(), "@type": "xsd:dateTime"},
            "strs:linkType": c.link_type.as_str(),
            "strs:scoreConfidence": c.score_confidence.to_string(),
        }));
        let mut entry_node = json!({
            "@id": entry,
            "@type": "prov:Entity",
            "strs:kind": "space_time_entry",
            "prov:wasAttributedTo": {"@id": agent},
            "strs:scoreConfidence": item.entry_score_confidence.to_string(),
        });
        if let Some(observed) = item.observed_at_tstamp_utc {
            entry_node["prov:generatedAtTime"] =
                json!({"@value": observed.to_rfc3339(), "@type": "xsd:dateTime"});
        }
        if let Some(source) = &item.source_ref {
            entry_node["prov:hadPrimarySource"] = json!(source);
        }
        if let Some(kind) = &item.source_type {
            entry_node["strs:sourceType"] = json!(kind);
        }
        graph.push(entry_node);
        graph.push(json!({
            "@id": format!("urn:uuid:{}", c.transformer_run_id),
            "@type": "prov:Activity",
            "prov:used": {"@id": entry},
            "prov:wasAssociatedWith": {"@id": "strs:SpaceTimeEntryTransformer"},
        }));
        if seen_agents.insert(item.agent_id) {
            graph.push(json!({
                "@id": agent,
                "@type": "prov:Agent",
                "prov:label": item.agent_display_name,
            }));
        }
    }
    for field in &provenance.fields {
        derivations.push(json!({
            "@type": "prov:Derivation",
            "prov:entity": {"@id": format!("urn:uuid:{}", field.space_time_entry_id)},
            "strs:field": field.field,
            "strs:scoreConfidence": field.score_confidence,
        }));
    }
    graph.insert(
        0,
        json!({
            "@id": record,
            "@type": "prov:Entity",
            "strs:canonicalTable": provenance.canonical_table.as_str(),
            "prov:wasDerivedFrom": provenance.contributions.iter()
                .map(|c| json!({"@id": format!("urn:uuid:{}", c.contribution.source_space_time_entry_id)}))
                .collect::<Vec<_>>(),
            "prov:qualifiedDerivation": derivations,
        }),
    );
    graph.push(json!({
        "@id": "strs:SpaceTimeEntryTransformer",
        "@type": ["prov:Agent", "prov:SoftwareAgent"],
        "prov:label": "Space-Time Records transformer",
    }));
    json!({
        "@context": {
            "prov": "http://www.w3.org/ns/prov#",
            "xsd": "http://www.w3.org/2001/XMLSchema#",
            "strs": format!("{}/api-docs#", base_url.trim_end_matches('/')),
        },
        "@graph": graph,
    })
}
