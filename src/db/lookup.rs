//! Which table holds an id: every record id is a UUID v7, unique across tables.

use uuid::Uuid;

/// The tables `node(id)` answers for, as named in the lookup statement.
pub const TABLES: &[&str] = &[
    "principals",
    "agents",
    "space_time_entries",
    "canonical.entities",
    "canonical.listings",
    "canonical.requests",
    "messages",
    "transaction_terms",
    "transaction_terms_signatures",
    "committed_trust_certificates",
];

/// The table holding `id`, in one statement of primary-key probes.
pub async fn table_of<'c>(pool: impl super::Reads<'c>, id: Uuid) -> sqlx::Result<Option<String>> {
    let probes: Vec<String> = TABLES
        .iter()
        .map(|table| format!("SELECT '{table}'::text FROM {table} WHERE id = $1"))
        .collect();
    sqlx::query_scalar(&format!("{} LIMIT 1", probes.join(" UNION ALL ")))
        .bind(id)
        .fetch_optional(pool)
        .await
}
