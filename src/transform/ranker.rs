//! The ranker's formulas (docs/ranking.md). Pure: the database gathers the inputs, these compute.
//!
//! - `score_data_richness`: weighted share of the record's fields that are filled.
//! - `score_signal`: 0.5 ± the weighted balance of distinct signals; `None` without signals.
//! - `score_confidence`: independent corroboration (one term per distinct agent, weighted by that
//!   agent's confidence and reputation), damped by staleness, nudged by signals.

use chrono::{DateTime, Utc};

/// One contributing agent's strongest evidence for a record.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentEvidence {
    pub confidence: f64,
    pub reputation: f64,
    pub latest_observation: DateTime<Utc>,
}

/// One distinct (author, signal type) pair on the record.
#[derive(Debug, Clone, PartialEq)]
pub struct SignalInput {
    pub signal_type: String,
    pub weight: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Scores {
    pub data_richness: f64,
    pub agent_reputation: Option<f64>,
    pub signal: Option<f64>,
    pub confidence: f64,
}

const STALENESS_HALF_LIFE_DAYS: f64 = 180.0;
const SIGNAL_INFLUENCE: f64 = 0.4;

/// `(weight, present)` pairs; the weights of one record kind sum to 1.
pub fn data_richness(fields: &[(f64, bool)]) -> f64 {
    let total: f64 = fields.iter().map(|(w, _)| w).sum();
    let filled: f64 = fields
        .iter()
        .filter(|(_, present)| *present)
        .map(|(w, _)| w)
        .sum();
    if total == 0.0 {
        0.0
    } else {
        round4(filled / total)
    }
}

/// Positive signals raise, negative lower; `duplicate` says nothing about truth.
fn polarity(signal_type: &str) -> f64 {
    match signal_type {
        "confirm" | "boost_confidence" => 1.0,
        "reject" | "reduce_confidence" => -1.0,
        "stale" | "flag" => -0.5,
        _ => 0.0,
    }
}

pub fn signal_score(signals: &[SignalInput]) -> Option<f64> {
    let counted: Vec<&SignalInput> = signals
        .iter()
        .filter(|s| polarity(&s.signal_type) != 0.0)
        .collect();
    let total_weight: f64 = counted.iter().map(|s| s.weight).sum();
    if counted.is_empty() || total_weight == 0.0 {
        return None;
    }
    let balance: f64 = counted
        .iter()
        .map(|s| s.weight * polarity(&s.signal_type))
        .sum::<f64>()
        / total_weight;
    Some(round4((0.5 + 0.5 * balance).clamp(0.0, 1.0)))
}

pub fn scores(
    richness: f64,
    agents: &[AgentEvidence],
    signals: &[SignalInput],
    now: DateTime<Utc>,
) -> Scores {
    let reputation = (!agents.is_empty())
        .then(|| round4(agents.iter().map(|a| a.reputation).sum::<f64>() / agents.len() as f64));
    let doubt: f64 = agents
        .iter()
        .map(|a| 1.0 - (a.confidence.clamp(0.0, 1.0) * (0.5 + 0.5 * a.reputation.clamp(0.0, 1.0))))
        .product();
    let corroboration = 1.0 - doubt;
    let freshest = agents.iter().map(|a| a.latest_observation).max();
    let recency = freshest.map_or(1.0, |t| {
        let age_days = (now - t).num_seconds().max(0) as f64 / 86_400.0;
        0.75 + 0.25 * (-age_days / STALENESS_HALF_LIFE_DAYS).exp()
    });
    let signal = signal_score(signals);
    let nudge = signal.map_or(0.0, |s| (s - 0.5) * SIGNAL_INFLUENCE);
    let confidence = round4((corroboration * recency + nudge).clamp(0.0, 1.0));
    Scores {
        data_richness: richness,
        agent_reputation: reputation,
        signal,
        confidence,
    }
}

fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

/// The weight of the neutral prior: an agent's first records move its reputation little.
const REPUTATION_PRIOR: f64 = 10.0;

/// The service's reputation of an agent, earned from its track record and nothing it declared:
/// 0.5 for a newcomer, up with records other agents corroborate and with others' confirming
/// signals on records it created, down (twice as fast) with others' disputing signals.
///
/// ```text
/// reputation = clamp(0.5 + 0.5 × (corroborated + confirmed − 2 × disputed)
///                             / (contributed + confirmed + disputed + 10), 0, 1)
/// ```
pub fn earned_reputation(
    contributed: i64,
    corroborated: i64,
    confirmed: i64,
    disputed: i64,
) -> f64 {
    let evidence = (corroborated + confirmed - 2 * disputed) as f64;
    let weight = (contributed + confirmed + disputed) as f64 + REPUTATION_PRIOR;
    round4((0.5 + 0.5 * evidence / weight).clamp(0.0, 1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agent(confidence: f64, reputation: f64) -> AgentEvidence {
        AgentEvidence {
            confidence,
            reputation,
            latest_observation: Utc::now(),
        }
    }

    #[test]
    fn independent_agents_corroborate_more_than_one() {
        let now = Utc::now();
        let one = scores(0.5, &[agent(0.8, 0.5)], &[], now).confidence;
        let two = scores(0.5, &[agent(0.8, 0.5), agent(0.8, 0.5)], &[], now).confidence;
        assert!(two > one, "{two} > {one}");
        assert!((0.0..=1.0).contains(&two));
    }

    #[test]
    fn stale_evidence_counts_for_less() {
        let now = Utc::now();
        let fresh = scores(0.5, &[agent(0.9, 0.9)], &[], now).confidence;
        let old = AgentEvidence {
            latest_observation: now - chrono::Duration::days(720),
            ..agent(0.9, 0.9)
        };
        assert!(scores(0.5, &[old], &[], now).confidence < fresh);
    }

    #[test]
    fn signals_move_the_signal_score_and_confidence() {
        let now = Utc::now();
        let confirm = [SignalInput {
            signal_type: "confirm".into(),
            weight: 1.0,
        }];
        let reject = [SignalInput {
            signal_type: "reject".into(),
            weight: 1.0,
        }];
        assert_eq!(signal_score(&confirm), Some(1.0));
        assert_eq!(signal_score(&reject), Some(0.0));
        assert_eq!(
            signal_score(&[SignalInput {
                signal_type: "duplicate".into(),
                weight: 1.0
            }]),
            None
        );
        let base = scores(0.5, &[agent(0.5, 0.5)], &[], now).confidence;
        assert!(scores(0.5, &[agent(0.5, 0.5)], &confirm, now).confidence > base);
        assert!(scores(0.5, &[agent(0.5, 0.5)], &reject, now).confidence < base);
    }

    #[test]
    fn richness_is_the_weighted_share_of_filled_fields() {
        assert_eq!(
            data_richness(&[(0.5, true), (0.25, false), (0.25, true)]),
            0.75
        );
        assert_eq!(data_richness(&[]), 0.0);
    }

    #[test]
    fn reputation_is_earned_from_corroboration_and_others_signals() {
        assert_eq!(earned_reputation(0, 0, 0, 0), 0.5, "a newcomer is neutral");
        assert_eq!(
            earned_reputation(10, 0, 0, 0),
            0.5,
            "uncorroborated records are not wrong"
        );
        assert_eq!(earned_reputation(10, 10, 0, 0), 0.75);
        assert!(earned_reputation(10, 10, 5, 0) > earned_reputation(10, 10, 0, 0));
        assert_eq!(
            earned_reputation(10, 0, 0, 5),
            0.3,
            "five disputes of ten records"
        );
        assert_eq!(earned_reputation(1_000, 1_000, 1_000, 0), 0.9975);
        assert_eq!(earned_reputation(0, 0, 0, 1_000), 0.0);
    }
}
