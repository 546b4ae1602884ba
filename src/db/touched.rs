//! The canonical records agents touched (their entries' contributions) within a circle and a
//! time window, most recently touched first, one page per agent in one statement.

use uuid::Uuid;

/// One record an agent touched, or (`record` None) an agent with none on this page; every row
/// says whether the agent's newest `entry_limit` entries were all its entries.
#[derive(Debug, Clone)]
pub struct TouchedRow {
    pub agent_id: Uuid,
    pub complete: bool,
    pub record: Option<TouchedRecordRow>,
}

impl<'r> sqlx::FromRow<'r, sqlx::postgres::PgRow> for TouchedRow {
    fn from_row(row: &'r sqlx::postgres::PgRow) -> sqlx::Result<Self> {
        use sqlx::Row;
        let touched_any = row
            .try_get::<Option<Uuid>, _>("target_canonical_id")?
            .is_some();
        Ok(TouchedRow {
            agent_id: row.try_get("agent_id")?,
            complete: row.try_get("complete")?,
            record: touched_any
                .then(|| TouchedRecordRow::from_row(row))
                .transpose()?,
        })
    }
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct TouchedRecordRow {
    pub target_canonical_table: String,
    pub target_canonical_id: Uuid,
    pub link_types: Vec<String>,
    pub contributions: i64,
    pub first_contributed_at: chrono::DateTime<chrono::Utc>,
    pub last_contributed_at: chrono::DateTime<chrono::Utc>,
    pub distance_m: f64,
}

pub struct TouchedQuery {
    pub latitude: f64,
    pub longitude: f64,
    pub radius_m: f64,
    pub since: chrono::DateTime<chrono::Utc>,
    pub until: chrono::DateTime<chrono::Utc>,
    /// The previous page's last (last_contributed_at, record id).
    pub after: Option<(chrono::DateTime<chrono::Utc>, Uuid)>,
    pub limit: i64,
    /// How many of an agent's newest entries are looked at.
    pub entry_limit: i64,
}

/// Up to `limit` records per agent, from the contributions in the window of the agent's newest
/// `entry_limit` entries: at most that many entries are read per agent (through the entries'
/// agent index), whatever it published, and `complete` says whether they were all its entries.
/// Each agent has at least one row.
pub async fn records<'c>(
    pool: impl super::Reads<'c>,
    agents: &[Uuid],
    q: &TouchedQuery,
) -> sqlx::Result<Vec<TouchedRow>> {
    let (after_at, after_id) = q.after.unzip();
    // Each record's location is one primary-key read (the CASE below). As a UNION of the three
    // tables, the planner pushed the circle into each branch and, under-estimating the circle's
    // rows, read the location GiST index around the point once per record instead (5 s for one
    // agent's 24k contributions within 5 km; 0.12 s this way, docs/bench-log/hot-paths.md).
    sqlx::query_as(
        "WITH origin AS (SELECT ST_SetSRID(ST_MakePoint($3, $2), 4326)::geography AS point),
         touched AS (
            SELECT a.id AS agent_id, c.target_canonical_table, c.target_canonical_id,
                   array_agg(DISTINCT c.link_type ORDER BY c.link_type) AS link_types,
                   count(*) AS contributions,
                   min(c.created_at_tstamp_utc) AS first_contributed_at,
                   max(c.created_at_tstamp_utc) AS last_contributed_at
            FROM unnest($1::uuid[]) AS a(id)
            CROSS JOIN LATERAL (
                SELECT e.id FROM space_time_entries e WHERE e.agent_id = a.id
                ORDER BY e.id DESC LIMIT $10) AS newest
            JOIN canonical_link_contributions c ON c.source_space_time_entry_id = newest.id
            WHERE c.created_at_tstamp_utc >= $5 AND c.created_at_tstamp_utc < $6
            GROUP BY 1, 2, 3),
         placed AS (
            SELECT t.*, ST_Distance(r.location, origin.point, false) AS distance_m
            FROM touched t
            CROSS JOIN origin
            CROSS JOIN LATERAL (
                SELECT CASE t.target_canonical_table
                    WHEN 'canonical.entities' THEN
                        (SELECT location FROM canonical.entities WHERE id = t.target_canonical_id)
                    WHEN 'canonical.listings' THEN
                        (SELECT location FROM canonical.listings WHERE id = t.target_canonical_id)
                    WHEN 'canonical.requests' THEN
                        (SELECT location FROM canonical.requests WHERE id = t.target_canonical_id)
                END AS location) r
            WHERE ST_DWithin(r.location, origin.point, $4, false)
              AND ($7::timestamptz IS NULL
                   OR (t.last_contributed_at, t.target_canonical_id) < ($7, $8))),
         ranked AS (
            SELECT placed.*, row_number() OVER (
                PARTITION BY agent_id
                ORDER BY last_contributed_at DESC, target_canonical_id DESC) AS position
            FROM placed)
         SELECT a.id AS agent_id, coverage.complete, r.target_canonical_table,
                r.target_canonical_id, r.link_types, r.contributions, r.first_contributed_at,
                r.last_contributed_at, r.distance_m
         FROM unnest($1::uuid[]) AS a(id)
         CROSS JOIN LATERAL (
             SELECT count(*) <= $10 AS complete FROM (
                 SELECT 1 FROM space_time_entries e WHERE e.agent_id = a.id LIMIT $10 + 1) AS seen
         ) AS coverage
         LEFT JOIN ranked r ON r.agent_id = a.id AND r.position <= $9
         ORDER BY a.id, r.position",
    )
    .bind(agents)
    .bind(q.latitude)
    .bind(q.longitude)
    .bind(q.radius_m)
    .bind(q.since)
    .bind(q.until)
    .bind(after_at)
    .bind(after_id)
    .bind(q.limit)
    .bind(q.entry_limit)
    .fetch_all(pool)
    .await
}
