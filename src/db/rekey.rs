//! Identity keys of stored records, read a page at a time and rewritten where the rules of the
//! day give another key (`services::rekey`).

use super::canonical::table_name;
use crate::domain::CanonicalTable;
use uuid::Uuid;

/// What an entity's keys are computed from, and the keys it has.
#[derive(Debug, sqlx::FromRow)]
pub struct EntityKeysRow {
    pub id: Uuid,
    pub display_name: String,
    pub website_url: Option<String>,
    pub phone: Option<String>,
    pub country_code: Option<String>,
    pub name_key: Option<String>,
    pub website_key: Option<String>,
    pub phone_key: Option<String>,
}

/// An offer's title and its title key.
#[derive(Debug, sqlx::FromRow)]
pub struct TitleKeyRow {
    pub id: Uuid,
    pub title: String,
    pub title_key: Option<String>,
}

/// The next `limit` entities after `after`, in id order.
pub async fn entity_page<'c>(
    pool: impl super::Reads<'c>,
    after: Option<Uuid>,
    limit: i64,
) -> Result<Vec<EntityKeysRow>, sqlx::Error> {
    sqlx::query_as(
        "SELECT id, display_name, website_url, phone, country_code, name_key, website_key, phone_key
         FROM canonical.entities WHERE ($1::uuid IS NULL OR id > $1) ORDER BY id LIMIT $2",
    )
    .bind(after)
    .bind(limit)
    .fetch_all(pool)
    .await
}

/// Writes new keys, each only if the fields it was computed from are unchanged and no other
/// transaction holds the row (those are skipped, never waited for: no deadlock with the
/// transformer, which re-keys what it writes anyway). Returns how many rows were rewritten.
pub async fn set_entity_keys<'c>(
    pool: impl super::Reads<'c>,
    rows: &[EntityKeysRow],
) -> Result<u64, sqlx::Error> {
    if rows.is_empty() {
        return Ok(0);
    }
    let done = sqlx::query(
        "WITH u AS (
             SELECT * FROM UNNEST($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
                                  $7::text[], $8::text[])
                 AS u(id, display_name, website_url, phone, country_code, name_key, website_key, phone_key)),
         free AS (SELECT id FROM canonical.entities WHERE id = ANY($1) FOR UPDATE SKIP LOCKED)
         UPDATE canonical.entities e
         SET name_key = u.name_key, website_key = u.website_key, phone_key = u.phone_key
         FROM u JOIN free USING (id)
         WHERE e.id = u.id AND e.display_name = u.display_name
           AND e.website_url IS NOT DISTINCT FROM u.website_url AND e.phone IS NOT DISTINCT FROM u.phone
           AND e.country_code IS NOT DISTINCT FROM u.country_code",
    )
    .bind(rows.iter().map(|r| r.id).collect::<Vec<_>>())
    .bind(rows.iter().map(|r| r.display_name.as_str()).collect::<Vec<_>>())
    .bind(rows.iter().map(|r| r.website_url.as_deref()).collect::<Vec<_>>())
    .bind(rows.iter().map(|r| r.phone.as_deref()).collect::<Vec<_>>())
    .bind(rows.iter().map(|r| r.country_code.as_deref()).collect::<Vec<_>>())
    .bind(rows.iter().map(|r| r.name_key.as_deref()).collect::<Vec<_>>())
    .bind(rows.iter().map(|r| r.website_key.as_deref()).collect::<Vec<_>>())
    .bind(rows.iter().map(|r| r.phone_key.as_deref()).collect::<Vec<_>>())
    .execute(pool)
    .await?;
    Ok(done.rows_affected())
}

/// The next `limit` listings or requests after `after`, in id order.
pub async fn title_page<'c>(
    pool: impl super::Reads<'c>,
    table: CanonicalTable,
    after: Option<Uuid>,
    limit: i64,
) -> Result<Vec<TitleKeyRow>, sqlx::Error> {
    sqlx::query_as(&format!(
        "SELECT id, title, title_key FROM {} WHERE ($1::uuid IS NULL OR id > $1) ORDER BY id LIMIT $2",
        table_name(table)
    ))
    .bind(after)
    .bind(limit)
    .fetch_all(pool)
    .await
}

/// As `set_entity_keys`, for title keys.
pub async fn set_title_keys<'c>(
    pool: impl super::Reads<'c>,
    table: CanonicalTable,
    rows: &[TitleKeyRow],
) -> Result<u64, sqlx::Error> {
    if rows.is_empty() {
        return Ok(0);
    }
    let done = sqlx::query(&format!(
        "WITH u AS (SELECT * FROM UNNEST($1::uuid[], $2::text[], $3::text[]) AS u(id, title, title_key)),
         free AS (SELECT id FROM {table} WHERE id = ANY($1) FOR UPDATE SKIP LOCKED)
         UPDATE {table} r SET title_key = u.title_key
         FROM u JOIN free USING (id)
         WHERE r.id = u.id AND r.title = u.title",
        table = table_name(table)
    ))
    .bind(rows.iter().map(|r| r.id).collect::<Vec<_>>())
    .bind(rows.iter().map(|r| r.title.as_str()).collect::<Vec<_>>())
    .bind(rows.iter().map(|r| r.title_key.as_deref()).collect::<Vec<_>>())
    .execute(pool)
    .await?;
    Ok(done.rows_affected())
}
