//! Whose fact wins when evidence about a known record disagrees with it.
//!
//! Many agents write about the same record. An agent may always update what
//! it said itself, but it must not silently overwrite another agent's fact
//! unless its own evidence is clearly stronger: otherwise two agents with
//! different sources would flip a field back and forth on every visit.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use uuid::Uuid;

use super::normalize::link_key;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FieldEvidence {
    pub entry_id: Uuid,
    pub agent_id: Uuid,
    pub observed_at: Option<DateTime<Utc>>,
    pub confidence: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MergeIntent {
    Observe,
    Correct,
    Verify,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Fill,
    Replace,
    Same,
    Keep,
}

/// Confidence that another agent's observation must add to win outright.
pub const CLEARLY_MORE_CONFIDENT_BY: f64 = 0.10;
/// Confidence a strictly fresher observation may lack and still win.
pub const FRESHER_CONFIDENCE_ALLOWANCE: f64 = 0.05;
/// Confidence assumed for a stored value whose evidence was not recorded.
pub const UNRECORDED_EVIDENCE_CONFIDENCE: f64 = 0.5;

/// Confidences are decimal fractions: 0.7 - 0.6 must count as 0.1.
const CONFIDENCE_TOLERANCE: f64 = 1e-9;

/// What is known about how the stored value got there.
struct StoredEvidence {
    agent_id: Option<Uuid>,
    observed_at: Option<DateTime<Utc>>,
    confidence: f64,
}

impl StoredEvidence {
    /// Missing evidence is a middling confidence from an unknown agent at an
    /// unknown (hence oldest) time.
    fn from(evidence: Option<&FieldEvidence>) -> Self {
        match evidence {
            Some(evidence) => Self {
                agent_id: Some(evidence.agent_id),
                observed_at: evidence.observed_at,
                confidence: usable_confidence(evidence.confidence),
            },
            None => Self {
                agent_id: None,
                observed_at: None,
                confidence: UNRECORDED_EVIDENCE_CONFIDENCE,
            },
        }
    }
}

pub fn field_verdict<T: PartialEq>(
    existing: Option<&T>,
    existing_evidence: Option<&FieldEvidence>,
    incoming: &T,
    incoming_evidence: &FieldEvidence,
    intent: MergeIntent,
) -> Verdict {
    let Some(existing) = existing else {
        // Filling a gap overwrites nobody, whatever the intent.
        return Verdict::Fill;
    };
    if existing == incoming {
        return Verdict::Same;
    }
    if intent == MergeIntent::Verify {
        return Verdict::Keep;
    }
    let stored = StoredEvidence::from(existing_evidence);
    let replaces = if stored.agent_id == Some(incoming_evidence.agent_id) {
        supersedes_own_fact(&stored, incoming_evidence, intent)
    } else {
        outweighs_other_agents_fact(&stored, incoming_evidence, intent)
    };
    if replaces {
        Verdict::Replace
    } else {
        Verdict::Keep
    }
}

/// An agent's late-arriving older observation must not undo its newer one.
fn supersedes_own_fact(
    stored: &StoredEvidence,
    incoming: &FieldEvidence,
    intent: MergeIntent,
) -> bool {
    // `None < Some(_)`: an undated observation is older than any dated one.
    intent == MergeIntent::Correct || incoming.observed_at >= stored.observed_at
}

/// A correction is never weaker than a plain observation: it wins when the
/// observation would, and also when it is at least as confident.
fn outweighs_other_agents_fact(
    stored: &StoredEvidence,
    incoming: &FieldEvidence,
    intent: MergeIntent,
) -> bool {
    let confidence = usable_confidence(incoming.confidence);
    let clearly_more_confident =
        confidence >= stored.confidence + CLEARLY_MORE_CONFIDENT_BY - CONFIDENCE_TOLERANCE;
    let fresher_and_about_as_confident = incoming.observed_at > stored.observed_at
        && confidence >= stored.confidence - FRESHER_CONFIDENCE_ALLOWANCE - CONFIDENCE_TOLERANCE;
    let confident_correction =
        intent == MergeIntent::Correct && confidence >= stored.confidence - CONFIDENCE_TOLERANCE;
    clearly_more_confident || fresher_and_about_as_confident || confident_correction
}

/// A confidence outside 0..=1 (or NaN) is a caller's bug; it must not let
/// evidence win, so it is clamped and NaN counts as no confidence.
fn usable_confidence(confidence: f64) -> f64 {
    if confidence.is_nan() {
        0.0
    } else {
        confidence.clamp(0.0, 1.0)
    }
}

/// Existing values stay as they are and in their order; incoming ones are
/// appended, trimmed, unless already present ignoring case.
pub fn union_strings(existing: &[String], incoming: &[String]) -> Vec<String> {
    let mut merged = existing.to_vec();
    let mut seen: Vec<String> = existing.iter().map(|value| comparable(value)).collect();
    for value in incoming.iter().map(|value| value.trim()) {
        let key = comparable(value);
        if !value.is_empty() && !seen.contains(&key) {
            seen.push(key);
            merged.push(value.to_owned());
        }
    }
    merged
}

fn comparable(value: &str) -> String {
    value.trim().to_lowercase()
}

/// Links `{url, label?, description?}` deduplicated by their normalised URL
/// (so `www.x.com/a/` and `https://x.com/a?utm_source=y` are one link); the
/// first occurrence wins. Items without a usable string `url` are dropped.
pub fn union_link_urls(existing: &[Value], incoming: &[Value]) -> Vec<Value> {
    let mut seen: Vec<String> = Vec::new();
    let mut merged = Vec::new();
    for item in existing.iter().chain(incoming) {
        let Some(key) = item.get("url").and_then(Value::as_str).and_then(link_key) else {
            continue;
        };
        if !seen.contains(&key) {
            seen.push(key);
            merged.push(item.clone());
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;
    use serde_json::json;

    use super::*;

    const ALICE: Uuid = Uuid::from_u128(0xA11CE);
    const BOB: Uuid = Uuid::from_u128(0xB0B);

    fn at(day: u32) -> Option<DateTime<Utc>> {
        Some(Utc.with_ymd_and_hms(2026, 3, day, 12, 0, 0).unwrap())
    }

    fn evidence(
        agent_id: Uuid,
        observed_at: Option<DateTime<Utc>>,
        confidence: f64,
    ) -> FieldEvidence {
        FieldEvidence {
            entry_id: Uuid::now_v7(),
            agent_id,
            observed_at,
            confidence,
        }
    }

    fn verdict(
        stored: Option<&FieldEvidence>,
        incoming: &FieldEvidence,
        intent: MergeIntent,
    ) -> Verdict {
        field_verdict(
            Some(&"09:00-17:00"),
            stored,
            &"08:00-18:00",
            incoming,
            intent,
        )
    }

    #[test]
    fn a_missing_value_is_filled() {
        let incoming = evidence(BOB, at(1), 0.1);
        for intent in [
            MergeIntent::Observe,
            MergeIntent::Correct,
            MergeIntent::Verify,
        ] {
            assert_eq!(
                field_verdict(None, None, &"Acme", &incoming, intent),
                Verdict::Fill,
                "{intent:?}"
            );
        }
    }

    #[test]
    fn an_equal_value_is_the_same_whoever_reports_it() {
        let stored = evidence(ALICE, at(5), 0.9);
        let incoming = evidence(BOB, at(1), 0.1);
        for intent in [
            MergeIntent::Observe,
            MergeIntent::Correct,
            MergeIntent::Verify,
        ] {
            assert_eq!(
                field_verdict(Some(&42), Some(&stored), &42, &incoming, intent),
                Verdict::Same,
                "{intent:?}"
            );
        }
    }

    #[test]
    fn an_agent_replaces_its_own_fact_with_a_newer_observation() {
        let stored = evidence(ALICE, at(1), 0.9);
        let incoming = evidence(ALICE, at(2), 0.3);
        assert_eq!(
            verdict(Some(&stored), &incoming, MergeIntent::Observe),
            Verdict::Replace
        );
    }

    #[test]
    fn an_agent_replaces_its_own_fact_observed_at_the_same_time() {
        let stored = evidence(ALICE, at(1), 0.9);
        let incoming = evidence(ALICE, at(1), 0.9);
        assert_eq!(
            verdict(Some(&stored), &incoming, MergeIntent::Observe),
            Verdict::Replace
        );
        let undated_twice = evidence(ALICE, None, 0.5);
        assert_eq!(
            verdict(Some(&undated_twice), &undated_twice, MergeIntent::Observe),
            Verdict::Replace
        );
    }

    #[test]
    fn an_agents_older_observation_does_not_undo_its_newer_one() {
        let stored = evidence(ALICE, at(5), 0.5);
        let incoming = evidence(ALICE, at(1), 1.0);
        assert_eq!(
            verdict(Some(&stored), &incoming, MergeIntent::Observe),
            Verdict::Keep
        );
        let undated = evidence(ALICE, None, 1.0);
        assert_eq!(
            verdict(Some(&stored), &undated, MergeIntent::Observe),
            Verdict::Keep
        );
    }

    #[test]
    fn an_agent_may_correct_its_own_fact_whatever_the_dates() {
        let stored = evidence(ALICE, at(5), 0.9);
        let incoming = evidence(ALICE, at(1), 0.2);
        assert_eq!(
            verdict(Some(&stored), &incoming, MergeIntent::Correct),
            Verdict::Replace
        );
    }

    #[test]
    fn another_agent_replaces_when_clearly_more_confident() {
        let stored = evidence(ALICE, at(5), 0.6);
        let older_but_surer = evidence(BOB, at(1), 0.7);
        assert_eq!(
            verdict(Some(&stored), &older_but_surer, MergeIntent::Observe),
            Verdict::Replace
        );
    }

    #[test]
    fn another_agent_slightly_more_confident_but_not_fresher_keeps_the_fact() {
        let stored = evidence(ALICE, at(5), 0.6);
        let incoming = evidence(BOB, at(5), 0.69);
        assert_eq!(
            verdict(Some(&stored), &incoming, MergeIntent::Observe),
            Verdict::Keep
        );
    }

    #[test]
    fn another_agent_replaces_with_a_fresher_observation_of_about_the_same_confidence() {
        let stored = evidence(ALICE, at(1), 0.8);
        let incoming = evidence(BOB, at(2), 0.75);
        assert_eq!(
            verdict(Some(&stored), &incoming, MergeIntent::Observe),
            Verdict::Replace
        );
    }

    #[test]
    fn another_agents_fresher_but_less_confident_observation_is_kept_out() {
        let stored = evidence(ALICE, at(1), 0.8);
        let incoming = evidence(BOB, at(2), 0.74);
        assert_eq!(
            verdict(Some(&stored), &incoming, MergeIntent::Observe),
            Verdict::Keep
        );
    }

    #[test]
    fn another_agents_equally_fresh_observation_is_not_fresher() {
        let stored = evidence(ALICE, at(2), 0.8);
        let incoming = evidence(BOB, at(2), 0.8);
        assert_eq!(
            verdict(Some(&stored), &incoming, MergeIntent::Observe),
            Verdict::Keep
        );
    }

    #[test]
    fn another_agents_correction_needs_at_least_equal_confidence() {
        let stored = evidence(ALICE, at(5), 0.8);
        let as_sure = evidence(BOB, at(1), 0.8);
        let less_sure = evidence(BOB, at(1), 0.79);
        assert_eq!(
            verdict(Some(&stored), &as_sure, MergeIntent::Correct),
            Verdict::Replace
        );
        assert_eq!(
            verdict(Some(&stored), &less_sure, MergeIntent::Correct),
            Verdict::Keep
        );
    }

    #[test]
    fn another_agents_correction_is_never_weaker_than_an_observation() {
        let stored = evidence(ALICE, at(1), 0.8);
        let fresher_slightly_less_sure = evidence(BOB, at(2), 0.77);
        assert_eq!(
            verdict(
                Some(&stored),
                &fresher_slightly_less_sure,
                MergeIntent::Correct
            ),
            Verdict::Replace
        );
    }

    #[test]
    fn verify_never_replaces() {
        let stored = evidence(ALICE, at(1), 0.2);
        for agent in [ALICE, BOB] {
            let incoming = evidence(agent, at(9), 1.0);
            assert_eq!(
                verdict(Some(&stored), &incoming, MergeIntent::Verify),
                Verdict::Keep
            );
        }
    }

    #[test]
    fn unrecorded_evidence_counts_as_half_confident_and_oldest() {
        let fresher_a_little_less_sure = evidence(BOB, at(1), 0.45);
        assert_eq!(
            verdict(None, &fresher_a_little_less_sure, MergeIntent::Observe),
            Verdict::Replace
        );
        let undated_more_sure = evidence(BOB, None, 0.55);
        assert_eq!(
            verdict(None, &undated_more_sure, MergeIntent::Observe),
            Verdict::Keep
        );
        let undated_clearly_surer = evidence(BOB, None, 0.6);
        assert_eq!(
            verdict(None, &undated_clearly_surer, MergeIntent::Observe),
            Verdict::Replace
        );
        let undated_less_sure = evidence(BOB, None, 0.4);
        assert_eq!(
            verdict(None, &undated_less_sure, MergeIntent::Observe),
            Verdict::Keep
        );
    }

    #[test]
    fn undated_incoming_evidence_is_never_fresher() {
        let stored = evidence(ALICE, None, 0.5);
        let incoming = evidence(BOB, None, 0.5);
        assert_eq!(
            verdict(Some(&stored), &incoming, MergeIntent::Observe),
            Verdict::Keep
        );
    }

    #[test]
    fn nonsense_confidence_cannot_win() {
        let stored = evidence(ALICE, at(1), 0.95);
        for confidence in [f64::NAN, 7.0] {
            let incoming = evidence(BOB, at(1), confidence);
            assert_eq!(
                verdict(Some(&stored), &incoming, MergeIntent::Observe),
                Verdict::Keep,
                "{confidence}"
            );
        }
    }

    fn strings(values: &[&str]) -> Vec<String> {
        values.iter().map(|value| (*value).to_owned()).collect()
    }

    #[test]
    fn string_union_keeps_existing_order_and_appends_new_values() {
        let merged = union_strings(
            &strings(&["Plumbing", "Heating"]),
            &strings(&["  heating ", "Gas Safe", "", "  ", "gas safe", "Boilers"]),
        );
        assert_eq!(
            merged,
            strings(&["Plumbing", "Heating", "Gas Safe", "Boilers"])
        );
    }

    #[test]
    fn string_union_compares_non_ascii_case_insensitively() {
        let merged = union_strings(&strings(&["Ölwechsel"]), &strings(&["ÖLWECHSEL", "Straße"]));
        assert_eq!(merged, strings(&["Ölwechsel", "Straße"]));
    }

    #[test]
    fn link_union_deduplicates_by_normalised_url_and_keeps_the_first() {
        let existing =
            [json!({"url": "https://www.instagram.com/acmeplumbing/", "label": "Instagram"})];
        let incoming = [
            json!({"url": "instagram.com/acmeplumbing?utm_source=site", "label": "IG"}),
            json!({"url": "https://facebook.com/acmeplumbing", "description": "Our page"}),
            json!({"url": "https://www.youtube.com/watch?v=aaa"}),
            json!({"url": "https://www.youtube.com/watch?v=bbb"}),
        ];
        let merged = union_link_urls(&existing, &incoming);
        assert_eq!(
            merged,
            [
                json!({"url": "https://www.instagram.com/acmeplumbing/", "label": "Instagram"}),
                json!({"url": "https://facebook.com/acmeplumbing", "description": "Our page"}),
                json!({"url": "https://www.youtube.com/watch?v=aaa"}),
                json!({"url": "https://www.youtube.com/watch?v=bbb"}),
            ]
        );
    }

    #[test]
    fn link_union_skips_items_without_a_string_url() {
        let merged = union_link_urls(
            &[json!({"label": "no url"}), json!("https://acme.co.uk")],
            &[
                json!({"url": 42}),
                json!({"url": "  "}),
                json!({"url": null}),
                json!({"url": "mailto:info@acme.co.uk"}),
                json!({"url": " mailto:info@acme.co.uk"}),
            ],
        );
        assert_eq!(merged, [json!({"url": "mailto:info@acme.co.uk"})]);
    }

    #[test]
    fn field_evidence_round_trips_through_json() {
        let original = evidence(ALICE, at(3), 0.8);
        let text = serde_json::to_string(&original).unwrap();
        let restored: FieldEvidence = serde_json::from_str(&text).unwrap();
        assert_eq!(restored, original);
    }
}
