//! notes: free-text context on canonical records and raw entries, with visibility.

use crate::domain::{ListParams, NoteVisibility};
pub use crate::records::feedback::Note;
pub use crate::records::feedback::NoteFilter;
use serde_json::Value;
use sqlx::PgConnection;
use uuid::Uuid;

pub struct NewNote {
    pub created_by_agent_id: Option<Uuid>,
    pub author_principal_id: Option<Uuid>,
    pub parent_note_id: Option<Uuid>,
    pub target_schema: String,
    pub target_table: String,
    pub target_id: Uuid,
    pub body: String,
    pub visibility: NoteVisibility,
    pub context: Value,
}

/// Who is reading: visibility is decided in the query, so a hidden note never leaves the database.
#[derive(Debug, Clone, Copy, Default)]
pub struct Viewer {
    pub agent_id: Option<Uuid>,
    pub principal_id: Option<Uuid>,
}

const COLUMNS: &str = "id, created_by_agent_id, parent_note_id, target_schema, target_table, target_id, body, \
    visibility, context, created_at_tstamp_utc, updated_at_tstamp_utc";

const VISIBLE: &str = "(visibility = 'public'
    OR ($1::uuid IS NOT NULL AND visibility = 'internal')
    OR (visibility = 'principal_only' AND (author_principal_id = $2 OR created_by_agent_id = $1)))";

pub async fn insert(conn: &mut PgConnection, n: &NewNote) -> Result<Note, sqlx::Error> {
    sqlx::query_as(&format!(
        "INSERT INTO notes (id, created_by_agent_id, author_principal_id, parent_note_id, target_schema, target_table,
             target_id, body, visibility, context)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING {COLUMNS}"
    ))
    .bind(Uuid::now_v7())
    .bind(n.created_by_agent_id)
    .bind(n.author_principal_id)
    .bind(n.parent_note_id)
    .bind(&n.target_schema)
    .bind(&n.target_table)
    .bind(n.target_id)
    .bind(&n.body)
    .bind(n.visibility)
    .bind(&n.context)
    .fetch_one(conn)
    .await
}

/// The target (schema, table, id) of a note, to check that a reply stays on its thread's target.
/// The target of note `id` when `viewer` may see the note; a note they may not see is as absent
/// as one that does not exist.
pub async fn visible_target_of(
    conn: &mut PgConnection,
    viewer: Viewer,
    id: Uuid,
) -> Result<Option<(String, String, Uuid)>, sqlx::Error> {
    sqlx::query_as(&format!(
        "SELECT target_schema, target_table, target_id FROM notes WHERE {VISIBLE} AND id = $3"
    ))
    .bind(viewer.agent_id)
    .bind(viewer.principal_id)
    .bind(id)
    .fetch_optional(conn)
    .await
}

/// The statement `list` runs (and `count` counts); public so tests can read its plan.
pub fn list_statement(columns: &str) -> String {
    format!(
        "SELECT {columns} FROM notes WHERE {VISIBLE}
           AND ($3::text IS NULL OR target_schema = $3) AND ($4::text IS NULL OR target_table = $4)
           AND ($5::uuid IS NULL OR target_id = $5) AND ($6::uuid IS NULL OR id < $6)
         ORDER BY id DESC LIMIT $7"
    )
}

pub async fn list<'c>(
    pool: impl super::Reads<'c>,
    viewer: Viewer,
    f: &NoteFilter,
    params: &ListParams,
) -> Result<Vec<Note>, sqlx::Error> {
    sqlx::query_as(&list_statement(COLUMNS))
        .bind(viewer.agent_id)
        .bind(viewer.principal_id)
        .bind(&f.target_schema)
        .bind(&f.target_table)
        .bind(f.target_id)
        .bind(params.after)
        .bind(params.fetch_limit())
        .fetch_all(pool)
        .await
}

/// The notes `list` would page through for this viewer, up to `COUNT_CAP + 1`.
pub async fn count<'c>(
    pool: impl super::Reads<'c>,
    viewer: Viewer,
    f: &NoteFilter,
) -> sqlx::Result<i64> {
    sqlx::query_scalar(&super::counted(&list_statement("id")))
        .bind(viewer.agent_id)
        .bind(viewer.principal_id)
        .bind(&f.target_schema)
        .bind(&f.target_table)
        .bind(f.target_id)
        .bind(None::<Uuid>)
        .bind(super::COUNT_CAP + 1)
        .fetch_one(pool)
        .await
}

/// The statement `for_targets` runs; public so tests can read its plan.
pub fn for_targets_statement() -> String {
    format!(
        "SELECT n.* FROM unnest($3::uuid[]) AS target(id)
         CROSS JOIN LATERAL (
            SELECT {COLUMNS} FROM notes WHERE {VISIBLE} AND target_id = target.id
            ORDER BY id LIMIT $4) n"
    )
}

/// The first `per_target` visible notes on each of `targets` (loader batch), oldest first.
pub async fn for_targets<'c>(
    pool: impl super::Reads<'c>,
    viewer: Viewer,
    targets: &[Uuid],
    per_target: i64,
) -> Result<Vec<Note>, sqlx::Error> {
    sqlx::query_as(&for_targets_statement())
        .bind(viewer.agent_id)
        .bind(viewer.principal_id)
        .bind(targets)
        .bind(per_target)
        .fetch_all(pool)
        .await
}
