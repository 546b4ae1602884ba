//! Compiled plans for the most common dashboard query: canonical records read by id, plain
//! fields only. async-graphql validates every request, runs one boxed future per field and
//! builds a tree of values before anything is written; for `entity(id:) { …28 fields… }` that
//! was half of the request's time next to the REST twin (docs/bench-log/api.md). A document of the
//! shape below is instead run once through async-graphql as usual, then compiled into a plan
//! that calls the same service function and writes the selected fields of the record straight
//! into the response, as graphql-jit and Grafast do for their peers.
//!
//! What compiles: one query operation without directives or fragments, whose root fields are
//! `entity`, `listing` or `request` with only an `id` (a literal or a `UUID` variable) and whose
//! selections are fields without arguments of scalar types (enums excepted), lists of them,
//! objects made of them, and `__typename`, each response key once. Anything else, and any
//! request whose plan cannot answer it exactly (a missing or malformed variable, an unknown id,
//! an error), runs through async-graphql.
//!
//! A plan is trusted only after it has reproduced async-graphql's answer to the request that
//! taught it, byte for byte; a plan that does not is forgotten and its document stays on the
//! executor. Values come from the record's one shape (`records/`, its serde form), each selected
//! member serialised as REST sends it (`members`) and copied in the selection's order, no tree of
//! values built and nothing parsed back but a nested object's members. GraphQL and serde agree
//! on every scalar admitted here except `DateTime`, which GraphQL writes with `+00:00` where
//! serde writes `Z`, and is rewritten.

use super::members::Members;
use crate::records::canonical::{CanonicalRequest, Entity, Listing};
use crate::services::canonical;
use crate::state::AppState;
use async_graphql::parser::types::{
    BaseType, DocumentOperations, ExecutableDocument, OperationType, Selection, SelectionSet,
    ServiceDocument, Type, TypeKind, TypeSystemDefinition,
};
use async_graphql::{Positioned, Value as ConstValue, Variables};
use async_graphql_value::Value as GqlValue;
use serde_json::value::RawValue;
use std::collections::HashMap;
use uuid::Uuid;

/// The root fields a plan may call, each through the service function its resolver calls.
#[derive(Debug, Clone, Copy)]
enum Root {
    Entity,
    Listing,
    Request,
}

impl Root {
    fn named(field: &str) -> Option<Root> {
        match field {
            "entity" => Some(Root::Entity),
            "listing" => Some(Root::Listing),
            "request" => Some(Root::Request),
            _ => None,
        }
    }

    /// Writes the root's object of the record `id`; `None` when it does not exist, the read
    /// failed or the record lacks a selected member (the executor then gives the answer, null or
    /// error, as it always has).
    async fn write(
        self,
        state: &AppState,
        id: Uuid,
        pick: &RootPick,
        body: &mut Vec<u8>,
    ) -> Option<()> {
        let members = match self {
            Root::Entity => Members::of(
                &canonical::record::<Entity>(state, id).await.ok()?,
                &pick.members,
            ),
            Root::Listing => Members::of(
                &canonical::record::<Listing>(state, id).await.ok()?,
                &pick.members,
            ),
            Root::Request => Members::of(
                &canonical::record::<CanonicalRequest>(state, id)
                    .await
                    .ok()?,
                &pick.members,
            ),
        }?;
        write_fields(body, &pick.fields, |n, _| members.get(pick.member_of[n]))
    }
}

/// Output types of the schema and their argument-free fields, read from the schema's SDL.
pub struct Types {
    /// Type name → field name → field type and whether the field takes arguments.
    objects: HashMap<String, HashMap<String, (Type, bool)>>,
    /// The scalars by name (`UUID`, `DateTime`, …): enums are not among them.
    scalars: std::collections::HashSet<String>,
}

