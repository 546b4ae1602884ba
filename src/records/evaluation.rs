//! What the evaluation of a draft entry against its context rubric answers (nothing is stored).

use crate::domain::{FindingSeverity, UsefulnessVerdict};
use rust_decimal::Decimal;
use serde::Serialize;
use utoipa::ToSchema;

/// The judgement of a draft entry against the context rubric of its entry type.
#[derive(Debug, Clone, Serialize, ToSchema, async_graphql::SimpleObject)]
pub struct RubricEvaluation {
    /// entity, listing or request.
    pub entry_type: String,
    /// The rubric the draft was judged against.
    pub schema_ref: String,
    pub rubric_version: i32,
    /// 1 minus 0.4 per blocking finding and 0.1 per warning, at least 0 (docs/rubric-evaluation.md).
    pub usefulness_score: Decimal,
    /// `useful`: no blocking finding and a score of at least 0.8; `not_useful`: a blocking finding.
    pub verdict: UsefulnessVerdict,
    /// Every criterion of the rubric, in the rubric's order, with whether the draft meets it.
    pub criteria: Vec<CriterionCheck>,
    /// Keys of the rubric's `minimum_viable_context` that the draft's context lacks.
    pub missing_minimum_context: Vec<String>,
    /// What is wrong with the draft, each with the fix; empty for a fully useful draft.
    pub findings: Vec<Finding>,
}

/// One criterion of the rubric and whether the draft meets it (no finding names it).
#[derive(Debug, Clone, Serialize, ToSchema, async_graphql::SimpleObject)]
pub struct CriterionCheck {
    pub criterion: String,
    pub met: bool,
}

/// One problem found in a draft entry.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema, async_graphql::SimpleObject)]
pub struct Finding {
    /// A stable code, e.g. `bundled_records` (docs/rubric-evaluation.md lists them all).
    pub code: String,
    /// The rubric criterion it breaks, or null when it is about the entry as a whole.
    pub criterion: Option<String>,
    pub severity: FindingSeverity,
    /// Where in the draft: `["body", "context", "phone"]`, like a 422's `loc`.
    pub loc: Vec<String>,
    pub message: String,
    /// What to change.
    pub fix: String,
}
