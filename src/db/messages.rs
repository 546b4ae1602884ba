//! messages: private messages between two agents. Every read names the caller, so a message
//! leaves the database only for its sender or its recipient.

use crate::domain::ListParams;
use crate::records::messages::Message;
use serde_json::Value;
use sqlx::PgConnection;
use uuid::Uuid;

const COLUMNS: &str = "id, sender_agent_id, recipient_agent_id, reply_to_message_id, target_schema, \
    target_table, target_id, message_content, attachments, read_at_tstamp_utc, created_at_tstamp_utc, \
    updated_at_tstamp_utc";

pub struct NewMessage {
    pub sender_agent_id: Uuid,
    pub recipient_agent_id: Uuid,
    pub reply_to_message_id: Option<Uuid>,
    pub target: Option<(String, String, Uuid)>,
    pub message_content: String,
    pub attachments: Value,
}

pub async fn insert(conn: &mut PgConnection, m: &NewMessage) -> Result<Message, sqlx::Error> {
    let (schema, table, id) = match &m.target {
        Some((s, t, i)) => (Some(s.as_str()), Some(t.as_str()), Some(*i)),
        None => (None, None, None),
    };
    sqlx::query_as(&format!(
        "INSERT INTO messages (id, sender_agent_id, recipient_agent_id, reply_to_message_id, target_schema,
             target_table, target_id, message_content, attachments)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING {COLUMNS}"
    ))
    .bind(Uuid::now_v7())
    .bind(m.sender_agent_id)
    .bind(m.recipient_agent_id)
    .bind(m.reply_to_message_id)
    .bind(schema)
    .bind(table)
    .bind(id)
    .bind(&m.message_content)
    .bind(&m.attachments)
    .fetch_one(conn)
    .await
}

/// Messages among `ids` that `viewer` sent or received.
pub async fn get_many_visible<'c>(
    executor: impl sqlx::PgExecutor<'c>,
    ids: &[Uuid],
    viewer: Uuid,
) -> Result<Vec<Message>, sqlx::Error> {
    sqlx::query_as(&format!(
        "SELECT {COLUMNS} FROM messages
         WHERE id = ANY($1) AND (sender_agent_id = $2 OR recipient_agent_id = $2)"
    ))
    .bind(ids)
    .bind(viewer)
    .fetch_all(executor)
    .await
}

pub struct MessageFilter {
    pub viewer: Uuid,
    pub counterparty: Option<Uuid>,
    pub unread_only: bool,
    pub sent: bool,
    pub received: bool,
}

/// Newest first. Sent and received messages come from two index scans (sender, then recipient),
/// each stopping at the page size, merged by id: no scan of a large inbox.
fn list_statement(columns: &str) -> String {
    format!(
        "SELECT {columns} FROM (
            (SELECT {COLUMNS} FROM messages
             WHERE $6 AND sender_agent_id = $1 AND NOT $3 AND ($2::uuid IS NULL OR recipient_agent_id = $2)
               AND ($4::uuid IS NULL OR id < $4)
             ORDER BY id DESC LIMIT $5)
            UNION ALL
            (SELECT {COLUMNS} FROM messages
             WHERE $7 AND recipient_agent_id = $1 AND ($2::uuid IS NULL OR sender_agent_id = $2)
               AND (NOT $3 OR read_at_tstamp_utc IS NULL) AND ($4::uuid IS NULL OR id < $4)
             ORDER BY id DESC LIMIT $5)
         ) both_ways ORDER BY id DESC LIMIT $5"
    )
}

pub async fn list<'c>(
    pool: impl super::Reads<'c>,
    f: &MessageFilter,
    params: &ListParams,
) -> Result<Vec<Message>, sqlx::Error> {
    sqlx::query_as(&list_statement(COLUMNS))
        .bind(f.viewer)
        .bind(f.counterparty)
        .bind(f.unread_only)
        .bind(params.after)
        .bind(params.fetch_limit())
        .bind(f.sent)
        .bind(f.received)
        .fetch_all(pool)
        .await
}

/// The rows `list` would page through, up to `COUNT_CAP + 1`.
pub async fn count<'c>(pool: impl super::Reads<'c>, f: &MessageFilter) -> sqlx::Result<i64> {
    sqlx::query_scalar(&super::counted(&list_statement("id")))
        .bind(f.viewer)
        .bind(f.counterparty)
        .bind(f.unread_only)
        .bind(None::<Uuid>)
        .bind(super::COUNT_CAP + 1)
        .bind(f.sent)
        .bind(f.received)
        .fetch_one(pool)
        .await
}

/// Marks a received message read once; a second call returns it with its first read time.
/// None when the message does not exist or was not received by `recipient`.
pub async fn mark_read<'c>(
    pool: impl super::Reads<'c>,
    id: Uuid,
    recipient: Uuid,
) -> Result<Option<Message>, sqlx::Error> {
    sqlx::query_as(&format!(
        "WITH marked AS (
            UPDATE messages SET read_at_tstamp_utc = now()
            WHERE id = $1 AND recipient_agent_id = $2 AND read_at_tstamp_utc IS NULL
            RETURNING {COLUMNS})
         SELECT {COLUMNS} FROM marked
         UNION ALL
         SELECT {COLUMNS} FROM messages
         WHERE id = $1 AND recipient_agent_id = $2 AND read_at_tstamp_utc IS NOT NULL"
    ))
    .bind(id)
    .bind(recipient)
    .fetch_optional(pool)
    .await
}

/// Unread messages received by `agent`, counted up to `cap` (an index-only count that stays
/// cheap however full an inbox is).
pub async fn unread_count<'c>(
    pool: impl super::Reads<'c>,
    agent: Uuid,
    cap: i64,
) -> Result<i64, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT count(*) FROM (SELECT 1 FROM messages
         WHERE recipient_agent_id = $1 AND read_at_tstamp_utc IS NULL LIMIT $2) capped",
    )
    .bind(agent)
    .bind(cap)
    .fetch_one(pool)
    .await
}
