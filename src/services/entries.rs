//! Space-time entries: publish (JSON or with attachments), read, list.

use crate::ctx::Ctx;
use crate::db::entries::{self as db, Attachment, NewEntry, SpaceTimeEntry};
use crate::domain::validation::is_unit_interval;
use crate::domain::{DecimalInput, EntryIntent, EntryStatus, ListParams, Page, Violations, scopes};
use crate::error::{AppError, AppResult};
use crate::records::entries::EntryCreate;
use crate::state::AppState;
use crate::storage::{BlobStore, media};
use chrono::Utc;
use rust_decimal::Decimal;
use uuid::Uuid;

pub const MAX_ATTACHMENTS: usize = 16;
pub const MAX_ATTACHMENT_BYTES: usize = 10 * 1024 * 1024;
pub const MAX_MULTIPART_BYTES: usize = 25 * 1024 * 1024;
const MAX_CONTEXT_BYTES: usize = 256 * 1024;
/// How far past the server's clock an observation may be dated (clients' clocks drift).
pub const MAX_CLOCK_SKEW_MINUTES: i64 = 5;
/// A validity window may lie ahead (an offer starting next month), but not beyond this horizon.
pub const MAX_VALIDITY_AHEAD_DAYS: i64 = 3653;

/// One uploaded file, before it is checked and stored.
pub struct Upload {
    pub filename: Option<String>,
    pub declared_type: Option<String>,
    pub bytes: bytes::Bytes,
}

pub(crate) fn validated(input: EntryCreate, agent_id: Uuid, loc: &[&str]) -> AppResult<NewEntry> {
    let mut v = Violations::at(loc);
    let latitude = DecimalInput(input.latitude).to_f64();
    let longitude = DecimalInput(input.longitude).to_f64();
    v.check(
        (-90.0..=90.0).contains(&latitude),
        "latitude",
        "must be between -90 and 90",
        "range",
    );
    v.check(
        (-180.0..=180.0).contains(&longitude),
        "longitude",
        "must be between -180 and 180",
        "range",
    );
    let confidence = input.score_confidence.unwrap_or(Decimal::new(5, 1));
    v.check(
        is_unit_interval(&confidence),
        "score_confidence",
        "must be between 0 and 1",
        "range",
    );
    let both_or_neither =
        input.target_canonical_table.is_some() == input.target_canonical_id.is_some();
    v.check(
        both_or_neither,
        "target_canonical_id",
        "target_canonical_table and target_canonical_id go together",
        "value_error",
    );
    // Evidence from the future would win every freshness comparison for ever.
    let now = Utc::now();
    if let Some(observed) = input.observed_at_tstamp_utc {
        v.check(
            observed <= now + chrono::Duration::minutes(MAX_CLOCK_SKEW_MINUTES),
            "observed_at_tstamp_utc",
            "must not be in the future (at most 5 minutes of clock skew)",
            "value_error",
        );
    }
    for (field, value) in [
        ("valid_from_tstamp_utc", input.valid_from_tstamp_utc),
        ("valid_to_tstamp_utc", input.valid_to_tstamp_utc),
    ] {
        v.check(
            value.is_none_or(|t| t <= now + chrono::Duration::days(MAX_VALIDITY_AHEAD_DAYS)),
            field,
            "must be at most 10 years ahead",
            "value_error",
        );
    }
    if let (Some(from), Some(to)) = (input.valid_from_tstamp_utc, input.valid_to_tstamp_utc) {
        v.check(
            from <= to,
            "valid_to_tstamp_utc",
            "must not be before valid_from_tstamp_utc",
            "value_error",
        );
    }
    if let Some(hash) = &input.geohash {
        let ok = (1..=12).contains(&hash.len()) && geohash::decode(hash).is_ok();
        v.check(
            ok,
            "geohash",
            "must be a geohash of 1 to 12 characters",
            "value_error",
        );
    }
    for (field, value, max) in [
        ("source_type", &input.source_type, 100),
        ("source_ref", &input.source_ref, 2048),
        ("entry_subtype", &input.entry_subtype, 100),
        ("location_text", &input.location_text, 1000),
        ("idempotency_key", &input.idempotency_key, 512),
    ] {
        v.check_len(value.as_deref(), field, 1, max);
    }
    crate::domain::json::check_object(&mut v, "context", &input.context);
    let context = crate::domain::json::object_or_empty(input.context);
    v.check(
        context.to_string().len() <= MAX_CONTEXT_BYTES,
        "context",
        "must be at most 256 KiB",
        "too_long",
    );
    v.into_result()?;
    let geohash = match input.geohash {
        Some(given) => given.to_lowercase(),
        None => geohash::encode(
            geohash::Coord {
                x: longitude,
                y: latitude,
            },
            9,
        )
        .map_err(|e| AppError::internal(anyhow::anyhow!("geohash: {e}")))?,
    };
    Ok(NewEntry {
        id: Uuid::now_v7(),
        agent_id,
        entry_type: input.entry_type,
        entry_subtype: input.entry_subtype,
        entry_intent: input.entry_intent.unwrap_or(EntryIntent::Observe),
        latitude,
        longitude,
        observed_at: input.observed_at_tstamp_utc,
        source_type: input.source_type,
        source_ref: input.source_ref,
        target_canonical_table: input.target_canonical_table,
        target_canonical_id: input.target_canonical_id,
        geohash,
        location_text: input.location_text,
        valid_from: input.valid_from_tstamp_utc,
        valid_to: input.valid_to_tstamp_utc,
        idempotency_key: input.idempotency_key,
        context,
        score_confidence: confidence,
    })
}

