//! JSON Schemas for tool inputs and outputs, taken from the same types (and the same OpenAPI
//! components) as the REST contract, with `#/components/schemas/X` references moved into the
//! schema's own `$defs` so each schema stands alone.

use serde_json::{Map, Value, json};
use std::collections::BTreeSet;
use std::sync::Arc;
use utoipa::openapi::{RefOr, schema::Schema};

/// The REST contract's component schemas, from the OpenAPI document the application hands over
/// when it builds the router: the MCP layer never builds the document itself.
pub struct Schemas {
    components: Map<String, Value>,
}

impl Schemas {
    pub fn of_document(api: &utoipa::openapi::OpenApi) -> Schemas {
        let doc = serde_json::to_value(api).unwrap_or(Value::Null);
        let components = doc["components"]["schemas"]
            .as_object()
            .cloned()
            .unwrap_or_default();
        Schemas { components }
    }

    /// The schema of `T` (a `ToSchema` type), standing alone.
    pub fn of<T: utoipa::ToSchema>(&self) -> Arc<Map<String, Value>> {
        let mut own: Vec<(String, RefOr<Schema>)> = Vec::new();
        T::schemas(&mut own);
        let mut extra = Map::new();
        for (name, schema) in own {
            extra.insert(name, serde_json::to_value(schema).unwrap_or(Value::Null));
        }
        let root = serde_json::to_value(T::schema()).unwrap_or(Value::Null);
        self.standalone(root, &extra)
    }

    /// An object schema with one property holding `inner` (MCP tool outputs must be objects).
    pub fn wrapped(
        &self,
        property: &str,
        inner: Value,
        description: &str,
    ) -> Arc<Map<String, Value>> {
        let root = json!({
            "type": "object",
            "required": [property],
            "properties": {property: inner},
            "description": description,
        });
        self.standalone(root, &Map::new())
    }

    fn standalone(&self, mut root: Value, extra: &Map<String, Value>) -> Arc<Map<String, Value>> {
        let mut needed = BTreeSet::new();
        let mut pending = Vec::new();
        collect_refs(&root, &mut pending);
        let mut defs = Map::new();
        while let Some(name) = pending.pop() {
            if !needed.insert(name.clone()) {
                continue;
            }
            let schema = self
                .components
                .get(&name)
                .or_else(|| extra.get(&name))
                .cloned()
                .unwrap_or(json!({}));
            collect_refs(&schema, &mut pending);
            defs.insert(name, schema);
        }
        for schema in defs.values_mut() {
            rewrite_refs(schema);
        }
        rewrite_refs(&mut root);
        let mut object = match root {
            Value::Object(map) => map,
            other => Map::from_iter([("allOf".to_string(), json!([other]))]),
        };
        object.entry("type").or_insert(json!("object"));
        if !defs.is_empty() {
            object.insert("$defs".into(), Value::Object(defs));
        }
        Arc::new(object)
    }
}

/// A component's reference, for building wrapped schemas.
pub fn reference(name: &str) -> Value {
    json!({"$ref": format!("#/components/schemas/{name}")})
}

fn collect_refs(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if let Some(name) = map
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix("#/components/schemas/"))
            {
                out.push(name.to_string());
            }
            map.values().for_each(|v| collect_refs(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| collect_refs(v, out)),
        _ => {}
    }
}

fn rewrite_refs(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(r)) = map.get_mut("$ref")
                && let Some(name) = r.strip_prefix("#/components/schemas/")
            {
                *r = format!("#/$defs/{name}");
            }
            map.values_mut().for_each(rewrite_refs);
        }
        Value::Array(items) => items.iter_mut().for_each(rewrite_refs),
        _ => {}
    }
}
