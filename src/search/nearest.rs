//! `sort=distance`: how far the n nearest matches can be, found before the search statement runs.
//!
//! The statement sorts its matches by (distance, id) and keeps n. PostgreSQL walks the GiST index
//! nearest first only for an ORDER BY of the distance alone, so without a bound a broad query (a
//! category, a common word) read and sorted every match of the table: `plumbing` from central
//! Manchester at 10M records, 249,945 rows, 1.8 s with the table in memory and 23 s without. A
//! walk filtered by the words instead would read the whole table when they are rare.
//!
//! So first a bounded walk: the records nearest in degrees (the `location::geometry` GiST index),
//! at most `walk_len`, each tested against the step's own conditions. When n of them match and
//! every record within the n-th match's distance on the sphere lies inside the walk (its circle's
//! box is nearer in degrees than the walk reached), that distance bounds the search, and the
//! statement reads only the records within it, through the words' and cells' index, sorted as
//! before: the same n records, ties included. Otherwise (rare words, a sparse place, a circle
//! over a pole or across the antimeridian) there is no bound and the statement runs as it is.
//!
//! The walk is tried short first (`SAMPLE` records), then at its full length only when the short
//! one found at least two matches but could not bound: words rare around the point then cost the
//! short walk (about 1 ms) rather than the whole one (3-5 ms, which at 100k records was five times
//! the search). PostgreSQL's own estimate of the matches would not do as a gate: it multiplies
//! the words' frequencies, and a category's words go together (`'it' <-> 'services'`: 1,260
//! expected for 30,038 at 1M records).
//!
//! When no walk bounds a corrected step (misspelt words: ORed spellings, sparse near the point,
//! long postings over the table), the matches within 10 km, then 100 km, are counted through the
//! cells (`ring`); the first circle holding n of them bounds the statement, again with the same
//! answer: every record within it is considered, and the n nearest overall are inside it.

use super::request::{SearchRequest, SortOrder};
use super::sql::{
    Param, Statement, TextQuery, bind_all, push_conditions, push_point, push_spot, tables,
};
use crate::domain::geo::circle_box;

/// The length of the short walk.
const SAMPLE: i64 = 500;

/// The length of the full walk: enough for a query matching one record in 200 around the point
/// to fill its page.
fn walk_len(max_results: i64) -> i64 {
    (200 * max_results).clamp(2_000, 10_000)
}

/// What a walk over one table found.
#[derive(Debug, sqlx::FromRow)]
struct Walk {
    /// Records walked (fewer than asked: the whole table).
    walked: i64,
    /// The farthest walked record's distance in degrees (planar longitude and latitude).
    reach: Option<f64>,
    /// Matches among them.
    matches: i64,
    /// The sphere distance of the n-th nearest match walked, if n matched.
    nth: Option<f64>,
    /// The sphere distance of the farthest match walked.
    last: Option<f64>,
}

/// The distance in metres within which the n nearest matches of `req` lie, when a bounded walk
/// proves it; `None` when the search is not nearest first or the walks cannot tell. The walks'
/// statements are added to `ran` (benchmarks replay them).
pub(super) async fn bound(
    conn: &mut sqlx::PgConnection,
    req: &SearchRequest,
    text: &TextQuery,
    ran: &mut Option<&mut Vec<Statement>>,
) -> Result<Option<f64>, sqlx::Error> {
    let (Some(point), SortOrder::Distance) = (req.point, req.sort) else {
        return Ok(None);
    };
    let short = walked(conn, req, text, point, SAMPLE, ran).await?;
    if short.is_empty() {
        return Ok(None);
    }
    if let Some(bound) = combined(&short, point, SAMPLE) {
        return Ok(Some(bound));
    }
    if short.iter().all(|w| w.walked < SAMPLE || w.matches >= 2) {
        let length = walk_len(req.max_results);
        let full = walked(conn, req, text, point, length, ran).await?;
        if let Some(bound) = combined(&full, point, length) {
            return Ok(Some(bound));
        }
    }
    ring(conn, req, text, ran).await
}

/// The radii a corrected step tries, nearest first, when no walk bounds it.
const RINGS_M: [f64; 2] = [10_000.0, 100_000.0];

