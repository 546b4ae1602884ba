//! What one GraphQL request may ask for, decided before anything executes. Each refusal is a
//! GraphQL error with a stable `extensions.code`:
//!
//! - `QUERY_TOO_DEEP`: more than `MAX_DEPTH` nested fields (introspection fields excepted: the
//!   standard introspection query nests `ofType` deeper, and its cost is fixed by the schema);
//!   `extensions.depth` and `extensions.limit` say how deep and how deep it may be;
//! - `TOO_MANY_ROOT_FIELDS`: more than `MAX_ROOT_FIELDS` root fields in one operation (aliases
//!   make one field many: 300 aliased `search` calls are 300 root fields);
//! - `TOO_MANY_ALIASES`: more than `MAX_ALIASES` aliased fields in the document;
//! - `QUERY_TOO_COMPLEX`: a cost over `MAX_COMPLEXITY`, where every field costs 1 and a list costs
//!   its page size (`first`, default 100; an edge list its bound of 100) times its children;
//!   `extensions.cost` and `extensions.limit` (and the message) say the cost and the limit.
//!   async-graphql refuses such a document without its cost, so a refused document is measured
//!   once more by `Measure` on a copy of the schema without the limit (built on the first
//!   refusal); a document within the limit is validated once, as before;
//! - `GRAPHQL_PARSE_FAILED` and `GRAPHQL_VALIDATION_FAILED` for the rest.
//!
//! Every request (POST, GET and each WebSocket subscription) passes through `LimitedSchema`, which
//! parses and checks the document before the schema sees it. Parsed documents that passed are
//! kept in a bounded cache keyed by their text: dashboards send the same few documents over and
//! over, and parsing one costs more than running a read by id (docs/bench-log/api.md). Validation
//! still runs on every request, as it depends on the variables. This is deliberately not an
//! async-graphql `Extension`: with any extension registered, async-graphql sends every field of
//! every response through the extension chain (a third of a read by id's time).

use super::compiled::{Plan, Types};
use crate::graphql::schema::AppSchema;
use crate::state::AppState;
use async_graphql::extensions::{Extension, ExtensionContext, ExtensionFactory, NextValidation};
use async_graphql::parser::types::{ExecutableDocument, Selection, SelectionSet};
use async_graphql::{
    Data, Executor, Positioned, Request, Response, ServerError, ServerResult, ValidationResult,
    Variables,
};
use futures::StreamExt;
use futures::stream::BoxStream;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, OnceLock};

pub const MAX_DEPTH: usize = 12;
/// Like GitHub's node limit: the product of the page sizes, summed over the document.
pub const MAX_COMPLEXITY: usize = 250_000;
pub const MAX_ROOT_FIELDS: usize = 20;
pub const MAX_ALIASES: usize = 50;
/// Default and largest page size of a connection (the REST `limit` rule).
const DEFAULT_PAGE: usize = 100;
const MAX_PAGE: usize = 500;
/// Edge lists without `first` load at most this many rows per parent (services::canonical::EDGE_LIMIT).
const EDGE_BOUND: usize = 100;
/// Fragments nest; a fragment cycle is invalid GraphQL, refused later, but must not loop here.
const MAX_FRAGMENT_HOPS: usize = 64;
/// Parsed documents kept per process, and the longest document text that is kept.
const CACHED_DOCUMENTS: usize = 1_000;
const MAX_CACHED_DOCUMENT_BYTES: usize = 64 * 1024;

/// The cost of a connection page: its size times the cost of one node.
pub fn page_cost(first: Option<i32>, child_complexity: usize) -> usize {
    let size = first.map_or(DEFAULT_PAGE, |f| (f.max(1) as usize).min(MAX_PAGE));
    size.saturating_mul(child_complexity).saturating_add(1)
}

/// The cost of an edge list: its `first` (at most the loader's bound of 100) times one item.
pub fn edge_cost(first: Option<i32>, child_complexity: usize) -> usize {
    let size = first.map_or(EDGE_BOUND, |f| (f.max(1) as usize).min(EDGE_BOUND));
    size.saturating_mul(child_complexity).saturating_add(1)
}

