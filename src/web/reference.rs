//! The OpenAPI document → the HTML reference: every operation with its parameters, request and
//! response schemas, authentication, errors and a curl example, then every schema.

use super::layout::{escape, markdown};
use serde_json::{Map, Value, json};

pub struct Operation<'a> {
    pub method: &'a str,
    pub path: &'a str,
    pub spec: &'a Value,
}

impl Operation<'_> {
    pub fn id(&self) -> String {
        let id = self.spec["operationId"].as_str().unwrap_or("");
        format!("op-{id}")
    }
    fn tag(&self) -> &str {
        self.spec["tags"][0].as_str().unwrap_or("other")
    }
    fn secured(&self) -> bool {
        self.spec["security"]
            .as_array()
            .is_some_and(|s| !s.is_empty())
    }
    pub fn summary(&self) -> String {
        self.spec["summary"]
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| {
                self.spec["operationId"]
                    .as_str()
                    .unwrap_or("")
                    .replace('_', " ")
            })
    }
}

const METHODS: &[&str] = &["get", "post", "put", "patch", "delete"];

/// Every operation, grouped by tag in the order the tags first appear, paths in document order.
pub fn operations(doc: &Value) -> Vec<(String, Vec<Operation<'_>>)> {
    let mut groups: Vec<(String, Vec<Operation>)> = Vec::new();
    let Some(paths) = doc["paths"].as_object() else {
        return groups;
    };
    for (path, item) in paths {
        for method in METHODS {
            let Some(spec) = item.get(*method) else {
                continue;
            };
            let op = Operation { method, path, spec };
            let tag = op.tag().to_string();
            match groups.iter_mut().find(|(t, _)| *t == tag) {
                Some((_, ops)) => ops.push(op),
                None => groups.push((tag, vec![op])),
            }
        }
    }
    groups
}

pub fn render_operation(doc: &Value, op: &Operation) -> String {
    let mut html = format!(
        "<section class=\"op\" id=\"{id}\"><h3><span class=\"method {m}\">{M}</span><code>{path}</code></h3><p><strong>{summary}</strong>{auth}</p>",
        id = escape(&op.id()),
        m = op.method,
        M = op.method.to_uppercase(),
        path = escape(op.path),
        summary = escape(&op.summary()),
        auth = if op.secured() {
            "<span class=\"badge\">bearer key or access token</span>"
        } else {
            "<span class=\"badge\">no key needed</span>"
        },
    );
    if let Some(description) = op.spec["description"].as_str() {
        html.push_str(&markdown(description));
    }
    html.push_str(&parameters(op.spec));
    html.push_str(&request_body(op.spec));
    html.push_str(&responses(op.spec));
    html.push_str(&format!(
        "<p class=\"muted\">Example</p><pre><code>{}</code></pre></section>",
        escape(&curl_example(doc, op))
    ));
    html
}

fn parameters(spec: &Value) -> String {
    let Some(params) = spec["parameters"].as_array().filter(|p| !p.is_empty()) else {
        return String::new();
    };
    let rows: String = params
        .iter()
        .map(|p| {
            format!(
                "<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                escape(p["name"].as_str().unwrap_or("")),
                escape(p["in"].as_str().unwrap_or("")),
                type_html(&p["schema"]),
                if p["required"] == true { "yes" } else { "no" },
                escape(p["description"].as_str().unwrap_or("")),
            )
        })
        .collect();
    format!(
        "<p class=\"muted\">Parameters</p><div class=\"table\"><table><tr><th>name</th><th>in</th><th>type</th><th>required</th><th>notes</th></tr>{rows}</table></div>"
    )
}

fn request_body(spec: &Value) -> String {
    let Some(content) = spec["requestBody"]["content"].as_object() else {
        return String::new();
    };
    let items: String = content
        .iter()
        .map(|(media, c)| {
            format!(
                "<li><code>{}</code>: {}</li>",
                escape(media),
                type_html(&c["schema"])
            )
        })
        .collect();
    let note = spec["requestBody"]["description"]
        .as_str()
        .map(|d| format!(" <span class=\"muted\">{}</span>", escape(d)))
        .unwrap_or_default();
    format!("<p class=\"muted\">Request body{note}</p><ul>{items}</ul>")
}

fn responses(spec: &Value) -> String {
    let Some(responses) = spec["responses"].as_object() else {
        return String::new();
    };
    let rows: String = responses
        .iter()
        .map(|(status, r)| {
            let body = r["content"]
                .as_object()
                .map(|c| {
                    c.iter()
                        .map(|(media, c)| match c.get("schema") {
                            Some(schema) => format!(
                                "{} <span class=\"muted\">{}</span>",
                                type_html(schema),
                                escape(media)
                            ),
                            None => format!("<span class=\"muted\">{}</span>", escape(media)),
                        })
                        .collect::<Vec<_>>()
                        .join("<br>")
                })
                .unwrap_or_else(|| "no body".into());
            format!(
                "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
                escape(status),
                body,
                escape(r["description"].as_str().unwrap_or(""))
            )
        })
        .collect();
    format!(
        "<p class=\"muted\">Responses</p><div class=\"table\"><table><tr><th>status</th><th>body</th><th>when</th></tr>{rows}</table></div>"
    )
}

fn ref_name(schema: &Value) -> Option<&str> {
    schema["$ref"]
        .as_str()?
        .strip_prefix("#/components/schemas/")
}

