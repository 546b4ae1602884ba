//! Notes on canonical records and entries: threads, authorship from an optional bearer, visibility.

use crate::ctx::Ctx;
use crate::db::notes::{self as db, NewNote, Note, NoteFilter, Viewer};
use crate::domain::{ListParams, NoteVisibility, Page, Violations};
use crate::error::{AppError, AppResult};
use crate::state::AppState;
use serde::Deserialize;
use serde_json::{Map, Value};
use uuid::Uuid;

pub const ALLOWED_TARGETS: &str =
    "canonical.entities, canonical.listings, canonical.requests, public.space_time_entries";

/// Body of POST /api/v1/notes.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NoteCreate {
    /// Set from the bearer; when sent it must be the caller's own agent id.
    #[serde(default)]
    pub created_by_agent_id: Option<Uuid>,
    #[serde(default)]
    pub parent_note_id: Option<Uuid>,
    /// `canonical` or `public`.
    pub target_schema: String,
    /// `entities`, `listings`, `requests` (canonical) or `space_time_entries` (public).
    pub target_table: String,
    pub target_id: Uuid,
    /// 1 to 10000 characters.
    pub body: String,
    /// internal (default), public or principal_only.
    #[serde(default)]
    pub visibility: Option<NoteVisibility>,
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub context: Option<Map<String, Value>>,
}

fn at<'a>(loc: &[&'a str], field: &'a str) -> Vec<&'a str> {
    loc.iter().copied().chain([field]).collect()
}

/// Notes and signals target exactly the pairs of ALLOWED_TARGETS, and an existing record.
pub(crate) async fn check_target(
    conn: &mut sqlx::PgConnection,
    schema: &str,
    table: &str,
    id: Uuid,
    loc: &[&str],
) -> AppResult<()> {
    match crate::db::canonical::target_exists(conn, schema, table, id).await? {
        None => Err(AppError::invalid(
            &at(loc, "target_table"),
            format!("targets are: {ALLOWED_TARGETS}"),
            "enum",
        )),
        Some(false) => Err(AppError::invalid(
            &at(loc, "target_id"),
            "no such record",
            "not_found",
        )),
        Some(true) => Ok(()),
    }
}

/// Checks that the author field, if sent, names the caller (authorship comes from the bearer).
pub fn check_author(ctx: &Ctx, claimed: Option<Uuid>, v: &mut Violations) -> Option<Uuid> {
    let actual = ctx.actor.as_ref().map(|a| a.agent_id);
    if claimed.is_some() && claimed != actual {
        v.push(
            "created_by_agent_id",
            "is set from the bearer key; omit it or send your own agent id",
            "value_error",
        );
    }
    actual
}

#[tracing::instrument(name = "notes::create", level = "debug", skip_all)]
pub async fn create(
    state: &AppState,
    ctx: &Ctx,
    input: NoteCreate,
    loc: &[&str],
) -> AppResult<Note> {
    let mut v = Violations::at(loc);
    let author = check_author(ctx, input.created_by_agent_id, &mut v);
    v.check_len(Some(&input.body), "body", 1, 10_000);
    let visibility = input.visibility.unwrap_or(NoteVisibility::Internal);
    if visibility == NoteVisibility::PrincipalOnly {
        v.check(
            author.is_some(),
            "visibility",
            "principal_only notes need an authenticated author",
            "value_error",
        );
    }
    v.into_result()?;
    super::rate_limit::anonymous_write(state, ctx, "notes").await?;
    let mut tx = state.pool.begin().await?;
    check_target(
        &mut tx,
        &input.target_schema,
        &input.target_table,
        input.target_id,
        loc,
    )
    .await?;
    if let Some(parent) = input.parent_note_id {
        let same_target = Some((
            input.target_schema.clone(),
            input.target_table.clone(),
            input.target_id,
        ));
        match db::visible_target_of(&mut tx, viewer(ctx), parent).await? {
            None => {
                return Err(AppError::invalid(
                    &at(loc, "parent_note_id"),
                    "no such note",
                    "not_found",
                ));
            }
            Some(target) if Some(target.clone()) != same_target => {
                return Err(AppError::invalid(
                    &at(loc, "parent_note_id"),
                    "a reply must have its parent's target",
                    "value_error",
                ));
            }
            Some(_) => {}
        }
    }
    let note = db::insert(
        &mut tx,
        &NewNote {
            created_by_agent_id: author,
            author_principal_id: ctx.actor.as_ref().and_then(|a| a.principal_id),
            parent_note_id: input.parent_note_id,
            target_schema: input.target_schema,
            target_table: input.target_table,
            target_id: input.target_id,
            body: input.body,
            visibility,
            context: Value::Object(input.context.unwrap_or_default()),
        },
    )
    .await?;
    tx.commit().await?;
    Ok(note)
}

pub(crate) fn viewer(ctx: &Ctx) -> Viewer {
    Viewer {
        agent_id: ctx.actor.as_ref().map(|a| a.agent_id),
        principal_id: ctx.actor.as_ref().and_then(|a| a.principal_id),
    }
}

/// Notes the caller may see: public ones for everyone, internal ones for authenticated agents,
/// principal_only ones for agents of the author's principal.
#[tracing::instrument(name = "notes::list", level = "debug", skip_all)]
pub async fn list(
    state: &AppState,
    ctx: &Ctx,
    filter: NoteFilter,
    params: ListParams,
) -> AppResult<Page<Note>> {
    Ok(Page::from_rows(
        db::list(
            crate::services::read_route::reads(state),
            viewer(ctx),
            &filter,
            &params,
        )
        .await?,
        &params,
    ))
}

#[tracing::instrument(
    name = "notes::for_targets", level = "debug", skip_all,
    fields(count = targets.len())
)]
pub async fn for_targets(state: &AppState, ctx: &Ctx, targets: &[Uuid]) -> AppResult<Vec<Note>> {
    Ok(db::for_targets(
        crate::services::read_route::reads(state),
        viewer(ctx),
        targets,
        super::canonical::EDGE_LIMIT,
    )
    .await?)
}
