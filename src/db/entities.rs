//! canonical.entities: businesses, suppliers, places, organisations, people, facilities, assets.

use crate::db::ranker::ScoreUpdate;
pub use crate::records::canonical::{Entity, LinkUrl};
use serde_json::Value;
use sqlx::PgConnection;
use uuid::Uuid;

/// Everything the transformer writes; identity keys and per-field evidence travel with the content.
#[derive(Debug, Clone)]
pub struct EntityWrite {
    pub entity_type: String,
    pub display_name: String,
    pub legal_name: Option<String>,
    pub description: Option<String>,
    pub website_url: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub address_text: Option<String>,
    pub city: Option<String>,
    pub country_code: Option<String>,
    pub categories: Vec<String>,
    pub tags: Vec<String>,
    pub link_urls: Value,
    pub contact_agent_id: Option<Uuid>,
    pub location_lat: f64,
    pub location_lng: f64,
    pub status: String,
    pub context_l0_routing: Value,
    pub context_l1_common: Value,
    pub context_l2_specific: Value,
    pub context_l2_available_features: Vec<String>,
    pub source_ref: Option<String>,
    pub website_key: Option<String>,
    pub phone_key: Option<String>,
    pub name_key: String,
    pub field_evidence: Value,
}

/// An entity near the evidence or sharing one of its identity keys. A record an operator merged
/// into another is a candidate too, with `merged_into_id` set: its keys still name its survivor.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct EntityCandidate {
    pub id: Uuid,
    pub merged_into_id: Option<Uuid>,
    pub distance_m: f64,
    pub name_key: Option<String>,
    pub website_key: Option<String>,
    pub phone_key: Option<String>,
    pub source_ref: Option<String>,
    pub address_text: Option<String>,
    pub city: Option<String>,
}

pub const COLUMNS: &str = "id, entity_type, display_name, legal_name, description, website_url, email, phone, \
    address_text, city, country_code, categories, tags, link_urls, contact_agent_id, location_lat, location_lng, \
    status, merged_into_id, score_data_richness, score_agent_reputation, score_signal, score_confidence, \
    context_l0_routing, context_l1_common, context_l2_specific, context_l2_available_features, \
    created_at_tstamp_utc, updated_at_tstamp_utc";

/// A read by id: one primary-key lookup, its text fixed at compile time (no formatting per call;
/// the prepared statement is found by this very string).
const BY_ID: &str =
    const_format::concatcp!("SELECT ", COLUMNS, " FROM canonical.entities WHERE id = $1");

impl super::batched::ById for Entity {
    const SELECT_WHERE_ID_IN: &'static str =
        const_format::concatcp!("SELECT ", COLUMNS, " FROM canonical.entities WHERE id IN ");
    fn id(&self) -> Uuid {
        self.id
    }
    fn batcher(batchers: &super::batched::Batchers) -> &super::batched::Batcher<Self> {
        &batchers.entities
    }
}

/// Works on the pool or inside a transaction.
pub async fn get<'c>(
    executor: impl sqlx::PgExecutor<'c>,
    id: Uuid,
) -> Result<Option<Entity>, sqlx::Error> {
    sqlx::query_as(BY_ID)
        .bind(id)
        .fetch_optional(executor)
        .await
}

/// A record locked for the rest of the transaction, with what merging needs beyond its public fields.
#[derive(Clone)]
pub struct Locked<T> {
    pub record: T,
    pub field_evidence: Value,
    pub created_by_agent_id: Option<Uuid>,
    pub source_ref: Option<String>,
}

