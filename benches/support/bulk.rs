//! Generated entities as the text of PostgreSQL's `COPY ... FROM STDIN`, for seeding large bases:
//! one COPY stream instead of an `INSERT` per batch, and the text built on other threads while
//! PostgreSQL parses the previous piece (`seeded`). The rows are those the benches inserted before
//! by `INSERT ... SELECT FROM UNNEST(...)` in batches of 5,000: the same entities, columns and
//! values (a float is written in its shortest form, which reads back as the same `f64`), ids
//! drawn in load order.

use super::generator::entity;
use std::fmt::Write as _;
use uuid::Uuid;

/// The columns each line of [`rows`] holds, in order; the others take their defaults or are
/// generated (`location`, `search_document`).
pub const COLUMNS: &str = "id, entity_type, display_name, description, website_url, phone, city, \
     country_code, categories, location_lat, location_lng, status, name_key, website_key, phone_key, \
     field_evidence";

/// COPY text of entities `first`, `first + 1`... of `seed`, one per id in `ids` (ids are drawn by
/// the caller, in load order, so they grow with the table as the transformer's do), each with
/// `field_evidence` (JSON text) as its per-field evidence.
pub fn rows(seed: u64, first: u64, ids: &[Uuid], field_evidence: &str) -> Vec<u8> {
    let mut out = String::with_capacity(ids.len() * 400);
    for (index, id) in (first..).zip(ids) {
        let e = entity(seed, index);
        let _ = write!(out, "{id}\tcompany\t");
        field(&mut out, Some(&e.display_name));
        field(&mut out, Some(&e.description));
        field(&mut out, e.website_url.as_deref());
        field(&mut out, e.phone.as_deref());
        field(&mut out, e.city.as_deref());
        field(&mut out, Some(&e.country_code));
        field(&mut out, Some(&array(&e.categories)));
        let _ = write!(out, "{}\t{}\tactive\t", e.latitude, e.longitude);
        field(&mut out, Some(&e.name_key()));
        field(&mut out, e.website_key().as_deref());
        field(&mut out, e.phone_key().as_deref());
        escape(&mut out, field_evidence);
        out.push('\n');
    }
    out.into_bytes()
}

/// One value and the tab after it; `\N` is NULL.
fn field(out: &mut String, value: Option<&str>) {
    match value {
        Some(text) => escape(out, text),
        None => out.push_str("\\N"),
    }
    out.push('\t');
}

/// COPY's text escapes: a backslash, and the delimiter and line ends a value may hold.
fn escape(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
}

/// A `text[]` literal, every element quoted (`{"plumber","cafe"}`).
fn array(items: &[String]) -> String {
    let quoted: Vec<String> = items
        .iter()
        .map(|item| format!("\"{}\"", item.replace('\\', "\\\\").replace('"', "\\\"")))
        .collect();
    format!("{{{}}}", quoted.join(","))
}