/// The first of `RINGS_M` holding n matches, counted through the words' and cells' index (at
/// most n rows a table), for a corrected step without a radius. Such a step's words are ORed
/// spellings whose matches are sparse near the point (the walk sees too few of them) and whose
/// postings are long over the whole table (47 ms at 10M records for a misspelt name, which a
/// 10 km circle holding 239 of its 5,482 matches answers). An exact step is left alone: its
/// words are read with GIN's skipping, and a rare name would pay these counts for nothing.
async fn ring(
    conn: &mut sqlx::PgConnection,
    req: &SearchRequest,
    text: &TextQuery,
    ran: &mut Option<&mut Vec<Statement>>,
) -> Result<Option<f64>, sqlx::Error> {
    if req.radius_m.is_some() || !matches!(text, TextQuery::Corrected(_)) {
        return Ok(None);
    }
    for radius in RINGS_M {
        let Some(statement) = ring_count(req, text, radius) else {
            return Ok(None);
        };
        let (held,): (i64,) = bind_all(sqlx::query_as(&statement.sql), &statement.params)
            .fetch_one(&mut *conn)
            .await?;
        if let Some(ran) = ran {
            ran.push(statement);
        }
        if held >= req.max_results {
            return Ok(Some(radius));
        }
    }
    Ok(None)
}

/// The matches within `radius` of the point over every table, each table's counted up to n.
fn ring_count(req: &SearchRequest, text: &TextQuery, radius: f64) -> Option<Statement> {
    let specs = tables(req);
    if specs.is_empty() {
        return None;
    }
    let mut qb = Statement::default();
    qb.push("SELECT ");
    for (i, spec) in specs.iter().enumerate() {
        qb.push(if i == 0 { "" } else { " + " });
        qb.push(&format!(
            "(SELECT count(*) FROM (SELECT 1 FROM {} WHERE ",
            spec.name
        ));
        push_conditions(&mut qb, spec, req, text, Some(radius));
        qb.push(" LIMIT ")
            .bind(Param::Int(req.max_results))
            .push(") AS held)");
    }
    Some(qb)
}

/// A walk of `length` records over each table, one row each.
async fn walked(
    conn: &mut sqlx::PgConnection,
    req: &SearchRequest,
    text: &TextQuery,
    point: (f64, f64),
    length: i64,
    ran: &mut Option<&mut Vec<Statement>>,
) -> Result<Vec<Walk>, sqlx::Error> {
    let Some(statement) = walk(req, text, point, length) else {
        return Ok(Vec::new());
    };
    let walks = bind_all(sqlx::query_as(&statement.sql), &statement.params)
        .fetch_all(&mut *conn)
        .await?;
    if let Some(ran) = ran {
        ran.push(statement);
    }
    Ok(walks)
}

/// The statement of a walk of `length` records over each table (`tables`).
fn walk(
    req: &SearchRequest,
    text: &TextQuery,
    (lat, lng): (f64, f64),
    length: i64,
) -> Option<Statement> {
    let specs = tables(req);
    if specs.is_empty() {
        return None;
    }
    let mut qb = Statement::default();
    for (i, spec) in specs.iter().enumerate() {
        qb.push(if i == 0 { "WITH " } else { ", " });
        qb.push(&format!(
            "near_{i} AS MATERIALIZED (SELECT ST_Distance(location, "
        ));
        push_point(&mut qb, (lat, lng));
        qb.push(", false) AS d, location::geometry <-> ");
        push_spot(&mut qb, (lat, lng));
        qb.push(" AS degrees, (");
        push_conditions(&mut qb, spec, req, text, None);
        qb.push(&format!(
            ") AS matches FROM {} ORDER BY location::geometry <-> ",
            spec.name
        ));
        push_spot(&mut qb, (lat, lng));
        qb.push(" LIMIT ").bind(Param::Int(length)).push(")");
    }
    for i in 0..specs.len() {
        qb.push(if i == 0 { " " } else { " UNION ALL " });
        qb.push(&format!(
            "SELECT count(*) AS walked, max(degrees) AS reach, \
             count(*) FILTER (WHERE matches) AS matches, \
             (SELECT d FROM near_{i} WHERE matches ORDER BY d LIMIT 1 OFFSET "
        ));
        qb.bind(Param::Int(req.max_results - 1)).push(&format!(
            ") AS nth, (SELECT max(d) FROM near_{i} WHERE matches) AS last FROM near_{i}"
        ));
    }
    Some(qb)
}

