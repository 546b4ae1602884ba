//! Canonical records near a point, nearest first, for the graph (`entitiesNear`, `listingsNear`,
//! `requestsNear`). The bounds are search's: a point on the globe, a radius of 1 m to 100 km.

use crate::db;
use crate::db::nearby::{Near, NearQuery};
use crate::domain::{ListParams, Page, Violations};
use crate::error::{AppError, AppResult};
use crate::services::canonical::CanonicalRow;
use crate::state::AppState;
use uuid::Uuid;

pub struct NearArgs {
    pub latitude: f64,
    pub longitude: f64,
    pub radius_meters: i64,
    pub first: Option<i32>,
    pub after: Option<String>,
}

/// A page cursor: the last record's distance (printed exactly, so it round-trips) and id.
pub fn cursor(distance_m: f64, id: Uuid) -> String {
    format!("{distance_m}_{id}")
}

fn parse_cursor(cursor: &str) -> Option<(f64, Uuid)> {
    let (distance, id) = cursor.split_once('_')?;
    let distance: f64 = distance.parse().ok()?;
    (distance.is_finite() && distance >= 0.0).then_some(())?;
    Some((distance, Uuid::parse_str(id).ok()?))
}

fn query(args: &NearArgs) -> AppResult<(NearQuery, ListParams)> {
    let mut v = Violations::default();
    crate::domain::geo::check_circle(&mut v, args.latitude, args.longitude, args.radius_meters);
    let after = v.cursor(args.after.as_deref(), parse_cursor);
    v.into_result()?;
    let params = ListParams::new(args.first.map(i64::from), None, &["first"])?;
    Ok((
        NearQuery {
            latitude: args.latitude,
            longitude: args.longitude,
            radius_m: args.radius_meters as f64,
            after,
            limit: params.fetch_limit(),
        },
        params,
    ))
}

/// Records of kind `K` near the point, nearest first.
#[tracing::instrument(name = "nearby::page", level = "debug", skip_all, fields(kind = K::NOUN))]
pub async fn page<K: CanonicalRow>(state: &AppState, args: &NearArgs) -> AppResult<Page<Near<K>>> {
    let (query, params) = query(args)?;
    let rows = db::nearby::records::<K>(crate::services::read_route::search_reads(state), &query)
        .await
        .map_err(AppError::from)?;
    Ok(Page::from_rows(rows, &params))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::validation_locs;

    #[test]
    fn cursors_round_trip_and_garbage_is_refused() {
        let id = Uuid::new_v4();
        assert_eq!(parse_cursor(&cursor(12.5, id)), Some((12.5, id)));
        assert_eq!(parse_cursor("nope"), None);
        assert_eq!(parse_cursor(&format!("-1_{id}")), None);
        assert_eq!(parse_cursor(&format!("NaN_{id}")), None);
    }

    #[test]
    fn every_bad_argument_is_reported_at_its_name() {
        let args = NearArgs {
            latitude: 91.0,
            longitude: -181.0,
            radius_meters: 0,
            first: Some(1),
            after: Some("garbage".into()),
        };
        assert_eq!(
            validation_locs(query(&args)),
            [
                r#"["latitude"]"#,
                r#"["longitude"]"#,
                r#"["radiusMeters"]"#,
                r#"["after"]"#
            ]
        );
    }
}