pub async fn get_for_update(
    conn: &mut PgConnection,
    id: Uuid,
) -> Result<Option<Locked<Entity>>, sqlx::Error> {
    #[derive(sqlx::FromRow)]
    struct Row {
        #[sqlx(flatten)]
        entity: Entity,
        field_evidence: Value,
        created_by_agent_id: Option<Uuid>,
        source_ref: Option<String>,
    }
    let row: Option<Row> = sqlx::query_as(&format!(
        "SELECT {COLUMNS}, field_evidence, created_by_agent_id, source_ref FROM canonical.entities WHERE id = $1
         FOR UPDATE"
    ))
    .bind(id)
    .fetch_optional(conn)
    .await?;
    Ok(row.map(|r| Locked {
        record: r.entity,
        field_evidence: r.field_evidence,
        created_by_agent_id: r.created_by_agent_id,
        source_ref: r.source_ref,
    }))
}

/// What the candidate search needs of one entry.
pub struct CandidateQuery<'a> {
    pub entry_id: Uuid,
    pub latitude: f64,
    pub longitude: f64,
    pub name_key: &'a str,
    pub website_key: Option<&'a str>,
    pub phone_key: Option<&'a str>,
    pub source_ref: Option<&'a str>,
}

/// For every query (one statement, whatever their number): the nearest entities within
/// `radius_m` (GiST) plus the nearest entities within `key_radius_m` sharing an identity key
/// (btree), 20 of each at most, keyed by the query's `entry_id`; each entity once per query.
/// Withdrawn records are left out; merged ones are in (matching counts them as their survivor).
pub async fn candidates_many(
    conn: &mut PgConnection,
    queries: &[CandidateQuery<'_>],
    radius_m: f64,
    key_radius_m: f64,
) -> Result<Vec<(Uuid, EntityCandidate)>, sqlx::Error> {
    #[derive(sqlx::FromRow)]
    struct Row {
        entry_id: Uuid,
        #[sqlx(flatten)]
        candidate: EntityCandidate,
    }
    if queries.is_empty() {
        return Ok(Vec::new());
    }
    // The point is built once per query (a lateral expression would be rebuilt per use), and the
    // two branches are concatenated (UNION ALL): a record found by both comes back twice, and
    // only its first row is kept.
    //
    // The nearest records within the radius are found in two steps over the GiST index of
    // `location::geometry`, whose nearest-first walk reads about its own rows (the `geography`
    // index's walk read 176 pages for 20 rows at 10M records): the sphere distance of the
    // farthest of the 20 records of the radius's box nearest in degrees bounds the 20th nearest
    // on the sphere (any 20 records do; fewer are every record of the box, where the circle is
    // sparse), and every record within that bound (through its circle's box) is sorted on the
    // sphere. Both steps measure with the same `ST_Distance`, so a record at the bound is
    // never lost to rounding.
    //
    // A key's holders are ranked from its index alone (it carries id, place and status,
    // migration 0028), and only the 20 nearest are read from the table: a common name or a
    // switchboard phone has hundreds of holders at 10M records (`<->` is the sphere distance of
    // `ST_Distance(.., false)` without its per-point set-up). The index orders a key's holders
    // by latitude (migration 0036), so only those of the band of latitudes within
    // `key_radius_m` are read: a chain's name has holders in every city. The band's half-width
    // is the radius's angle on the same sphere, slightly enlarged as in `circle_box`, so a holder
    // within the radius is never outside it.
    let rows: Vec<Row> = sqlx::query_as(
        "WITH q AS MATERIALIZED (
             SELECT entry_id, lat, lng, name_key, website_key, phone_key, source_ref,
                    ST_SetSRID(ST_MakePoint(lng, lat), 4326) AS spot,
                    ST_SetSRID(ST_MakePoint(lng, lat), 4326)::geography AS point,
                    lat - degrees($9::float8 / 6371008.7714) * 1.001 - 1e-9 AS south,
                    lat + degrees($9::float8 / 6371008.7714) * 1.001 + 1e-9 AS north
             FROM UNNEST($1::uuid[], $2::float8[], $3::float8[], $4::text[], $5::text[], $6::text[], $7::text[])
                 AS u(entry_id, lat, lng, name_key, website_key, phone_key, source_ref))
         SELECT q.entry_id, c.* FROM q
         CROSS JOIN LATERAL (
             SELECT least($8, max(ST_Distance(location, q.point, false))) AS bound FROM (
                 SELECT location FROM canonical.entities
                 WHERE status <> 'withdrawn'
                   AND location::geometry && canonical.circle_box(q.lat, q.lng, $8)
                 ORDER BY location::geometry <-> q.spot LIMIT 20) nearest_in_degrees) b
         CROSS JOIN LATERAL (
             (SELECT id, merged_into_id, distance_m, name_key, website_key, phone_key, source_ref,
                     address_text, city
              FROM (SELECT id, merged_into_id, ST_Distance(location, q.point, false) AS distance_m,
                           name_key, website_key, phone_key, source_ref, address_text, city
                    FROM canonical.entities
                    WHERE status <> 'withdrawn'
                      AND location::geometry && canonical.circle_box(q.lat, q.lng, b.bound)) boxed
              WHERE distance_m <= b.bound
              ORDER BY distance_m LIMIT 20)
             UNION ALL
             (SELECT e.id, e.merged_into_id, e.location <-> q.point AS distance_m, e.name_key, e.website_key,
                     e.phone_key, e.source_ref, e.address_text, e.city
              FROM canonical.entities AS e
              WHERE e.id IN (
                  SELECT holder.id FROM (SELECT DISTINCT id, distance_m FROM (
                      SELECT id, location <-> q.point AS distance_m FROM canonical.entities
                      WHERE name_key = q.name_key AND location_lat BETWEEN q.south AND q.north
                        AND status <> 'withdrawn'
                      UNION ALL SELECT id, location <-> q.point FROM canonical.entities
                      WHERE website_key = q.website_key AND location_lat BETWEEN q.south AND q.north
                        AND status <> 'withdrawn'
                      UNION ALL SELECT id, location <-> q.point FROM canonical.entities
                      WHERE phone_key = q.phone_key AND location_lat BETWEEN q.south AND q.north
                        AND status <> 'withdrawn'
                      UNION ALL SELECT id, location <-> q.point FROM canonical.entities
                      WHERE source_ref = q.source_ref AND location_lat BETWEEN q.south AND q.north
                        AND status <> 'withdrawn') AS holders
                      WHERE distance_m <= $9) AS holder
                  ORDER BY holder.distance_m, holder.id LIMIT 20)
              ORDER BY distance_m LIMIT 20)) c",
    )
    .bind(queries.iter().map(|q| q.entry_id).collect::<Vec<_>>())
    .bind(queries.iter().map(|q| q.latitude).collect::<Vec<_>>())
    .bind(queries.iter().map(|q| q.longitude).collect::<Vec<_>>())
    .bind(queries.iter().map(|q| q.name_key).collect::<Vec<_>>())
    .bind(queries.iter().map(|q| q.website_key).collect::<Vec<_>>())
    .bind(queries.iter().map(|q| q.phone_key).collect::<Vec<_>>())
    .bind(queries.iter().map(|q| q.source_ref).collect::<Vec<_>>())
    .bind(radius_m)
    .bind(key_radius_m)
    .fetch_all(conn)
    .await?;
    let mut seen = std::collections::HashSet::with_capacity(rows.len());
    Ok(rows
        .into_iter()
        .filter(|r| seen.insert((r.entry_id, r.candidate.id)))
        .map(|r| (r.entry_id, r.candidate))
        .collect())
}