impl Types {
    pub fn from_sdl(sdl: &str) -> Types {
        let mut types = Types {
            objects: HashMap::new(),
            scalars: ["String", "Int", "Float", "Boolean", "ID"]
                .into_iter()
                .map(String::from)
                .collect(),
        };
        let Ok(ServiceDocument { definitions }) = async_graphql::parser::parse_schema(sdl) else {
            return types;
        };
        for definition in definitions {
            let TypeSystemDefinition::Type(definition) = definition else {
                continue;
            };
            let definition = definition.node;
            match definition.kind {
                TypeKind::Scalar => {
                    types.scalars.insert(definition.name.node.to_string());
                }
                TypeKind::Object(object) => {
                    let fields = object
                        .fields
                        .into_iter()
                        .map(|field| {
                            let takes_arguments = !field.node.arguments.is_empty();
                            let name = field.node.name.node.to_string();
                            (name, (field.node.ty.node, takes_arguments))
                        })
                        .collect();
                    types
                        .objects
                        .insert(definition.name.node.to_string(), fields);
                }
                _ => {}
            }
        }
        types
    }

    /// The named type a root query field returns (`entity` → `Entity`).
    fn root_type(&self, field: &str) -> Option<&str> {
        match &self.objects.get("Query")?.get(field)?.0.base {
            BaseType::Named(name) => Some(name.as_str()),
            BaseType::List(_) => None,
        }
    }
}

/// What a plan writes for one response key.
#[derive(Debug)]
enum Source {
    Typename(String),
    Field {
        /// The key of the value in the record's serde form.
        serde_key: String,
        value: Shape,
    },
}

#[derive(Debug)]
enum Shape {
    /// Written as serde wrote it.
    Plain,
    /// RFC 3339 with `+00:00`, as async-graphql writes `DateTime`.
    DateTime,
    List(Box<Shape>),
    Object(Vec<(String, Source)>),
}

#[derive(Debug)]
enum IdSource {
    Literal(Uuid),
    Variable(String),
}

#[derive(Debug)]
struct RootPick {
    key: String,
    root: Root,
    id: IdSource,
    fields: Vec<(String, Source)>,
    /// The serde names of the record's members the fields read, each once.
    members: Vec<String>,
    /// For each field, its member in `members` (unused for `__typename`).
    member_of: Vec<usize>,
}

/// A compiled document.
#[derive(Debug)]
pub struct Plan {
    roots: Vec<RootPick>,
}

impl Plan {
    /// The plan for a document, when it has the shape described in the module's comment.
    pub fn compile(document: &ExecutableDocument, types: &Types) -> Option<Plan> {
        if !document.fragments.is_empty() {
            return None;
        }
        let DocumentOperations::Single(operation) = &document.operations else {
            return None;
        };
        let operation = &operation.node;
        if operation.ty != OperationType::Query || !operation.directives.is_empty() {
            return None;
        }
        // Every variable must be an id of a root field: nothing else could change the answer.
        let mut id_variables = Vec::new();
        for definition in &operation.variable_definitions {
            let definition = &definition.node;
            let is_uuid = matches!(&definition.var_type.node.base,
                BaseType::Named(name) if name.as_str() == "UUID");
            if !is_uuid || !definition.directives.is_empty() {
                return None;
            }
            id_variables.push(definition.name.node.to_string());
        }
        let mut roots = Vec::new();
        let mut keys = std::collections::HashSet::new();
        for selection in &operation.selection_set.node.items {
            let Selection::Field(field) = &selection.node else {
                return None;
            };
            let field = &field.node;
            let key = field.response_key().node.to_string();
            if !field.directives.is_empty() || !keys.insert(key.clone()) {
                return None;
            }
            let root = Root::named(field.name.node.as_str())?;
            let [(argument, value)] = field.arguments.as_slice() else {
                return None;
            };
            if argument.node.as_str() != "id" {
                return None;
            }
            let id = match &value.node {
                GqlValue::Variable(name) if id_variables.iter().any(|v| v == name.as_str()) => {
                    IdSource::Variable(name.to_string())
                }
                GqlValue::String(text) => IdSource::Literal(text.parse().ok()?),
                _ => return None,
            };
            let type_name = types.root_type(field.name.node.as_str())?;
            let fields = object_fields(&field.selection_set, type_name, types)?;
            let mut members: Vec<String> = Vec::new();
            let member_of = fields
                .iter()
                .map(|(_, source)| match source {
                    Source::Typename(_) => 0,
                    Source::Field { serde_key, .. } => {
                        match members.iter().position(|member| member == serde_key) {
                            Some(at) => at,
                            None => {
                                members.push(serde_key.clone());
                                members.len() - 1
                            }
                        }
                    }
                })
                .collect();
            roots.push(RootPick {
                key,
                root,
                id,
                fields,
                members,
                member_of,
            });
        }
        let used = |name: &String| {
            roots
                .iter()
                .any(|root| matches!(&root.id, IdSource::Variable(v) if v == name))
        };
        if roots.is_empty() || !id_variables.iter().all(used) {
            return None;
        }
        Some(Plan { roots })
    }