/// The first `first` items of an edge list the loader read (at most 100), or a 422-like error.
pub fn first_of<T>(items: Vec<T>, first: Option<i32>) -> async_graphql::Result<Vec<T>> {
    let n = match first {
        None => EDGE_BOUND,
        Some(f) if (1..=EDGE_BOUND as i32).contains(&f) => f as usize,
        Some(_) => {
            return Err(crate::error::AppError::invalid(
                &["first"],
                format!("must be between 1 and {EDGE_BOUND}"),
                "range",
            )
            .into());
        }
    };
    Ok(items.into_iter().take(n).collect())
}

/// The cost of a list of at most `max` items.
pub fn list_cost(max: Option<i64>, default: usize, child_complexity: usize) -> usize {
    let size = max.map_or(default, |m| m.clamp(1, 500) as usize);
    size.saturating_mul(child_complexity).saturating_add(1)
}

/// The schema behind its gate: the one executor every transport uses. One reference count to
/// clone: every request takes a copy from the router's extensions.
#[derive(Clone)]
pub struct LimitedSchema(Arc<Gate>);

pub struct Gate {
    schema: AppSchema,
    parsed: Arc<DocumentCache>,
    persisted: super::persisted::PersistedQueries,
    /// The schema's output types, for compiling plans (`graphql::compiled`).
    types: Arc<Types>,
    /// Mutations are refused (507) while the data volume is below its floor (`storage::space`).
    disk: Option<crate::storage::space::DiskFloor>,
    /// The schema without its complexity limit, behind `Measure`: built when a first document is
    /// refused as too complex, to tell its cost.
    measuring: OnceLock<AppSchema>,
}

type DocumentCache = quick_cache::sync::Cache<String, Arc<Admitted>>;

/// A document that passed the gate, and what was learnt of it.
pub struct Admitted {
    document: ExecutableDocument,
    /// Kept in the cache, so met again.
    cached: bool,
    /// Decided after an answer without errors: the plan, or `None` when the document does not
    /// compile, its plan did not reproduce that answer, or it could not answer any of the
    /// `LEARNING_TRIES` first answers.
    plan: OnceLock<Option<Plan>>,
    /// Answers a plan could not give (an id naming no record, answered `null`): they say nothing
    /// of the plan, so the next answer teaches it, up to `LEARNING_TRIES`.
    unanswered: AtomicU8,
}

/// How many answers of a document a compiled plan may fail to give before the document stays on
/// the executor: each costs a compilation and a read more.
const LEARNING_TRIES: u8 = 8;

impl Admitted {
    /// The plan this document runs by, once one was learnt.
    pub fn plan(&self) -> Option<&Plan> {
        self.plan.get().and_then(Option::as_ref)
    }

    /// Whether the document's plan (or that it has none) is still to be learnt: only a cached
    /// document is worth a plan.
    pub fn undecided(&self) -> bool {
        self.cached && self.plan.get().is_none()
    }

    /// After an answer of the executor: compiles the document and keeps the plan if running it
    /// gives that very answer (`body`, as serialised for the client).
    pub async fn learn(
        &self,
        schema: &LimitedSchema,
        state: &AppState,
        variables: &Variables,
        body: &[u8],
    ) {
        if self.plan.get().is_some() {
            return;
        }
        let Some(plan) = Plan::compile(&self.document, &schema.types) else {
            let _ = self.plan.set(None);
            return;
        };
        match plan.run(state, variables).await {
            Some(ran) if ran == body => {
                let _ = self.plan.set(Some(plan));
            }
            Some(_) => {
                let _ = self.plan.set(None);
            }
            None if self.unanswered.fetch_add(1, Ordering::Relaxed) + 1 >= LEARNING_TRIES => {
                let _ = self.plan.set(None);
            }
            None => {}
        }
    }
}

impl std::ops::Deref for LimitedSchema {
    type Target = Gate;
    fn deref(&self) -> &Gate {
        &self.0
    }
}

impl LimitedSchema {
    pub fn new(schema: AppSchema, disk: Option<crate::storage::space::DiskFloor>) -> LimitedSchema {
        let types = Arc::new(Types::from_sdl(&schema.sdl()));
        LimitedSchema(Arc::new(Gate {
            schema,
            parsed: Arc::new(DocumentCache::new(CACHED_DOCUMENTS)),
            persisted: Default::default(),
            types,
            disk,
            measuring: OnceLock::new(),
        }))
    }