/// Checks each upload by its bytes and stores it (synced) before the entry row is written.
fn store_uploads(data_dir: &std::path::Path, uploads: Vec<Upload>) -> AppResult<Vec<Attachment>> {
    if uploads.len() > MAX_ATTACHMENTS {
        return Err(AppError::PayloadTooLarge {
            limit_bytes: Some(MAX_MULTIPART_BYTES),
        });
    }
    let store = BlobStore::new(data_dir);
    let mut stored = Vec::with_capacity(uploads.len());
    for upload in uploads {
        if upload.bytes.len() > MAX_ATTACHMENT_BYTES {
            return Err(AppError::PayloadTooLarge {
                limit_bytes: Some(MAX_ATTACHMENT_BYTES),
            });
        }
        let media_type = media::sniff(&upload.bytes, upload.declared_type.as_deref())
            .map_err(AppError::UnsupportedMediaType)?;
        let blob = store
            .put(&upload.bytes)
            .map_err(crate::storage::space::io_error)?;
        stored.push(Attachment {
            uri: format!("strs://attachments/sha256/{}", blob.sha256),
            download_url: format!("/api/v1/attachments/{}", blob.sha256),
            media_type: media_type.to_string(),
            size_bytes: blob.size_bytes,
            sha256: blob.sha256,
            filename: upload.filename.map(|f| f.chars().take(255).collect()),
        });
    }
    Ok(stored)
}

/// Publishes one entry. The 201 is sent only after the commit; a repeated idempotency key answers
/// 409 carrying the existing entry's id, also when identical requests race.
#[tracing::instrument(name = "entries::create", level = "debug", skip_all)]
pub async fn create(
    state: &AppState,
    ctx: &Ctx,
    input: EntryCreate,
    uploads: Vec<Upload>,
    loc: &[&str],
) -> AppResult<SpaceTimeEntry> {
    let actor = ctx.require_active_writer(scopes::ENTRIES_WRITE)?;
    let entry = validated(input, actor.agent_id, loc)?;
    // Files are content-addressed, so writing them before the row commits is safe (a failed post
    // leaves an unreferenced file, never a row without its file); the writes and fsyncs run on
    // the blocking pool, outside any transaction.
    let attachments = if uploads.is_empty() {
        Vec::new()
    } else {
        let data_dir = state.config.data_dir.clone();
        tokio::task::spawn_blocking(move || store_uploads(&data_dir, uploads))
            .await
            .map_err(AppError::internal)??
    };
    let primary = &state.lean.general;
    if let (Some(table), Some(id)) = (entry.target_canonical_table, entry.target_canonical_id)
        && !crate::db::canonical::exists(&mut *primary.acquire().await?, table, id).await?
    {
        let at: Vec<&str> = loc.iter().copied().chain(["target_canonical_id"]).collect();
        return Err(AppError::invalid(
            &at,
            format!("no record {id} in {table}"),
            "not_found",
        ));
    }
    match db::publish(primary, &entry, &attachments)
        .await
        .map_err(|e| AppError::from(e).under(loc))?
    {
        Some(published) => Ok(published),
        None => {
            let key = entry.idempotency_key.as_deref().unwrap_or_default();
            let existing = db::existing_id_for_key(primary, actor.agent_id, key).await?;
            Err(AppError::Conflict {
                message: "this agent already published an entry with this idempotency_key".into(),
                existing_id: existing,
            })
        }
    }
}