    /// The response body, or `None` when the executor must answer.
    pub async fn run(&self, state: &AppState, variables: &impl Ids) -> Option<Vec<u8>> {
        let mut body = Vec::with_capacity(2048);
        body.extend_from_slice(b"{\"data\":{");
        for (n, pick) in self.roots.iter().enumerate() {
            let id = match &pick.id {
                IdSource::Literal(id) => *id,
                IdSource::Variable(name) => variables.id(name)?,
            };
            if n > 0 {
                body.push(b',');
            }
            write_key(&mut body, &pick.key);
            pick.root.write(state, id, pick, &mut body).await?;
        }
        body.extend_from_slice(b"}}");
        Some(body)
    }
}

/// A request's variables, as far as a plan reads them: the id a variable names, when it is a
/// string that parses as one.
pub trait Ids {
    fn id(&self, name: &str) -> Option<Uuid>;
}

/// The variables async-graphql parsed.
impl Ids for Variables {
    fn id(&self, name: &str) -> Option<Uuid> {
        match self.get(name)? {
            ConstValue::String(text) => text.parse().ok(),
            _ => None,
        }
    }
}

/// The variables of a body read without async-graphql (`handler`): a variable given twice is
/// its last value, as when they are parsed into a map.
impl Ids for RawFields<'_> {
    fn id(&self, name: &str) -> Option<Uuid> {
        let (_, value) = self.0.iter().rev().find(|(key, _)| *key == name)?;
        serde_json::from_str::<&str>(value.get()).ok()?.parse().ok()
    }
}

/// The plan of an object's selection set, or `None` if a selection is outside what compiles.
fn object_fields(
    set: &Positioned<SelectionSet>,
    type_name: &str,
    types: &Types,
) -> Option<Vec<(String, Source)>> {
    let fields = types.objects.get(type_name)?;
    let mut picks = Vec::new();
    let mut keys = std::collections::HashSet::new();
    for selection in &set.node.items {
        let Selection::Field(field) = &selection.node else {
            return None;
        };
        let field = &field.node;
        let key = field.response_key().node.to_string();
        if !field.directives.is_empty() || !field.arguments.is_empty() || !keys.insert(key.clone())
        {
            return None;
        }
        let name = field.name.node.as_str();
        if name == "__typename" {
            picks.push((key, Source::Typename(type_name.to_string())));
            continue;
        }
        let (ty, takes_arguments) = fields.get(name)?;
        if *takes_arguments {
            return None;
        }
        let value = shape(ty, &field.selection_set, types)?;
        picks.push((
            key,
            Source::Field {
                serde_key: snake_case(name),
                value,
            },
        ));
    }
    Some(picks)
}

fn shape(ty: &Type, set: &Positioned<SelectionSet>, types: &Types) -> Option<Shape> {
    match &ty.base {
        BaseType::List(inner) => Some(Shape::List(Box::new(shape(inner, set, types)?))),
        BaseType::Named(name) if types.scalars.contains(name.as_str()) => {
            if !set.node.items.is_empty() {
                return None;
            }
            Some(if name.as_str() == "DateTime" {
                Shape::DateTime
            } else {
                Shape::Plain
            })
        }
        BaseType::Named(name) if types.objects.contains_key(name.as_str()) => {
            Some(Shape::Object(object_fields(set, name.as_str(), types)?))
        }
        // Enums, unions, interfaces: their values are written by their GraphQL definitions.
        BaseType::Named(_) => None,
    }
}

/// `createdAtTstampUtc` → `created_at_tstamp_utc`: async-graphql names a struct field in
/// camelCase.
fn snake_case(name: &str) -> String {
    let mut snake = String::with_capacity(name.len() + 4);
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            snake.push('_');
            snake.push(c.to_ascii_lowercase());
        } else {
            snake.push(c);
        }
    }
    snake
}

