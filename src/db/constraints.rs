//! Database errors → AppError, by SQLSTATE and constraint name. Constraint names follow
//! `<table>_<cols>_<kind>` (see migrations/), so the offending field is read from the name.

use crate::error::{AppError, FieldError};

/// Longest first, so `transaction_terms_signatures` wins over `transaction_terms`.
const TABLES: &[&str] = &[
    "space_time_entry_attachments",
    "transaction_terms_signatures",
    "committed_trust_certificates",
    "canonical_link_contributions",
    "space_time_entries",
    "transformer_runs",
    "field_proposals",
    "transaction_terms",
    "agent_api_keys",
    "principals",
    "messages",
    "entities",
    "listings",
    "requests",
    "signals",
    "agents",
    "notes",
];

pub const IDEMPOTENCY_CONSTRAINT: &str = "space_time_entries_agent_id_idempotency_key_key";

/// Splits `agents_agent_handle_key` into (`agent_handle`, `key`).
pub fn field_of_constraint(constraint: &str) -> (String, &'static str) {
    let rest = TABLES
        .iter()
        .find_map(|t| constraint.strip_prefix(t).and_then(|r| r.strip_prefix('_')))
        .unwrap_or(constraint);
    for (suffix, kind) in [("_fkey", "fkey"), ("_key", "key"), ("_check", "check")] {
        if let Some(field) = rest.strip_suffix(suffix) {
            return (field.to_string(), kind);
        }
    }
    (rest.to_string(), "check")
}

/// SQLSTATEs that say "not now" rather than "never": the statement timed out or was cancelled,
/// the server is shutting down or starting, it ran out of memory or connections, or the
/// connection broke.
fn is_transient(sqlstate: &str) -> bool {
    sqlstate.starts_with("08")
        || sqlstate.starts_with("57")
        || matches!(sqlstate, "53200" | "53300" | "53400" | "40001" | "40P01")
}

/// 53100 `disk_full`: PostgreSQL could not extend a file or write its WAL. Not retryable in
/// seconds, so 507 rather than 503 (`storage::space` keeps a reserve so that this is rare).
fn is_disk_full(sqlstate: &str) -> bool {
    sqlstate == "53100"
}

/// The status a resource SQLSTATE (class 53, insufficient resources) is answered with; `None`
/// for any other.
pub fn resource_status(sqlstate: &str) -> Option<u16> {
    if is_disk_full(sqlstate) {
        Some(507)
    } else if sqlstate.starts_with("53") && is_transient(sqlstate) {
        Some(503)
    } else {
        None
    }
}

/// Database errors become `AppError`s here, in the layer that knows the constraint names, so the
/// error type itself names no database.
impl From<sqlx::Error> for AppError {
    fn from(err: sqlx::Error) -> Self {
        map_sqlx_error(err)
    }
}

pub fn map_sqlx_error(err: sqlx::Error) -> AppError {
    match &err {
        sqlx::Error::Database(db) if is_disk_full(db.code().as_deref().unwrap_or_default()) => {
            crate::telemetry::record_storage_refusal();
            tracing::warn!(sqlstate = "53100", "the database's disk is full");
            AppError::InsufficientStorage(
                "the database's disk is full: writes are refused until an operator frees space"
                    .into(),
            )
        }
        sqlx::Error::Database(db) if is_transient(db.code().as_deref().unwrap_or_default()) => {
            crate::db::liveness::note_connection_failure();
            crate::db::outage::note_refusal(
                "database unavailable or too slow",
                db.code().as_deref().unwrap_or_default(),
            );
            AppError::NotReady("the database is unavailable or too slow; retry later".into())
        }
        sqlx::Error::Database(db) => {
            let sqlstate = db.code().map(|c| c.to_string()).unwrap_or_default();
            let constraint = db.constraint().unwrap_or_default().to_string();
            if sqlstate == "23505" && constraint == IDEMPOTENCY_CONSTRAINT {
                return AppError::Conflict {
                    message: "idempotency_key already exists".into(),
                    existing_id: None,
                };
            }
            let (field, kind) = field_of_constraint(&constraint);
            let (msg, kind) = match (sqlstate.as_str(), kind) {
                ("23505", _) => ("already exists".to_string(), "unique_violation"),
                ("23503", _) => (
                    "references a record that does not exist".to_string(),
                    "foreign_key_violation",
                ),
                ("23514", _) => (
                    "violates a constraint of this field".to_string(),
                    "constraint_violation",
                ),
                ("23502", _) => ("must not be null".to_string(), "missing"),
                (s, _) if s.starts_with("22") => {
                    (format!("invalid value: {}", db.message()), "value_error")
                }
                _ => {
                    tracing::error!(sqlstate, constraint, "unexpected database error");
                    return AppError::Internal(err.into());
                }
            };
            let loc = if field.is_empty() {
                vec!["body".to_string()]
            } else {
                vec!["body".to_string(), field]
            };
            AppError::Validation(vec![FieldError::new(loc, msg, kind)])
        }
        sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::WorkerCrashed => {
            crate::db::liveness::note_connection_failure();
            crate::db::outage::note_refusal(&err.to_string(), "");
            AppError::NotReady("the database is unavailable; retry later".into())
        }
        _ => AppError::Internal(err.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constraint_names_give_their_field() {
        assert_eq!(
            field_of_constraint("agents_agent_handle_key"),
            ("agent_handle".into(), "key")
        );
        assert_eq!(
            field_of_constraint("agents_principal_id_fkey"),
            ("principal_id".into(), "fkey")
        );
        assert_eq!(
            field_of_constraint("transaction_terms_signatures_signature_check"),
            ("signature".into(), "check")
        );
        assert_eq!(
            field_of_constraint("entities_score_signal_check"),
            ("score_signal".into(), "check")
        );
    }

    #[test]
    fn resource_sqlstates_are_507_for_a_full_disk_and_503_for_memory_and_connections() {
        assert_eq!(resource_status("53100"), Some(507));
        assert_eq!(resource_status("53200"), Some(503));
        assert_eq!(resource_status("53300"), Some(503));
        assert_eq!(resource_status("53400"), Some(503));
        assert_eq!(resource_status("23505"), None);
    }
}
