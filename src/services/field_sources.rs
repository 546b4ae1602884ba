//! A record's stored per-field evidence (`field_evidence`, written by the transformer) read as
//! its field sources, sorted by field name: from a JSON tree for the provenance reads, and
//! straight from the JSON text into reused sources for the bulk export, which reads a million
//! of them in a row.

use crate::records::provenance::FieldSource;
use crate::transform::merge::FieldEvidence;
use serde::Deserialize;
use serde::de::{DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde_json::Value;
use std::fmt;

/// The field sources of stored evidence; a field whose evidence does not have the transformer's
/// shape is left out.
pub(crate) fn sources_of(evidence: &Value) -> Vec<FieldSource> {
    let Some(fields) = evidence.as_object() else {
        return Vec::new();
    };
    let mut sources: Vec<FieldSource> = fields
        .iter()
        .filter_map(|(field, value)| {
            // Read in place: `from_value` would take a copy of the field's whole JSON tree.
            let evidence = FieldEvidence::deserialize(value).ok()?;
            Some(source(field.clone(), &evidence))
        })
        .collect();
    sort(&mut sources);
    sources
}

/// The field sources of stored evidence given as JSON text, written into `sources` (whose
/// entries and field names are reused): no JSON tree, no allocation once `sources` has grown.
/// Text that is not an object of well-formed evidence is read as `sources_of` reads it.
pub(crate) fn read_sources(json: &[u8], sources: &mut Vec<FieldSource>) {
    let mut deserializer = serde_json::Deserializer::from_slice(json);
    let read = Fill(sources)
        .deserialize(&mut deserializer)
        .and_then(|()| deserializer.end());
    if read.is_err() {
        let tree = serde_json::from_slice(json).unwrap_or(Value::Null);
        *sources = sources_of(&tree);
    }
    sort(sources);
}

fn sort(sources: &mut [FieldSource]) {
    sources.sort_unstable_by(|a, b| a.field.cmp(&b.field));
}

fn source(field: String, evidence: &FieldEvidence) -> FieldSource {
    FieldSource {
        field,
        space_time_entry_id: evidence.entry_id,
        agent_id: evidence.agent_id,
        observed_at_tstamp_utc: evidence.observed_at,
        score_confidence: evidence.confidence,
    }
}

/// Reads an evidence object into the sources it is given, overwriting them in place.
struct Fill<'a>(&'a mut Vec<FieldSource>);

impl<'de> DeserializeSeed<'de> for Fill<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Fill<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object of field evidence")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let sources = self.0;
        let mut filled = 0;
        // Field names are plain identifiers: borrowed from the text, never escaped.
        while let Some(field) = map.next_key::<&'de str>()? {
            let evidence: FieldEvidence = map.next_value()?;
            match sources.get_mut(filled) {
                Some(reused) => {
                    reused.field.clear();
                    reused.field.push_str(field);
                    reused.space_time_entry_id = evidence.entry_id;
                    reused.agent_id = evidence.agent_id;
                    reused.observed_at_tstamp_utc = evidence.observed_at;
                    reused.score_confidence = evidence.confidence;
                }
                None => sources.push(source(field.to_owned(), &evidence)),
            }
            filled += 1;
        }
        sources.truncate(filled);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use uuid::Uuid;

    #[test]
    fn stored_evidence_becomes_field_sources_by_name() {
        let (entry, agent) = (Uuid::new_v4(), Uuid::new_v4());
        let evidence = json!({
            "phone": {"entry_id": entry, "agent_id": agent, "observed_at": "2026-11-01T10:00:00Z", "confidence": 0.8},
            "display_name": {"entry_id": entry, "agent_id": agent, "observed_at": null, "confidence": 0.5},
            "broken": {"entry_id": "not a uuid"},
        });
        let sources = sources_of(&evidence);
        let fields: Vec<&str> = sources.iter().map(|s| s.field.as_str()).collect();
        assert_eq!(fields, ["display_name", "phone"]);
        assert_eq!(sources[1].space_time_entry_id, entry);
        assert_eq!(sources[1].score_confidence, 0.8);
        assert!(sources[0].observed_at_tstamp_utc.is_none());
        assert!(sources_of(&Value::Null).is_empty());
    }

    #[test]
    fn evidence_text_is_read_into_reused_sources_as_the_tree_is() {
        let (entry, agent) = (Uuid::new_v4(), Uuid::new_v4());
        let well_formed = json!({
            "website_url": {"entry_id": entry, "agent_id": agent, "observed_at": "2026-11-01T10:00:00.5Z", "confidence": 0.9, "extra": [1]},
            "city": {"entry_id": agent, "agent_id": entry, "observed_at": null, "confidence": 1},
            "phone": {"entry_id": entry, "agent_id": agent, "confidence": 0.25},
        });
        let with_a_broken_field = json!({
            "phone": {"entry_id": entry, "agent_id": agent, "observed_at": null, "confidence": 0.8},
            "broken": {"entry_id": "not a uuid"},
        });
        // Reused sources longer, then shorter, than the evidence: every entry is overwritten.
        let mut sources = sources_of(&json!({
            "a": {"entry_id": agent, "agent_id": agent, "observed_at": null, "confidence": 0.1},
            "b": {"entry_id": agent, "agent_id": agent, "observed_at": null, "confidence": 0.1},
            "c": {"entry_id": agent, "agent_id": agent, "observed_at": null, "confidence": 0.1},
            "d": {"entry_id": agent, "agent_id": agent, "observed_at": null, "confidence": 0.1},
        }));
        for evidence in [
            &well_formed,
            &with_a_broken_field,
            &well_formed,
            &json!({}),
            &json!([1, 2]),
            &Value::Null,
        ] {
            read_sources(evidence.to_string().as_bytes(), &mut sources);
            assert_eq!(sources, sources_of(evidence), "{evidence}");
        }
        read_sources(b"{\"phone\": {", &mut sources);
        assert!(sources.is_empty(), "text that is not JSON has no sources");
    }
}
