//! Canonical records by the start of their name: what an agent's client offers while the agent
//! types a record's name where an id is wanted (MCP `completion/complete`).

use crate::db;
use crate::domain::CanonicalTable;
use crate::error::AppResult;
use crate::state::AppState;
use uuid::Uuid;

/// The most records one lookup names (MCP allows 100 completion values; a person reads 20).
pub const MAX_MATCHES: usize = 20;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedRecord {
    pub canonical_table: CanonicalTable,
    pub id: Uuid,
    pub name: String,
}

/// Up to `MAX_MATCHES` records of `table` (all three tables when None) whose name starts with
/// `text`, by name, and whether there were more.
#[tracing::instrument(
    name = "names::by_name_prefix", level = "debug", skip_all,
    fields(table = ?table)
)]
pub async fn by_name_prefix(
    state: &AppState,
    table: Option<CanonicalTable>,
    text: &str,
) -> AppResult<(Vec<NamedRecord>, bool)> {
    let tables = match table {
        Some(table) => vec![table],
        None => CanonicalTable::ALL.to_vec(),
    };
    let reads = crate::services::read_route::reads(state);
    let mut found = Vec::new();
    for table in tables {
        let rows =
            db::names::by_name_prefix(reads, table.as_str(), text, MAX_MATCHES as i64 + 1).await?;
        found.extend(rows.into_iter().map(|(id, name)| NamedRecord {
            canonical_table: table,
            id,
            name,
        }));
    }
    found.sort_by_key(|record| record.name.to_lowercase());
    let more = found.len() > MAX_MATCHES;
    found.truncate(MAX_MATCHES);
    Ok((found, more))
}
