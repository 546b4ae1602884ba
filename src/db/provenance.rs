//! Reads for provenance: per-field evidence of canonical records and agents' influence.

use super::canonical::table_name;
use crate::domain::CanonicalTable;
use crate::records::provenance::AgentInfluence;
use serde_json::Value;
use uuid::Uuid;

/// `(id, field_evidence)` of the records of one table.
pub async fn field_evidence<'c>(
    pool: impl super::Reads<'c>,
    table: CanonicalTable,
    ids: &[Uuid],
) -> sqlx::Result<Vec<(Uuid, Value)>> {
    sqlx::query_as(&format!(
        "SELECT id, field_evidence FROM {} WHERE id = ANY($1)",
        table_name(table)
    ))
    .bind(ids)
    .fetch_all(pool)
    .await
}

#[derive(sqlx::FromRow)]
struct InfluenceRow {
    agent_id: Uuid,
    created: i64,
    updated: i64,
    matched: i64,
    merged: i64,
    supporting_evidence: i64,
    duplicate_of: i64,
    records: i64,
    /// The agent's entries, counted up to `entry_limit + 1`.
    entries_seen: i64,
}

/// Contributions per link type of each agent's newest `entry_limit` entries, in one statement for
/// all agents (a row for each, zero counts included), and whether that was all of its entries. The
/// bound keeps a call's cost independent of how much an agent ever published: a scraper with
/// millions of entries costs what one with `entry_limit` does.
pub async fn influence<'c>(
    pool: impl super::Reads<'c>,
    agent_ids: &[Uuid],
    entry_limit: i64,
) -> sqlx::Result<Vec<(Uuid, AgentInfluence)>> {
    let rows: Vec<InfluenceRow> = sqlx::query_as(
        "SELECT a.id AS agent_id,
                count(*) FILTER (WHERE c.link_type = 'created') AS created,
                count(*) FILTER (WHERE c.link_type = 'updated') AS updated,
                count(*) FILTER (WHERE c.link_type = 'matched') AS matched,
                count(*) FILTER (WHERE c.link_type = 'merged') AS merged,
                count(*) FILTER (WHERE c.link_type = 'supporting_evidence') AS supporting_evidence,
                count(*) FILTER (WHERE c.link_type = 'duplicate_of') AS duplicate_of,
                count(DISTINCT c.target_canonical_id) AS records,
                (SELECT count(*) FROM (
                    SELECT 1 FROM space_time_entries e WHERE e.agent_id = a.id LIMIT $2 + 1) AS seen
                ) AS entries_seen
         FROM unnest($1::uuid[]) AS a(id)
         LEFT JOIN LATERAL (
             SELECT e.id FROM space_time_entries e WHERE e.agent_id = a.id
             ORDER BY e.id DESC LIMIT $2) AS newest ON true
         LEFT JOIN canonical_link_contributions c ON c.source_space_time_entry_id = newest.id
         GROUP BY a.id",
    )
    .bind(agent_ids)
    .bind(entry_limit)
    .fetch_all(pool)
    .await?;
    Ok(rows
        .into_iter()
        .map(|r| {
            (
                r.agent_id,
                AgentInfluence {
                    created: r.created,
                    updated: r.updated,
                    matched: r.matched,
                    merged: r.merged,
                    supporting_evidence: r.supporting_evidence,
                    duplicate_of: r.duplicate_of,
                    records: r.records,
                    complete: r.entries_seen <= entry_limit,
                },
            )
        })
        .collect())
}

/// A contribution that changed a record, with the entry that made it.
#[derive(sqlx::FromRow)]
pub struct ReplayStep {
    pub link_type: String,
    pub contributed_at: chrono::DateTime<chrono::Utc>,
    /// The contribution's metadata: fields the guard kept (`contested_fields`), an accepted
    /// field proposal (`field_proposal`).
    pub metadata: Value,
    #[sqlx(flatten)]
    pub entry: crate::records::entries::SpaceTimeEntry,
}

/// The contributions that shaped a record's fields up to `as_of`, in the order they were applied
/// (contribution ids are time-ordered UUIDv7s taken under the record's lock), each with its
/// entry; at most `limit`. Those are its `created` and `updated` contributions, and the `merged`
/// ones an operator's merge brought from another record's created and updated contributions,
/// unless that merge was undone (an undo's `duplicate_of` contribution sits on the record the
/// merge redirected, `merged_from`, so the check uses the target index).
pub async fn replay_steps(
    conn: &mut sqlx::PgConnection,
    table: CanonicalTable,
    id: Uuid,
    as_of: chrono::DateTime<chrono::Utc>,
    limit: i64,
) -> sqlx::Result<Vec<ReplayStep>> {
    sqlx::query_as(&format!(
        "SELECT c.link_type, c.created_at_tstamp_utc AS contributed_at, c.metadata, {}
         FROM canonical_link_contributions c
         JOIN space_time_entries e ON e.id = c.source_space_time_entry_id
         WHERE c.target_canonical_table = $1 AND c.target_canonical_id = $2
           AND c.created_at_tstamp_utc <= $3
           AND (c.link_type IN ('created', 'updated')
                OR (c.link_type = 'merged'
                    AND c.metadata ->> 'original_link_type' IN ('created', 'updated')
                    AND NOT EXISTS (
                        SELECT 1 FROM canonical_link_contributions u
                        WHERE u.target_canonical_table = c.target_canonical_table
                          AND u.target_canonical_id = (c.metadata ->> 'merged_from')::uuid
                          AND u.link_type = 'duplicate_of'
                          AND u.metadata ->> 'undo_of' = c.metadata ->> 'merge_id')))
         ORDER BY c.id
         LIMIT $4",
        super::entries::COLUMNS
    ))
    .bind(table.as_str())
    .bind(id)
    .bind(as_of)
    .bind(limit)
    .fetch_all(conn)
    .await
}
