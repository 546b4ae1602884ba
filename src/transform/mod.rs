//! Turns space-time entries (what agents saw, where and when) into canonical
//! records.
//!
//! Agents only report evidence; whether it describes a record we already
//! have, and which of two disagreeing facts stands, is decided here by the
//! service so that every agent is judged by the same rules. The rules are
//! pure functions with no database or I/O so they can be tested case by case
//! and reviewed on their own; the caller gathers candidates and stores the
//! outcome.
//!
//! - [`normalize`] turns the many ways of writing a website, phone number,
//!   name or source reference into one comparable key.
//! - [`matching`] decides whether an entry is about a known record.
//! - [`merge`] decides whose value a record keeps.
//! - [`extract`] reads an entry's `context` into the draft of a record.
//! - [`fields`] applies merge verdicts field by field and keeps per-field evidence.
//! - [`ranker`] computes a record's scores.
//! - `similarity` tells when two names are alike enough, cheaply for the many that are not.
//! - [`usefulness`] judges a draft entry against its context rubric before it is posted.

pub mod address;
pub mod display;
pub mod extract;
pub mod fields;
pub mod matching;
pub mod merge;
pub mod names;
pub mod normalize;
pub mod ranker;
mod similarity;
pub mod usefulness;

pub const TRANSFORMER_NAME: &str = "SpaceTimeEntryTransformer";
/// Stored with what the transformer produces so a record can be traced to
/// the rules that made it; bump it whenever a rule or threshold changes.
pub const TRANSFORMER_VERSION: &str = "2026.11.3";