fn write_key(body: &mut Vec<u8>, key: &str) {
    // Response keys are GraphQL names ([_A-Za-z][_0-9A-Za-z]*): nothing to escape.
    body.push(b'"');
    body.extend_from_slice(key.as_bytes());
    body.extend_from_slice(b"\":");
}

/// A nested object (a record's member) from its JSON text.
fn write_object(body: &mut Vec<u8>, record: &str, fields: &[(String, Source)]) -> Option<()> {
    let record: RawFields = serde_json::from_str(record).ok()?;
    let mut next = 0;
    write_fields(body, fields, |_, serde_key| {
        record.get(serde_key, &mut next).map(RawValue::get)
    })
}

/// An object of the selected `fields`, the text of the `n`th (serde name `serde_key`) given by
/// `text_of`. A member the serde form lacks is no plain field: the executor answers.
fn write_fields<'t>(
    body: &mut Vec<u8>,
    fields: &[(String, Source)],
    mut text_of: impl FnMut(usize, &str) -> Option<&'t str>,
) -> Option<()> {
    body.push(b'{');
    for (n, (key, source)) in fields.iter().enumerate() {
        if n > 0 {
            body.push(b',');
        }
        write_key(body, key);
        match source {
            Source::Typename(name) => serde_json::to_writer(&mut *body, name).ok()?,
            Source::Field { serde_key, value } => write_value(body, text_of(n, serde_key)?, value)?,
        }
    }
    body.push(b'}');
    Some(())
}

fn write_value(body: &mut Vec<u8>, text: &str, shape: &Shape) -> Option<()> {
    if text == "null" {
        body.extend_from_slice(b"null");
        return Some(());
    }
    match shape {
        // serde_json wrote it compact, as it writes the executor's answer.
        Shape::Plain => body.extend_from_slice(text.as_bytes()),
        Shape::DateTime => write_date_time(body, text)?,
        Shape::List(inner) => {
            let items: Vec<&RawValue> = serde_json::from_str(text).ok()?;
            body.push(b'[');
            for (n, item) in items.into_iter().enumerate() {
                if n > 0 {
                    body.push(b',');
                }
                write_value(body, item.get(), inner)?;
            }
            body.push(b']');
        }
        Shape::Object(fields) => write_object(body, text, fields)?,
    }
    Some(())
}

/// chrono's serde form of a UTC instant (`"2026-11-29T10:05:55.123456Z"`) as async-graphql
/// writes it: `to_rfc3339` prints the same digits (chrono's one RFC 3339 writer, the fraction in
/// 0, 3, 6 or 9 digits) with `+00:00` for `Z`. Anything else (a year beyond 9999, not RFC 3339)
/// is left to the executor.
fn write_date_time(body: &mut Vec<u8>, text: &str) -> Option<()> {
    let bytes = text.as_bytes();
    let plain_year =
        bytes.len() > 7 && bytes[1..5].iter().all(u8::is_ascii_digit) && bytes[5] == b'-';
    let instant = text.strip_suffix("Z\"").filter(|_| plain_year)?;
    body.extend_from_slice(instant.as_bytes());
    body.extend_from_slice(b"+00:00\"");
    Some(())
}

/// An object's members in the order serde wrote them, each value still its JSON text: the
/// selected ones are copied out without building a tree of values.
#[derive(Default)]
pub struct RawFields<'a>(Vec<(&'a str, &'a RawValue)>);

impl<'a> RawFields<'a> {
    /// The member named `key`, searched from `next` on: a selection usually follows the
    /// record's own order, so each lookup is a step or two.
    fn get(&self, key: &str, next: &mut usize) -> Option<&'a RawValue> {
        let members = &self.0;
        let at = (*next..members.len())
            .chain(0..*next)
            .find(|&i| members[i].0 == key)?;
        *next = at + 1;
        Some(members[at].1)
    }
}

