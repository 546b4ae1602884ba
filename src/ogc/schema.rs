//! `GET /collections/{collectionId}/schema`: the JSON Schema of a collection's features, linked
//! from the collection as `describedBy`. GDAL (and QGIS through it) then types its columns from
//! the schema rather than from the first page of features, where a field that is null on every
//! record of that page (`score_signal` before any signal) would become a text column. The field
//! types come from the records' own OpenAPI schemas, so they follow the records.

use super::collections::{Collection, CollectionId};
use super::error::OgcError;
use super::feature::DECIMALS;
use super::{params, vary};
use crate::http::ErrorBody;
use crate::http::base_url;
use crate::records::canonical::{CanonicalRequest, Entity, Listing};
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, RawQuery};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};
use std::sync::OnceLock;

pub const SCHEMA_JSON: &str = "application/schema+json";

/// The records' OpenAPI schemas, as JSON, where `#/components/schemas/...` references resolve:
/// built from the record types themselves, so this adapter needs nothing from the assembled
/// application.
fn document() -> &'static Value {
    static DOCUMENT: OnceLock<Value> = OnceLock::new();
    DOCUMENT.get_or_init(|| {
        let mut schemas = Map::new();
        add::<Entity>(&mut schemas);
        add::<Listing>(&mut schemas);
        add::<CanonicalRequest>(&mut schemas);
        json!({"components": {"schemas": schemas}})
    })
}

/// A record's schema and every schema it refers to.
fn add<T: utoipa::ToSchema>(schemas: &mut Map<String, Value>) {
    let mut referred = Vec::new();
    T::schemas(&mut referred);
    for (name, schema) in referred {
        schemas.insert(name, serde_json::to_value(schema).unwrap_or_default());
    }
    schemas.insert(
        T::name().into_owned(),
        serde_json::to_value(T::schema()).unwrap_or_default(),
    );
}

fn component(c: Collection) -> &'static str {
    match c {
        Collection::Entities => "Entity",
        Collection::Listings => "Listing",
        Collection::Requests => "CanonicalRequest",
    }
}

fn resolve<'a>(doc: &'a Value, schema: &'a Value) -> &'a Value {
    match schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix('#'))
    {
        Some(pointer) => doc.pointer(pointer).unwrap_or(&Value::Null),
        None => schema,
    }
}

/// Every property of a record's schema, flattened parts (`allOf`) included.
fn properties(doc: &Value, schema: &Value, out: &mut Map<String, Value>) {
    let schema = resolve(doc, schema);
    for part in schema
        .get("allOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        properties(doc, part, out);
    }
    for (name, property) in schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        if name != "id" {
            out.insert(name.clone(), column(doc, name, property));
        }
    }
}

/// One plain JSON Schema type per field (GDAL reads `type` as a single string): nullability is
/// left out, decimals are numbers as the features write them, anything nested is an object.
fn column(doc: &Value, name: &str, schema: &Value) -> Value {
    if DECIMALS.contains(&name) {
        return json!({"type": "number"});
    }
    let schema = resolve(doc, schema);
    let kind = match schema.get("type") {
        Some(Value::String(kind)) => kind.as_str(),
        Some(Value::Array(kinds)) => kinds
            .iter()
            .filter_map(Value::as_str)
            .find(|k| *k != "null")
            .unwrap_or("object"),
        _ => "object",
    };
    match kind {
        "string" if schema.get("format") == Some(&json!("date-time")) => {
            json!({"type": "string", "format": "date-time"})
        }
        "string" | "number" | "integer" | "boolean" => json!({"type": kind}),
        "array" => {
            let items = schema.get("items").map(|i| resolve(doc, i));
            let strings = items.and_then(|i| i.get("type")) == Some(&json!("string"));
            json!({"type": "array", "items": {"type": if strings { "string" } else { "object" }}})
        }
        _ => json!({"type": "object"}),
    }
}

fn feature_schema(c: Collection, id: &str) -> Value {
    let doc = document();
    let record = doc
        .pointer(&format!("/components/schemas/{}", component(c)))
        .unwrap_or(&Value::Null);
    let mut fields = Map::new();
    properties(doc, record, &mut fields);
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": id,
        "title": c.title(),
        "type": "object",
        "required": ["type", "id", "geometry", "properties"],
        "properties": {
            "type": {"type": "string", "enum": ["Feature"]},
            "id": {"type": "string", "format": "uuid"},
            "geometry": {"type": "object"},
            "properties": {"type": "object", "properties": fields},
        },
    })
}

/// The JSON Schema of a collection's features
///
/// Each property's type as the features write it (scores, confidences and amounts as numbers),
/// so GIS clients type their columns from it.
#[utoipa::path(get, path = "/collections/{collectionId}/schema", tag = "ogc-features", operation_id = "get_collection_schema",
    params(("collectionId" = inline(CollectionId), Path, description = "`entities`, `listings` or `requests`")),
    responses((status = 200, description = "A JSON Schema (2020-12) of the collection's features",
               content((Object = "application/schema+json"))),
              (status = 400, description = "A query parameter: this resource takes none", body = ErrorBody),
              (status = 404, description = "No such collection", body = ErrorBody)))]
pub async fn collection_schema(
    path: Result<Path<String>, PathRejection>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Result<Response, OgcError> {
    let c = Collection::parse(&path.map(|Path(id)| id).unwrap_or_default())?;
    params::read(query.as_deref(), &[])?;
    let id = format!("{}/collections/{}/schema", base_url(&headers), c.id());
    Ok(vary(
        (
            [(header::CONTENT_TYPE, HeaderValue::from_static(SCHEMA_JSON))],
            axum::Json(feature_schema(c, &id)),
        )
            .into_response(),
    ))
}