/// A schema as a short type with links to named schemas: `array of <a>Entity</a>`.
pub fn type_html(schema: &Value) -> String {
    if let Some(name) = ref_name(schema) {
        return format!("<a href=\"#schema-{0}\">{0}</a>", escape(name));
    }
    for key in ["oneOf", "anyOf", "allOf"] {
        if let Some(variants) = schema[key].as_array() {
            let parts: Vec<String> = variants.iter().map(type_html).collect();
            return parts.join(if key == "allOf" { " and " } else { " or " });
        }
    }
    if let Some(values) = schema["enum"].as_array() {
        let listed: Vec<String> = values
            .iter()
            .map(|v| format!("<code>{}</code>", escape(&v.to_string())))
            .collect();
        return format!("one of {}", listed.join(", "));
    }
    let kind = match &schema["type"] {
        Value::String(t) => t.clone(),
        Value::Array(types) => types
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" or "),
        _ => String::new(),
    };
    if kind.starts_with("array") || kind.ends_with("array") {
        return format!("{kind} of {}", type_html(&schema["items"]));
    }
    if kind == "object" && schema["additionalProperties"].is_object() {
        return format!("object of {}", type_html(&schema["additionalProperties"]));
    }
    let format = schema["format"]
        .as_str()
        .map(|f| format!(" ({})", escape(f)))
        .unwrap_or_default();
    if kind.is_empty() {
        "any".into()
    } else {
        format!("{}{format}", escape(&kind))
    }
}

pub fn render_schema(name: &str, schema: &Value) -> String {
    let mut html = format!("<section id=\"schema-{0}\"><h3>{0}</h3>", escape(name));
    if let Some(d) = schema["description"].as_str() {
        html.push_str(&markdown(d));
    }
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    match schema["properties"].as_object() {
        Some(props) => {
            let rows: String = props
                .iter()
                .map(|(field, s)| {
                    format!(
                        "<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td></tr>",
                        escape(field),
                        type_html(s),
                        if required.contains(&field.as_str()) {
                            "yes"
                        } else {
                            "no"
                        },
                        escape(s["description"].as_str().unwrap_or("")),
                    )
                })
                .collect();
            html.push_str(&format!(
                "<div class=\"table\"><table><tr><th>field</th><th>type</th><th>required</th><th>notes</th></tr>{rows}</table></div>"
            ));
        }
        None => html.push_str(&format!("<p>{}</p>", type_html(schema))),
    }
    html.push_str("</section>");
    html
}

/// `curl` with the path's parameters as shell variables and a body of the required fields.
fn curl_example(doc: &Value, op: &Operation) -> String {
    let path = op
        .path
        .split('/')
        .map(
            |seg| match seg.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
                Some(name) => format!("${}", name.to_uppercase()),
                None => seg.to_string(),
            },
        )
        .collect::<Vec<_>>()
        .join("/");
    let mut lines = vec![if op.method == "get" {
        format!("curl -s \"{{base_url}}{path}\"")
    } else {
        format!(
            "curl -s -X {} \"{{base_url}}{path}\"",
            op.method.to_uppercase()
        )
    }];
    if op.secured() {
        lines.push("  -H \"authorization: Bearer $STRS_API_KEY\"".into());
    }
    let json_body = &op.spec["requestBody"]["content"]["application/json"]["schema"];
    if !json_body.is_null() {
        let example = example_value(doc, json_body, 0);
        lines.push("  -H 'content-type: application/json'".into());
        lines.push(format!("  -d '{example}'"));
    }
    lines.join(" \\\n")
}

fn resolve<'a>(doc: &'a Value, schema: &'a Value) -> &'a Value {
    match ref_name(schema) {
        Some(name) => &doc["components"]["schemas"][name],
        None => schema,
    }
}

/// A value of the schema's shape: required properties only, the first enum value, typed samples.
fn example_value(doc: &Value, schema: &Value, depth: usize) -> Value {
    let schema = resolve(doc, schema);
    if depth > 4 {
        return Value::Null;
    }
    if let Some(first) = schema["enum"].as_array().and_then(|v| v.first()) {
        return first.clone();
    }
    if let Some(first) = schema["oneOf"].as_array().and_then(|v| v.first()) {
        return example_value(doc, first, depth + 1);
    }
    let kind = match &schema["type"] {
        Value::String(t) => t.as_str(),
        Value::Array(types) => types
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or("null"),
        _ => "",
    };
    match (kind, schema["format"].as_str()) {
        ("object", _) | ("", _) if schema["properties"].is_object() => {
            let required: Vec<&str> = schema["required"]
                .as_array()
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let mut out = Map::new();
            for (field, s) in schema["properties"].as_object().into_iter().flatten() {
                if required.contains(&field.as_str()) {
                    out.insert(field.clone(), example_value(doc, s, depth + 1));
                }
            }
            Value::Object(out)
        }
        ("object", _) => json!({}),
        ("array", _) => json!([example_value(doc, &schema["items"], depth + 1)]),
        ("string", Some("uuid")) => json!("0196c8c4-7a10-7f3e-b2d4-1e9a5c7f0b22"),
        ("string", Some("date-time")) => json!("2026-11-20T10:00:00Z"),
        ("string", _) => json!("text"),
        ("integer", _) => json!(1),
        ("number", _) => json!(1.5),
        ("boolean", _) => json!(true),
        _ => Value::Null,
    }
}