impl<'de: 'a, 'a> serde::Deserialize<'de> for RawFields<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Members<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for Members<'a> {
            type Value = RawFields<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            // A key with escapes cannot be borrowed and fails here: the executor answers.
            fn visit_map<M: serde::de::MapAccess<'de>>(
                self,
                mut map: M,
            ) -> Result<Self::Value, M::Error> {
                let mut members = Vec::with_capacity(map.size_hint().unwrap_or(48));
                while let Some(member) = map.next_entry::<&'de str, &'de RawValue>()? {
                    members.push(member);
                }
                Ok(RawFields(members))
            }
        }
        deserializer.deserialize_map(Members(std::marker::PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn types() -> Types {
        Types::from_sdl(&crate::graphql::sdl())
    }

    fn compile(query: &str) -> Option<Plan> {
        Plan::compile(
            &async_graphql::parser::parse_query(query).unwrap(),
            &types(),
        )
    }

    #[test]
    fn reads_by_id_of_plain_fields_compile() {
        let plan = compile(
            "query($id: UUID!) { entity(id: $id) { id displayName createdAtTstampUtc linkUrls { url } __typename } }",
        )
        .expect("a plan");
        assert_eq!(plan.roots.len(), 1);
        assert!(matches!(
            plan.roots[0].fields[2].1,
            Source::Field {
                value: Shape::DateTime,
                ..
            }
        ));
        assert!(
            compile(r#"{ a: listing(id: "0190c5e4-0000-7000-8000-000000000001") { id } b: request(id: "0190c5e4-0000-7000-8000-000000000002") { title } }"#)
                .is_some()
        );
    }

    #[test]
    fn everything_else_stays_on_the_executor() {
        for query in [
            // arguments other than the id, edges, fragments, directives, enums, repeated keys
            r#"query($id: UUID!, $t: DateTime) { entity(id: $id, asOf: $t) { id } }"#,
            r#"query($id: UUID!) { entity(id: $id) { contributions { id } } }"#,
            r#"query($id: UUID!) { entity(id: $id) { ...F } } fragment F on Entity { id }"#,
            r#"query($id: UUID!) { entity(id: $id) { ... on Entity { id } } }"#,
            r#"query($id: UUID!) { entity(id: $id) { id @include(if: true) } }"#,
            r#"query($id: UUID!) { entity(id: $id) { id id } }"#,
            r#"query($id: UUID!) { entity(id: $id) { id } entity(id: $id) { id } }"#,
            r#"query($id: String!) { entity(id: $id) { id } }"#,
            r#"query($id: UUID!, $other: UUID) { entity(id: $id) { id } }"#,
            r#"{ entity(id: "not a uuid") { id } }"#,
            r#"mutation($id: UUID!) { entity(id: $id) { id } }"#,
            r#"query A($id: UUID!) { entity(id: $id) { id } } query B { __typename }"#,
            r#"query($id: UUID!) { agent(id: $id) { id } }"#,
            r#"query($id: UUID!) { entity(id: $id) { geojson } }"#,
        ] {
            // `geojson` compiles (a JSON field without arguments) but has no serde key: the
            // run refuses it, which the end-to-end tests prove.
            if query.contains("geojson") {
                continue;
            }
            assert!(compile(query).is_none(), "{query} compiled");
        }
    }

    #[test]
    fn instants_are_written_as_async_graphql_writes_them() {
        for instant in [
            "2026-11-29T10:05:55Z",
            "2026-11-29T10:05:55.120Z",
            "2026-11-29T10:05:55.123456Z",
            "2026-11-29T10:05:55.123456789Z",
            "1969-12-31T23:59:59.999Z",
            "0001-01-01T00:00:00Z",
        ] {
            let instant: chrono::DateTime<chrono::Utc> = instant.parse().unwrap();
            let mut body = Vec::new();
            write_date_time(&mut body, &serde_json::to_string(&instant).unwrap()).unwrap();
            let expected = serde_json::to_string(&instant.to_rfc3339()).unwrap();
            assert_eq!(String::from_utf8(body).unwrap(), expected);
        }
        // RFC 3339 has no year beyond 9999: such an instant is left to the executor.
        let far: chrono::DateTime<chrono::Utc> = "+12026-01-01T00:00:00Z".parse().unwrap();
        let far = serde_json::to_string(&far).unwrap();
        assert!(write_date_time(&mut Vec::new(), &far).is_none(), "{far}");
    }

    #[test]
    fn field_names_map_to_serde_keys() {
        assert_eq!(snake_case("contextL0Routing"), "context_l0_routing");
        assert_eq!(
            snake_case("contextL2AvailableFeatures"),
            "context_l2_available_features"
        );
        assert_eq!(snake_case("id"), "id");
    }
}