/// A new entity, with the scores the ranker gives a record of one contribution (so the ranker
/// need not visit it again in the same batch).
pub async fn insert(
    conn: &mut PgConnection,
    id: Uuid,
    w: &EntityWrite,
    created_by: Uuid,
    scores: &ScoreUpdate,
) -> Result<(), sqlx::Error> {
    let query = sqlx::query(const_format::concatcp!(
        "INSERT INTO canonical.entities (",
        CONTENT_COLUMNS,
        ", id, created_by_agent_id, ",
        SCORE_COLUMNS,
        ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20,
             $21, $22, $23, $24, $25, $26, $27, $28, $29, $30, $31, $32)"
    ));
    bind_write(query, w)
        .bind(id)
        .bind(created_by)
        .bind(scores.data_richness)
        .bind(scores.agent_reputation)
        .bind(scores.signal)
        .bind(scores.confidence)
        .execute(conn)
        .await?;
    Ok(())
}

pub async fn update(conn: &mut PgConnection, id: Uuid, w: &EntityWrite) -> Result<(), sqlx::Error> {
    // One column list for both writes: PostgreSQL's multi-column SET takes it as it stands.
    let query = sqlx::query(const_format::concatcp!(
        "UPDATE canonical.entities SET (",
        CONTENT_COLUMNS,
        ") = ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20,
             $21, $22, $23, $24, $25, $26)
         WHERE id = $27"
    ));
    bind_write(query, w).bind(id).execute(conn).await?;
    Ok(())
}

