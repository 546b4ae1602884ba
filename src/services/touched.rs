//! The canonical records an agent touched within a radius and a time window (`Agent.touched` on
//! the graph): which records, by which link types, how often, first and last. The window is at
//! most a year (default: the last 30 days), and only the contributions of an agent's newest
//! `db::COUNT_CAP` entries are looked at, so one agent costs a bounded scan whatever it published.

use crate::db;
use crate::db::touched::{TouchedQuery, TouchedRecordRow};
use crate::domain::{ListParams, Page, Violations};
use crate::error::{AppError, AppResult};
use crate::records::provenance::TouchedRecord;
use crate::state::AppState;
use chrono::{DateTime, Duration, Utc};
use std::collections::HashMap;
use uuid::Uuid;

pub const DEFAULT_WINDOW_DAYS: i64 = 30;
pub const MAX_WINDOW_DAYS: i64 = 366;

pub struct TouchedArgs {
    pub latitude: f64,
    pub longitude: f64,
    pub radius_meters: i64,
    pub since: Option<DateTime<Utc>>,
    pub until: Option<DateTime<Utc>>,
    pub first: Option<i32>,
    pub after: Option<String>,
}

/// The checked question; equal for every agent of one field, so a page of agents is one batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TouchedWindow {
    latitude_bits: u64,
    longitude_bits: u64,
    radius_meters: i64,
    /// As asked: an open end is fixed when the batch runs, so every agent of one field shares
    /// the key (a `now` taken per agent would split the batch).
    since: Option<DateTime<Utc>>,
    until: Option<DateTime<Utc>>,
    after: Option<(DateTime<Utc>, Uuid)>,
    limit: i64,
}

impl TouchedWindow {
    /// `since` and `until`, the open ends filled in relative to `now`.
    fn bounds(&self, now: DateTime<Utc>) -> (DateTime<Utc>, DateTime<Utc>) {
        let until = self.until.unwrap_or(now);
        let since = self
            .since
            .unwrap_or(until - Duration::days(DEFAULT_WINDOW_DAYS));
        (since, until)
    }
}

pub fn cursor(record: &TouchedRecord) -> String {
    format!(
        "{}_{}",
        record.last_contributed_at_tstamp_utc.timestamp_micros(),
        record.canonical_id
    )
}

fn parse_cursor(text: &str) -> Option<(DateTime<Utc>, Uuid)> {
    let (micros, id) = text.split_once('_')?;
    Some((
        DateTime::from_timestamp_micros(micros.parse().ok()?)?,
        Uuid::parse_str(id).ok()?,
    ))
}

pub fn window(args: &TouchedArgs) -> AppResult<TouchedWindow> {
    let mut v = Violations::default();
    crate::domain::geo::check_circle(&mut v, args.latitude, args.longitude, args.radius_meters);
    let mut w = TouchedWindow {
        latitude_bits: args.latitude.to_bits(),
        longitude_bits: args.longitude.to_bits(),
        radius_meters: args.radius_meters,
        since: args.since,
        until: args.until,
        after: None,
        limit: 0,
    };
    let (since, until) = w.bounds(Utc::now());
    v.check(
        since < until,
        "since",
        "must be before until",
        "value_error",
    );
    v.check(
        until - since <= Duration::days(MAX_WINDOW_DAYS),
        "since",
        "the window may span at most 366 days",
        "range",
    );
    let after = v.cursor(args.after.as_deref(), parse_cursor);
    v.into_result()?;
    w.after = after;
    w.limit = ListParams::new(args.first.map(i64::from), None, &["first"])?.limit;
    Ok(w)
}

