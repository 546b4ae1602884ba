//! Applies `merge::field_verdict` field by field and remembers, per field, the evidence that set
//! it (`field_evidence`), so a later entry is judged against the fact it would replace.

use super::merge::{
    FieldEvidence, MergeIntent, Verdict, field_verdict, union_link_urls, union_strings,
};
use serde_json::{Map, Value};

pub struct FieldMerger {
    evidence: Map<String, Value>,
    incoming: FieldEvidence,
    intent: MergeIntent,
    changed: Vec<String>,
}

impl FieldMerger {
    pub fn new(
        existing_evidence: &Value,
        incoming: FieldEvidence,
        intent: MergeIntent,
    ) -> FieldMerger {
        let evidence = existing_evidence.as_object().cloned().unwrap_or_default();
        FieldMerger {
            evidence,
            incoming,
            intent,
            changed: Vec::new(),
        }
    }

    fn evidence_of(&self, field: &str) -> Option<FieldEvidence> {
        self.evidence
            .get(field)
            .and_then(|v| serde_json::from_value(v.clone()).ok())
    }

    fn record(&mut self, field: &str) {
        let value = serde_json::to_value(&self.incoming).unwrap_or(Value::Null);
        self.evidence.insert(field.to_string(), value);
        self.changed.push(field.to_string());
    }

    /// An optional field: the incoming value fills or replaces it only when its evidence wins.
    pub fn optional<T: PartialEq>(
        &mut self,
        field: &str,
        existing: Option<T>,
        incoming: Option<T>,
    ) -> Option<T> {
        let Some(incoming) = incoming else {
            return existing;
        };
        let verdict = field_verdict(
            existing.as_ref(),
            self.evidence_of(field).as_ref(),
            &incoming,
            &self.incoming,
            self.intent,
        );
        match verdict {
            Verdict::Fill | Verdict::Replace => {
                self.record(field);
                Some(incoming)
            }
            Verdict::Same | Verdict::Keep => existing,
        }
    }

    /// The same value written better (`transform::display`): taken whatever the evidence's
    /// weight, since it changes no fact, and recorded as set by this entry.
    pub fn reform<T: PartialEq>(&mut self, field: &str, existing: T, better: T) -> T {
        if existing == better {
            return existing;
        }
        self.record(field);
        better
    }

    pub fn required<T: PartialEq>(&mut self, field: &str, existing: T, incoming: Option<T>) -> T {
        match self.optional(field, Some(existing), incoming) {
            Some(value) => value,
            None => unreachable!("an existing value stays when nothing replaces it"),
        }
    }

    pub fn strings(
        &mut self,
        field: &str,
        existing: Vec<String>,
        incoming: &[String],
    ) -> Vec<String> {
        let merged = union_strings(&existing, incoming);
        if merged.len() != existing.len() {
            self.changed.push(field.to_string());
        }
        merged
    }

    pub fn links(&mut self, field: &str, existing: Vec<Value>, incoming: &[Value]) -> Vec<Value> {
        let merged = union_link_urls(&existing, incoming);
        if merged.len() != existing.len() {
            self.changed.push(field.to_string());
        }
        merged
    }

    /// Context layers merge key by key: new keys are added, existing keys follow the evidence rule.
    pub fn layer(&mut self, field: &str, existing: Value, incoming: &Map<String, Value>) -> Value {
        let mut merged = existing.as_object().cloned().unwrap_or_default();
        for (key, value) in incoming {
            let path = format!("{field}.{key}");
            let current = merged.get(key).cloned();
            if let Some(chosen) = self.optional(&path, current, Some(value.clone())) {
                merged.insert(key.clone(), chosen);
            }
        }
        Value::Object(merged)
    }

    pub fn changed(&self) -> &[String] {
        &self.changed
    }

    pub fn into_evidence(self) -> Value {
        Value::Object(self.evidence)
    }
}

/// Evidence for every field of a brand-new record: the creating entry set them all.
pub fn initial_evidence(fields: &[&str], incoming: &FieldEvidence) -> Value {
    let value = serde_json::to_value(incoming).unwrap_or(Value::Null);
    Value::Object(
        fields
            .iter()
            .map(|f| (f.to_string(), value.clone()))
            .collect(),
    )
}
