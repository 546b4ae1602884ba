//! How many items a list holds in all its pages: GraphQL's `totalCount` (docs/graphql.md).
//! Exact up to `db::COUNT_CAP`, `None` beyond, so a count costs at most a bounded scan whatever
//! the list's size. Each count runs its list's own statement (`db::counted`): the same filter,
//! the same visibility, the same database (replica or primary) as the page it accompanies.

use super::canonical::status_filter;
use super::messages::MessageSelection;
use super::read_route;
use super::within::WithinArgs;
use crate::ctx::Ctx;
use crate::db;
use crate::db::contributions::ContributionFilter;
use crate::db::notes::NoteFilter;
use crate::db::signals::SignalFilter;
use crate::domain::{CanonicalTable, EntryStatus};
use crate::error::AppResult;
use crate::records::canonical::Listing;
use crate::state::AppState;
use std::collections::HashMap;
use uuid::Uuid;

pub type Count = Option<i64>;

/// Records of one canonical table, optionally by status, up to the cap.
#[tracing::instrument(name = "counts::canonical", level = "debug", skip_all, fields(table = ?table))]
pub async fn canonical(
    state: &AppState,
    table: CanonicalTable,
    status: Option<&str>,
    loc: &[&str],
) -> AppResult<Count> {
    let status = status_filter(status, loc)?;
    let n = db::canonical::count(read_route::reads(state), table, status).await?;
    Ok(db::within_cap(n))
}

/// The listings each entity provides, for many entities at once (`Entity.listings`).
#[tracing::instrument(
    name = "counts::listings_of_providers", level = "debug", skip_all,
    fields(count = entities.len())
)]
pub async fn listings_of_providers(
    state: &AppState,
    entities: &[Uuid],
) -> AppResult<HashMap<Uuid, Count>> {
    let counts =
        db::offers::count_by_parents::<Listing>(read_route::reads(state), entities).await?;
    Ok(capped(counts))
}

/// Records inside an area, with the area's own checks (`services::within`).
#[tracing::instrument(name = "counts::within", level = "debug", skip_all, fields(table = ?table))]
pub async fn within(
    state: &AppState,
    table: CanonicalTable,
    args: &WithinArgs<'_>,
) -> AppResult<Count> {
    let status_loc: Vec<&str> = args.root.iter().copied().chain(["status"]).collect();
    let status = status_filter(args.status, &status_loc)?;
    let area = super::within::area(args)?;
    let n = db::within::count(read_route::search_reads(state), table, area, status).await?;
    Ok(db::within_cap(n))
}

#[tracing::instrument(name = "counts::entries", level = "debug", skip_all, fields(agent = ?agent))]
pub async fn entries(
    state: &AppState,
    status: Option<EntryStatus>,
    agent: Option<Uuid>,
) -> AppResult<Count> {
    let n = db::entries::count(read_route::reads(state), status, agent).await?;
    Ok(db::within_cap(n))
}

/// Each agent's entries, for many agents at once (`Agent.entries`).
#[tracing::instrument(
    name = "counts::entries_of_agents", level = "debug", skip_all,
    fields(count = agents.len())
)]
pub async fn entries_of_agents(
    state: &AppState,
    agents: &[Uuid],
    status: Option<EntryStatus>,
) -> AppResult<HashMap<Uuid, Count>> {
    let counts = db::entries::count_for_agents(read_route::reads(state), agents, status).await?;
    Ok(capped(counts))
}

#[tracing::instrument(name = "counts::agents", level = "debug", skip_all)]
pub async fn agents(state: &AppState) -> AppResult<Count> {
    let n = db::agents::count(read_route::reads(state)).await?;
    Ok(db::within_cap(n))
}

/// Each principal's agents, for many principals at once (`Principal.agents`).
#[tracing::instrument(
    name = "counts::agents_of_principals", level = "debug", skip_all,
    fields(count = principals.len())
)]
pub async fn agents_of_principals(
    state: &AppState,
    principals: &[Uuid],
) -> AppResult<HashMap<Uuid, Count>> {
    let counts = db::agents::count_by_principals(read_route::reads(state), principals).await?;
    Ok(capped(counts))
}

/// The caller's messages, as `services::messages::list` selects them.
#[tracing::instrument(name = "counts::messages", level = "debug", skip_all)]
pub async fn messages(
    state: &AppState,
    ctx: &Ctx,
    selection: MessageSelection,
) -> AppResult<Count> {
    let filter = super::messages::filter(ctx, selection)?;
    let n = db::messages::count(read_route::reads(state), &filter).await?;
    Ok(db::within_cap(n))
}

/// Link contributions (`linkContributions`), by target and/or entry.
#[tracing::instrument(name = "counts::contributions", level = "debug", skip_all)]
pub async fn contributions(state: &AppState, filter: &ContributionFilter) -> AppResult<Count> {
    let n = db::contributions::count(read_route::reads(state), filter).await?;
    Ok(db::within_cap(n))
}

/// The notes the caller may see (`notes`): hidden notes are not counted either.
#[tracing::instrument(name = "counts::notes", level = "debug", skip_all)]
pub async fn notes(state: &AppState, ctx: &Ctx, filter: &NoteFilter) -> AppResult<Count> {
    let viewer = super::notes::viewer(ctx);
    let n = db::notes::count(read_route::reads(state), viewer, filter).await?;
    Ok(db::within_cap(n))
}

/// Signals (`signals`).
#[tracing::instrument(name = "counts::signals", level = "debug", skip_all)]
pub async fn signals(state: &AppState, filter: &SignalFilter) -> AppResult<Count> {
    let n = db::signals::count(read_route::reads(state), filter).await?;
    Ok(db::within_cap(n))
}

#[tracing::instrument(name = "counts::review_queue", level = "debug", skip_all)]
pub async fn review_queue(state: &AppState) -> AppResult<Count> {
    let n = db::review::count_waiting(read_route::reads(state)).await?;
    Ok(db::within_cap(n))
}

fn capped(counts: Vec<(Uuid, i64)>) -> HashMap<Uuid, Count> {
    counts
        .into_iter()
        .map(|(id, n)| (id, db::within_cap(n)))
        .collect()
}