fn record(row: TouchedRecordRow) -> AppResult<TouchedRecord> {
    let broken = |what: String| AppError::Internal(anyhow::anyhow!("touched records: {what}"));
    Ok(TouchedRecord {
        canonical_table: row.target_canonical_table.parse().map_err(broken)?,
        canonical_id: row.target_canonical_id,
        link_types: row
            .link_types
            .iter()
            .map(|t| t.parse())
            .collect::<Result<_, _>>()
            .map_err(broken)?,
        contributions: row.contributions,
        first_contributed_at_tstamp_utc: row.first_contributed_at,
        last_contributed_at_tstamp_utc: row.last_contributed_at,
        distance_meters: row.distance_m,
    })
}

/// One agent's page, and whether its newest `db::COUNT_CAP` entries (the ones looked at) were all
/// its entries.
#[derive(Debug, Clone)]
pub struct TouchedPage {
    pub page: Page<TouchedRecord>,
    pub complete: bool,
}

/// One page per agent.
#[tracing::instrument(
    name = "touched::for_agents", level = "debug", skip_all,
    fields(count = agents.len())
)]
pub async fn for_agents(
    state: &AppState,
    agents: &[Uuid],
    w: &TouchedWindow,
) -> AppResult<HashMap<Uuid, TouchedPage>> {
    let params = ListParams {
        limit: w.limit,
        after: None,
    };
    let (since, until) = w.bounds(Utc::now());
    let query = TouchedQuery {
        latitude: f64::from_bits(w.latitude_bits),
        longitude: f64::from_bits(w.longitude_bits),
        radius_m: w.radius_meters as f64,
        since,
        until,
        after: w.after,
        limit: params.fetch_limit(),
        entry_limit: db::COUNT_CAP,
    };
    let rows = db::touched::records(
        crate::services::read_route::search_reads(state),
        agents,
        &query,
    )
    .await?;
    let mut grouped: HashMap<Uuid, (Vec<TouchedRecord>, bool)> = HashMap::new();
    for row in rows {
        let (records, complete) = grouped.entry(row.agent_id).or_insert((Vec::new(), true));
        *complete = row.complete;
        if let Some(touched) = row.record {
            records.push(record(touched)?);
        }
    }
    Ok(agents
        .iter()
        .map(|agent| {
            let (rows, complete) = grouped.remove(agent).unwrap_or((Vec::new(), true));
            let page = Page::from_rows(rows, &params);
            (*agent, TouchedPage { page, complete })
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args() -> TouchedArgs {
        TouchedArgs {
            latitude: 53.48,
            longitude: -2.24,
            radius_meters: 1000,
            since: None,
            until: None,
            first: None,
            after: None,
        }
    }

    #[test]
    fn the_window_defaults_to_thirty_days_and_is_at_most_a_year() {
        let w = window(&args()).unwrap();
        let (since, until) = w.bounds(Utc::now());
        assert_eq!(until - since, Duration::days(DEFAULT_WINDOW_DAYS));
        assert_eq!(
            w,
            window(&args()).unwrap(),
            "open windows share a batch key"
        );
        let until = Utc::now();
        let too_long = TouchedArgs {
            since: Some(until - Duration::days(400)),
            until: Some(until),
            ..args()
        };
        assert!(matches!(window(&too_long), Err(AppError::Validation(_))));
        let backwards = TouchedArgs {
            since: Some(until),
            until: Some(until - Duration::days(1)),
            ..args()
        };
        assert!(matches!(window(&backwards), Err(AppError::Validation(_))));
    }

    #[test]
    fn cursors_round_trip() {
        let at = DateTime::from_timestamp_micros(1_790_000_000_123_456).unwrap();
        let id = Uuid::now_v7();
        let record = TouchedRecord {
            canonical_table: crate::domain::CanonicalTable::Entities,
            canonical_id: id,
            link_types: vec![],
            contributions: 1,
            first_contributed_at_tstamp_utc: at,
            last_contributed_at_tstamp_utc: at,
            distance_meters: 0.0,
        };
        assert_eq!(parse_cursor(&cursor(&record)), Some((at, id)));
        assert_eq!(parse_cursor("x_y"), None);
    }
}