    /// A mutation, when the data volume is below its floor, is refused before it runs.
    fn admit_writes(
        &self,
        document: &ExecutableDocument,
        operation_name: Option<&str>,
    ) -> ServerResult<()> {
        if !route_reads(document, operation_name) {
            return Ok(());
        }
        match self
            .disk
            .as_ref()
            .map(crate::storage::space::DiskFloor::ensure_room)
        {
            Some(Err(refused)) => Err(async_graphql::Error::from(refused)
                .into_server_error(async_graphql::Pos::default())),
            _ => Ok(()),
        }
    }

    /// Fills in an automatic persisted query's document from its hash (`graphql::persisted`).
    pub fn resolve_persisted(&self, request: &mut Request) -> ServerResult<()> {
        self.persisted.resolve(request)
    }

    /// Whether the request asks for a mutation (refused over GET): from the cached document when
    /// there is one, so that a GET of a known document is not parsed twice. A document that does
    /// not parse asks for none (the executor then reports why it does not parse).
    pub fn asks_to_mutate(&self, query: &str, operation_name: Option<&str>) -> bool {
        match self.parsed.get(query) {
            Some(admitted) => mutates(&admitted.document, operation_name),
            None => async_graphql::parser::parse_query(query)
                .is_ok_and(|document| mutates(&document, operation_name)),
        }
    }

    /// The cached document `query`, when a plan was learnt for it.
    pub fn planned(&self, query: &str) -> Option<Arc<Admitted>> {
        self.parsed
            .get(query)
            .filter(|admitted| admitted.plan().is_some())
    }

    /// Resolves a persisted query, parses the document (or takes it from the cache) and checks
    /// its shape. Documents up to `MAX_CACHED_DOCUMENT_BYTES` are kept for the next request.
    pub fn admit(&self, request: &mut Request) -> ServerResult<Arc<Admitted>> {
        self.persisted.resolve(request)?;
        if let Some(admitted) = self.parsed.get(request.query.as_str()) {
            self.admit_writes(&admitted.document, request.operation_name.as_deref())?;
            return Ok(admitted);
        }
        let document = async_graphql::parser::parse_query(&request.query)
            .map_err(|e| with_code(e.into(), "GRAPHQL_PARSE_FAILED"))?;
        check_shape(&document)?;
        self.admit_writes(&document, request.operation_name.as_deref())?;
        let cached = request.query.len() <= MAX_CACHED_DOCUMENT_BYTES;
        let admitted = Arc::new(Admitted {
            document,
            cached,
            plan: OnceLock::new(),
            unanswered: AtomicU8::new(0),
        });
        if cached {
            self.parsed.insert(request.query.clone(), admitted.clone());
        }
        Ok(admitted)
    }

    /// Runs a request `admit` has let through, on async-graphql's executor.
    pub async fn execute_admitted(
        &self,
        mut request: Request,
        admitted: Arc<Admitted>,
    ) -> Response {
        // async-graphql takes the document: a cached one is copied, an uncached one moved.
        let document = Arc::try_unwrap(admitted)
            .map_or_else(|shared| shared.document.clone(), |own| own.document);
        request.set_parsed_query(document);
        // The executor reads the parsed document, not the text: the text is kept (moved, not
        // copied) with the variables in case the document must be measured.
        let again = Measurement {
            query: std::mem::take(&mut request.query),
            variables: request.variables.clone(),
            operation_name: request.operation_name.clone(),
        };
        let mut response = self.schema.execute(request).await;
        if response.errors.iter().any(is_too_complex) {
            let cost = self.measure(again).await;
            for error in response.errors.iter_mut().filter(|e| is_too_complex(e)) {
                *error = too_complex(cost);
            }
        }
        label(response)
    }

    /// The cost of a document the schema refused as too complex, when it can be told (a document
    /// that is invalid besides is refused for that, without a cost).
    async fn measure(&self, again: Measurement) -> Option<usize> {
        let schema = self
            .measuring
            .get_or_init(crate::graphql::schema::measuring_schema);
        let mut request = Request::new(again.query).variables(again.variables);
        request.operation_name = again.operation_name;
        let measured = schema.execute(request).await;
        let extensions = measured.errors.first()?.extensions.as_ref()?;
        match extensions.get("measured_cost")? {
            async_graphql::Value::Number(n) => n.as_u64().and_then(|n| usize::try_from(n).ok()),
            _ => None,
        }
    }
}