/// A whole batch's new entities in one statement, each with the scores the ranker gives it.
pub async fn insert_many(
    conn: &mut PgConnection,
    rows: &[(Uuid, &EntityWrite, Uuid, &ScoreUpdate)],
) -> Result<(), sqlx::Error> {
    if rows.is_empty() {
        return Ok(());
    }
    let query = sqlx::query(const_format::concatcp!(
        "INSERT INTO canonical.entities (",
        WRITTEN_COLUMNS,
        ", id, created_by_agent_id) SELECT w.* FROM (",
        WRITTEN_ROWS,
        ") w"
    ));
    let writes: Vec<(Uuid, &EntityWrite, &ScoreUpdate)> =
        rows.iter().map(|(id, w, _, s)| (*id, *w, *s)).collect();
    let created_by = rows.iter().map(|(_, _, by, _)| Some(*by)).collect();
    bind_rows(query, &writes, created_by).execute(conn).await?;
    Ok(())
}

/// A whole batch's merges in one statement: every field of each record, and its new scores.
pub async fn update_many(
    conn: &mut PgConnection,
    rows: &[(Uuid, &EntityWrite, &ScoreUpdate)],
) -> Result<(), sqlx::Error> {
    if rows.is_empty() {
        return Ok(());
    }
    let query = sqlx::query(const_format::concatcp!(
        "UPDATE canonical.entities t SET entity_type = w.entity_type, display_name = w.display_name,
             legal_name = w.legal_name, description = w.description, website_url = w.website_url,
             email = w.email, phone = w.phone, address_text = w.address_text, city = w.city,
             country_code = w.country_code, categories = w.categories, tags = w.tags,
             link_urls = w.link_urls, contact_agent_id = w.contact_agent_id,
             location_lat = w.location_lat, location_lng = w.location_lng, status = w.status,
             context_l0_routing = w.context_l0_routing, context_l1_common = w.context_l1_common,
             context_l2_specific = w.context_l2_specific,
             context_l2_available_features = w.context_l2_available_features,
             source_ref = w.source_ref, website_key = w.website_key, phone_key = w.phone_key,
             name_key = w.name_key, field_evidence = w.field_evidence,
             score_data_richness = w.score_data_richness,
             score_agent_reputation = w.score_agent_reputation, score_signal = w.score_signal,
             score_confidence = w.score_confidence
         FROM (",
        WRITTEN_ROWS,
        ") w WHERE t.id = w.id"
    ));
    bind_rows(query, rows, vec![None; rows.len()])
        .execute(conn)
        .await?;
    Ok(())
}

/// What the transformer writes of an entity, in `bind_write`'s order ($1..$26).
const CONTENT_COLUMNS: &str = "entity_type, display_name, legal_name, description, website_url, email, phone, \
    address_text, city, country_code, categories, tags, link_urls, contact_agent_id, location_lat, location_lng, \
    status, context_l0_routing, context_l1_common, context_l2_specific, context_l2_available_features, source_ref, \
    website_key, phone_key, name_key, field_evidence";

/// The ranker's scores, in `ScoreUpdate`'s order.
const SCORE_COLUMNS: &str =
    "score_data_richness, score_agent_reputation, score_signal, score_confidence";

/// The columns `WRITTEN_ROWS` yields, in its order (its `id` and `created_by` follow).
const WRITTEN_COLUMNS: &str = const_format::concatcp!(CONTENT_COLUMNS, ", ", SCORE_COLUMNS);

/// Rows of entity writes from the arrays `bind_rows` binds ($1..$38), one row per record, its id
/// and creator last. The three text-array columns arrive flattened, each row with its slice
/// bounds: UNNEST cannot carry arrays of arrays of different lengths.
const WRITTEN_ROWS: &str = "SELECT u.entity_type, u.display_name, u.legal_name, u.description, u.website_url, \
    u.email, u.phone, u.address_text, u.city, u.country_code, ($11::text[])[u.categories_from + 1:u.categories_to] AS categories, \
    ($14::text[])[u.tags_from + 1:u.tags_to] AS tags, u.link_urls, u.contact_agent_id, u.location_lat, u.location_lng, \
    u.status, u.context_l0_routing, u.context_l1_common, u.context_l2_specific, \
    ($23::text[])[u.features_from + 1:u.features_to] AS context_l2_available_features, u.source_ref, u.website_key, u.phone_key, u.name_key, \
    u.field_evidence, u.score_data_richness, u.score_agent_reputation, u.score_signal, u.score_confidence, u.id, \
    u.created_by \
    FROM UNNEST($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], \
        $9::text[], $10::text[], $12::int4[], $13::int4[], $15::int4[], $16::int4[], $17::jsonb[], $18::uuid[], \
        $19::float8[], $20::float8[], $21::text[], $22::jsonb[], $24::int4[], $25::int4[], $26::jsonb[], \
        $27::jsonb[], $28::text[], $29::text[], $30::text[], $31::text[], $32::jsonb[], $33::numeric[], \
        $34::numeric[], $35::numeric[], $36::numeric[], $37::uuid[], $38::uuid[]) \
    AS u(entity_type, display_name, legal_name, description, website_url, email, phone, address_text, city, \
        country_code, categories_from, categories_to, tags_from, tags_to, link_urls, contact_agent_id, \
        location_lat, location_lng, status, context_l0_routing, features_from, features_to, context_l1_common, \
        context_l2_specific, source_ref, website_key, phone_key, name_key, field_evidence, score_data_richness, \
        score_agent_reputation, score_signal, score_confidence, id, created_by)";

/// One text-array column of many rows: the elements one after the other, and each row's bounds.
fn flattened<'a>(
    rows: &[(Uuid, &'a EntityWrite, &ScoreUpdate)],
    column: fn(&EntityWrite) -> &Vec<String>,
) -> (Vec<&'a str>, Vec<i32>, Vec<i32>) {
    let mut flat = Vec::new();
    let (mut from, mut to) = (
        Vec::with_capacity(rows.len()),
        Vec::with_capacity(rows.len()),
    );
    for (_, w, _) in rows {
        from.push(flat.len() as i32);
        flat.extend(column(w).iter().map(String::as_str));
        to.push(flat.len() as i32);
    }
    (flat, from, to)
}

/// Binds $1..$38 of `WRITTEN_ROWS`.
fn bind_rows<'q>(
    query: PgQuery<'q>,
    rows: &[(Uuid, &'q EntityWrite, &ScoreUpdate)],
    created_by: Vec<Option<Uuid>>,
) -> PgQuery<'q> {
    let text =
        |pick: fn(&EntityWrite) -> &str| rows.iter().map(|(_, w, _)| pick(w)).collect::<Vec<_>>();
    let optional = |pick: fn(&EntityWrite) -> Option<&str>| {
        rows.iter().map(|(_, w, _)| pick(w)).collect::<Vec<_>>()
    };
    let json =
        |pick: fn(&EntityWrite) -> &Value| rows.iter().map(|(_, w, _)| pick(w)).collect::<Vec<_>>();
    let (categories, categories_from, categories_to) = flattened(rows, |w| &w.categories);
    let (tags, tags_from, tags_to) = flattened(rows, |w| &w.tags);
    let (features, features_from, features_to) =
        flattened(rows, |w| &w.context_l2_available_features);
    query
        .bind(text(|w| &w.entity_type))
        .bind(text(|w| &w.display_name))
        .bind(optional(|w| w.legal_name.as_deref()))
        .bind(optional(|w| w.description.as_deref()))
        .bind(optional(|w| w.website_url.as_deref()))
        .bind(optional(|w| w.email.as_deref()))
        .bind(optional(|w| w.phone.as_deref()))
        .bind(optional(|w| w.address_text.as_deref()))
        .bind(optional(|w| w.city.as_deref()))
        .bind(optional(|w| w.country_code.as_deref()))
        .bind(categories)
        .bind(categories_from)
        .bind(categories_to)
        .bind(tags)
        .bind(tags_from)
        .bind(tags_to)
        .bind(json(|w| &w.link_urls))
        .bind(
            rows.iter()
                .map(|(_, w, _)| w.contact_agent_id)
                .collect::<Vec<_>>(),
        )
        .bind(
            rows.iter()
                .map(|(_, w, _)| w.location_lat)
                .collect::<Vec<_>>(),
        )
        .bind(
            rows.iter()
                .map(|(_, w, _)| w.location_lng)
                .collect::<Vec<_>>(),
        )
        .bind(text(|w| &w.status))
        .bind(json(|w| &w.context_l0_routing))
        .bind(features)
        .bind(features_from)
        .bind(features_to)
        .bind(json(|w| &w.context_l1_common))
        .bind(json(|w| &w.context_l2_specific))
        .bind(optional(|w| w.source_ref.as_deref()))
        .bind(optional(|w| w.website_key.as_deref()))
        .bind(optional(|w| w.phone_key.as_deref()))
        .bind(text(|w| &w.name_key))
        .bind(json(|w| &w.field_evidence))
        .bind(
            rows.iter()
                .map(|(_, _, s)| s.data_richness)
                .collect::<Vec<_>>(),
        )
        .bind(
            rows.iter()
                .map(|(_, _, s)| s.agent_reputation)
                .collect::<Vec<_>>(),
        )
        .bind(rows.iter().map(|(_, _, s)| s.signal).collect::<Vec<_>>())
        .bind(
            rows.iter()
                .map(|(_, _, s)| s.confidence)
                .collect::<Vec<_>>(),
        )
        .bind(rows.iter().map(|(id, _, _)| *id).collect::<Vec<_>>())
        .bind(created_by)
}

type PgQuery<'q> = sqlx::query::Query<'q, sqlx::Postgres, sqlx::postgres::PgArguments>;

/// Binds $1..$26 in the column order shared by insert and update.
fn bind_write<'q>(query: PgQuery<'q>, w: &'q EntityWrite) -> PgQuery<'q> {
    query
        .bind(&w.entity_type)
        .bind(&w.display_name)
        .bind(&w.legal_name)
        .bind(&w.description)
        .bind(&w.website_url)
        .bind(&w.email)
        .bind(&w.phone)
        .bind(&w.address_text)
        .bind(&w.city)
        .bind(&w.country_code)
        .bind(&w.categories)
        .bind(&w.tags)
        .bind(&w.link_urls)
        .bind(w.contact_agent_id)
        .bind(w.location_lat)
        .bind(w.location_lng)
        .bind(&w.status)
        .bind(&w.context_l0_routing)
        .bind(&w.context_l1_common)
        .bind(&w.context_l2_specific)
        .bind(&w.context_l2_available_features)
        .bind(&w.source_ref)
        .bind(&w.website_key)
        .bind(&w.phone_key)
        .bind(&w.name_key)
        .bind(&w.field_evidence)
}
