//! JSON-object fields of create bodies. The field is a `serde_json::Value` (GraphQL's JSON scalar,
//! so one body serves REST and GraphQL); REST still rejects anything but an object while parsing
//! (`deserialize_object_option`), and the service checks what GraphQL let through (`check_object`).

use super::Violations;
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

/// `#[serde(default, deserialize_with = "…")]` for an optional JSON object.
pub fn deserialize_object_option<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<Value>, D::Error> {
    Option::<Map<String, Value>>::deserialize(d).map(|m| m.map(Value::Object))
}

/// A violation when a given value is not an object.
pub fn check_object(v: &mut Violations, field: &str, value: &Option<Value>) {
    if let Some(value) = value {
        v.check(
            value.is_object(),
            field,
            "must be a JSON object",
            "type_error",
        );
    }
}

/// The stored object: `{}` when absent.
pub fn object_or_empty(value: Option<Value>) -> Value {
    value.unwrap_or_else(|| Value::Object(Map::new()))
}