/// What a refused document is measured from.
struct Measurement {
    query: String,
    variables: Variables,
    operation_name: Option<String>,
}

/// async-graphql's own refusal of a document over the complexity limit (it carries no cost).
fn is_too_complex(error: &ServerError) -> bool {
    error.message == "Query is too complex."
}

/// The refusal the client sees: the cost when it was measured, and the limit.
fn too_complex(cost: Option<usize>) -> ServerError {
    let advice = "ask for smaller pages (first) or fewer nested fields";
    let message = match cost {
        Some(cost) => format!(
            "Query is too complex: its cost is {cost}, the limit is {MAX_COMPLEXITY}; {advice}"
        ),
        None => format!(
            "Query is too complex: its cost is over the limit of {MAX_COMPLEXITY}; {advice}"
        ),
    };
    let mut error = ServerError::new(message, None);
    let mut extensions = async_graphql::ErrorExtensionValues::default();
    extensions.set("code", "QUERY_TOO_COMPLEX");
    if let Some(cost) = cost {
        extensions.set("cost", cost);
    }
    extensions.set("limit", MAX_COMPLEXITY);
    error.extensions = Some(extensions);
    error
}

/// Registered on the measuring schema only: stops every request after validation, with the
/// document's cost in `extensions.measured_cost`. (The serving schema registers no extension:
/// see the module's comment.)
pub struct Measure;

impl ExtensionFactory for Measure {
    fn create(&self) -> Arc<dyn Extension> {
        Arc::new(Measure)
    }
}

#[async_trait::async_trait]
impl Extension for Measure {
    async fn validation(
        &self,
        ctx: &ExtensionContext<'_>,
        next: NextValidation<'_>,
    ) -> Result<ValidationResult, Vec<ServerError>> {
        let result = next.run(ctx).await?;
        let mut error = ServerError::new("measured", None);
        let mut extensions = async_graphql::ErrorExtensionValues::default();
        extensions.set("measured_cost", result.complexity);
        error.extensions = Some(extensions);
        Err(vec![error])
    }
}

/// A mutation reads and writes the primary, and makes its caller a recent writer; a query may
/// read a replica (`services::read_route`). True for a mutation.
fn route_reads(document: &ExecutableDocument, operation_name: Option<&str>) -> bool {
    let mutates = mutates(document, operation_name);
    if mutates {
        crate::services::read_route::writing();
    }
    mutates
}

/// Whether the operation the request names (any, when it names none) is a mutation.
fn mutates(document: &ExecutableDocument, operation_name: Option<&str>) -> bool {
    use async_graphql::parser::types::{DocumentOperations, OperationType};
    match &document.operations {
        DocumentOperations::Single(operation) => operation.node.ty == OperationType::Mutation,
        DocumentOperations::Multiple(operations) => operations.iter().any(|(name, operation)| {
            operation.node.ty == OperationType::Mutation
                && operation_name.is_none_or(|wanted| wanted == name.as_str())
        }),
    }
}

impl Executor for LimitedSchema {
    async fn execute(&self, mut request: Request) -> Response {
        match self.admit(&mut request) {
            Ok(admitted) => self.execute_admitted(request, admitted).await,
            Err(refused) => Response::from_errors(vec![refused]),
        }
    }

    fn execute_stream(
        &self,
        mut request: Request,
        session_data: Option<Arc<Data>>,
    ) -> BoxStream<'static, Response> {
        match self.admit(&mut request) {
            Ok(admitted) => request.set_parsed_query(admitted.document.clone()),
            Err(refused) => {
                return futures::stream::once(async move { Response::from_errors(vec![refused]) })
                    .boxed();
            }
        }
        Executor::execute_stream(&self.schema, request, session_data)
            .map(label)
            .boxed()
    }
}

