//! Where the canonical records are: the extent a TileJSON announces as `bounds` (and a map opens
//! on), at a bounded cost whatever the number of rows.
//!
//! An exact extent is a full scan (there is no index whose ends give the smallest and largest
//! latitude), 10M rows at a time. PostgreSQL's own statistics already hold it approximately: after
//! `ANALYZE` (autovacuum runs it once a tenth of a table has changed), `pg_stats` has, for the
//! plain `location_lng` and `location_lat` columns, the most common values and a histogram whose
//! first and last bounds are the sample's smallest and largest values (a sample of 30,000 rows at
//! the default statistics target). Reading them is a catalog lookup. A table with rows but no
//! statistics yet (new, not analysed) is measured exactly over its first `UNANALYSED_ROWS` rows
//! instead: exact for a small table, which such a table usually is, and bounded for any other.
//! An empty table adds nothing. So the extent may miss records added since the last `ANALYZE`,
//! and outliers left out of the sample, until the next one.

use crate::domain::CanonicalTable;

/// Rows read from a table that has no statistics yet.
pub const UNANALYSED_ROWS: i64 = 10_000;

/// West, south, east, north in degrees.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Extent {
    pub west: f64,
    pub south: f64,
    pub east: f64,
    pub north: f64,
}

fn sampled(table: CanonicalTable) -> String {
    let relation = table.as_str();
    let name = relation.rsplit('.').next().unwrap_or(relation);
    format!(
        "SELECT r.location_lng AS lng, r.location_lat AS lat
         FROM (SELECT location_lng, location_lat FROM {relation} LIMIT {UNANALYSED_ROWS}) r
         WHERE NOT EXISTS (SELECT 1 FROM stats WHERE tablename = '{name}')"
    )
}

/// The statement for `tables` (names from the enum, never from input).
pub fn statement(tables: &[CanonicalTable]) -> String {
    let names: Vec<String> = tables
        .iter()
        .map(|t| {
            let relation = t.as_str();
            format!("'{}'", relation.rsplit('.').next().unwrap_or(relation))
        })
        .collect();
    let mut unsampled: Vec<String> = tables.iter().map(|t| sampled(*t)).collect();
    if unsampled.is_empty() {
        unsampled.push("SELECT NULL::float8 AS lng, NULL::float8 AS lat WHERE false".into());
    }
    format!(
        "WITH stats AS (
            SELECT s.tablename, s.attname, v
            FROM pg_stats s,
                 unnest(coalesce(s.histogram_bounds::text::float8[], '{{}}'::float8[])
                        || coalesce(s.most_common_vals::text::float8[], '{{}}'::float8[])) v
            WHERE s.schemaname = 'canonical' AND s.tablename IN ({names})
              AND s.attname IN ('location_lng', 'location_lat')),
         points AS ({unsampled}),
         parts AS (
            SELECT min(v) FILTER (WHERE attname = 'location_lng') AS west,
                   min(v) FILTER (WHERE attname = 'location_lat') AS south,
                   max(v) FILTER (WHERE attname = 'location_lng') AS east,
                   max(v) FILTER (WHERE attname = 'location_lat') AS north
            FROM stats
            UNION ALL
            SELECT min(lng), min(lat), max(lng), max(lat) FROM points)
         SELECT min(west), min(south), max(east), max(north) FROM parts",
        names = if names.is_empty() {
            "NULL".to_string()
        } else {
            names.join(", ")
        },
        unsampled = unsampled.join(" UNION ALL "),
    )
}

/// The records' extent over `tables`; None when they hold no record.
pub async fn extent<'c>(
    pool: impl super::Reads<'c>,
    tables: &[CanonicalTable],
) -> sqlx::Result<Option<Extent>> {
    let (west, south, east, north): (Option<f64>, Option<f64>, Option<f64>, Option<f64>) =
        sqlx::query_as(&statement(tables)).fetch_one(pool).await?;
    Ok(match (west, south, east, north) {
        (Some(west), Some(south), Some(east), Some(north)) => Some(Extent {
            west,
            south,
            east,
            north,
        }),
        _ => None,
    })
}