/// The bound over every table: each table's n nearest matches within it, or no bound.
fn combined(walks: &[Walk], point: (f64, f64), walk_len: i64) -> Option<f64> {
    let mut bound: f64 = 0.0;
    if walks.is_empty() {
        return None;
    }
    for walk in walks {
        let table_bound = if walk.walked < walk_len {
            // The whole table was walked: every match is known.
            walk.nth.or(walk.last).unwrap_or(0.0)
        } else {
            let nth = walk.nth?;
            if !inside_walk(point, nth, walk.reach?) {
                return None;
            }
            nth
        };
        bound = bound.max(table_bound);
    }
    Some(bound)
}

/// Whether every point within `radius_m` of `point` on the sphere is nearer in degrees than
/// `reach`, so that the walk, which took every record nearer in degrees than its farthest one,
/// took them all: the circle's box (which holds it) has its corners within reach.
fn inside_walk((lat, lng): (f64, f64), radius_m: f64, reach: f64) -> bool {
    let (west, south, east, north) = circle_box(lat, lng, radius_m);
    let rows = (north - lat).max(lat - south);
    let columns = (east - lng).max(lng - west);
    rows.hypot(columns) < reach * (1.0 - 1e-9)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walked(walked: i64, reach: f64, nth: Option<f64>, last: Option<f64>) -> Walk {
        Walk {
            walked,
            matches: 10,
            reach: Some(reach),
            nth,
            last,
        }
    }

    const MANCHESTER: (f64, f64) = (53.4808, -2.2426);

    #[test]
    fn a_full_walk_bounds_the_search_by_its_nth_match() {
        // 68 m from the point: about 0.0006° of latitude and 0.001° of longitude.
        let walks = [walked(2_000, 0.002, Some(67.6), Some(250.0))];
        assert_eq!(combined(&walks, MANCHESTER, 2_000), Some(67.6));
    }

    #[test]
    fn a_circle_reaching_past_the_walk_gives_no_bound() {
        // 27 km: 0.24° of latitude, 0.40° of longitude at 52° N, beyond a walk of 0.40°.
        let walks = [walked(2_000, 0.404, Some(26_958.0), Some(40_000.0))];
        assert_eq!(combined(&walks, (52.3, -3.6), 2_000), None);
        let walks = [walked(2_000, 0.6, Some(26_958.0), Some(40_000.0))];
        assert_eq!(combined(&walks, (52.3, -3.6), 2_000), Some(26_958.0));
    }

    #[test]
    fn fewer_than_n_matches_in_a_full_walk_give_no_bound() {
        let walks = [walked(2_000, 0.002, None, Some(120.0))];
        assert_eq!(combined(&walks, MANCHESTER, 2_000), None);
    }

    #[test]
    fn a_small_table_walked_whole_bounds_by_its_farthest_match() {
        let walks = [
            walked(2_000, 0.002, Some(67.6), Some(250.0)),
            walked(12, 3.0, None, Some(90.0)),
            walked(0, 0.0, None, None),
        ];
        assert_eq!(combined(&walks, MANCHESTER, 2_000), Some(90.0));
        let walks = [
            walked(2_000, 0.002, Some(67.6), Some(250.0)),
            walked(12, 3.0, None, Some(900.0)),
        ];
        assert_eq!(combined(&walks, MANCHESTER, 2_000), Some(900.0));
    }

    #[test]
    fn a_circle_across_the_antimeridian_or_over_a_pole_is_never_inside_a_walk() {
        assert!(!inside_walk((10.0, 179.99), 5_000.0, 10.0));
        assert!(!inside_walk((89.99, 0.0), 5_000.0, 10.0));
        assert!(inside_walk((10.0, 170.0), 5_000.0, 10.0));
    }
}