#[tracing::instrument(name = "entries::get", level = "debug", skip_all, fields(id = %id))]
pub async fn get(state: &AppState, id: Uuid) -> AppResult<SpaceTimeEntry> {
    crate::services::read_route::read_one!(state, |pool| db::get(pool, id))?
        .ok_or(AppError::NotFound("space-time entry"))
}

#[tracing::instrument(
    name = "entries::get_many", level = "debug", skip_all,
    fields(count = ids.len())
)]
pub async fn get_many(state: &AppState, ids: &[Uuid]) -> AppResult<Vec<SpaceTimeEntry>> {
    Ok(crate::services::read_route::read_many!(
        state,
        ids,
        |e| e.id,
        |pool, ids| db::get_many(pool, ids)
    )?)
}

#[tracing::instrument(
    name = "entries::list", level = "debug", skip_all,
    fields(agent_id = ?agent_id)
)]
pub async fn list(
    state: &AppState,
    status: Option<EntryStatus>,
    agent_id: Option<Uuid>,
    params: ListParams,
) -> AppResult<Page<SpaceTimeEntry>> {
    Ok(Page::from_rows(
        db::list(
            crate::services::read_route::reads(state),
            status,
            agent_id,
            &params,
        )
        .await?,
        &params,
    ))
}

/// A stored attachment opened for streaming, with its media type and size: downloads never hold
/// a whole file in memory.
#[tracing::instrument(name = "entries::attachment", level = "debug", skip_all, fields(%sha256))]
pub async fn attachment(
    state: &AppState,
    sha256: &str,
) -> AppResult<(String, tokio::fs::File, u64)> {
    let path = BlobStore::new(&state.config.data_dir)
        .location(sha256)
        .ok_or(AppError::NotFound("attachment"))?;
    let media_type = db::attachment_media_type(crate::services::read_route::reads(state), sha256)
        .await?
        .ok_or(AppError::NotFound("attachment"))?;
    let file = match tokio::fs::File::open(&path).await {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(AppError::NotFound("attachment"));
        }
        Err(e) => return Err(AppError::internal(e)),
    };
    let size = file.metadata().await.map_err(AppError::internal)?.len();
    Ok((media_type, file, size))
}

/// An entry and what processing made of it: its status, reason and canonical record (on the
/// entry), and the link contributions it caused.
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
pub struct EntryWithContributions {
    pub entry: SpaceTimeEntry,
    pub contributions: Vec<crate::records::canonical::LinkContribution>,
}

#[tracing::instrument(
    name = "entries::with_contributions", level = "debug", skip_all,
    fields(id = %id)
)]
pub async fn with_contributions(state: &AppState, id: Uuid) -> AppResult<EntryWithContributions> {
    let entry = get(state, id).await?;
    let contributions = super::canonical::contributions_from(state, &[id]).await?;
    Ok(EntryWithContributions {
        entry,
        contributions,
    })
}

/// One page of entries per agent, for many agents at once (the GraphQL `Agent.entries` edge).
#[tracing::instrument(
    name = "entries::list_for_agents", level = "debug", skip_all,
    fields(count = agents.len())
)]
pub async fn list_for_agents(
    state: &AppState,
    agents: &[Uuid],
    status: Option<EntryStatus>,
    params: ListParams,
) -> AppResult<std::collections::HashMap<Uuid, Page<SpaceTimeEntry>>> {
    let rows = db::list_for_agents(
        crate::services::read_route::reads(state),
        agents,
        status,
        &params,
    )
    .await?;
    let mut grouped: std::collections::HashMap<Uuid, Vec<SpaceTimeEntry>> =
        agents.iter().map(|agent| (*agent, Vec::new())).collect();
    for row in rows {
        grouped.entry(row.agent_id).or_default().push(row);
    }
    Ok(grouped
        .into_iter()
        .map(|(agent, rows)| (agent, Page::from_rows(rows, &params)))
        .collect())
}
