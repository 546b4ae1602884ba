//! Generated entities as batches of columns for one `INSERT ... SELECT FROM UNNEST(...)` each, for
//! seeding large bases: a batch is built on another thread while PostgreSQL inserts the previous
//! one (`seeded`).
//!
//! An `INSERT`, not a `COPY`: COPY fills each heap page once and moves on, while an `INSERT` looks
//! for room in pages already written, as the transformer's inserts do; at 100k entities COPY's table
//! came out 2 % larger (105.4 MB against 103.2 MB, the same rows) and every figure read from it
//! would have moved with it. PostgreSQL spends the same time on both (8.3 s each for those 100k
//! rows in psql: `COPY` against `INSERT ... SELECT` from a staging table).

use super::generator::entity;
use sqlx::PgConnection;
use uuid::Uuid;

/// Rows per statement (as every seed before this one).
pub const BATCH: usize = 5_000;

/// The columns of one statement's rows.
pub struct Batch {
    ids: Vec<Uuid>,
    names: Vec<String>,
    descriptions: Vec<String>,
    websites: Vec<Option<String>>,
    phones: Vec<Option<String>>,
    cities: Vec<Option<String>>,
    countries: Vec<String>,
    /// UNNEST of a 2-D array flattens it: one '|'-joined text per row, split in the SELECT.
    categories: Vec<String>,
    lats: Vec<f64>,
    lngs: Vec<f64>,
    name_keys: Vec<String>,
    website_keys: Vec<Option<String>>,
    phone_keys: Vec<Option<String>>,
}

/// Entities `first`, `first + 1`... of `seed`, one per id in `ids` (drawn by the caller in load
/// order, so ids grow with the table as the transformer's do).
pub fn batch(seed: u64, first: u64, ids: Vec<Uuid>) -> Batch {
    let n = ids.len();
    let mut b = Batch {
        ids,
        names: Vec::with_capacity(n),
        descriptions: Vec::with_capacity(n),
        websites: Vec::with_capacity(n),
        phones: Vec::with_capacity(n),
        cities: Vec::with_capacity(n),
        countries: Vec::with_capacity(n),
        categories: Vec::with_capacity(n),
        lats: Vec::with_capacity(n),
        lngs: Vec::with_capacity(n),
        name_keys: Vec::with_capacity(n),
        website_keys: Vec::with_capacity(n),
        phone_keys: Vec::with_capacity(n),
    };
    for index in first..first + n as u64 {
        let e = entity(seed, index);
        b.name_keys.push(e.name_key());
        b.website_keys.push(e.website_key());
        b.phone_keys.push(e.phone_key());
        b.categories.push(e.categories.join("|"));
        b.names.push(e.display_name);
        b.descriptions.push(e.description);
        b.websites.push(e.website_url);
        b.phones.push(e.phone);
        b.cities.push(e.city);
        b.countries.push(e.country_code);
        b.lats.push(e.latitude);
        b.lngs.push(e.longitude);
    }
    b
}

/// Inserts `batch` into canonical.entities, every row with `field_evidence` (JSON) as its
/// per-field evidence.
pub async fn insert(
    conn: &mut PgConnection,
    batch: &Batch,
    field_evidence: &str,
) -> anyhow::Result<()> {
    sqlx::query(
        "INSERT INTO canonical.entities (id, entity_type, display_name, description, website_url, phone,
             city, country_code, categories, location_lat, location_lng, status, name_key, website_key,
             phone_key, field_evidence)
         SELECT id, 'company', display_name, description, website_url, phone, city, country_code,
             string_to_array(categories, '|'), lat, lng, 'active', name_key, website_key, phone_key, $14::jsonb
         FROM UNNEST($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
                     $8::text[], $9::float8[], $10::float8[], $11::text[], $12::text[], $13::text[])
              AS t(id, display_name, description, website_url, phone, city, country_code, categories, lat, lng,
                   name_key, website_key, phone_key)",
    )
    .bind(&batch.ids)
    .bind(&batch.names)
    .bind(&batch.descriptions)
    .bind(&batch.websites)
    .bind(&batch.phones)
    .bind(&batch.cities)
    .bind(&batch.countries)
    .bind(&batch.categories)
    .bind(&batch.lats)
    .bind(&batch.lngs)
    .bind(&batch.name_keys)
    .bind(&batch.website_keys)
    .bind(&batch.phone_keys)
    .bind(field_evidence)
    .execute(conn)
    .await?;
    Ok(())
}
