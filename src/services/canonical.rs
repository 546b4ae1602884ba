//! Canonical records and their provenance: read and list.

use crate::db::contributions::{self, ContributionFilter, LinkContribution};
use crate::db::offers;
use crate::domain::{CanonicalTable, ListParams, Page};
use crate::error::{AppError, AppResult};
use crate::records::canonical::{CanonicalRequest, Entity, Listing};
use crate::services::read_route;
use crate::state::AppState;
use uuid::Uuid;

use crate::db::canonical;
pub use crate::db::canonical::CanonicalRow;

const MAX_STATUS_LEN: usize = 50;

pub(crate) fn status_filter<'a>(
    status: Option<&'a str>,
    loc: &[&str],
) -> AppResult<Option<&'a str>> {
    match status {
        Some(s) if s.is_empty() || s.len() > MAX_STATUS_LEN => Err(AppError::invalid(
            loc,
            "must be 1 to 50 characters",
            "string_length",
        )),
        other => Ok(other),
    }
}

/// Graph edges (a record's contributions, signals, duplicate pairs; an entry's contributions)
/// load at most this many rows per parent, oldest first; the REST lists page past it.
pub const EDGE_LIMIT: i64 = 100;

/// The record of kind `K` an id names; a merged record's id answers with the record it was merged
/// into (compare the returned id with the asked one).
#[tracing::instrument(name = "canonical::record", level = "debug", skip_all, fields(kind = K::NOUN, id = %id))]
pub async fn record<K: CanonicalRow>(state: &AppState, id: Uuid) -> AppResult<K> {
    read_route::read_one!(state, |pool| canonical::get_following_merges::<K>(pool, id))?
        .ok_or(AppError::NotFound(K::NOUN))
}

/// Records of kind `K`, newest first, optionally by status (`loc` locates a bad status).
#[tracing::instrument(name = "canonical::list", level = "debug", skip_all, fields(kind = K::NOUN))]
pub async fn list<K: CanonicalRow>(
    state: &AppState,
    status: Option<&str>,
    params: ListParams,
    loc: &[&str],
) -> AppResult<Page<K>> {
    let status = status_filter(status, loc)?;
    Ok(Page::from_rows(
        canonical::list::<K>(read_route::reads(state), status, &params).await?,
        &params,
    ))
}

/// Records of kind `K` by id, in no particular order (the loaders' shape).
#[tracing::instrument(
    name = "canonical::by_ids", level = "debug", skip_all,
    fields(kind = K::NOUN, count = ids.len())
)]
pub async fn by_ids<K: CanonicalRow>(state: &AppState, ids: &[Uuid]) -> AppResult<Vec<K>> {
    Ok(read_route::read_many!(
        state,
        ids,
        |r| r.id(),
        |pool, ids| canonical::get_many::<K>(pool, ids)
    )?)
}

#[tracing::instrument(
    name = "canonical::listings_of_provider", level = "debug", skip_all,
    fields(entity_id = %entity_id)
)]
pub async fn listings_of_provider(
    state: &AppState,
    entity_id: Uuid,
    params: ListParams,
) -> AppResult<Page<Listing>> {
    Ok(Page::from_rows(
        offers::list_by_parent::<Listing>(read_route::reads(state), entity_id, &params).await?,
        &params,
    ))
}

#[tracing::instrument(name = "canonical::contributions", level = "debug", skip_all)]
pub async fn contributions(
    state: &AppState,
    filter: ContributionFilter,
    params: ListParams,
) -> AppResult<Page<LinkContribution>> {
    Ok(Page::from_rows(
        contributions::list(read_route::reads(state), &filter, &params).await?,
        &params,
    ))
}

#[tracing::instrument(
    name = "canonical::contributions_to", level = "debug", skip_all,
    fields(count = targets.len())
)]
pub async fn contributions_to(
    state: &AppState,
    targets: &[Uuid],
) -> AppResult<Vec<LinkContribution>> {
    Ok(contributions::for_targets(read_route::reads(state), targets, EDGE_LIMIT).await?)
}

#[tracing::instrument(
    name = "canonical::contributions_from", level = "debug", skip_all,
    fields(count = entries.len())
)]
pub async fn contributions_from(
    state: &AppState,
    entries: &[Uuid],
) -> AppResult<Vec<LinkContribution>> {
    Ok(contributions::for_entries(read_route::reads(state), entries, EDGE_LIMIT).await?)
}

/// A canonical record with the link contributions that made it: the newest 100, oldest first
/// (the full list pages through `contributions`).
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
pub struct RecordWithProvenance {
    pub canonical_table: CanonicalTable,
    pub record: super::search::CanonicalRecord,
    pub contributions: Vec<LinkContribution>,
}

#[tracing::instrument(
    name = "canonical::with_provenance", level = "debug", skip_all,
    fields(table = ?table, id = %id)
)]
pub async fn with_provenance(
    state: &AppState,
    table: CanonicalTable,
    id: Uuid,
) -> AppResult<RecordWithProvenance> {
    use super::search::CanonicalRecord;
    // A merged record's id answers with its survivor: the contributions are the survivor's.
    let (id, record) = match table {
        CanonicalTable::Entities => {
            let e = record::<Entity>(state, id).await?;
            (e.id, CanonicalRecord::Entity(e))
        }
        CanonicalTable::Listings => {
            let l = record::<Listing>(state, id).await?;
            (l.id, CanonicalRecord::Listing(l))
        }
        CanonicalTable::Requests => {
            let r = record::<CanonicalRequest>(state, id).await?;
            (r.id, CanonicalRecord::Request(r))
        }
    };
    let filter = ContributionFilter {
        target_canonical_table: Some(table),
        target_canonical_id: Some(id),
        space_time_entry_id: None,
    };
    let params = ListParams::new(Some(100), None, &["limit"])?;
    let mut contributions = contributions(state, filter, params).await?.items;
    contributions.sort_by_key(|c| c.created_at_tstamp_utc);
    Ok(RecordWithProvenance {
        canonical_table: table,
        record,
        contributions,
    })
}