/// async-graphql's own refusals (validation, complexity, depth) carry no code: they get one.
/// Every error a resolver raises already has its code (`graphql::errors`).
fn label(mut response: Response) -> Response {
    for error in &mut response.errors {
        let coded = error
            .extensions
            .as_ref()
            .is_some_and(|extensions| extensions.get("code").is_some());
        if coded {
            continue;
        }
        if is_too_complex(error) {
            // A subscription's document (not measured): the limit at least.
            *error = too_complex(None);
            continue;
        }
        let code = if error.message.contains("nested too deep") {
            "QUERY_TOO_DEEP"
        } else {
            "GRAPHQL_VALIDATION_FAILED"
        };
        let extensions = error.extensions.get_or_insert_with(Default::default);
        extensions.set("code", code);
    }
    response
}

fn refusal(code: &str, message: String) -> ServerError {
    let mut error = ServerError::new(message, None);
    let mut extensions = async_graphql::ErrorExtensionValues::default();
    extensions.set("code", code);
    extensions.set("status", 422);
    error.extensions = Some(extensions);
    error
}

/// A refusal with the figure that was over its limit, e.g. `depth: 14, limit: 12`.
fn refusal_over(
    code: &str,
    message: String,
    what: &str,
    value: usize,
    limit: usize,
) -> ServerError {
    let mut error = refusal(code, message);
    if let Some(extensions) = error.extensions.as_mut() {
        extensions.set(what, value);
        extensions.set("limit", limit);
    }
    error
}

fn with_code(mut error: ServerError, code: &str) -> ServerError {
    let extensions = error.extensions.get_or_insert_with(Default::default);
    extensions.set("code", code);
    error
}

struct Shape<'d> {
    document: &'d ExecutableDocument,
    aliases: usize,
    deepest: usize,
}

fn check_shape(document: &ExecutableDocument) -> ServerResult<()> {
    let mut shape = Shape {
        document,
        aliases: 0,
        deepest: 0,
    };
    for (_, operation) in document.operations.iter() {
        let roots = shape.walk(&operation.node.selection_set, 0, 0);
        if roots > MAX_ROOT_FIELDS {
            return Err(refusal_over(
                "TOO_MANY_ROOT_FIELDS",
                format!(
                    "an operation may select at most {MAX_ROOT_FIELDS} root fields, this one selects {roots}"
                ),
                "root_fields",
                roots,
                MAX_ROOT_FIELDS,
            ));
        }
    }
    if shape.aliases > MAX_ALIASES {
        return Err(refusal_over(
            "TOO_MANY_ALIASES",
            format!(
                "a document may alias at most {MAX_ALIASES} fields, this one aliases {}",
                shape.aliases
            ),
            "aliases",
            shape.aliases,
            MAX_ALIASES,
        ));
    }
    if shape.deepest > MAX_DEPTH {
        return Err(refusal_over(
            "QUERY_TOO_DEEP",
            format!(
                "fields may nest at most {MAX_DEPTH} deep, this query nests {}",
                shape.deepest
            ),
            "depth",
            shape.deepest,
            MAX_DEPTH,
        ));
    }
    Ok(())
}

impl Shape<'_> {
    /// Walks a selection set; returns how many fields it selects at this level (fragments
    /// expanded), counting aliases and depth on the way.
    fn walk(&mut self, set: &Positioned<SelectionSet>, depth: usize, hops: usize) -> usize {
        if hops > MAX_FRAGMENT_HOPS {
            return 0;
        }
        let mut fields = 0;
        for selection in &set.node.items {
            match &selection.node {
                Selection::Field(field) => {
                    fields += 1;
                    if field.node.alias.is_some() {
                        self.aliases += 1;
                    }
                    if field.node.name.node.starts_with("__") {
                        continue;
                    }
                    self.deepest = self.deepest.max(depth + 1);
                    self.walk(&field.node.selection_set, depth + 1, hops);
                }
                Selection::InlineFragment(fragment) => {
                    fields += self.walk(&fragment.node.selection_set, depth, hops + 1);
                }
                Selection::FragmentSpread(spread) => {
                    if let Some(fragment) =
                        self.document.fragments.get(&spread.node.fragment_name.node)
                    {
                        fields += self.walk(&fragment.node.selection_set, depth, hops + 1);
                    }
                }
            }
        }
        fields
    }
}
