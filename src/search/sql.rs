//! SearchRequest → one SQL statement. Identifiers come only from the fixed `TableSpec`s below;
//! every value the caller sent is a bound parameter.
//!
//! Each table contributes `(SELECT ... ORDER BY score LIMIT n)`; a mixed search unions them and
//! keeps the best n overall. Candidate rows come from the full-text GIN index (the words as typed,
//! or in the fuzzy step as corrected by `spelling`), which with a radius also holds the grid
//! cells covering the circle's box of longitudes and latitudes (migration 0026); `sort=distance`
//! reads the records within the distance `nearest` bounds, or within the radius.

use super::request::{CanonicalType, SearchRequest, SortOrder};
use super::spelling::{CorrectedQuery, Need, WordSpellings, corrected_query};
use crate::domain::CanonicalTable;
use uuid::Uuid;

/// How text is matched. Exact words (full text) answer first; next to fewer exact hits than
/// asked for, records having every word as typed or as a close spelling join below them (a typo
/// that is itself a real word); when nothing matches exactly, the fuzzy step (the query's words
/// corrected against the vocabulary, at least half of them) answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TextMatching {
    Exact,
    Fuzzy,
}

/// The query as `websearch_to_tsquery` reads it, without dashes standing alone: PostgreSQL takes
/// `Osteria Nonna - Trastevere` as "without trastevere", where a name's dash is punctuation.
/// `-word` (attached) still excludes.
pub fn websearch_text(query: &str) -> String {
    query
        .split_whitespace()
        .filter(|token| !token.chars().all(|c| matches!(c, '-' | '–' | '—')))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The text query of one step: the caller's words, or corrected words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TextQuery {
    Exact,
    Corrected(CorrectedQuery),
}

impl TextQuery {
    /// What the answer reports: a corrected query needing every word runs only next to exact hits.
    pub fn matching(&self) -> TextMatching {
        match self {
            TextQuery::Exact => TextMatching::Exact,
            TextQuery::Corrected(c) if c.need == Need::Every => TextMatching::Exact,
            TextQuery::Corrected(_) => TextMatching::Fuzzy,
        }
    }

    fn push(&self, qb: &mut Statement, req: &SearchRequest) {
        match self {
            TextQuery::Exact => {
                qb.push("websearch_to_tsquery('simple', ")
                    .bind_text(&websearch_text(&req.query))
                    .push(")");
            }
            // The exact words too, so every exact hit is among the answers whatever operators
            // the caller used (`run` keeps quotes and `-word` out of this step).
            TextQuery::Corrected(corrected) if corrected.need == Need::Every => {
                qb.push("(websearch_to_tsquery('simple', ")
                    .bind_text(&websearch_text(&req.query))
                    .push(") || (")
                    .bind_text(&corrected.tsquery)
                    .push(")::tsquery)");
            }
            TextQuery::Corrected(corrected) => {
                qb.push("(")
                    .bind_text(&corrected.tsquery)
                    .push(")::tsquery");
            }
        }
    }

    /// 0..1: the share of the query's words the record has (all of them for an exact match).
    fn push_words_found(&self, qb: &mut Statement, req: &SearchRequest) {
        match self {
            TextQuery::Exact => {
                qb.push("(search_document @@ ");
                self.push(qb, req);
                qb.push(")::int::float8");
            }
            TextQuery::Corrected(corrected) => {
                qb.push("(SELECT count(*) FROM unnest(")
                    .bind(Param::TextArray(corrected.word_queries.clone()))
                    .push("::tsquery[]) AS word WHERE search_document @@ word)::float8 / ")
                    .bind(Param::Int(corrected.words as i64));
            }
        }
    }

    /// 0..1: the share of the words of the record's name or title that are in the query, as
    /// typed or (corrected) as a close spelling of a query word. 1 when the whole name is.
    /// One-letter words (the `s` of `Nonna's`, initials) do not count.
    ///
    /// Parsing the name into words costs about 2 µs a row (6,955 matches of a category within
    /// 10 km at 10M records: 14 ms), and most names share no word with the query. A word of the
    /// name is a lowercased stretch of it, so a query word that is none of `lower(name)`'s
    /// substrings is none of its words either: only the names a pattern finds are parsed.
    fn push_name_found(&self, qb: &mut Statement, req: &SearchRequest, label: &str) {
        qb.push(&format!(
            "CASE WHEN lower({label}) LIKE ANY (ARRAY(SELECT '%' || \
             replace(replace(replace(q, '\\', '\\\\'), '%', '\\%'), '_', '\\_') || '%' \
             FROM unnest("
        ));
        self.push_name_words(qb, req);
        qb.push(") AS q WHERE length(q) > 1)) THEN (SELECT coalesce(avg((w = ANY(");
        self.push_name_words(qb, req);
        qb.push(&format!(
            "))::int), 0) FROM unnest(tsvector_to_array(to_tsvector('simple', {label}))) AS w \
             WHERE length(w) > 1)::float8 ELSE 0 END"
        ));
    }

    /// The words a word of a name must be to count as found: the query's, or (corrected) their
    /// close spellings.
    fn push_name_words(&self, qb: &mut Statement, req: &SearchRequest) {
        match self {
            TextQuery::Exact => {
                qb.push("tsvector_to_array(to_tsvector('simple', ")
                    .bind_text(&req.query)
                    .push("))");
            }
            TextQuery::Corrected(corrected) => {
                qb.bind(Param::TextArray(corrected.spellings.clone()))
                    .push("::text[]");
            }
        }
    }

    /// Which records the step scores, through the full-text index (and, for a whole name in the
    /// query, the index of `canonical.name_word_key`).
    fn push_candidates(&self, qb: &mut Statement, req: &SearchRequest, label: &str) {
        match self {
            // The name's words are in the document: where the planner reads a small box alone
            // and tests each row, the cheap "any one word" test spares most rows the name's
            // words (a 1 km box in a city: 7 ms against 29 ms).
            TextQuery::Corrected(CorrectedQuery {
                whole_names: Some(whole_names),
                ..
            }) => {
                qb.push("(search_document @@ (")
                    .bind_text(&whole_names.half_tsquery)
                    .push(")::tsquery OR (search_document @@ ");
                self.push(qb, req);
                qb.push(&format!(" AND canonical.name_word_key({label}) = ANY("))
                    .bind(Param::TextArray(whole_names.name_keys.clone()))
                    .push(")))");
            }
            _ => {
                qb.push("search_document @@ ");
                self.push(qb, req);
            }
        }
    }

    /// Whether the record has every query word as typed (the exact step's condition).
    fn push_exact(&self, qb: &mut Statement, req: &SearchRequest) {
        match self {
            TextQuery::Exact => {
                qb.push("true");
            }
            TextQuery::Corrected(c) if c.need == Need::Every => {
                qb.push("search_document @@ websearch_to_tsquery('simple', ")
                    .bind_text(&websearch_text(&req.query))
                    .push(")");
            }
            // The fuzzy step runs only when no record matched exactly.
            TextQuery::Corrected(_) => {
                qb.push("false");
            }
        }
    }
}

/// A bound value of the statement, in order ($1, $2, ...).
#[derive(Debug, Clone, PartialEq)]
pub enum Param {
    Text(String),
    TextArray(Vec<String>),
    BigIntArray(Vec<i64>),
    Float(f64),
    Int(i64),
}

/// SQL text with numbered placeholders and the values that go with them. Kept visible (rather
/// than inside sqlx's builder) so benchmarks can hand the very same statement to pgbench.
#[derive(Debug, Clone, Default)]
pub struct Statement {
    pub sql: String,
    pub params: Vec<Param>,
}

impl Statement {
    pub(super) fn push(&mut self, sql: &str) -> &mut Self {
        self.sql.push_str(sql);
        self
    }

    pub(super) fn bind(&mut self, param: Param) -> &mut Self {
        self.params.push(param);
        self.sql.push_str(&format!("${}", self.params.len()));
        self
    }

    fn bind_text(&mut self, value: &str) -> &mut Self {
        self.bind(Param::Text(value.to_string()))
    }
}

pub(super) struct TableSpec {
    pub(super) name: &'static str,
    /// The record's public columns (as the REST reads return them).
    columns: &'static str,
    /// Numeric columns, sent as JSON strings so decimals keep their exact digits.
    numeric: &'static [&'static str],
    label: &'static str,
    type_column: &'static str,
    has_currency: bool,
    /// (dimension, SQL predicate that it is present)
    dimensions: &'static [(&'static str, &'static str)],
}

const COMMON_DIMENSIONS: [(&str, &str); 7] = [
    ("address_text", "coalesce(address_text, '') <> ''"),
    ("city", "coalesce(city, '') <> ''"),
    ("country_code", "country_code IS NOT NULL"),
    ("description", "coalesce(description, '') <> ''"),
    ("categories", "cardinality(categories) > 0"),
    ("link_urls", "jsonb_array_length(link_urls) > 0"),
    ("contact_agent_id", "contact_agent_id IS NOT NULL"),
];

const SCORES: [&str; 4] = [
    "score_data_richness",
    "score_agent_reputation",
    "score_signal",
    "score_confidence",
];

const ENTITIES: TableSpec = TableSpec {
    name: "canonical.entities",
    columns: crate::db::entities::COLUMNS,
    numeric: &SCORES,
    label: "display_name",
    type_column: "entity_type",
    has_currency: false,
    dimensions: &[
        ("phone", "coalesce(phone, '') <> ''"),
        ("website_url", "coalesce(website_url, '') <> ''"),
        ("email", "coalesce(email, '') <> ''"),
    ],
};

const LISTINGS: TableSpec = TableSpec {
    name: "canonical.listings",
    columns: crate::db::listings::COLUMNS,
    numeric: &[
        "price_amount",
        "score_data_richness",
        "score_agent_reputation",
        "score_signal",
        "score_confidence",
    ],
    label: "title",
    type_column: "listing_type",
    has_currency: true,
    dimensions: &[
        ("price_amount", "price_amount IS NOT NULL"),
        ("currency_code", "currency_code IS NOT NULL"),
        (
            "availability_status",
            "coalesce(availability_status, '') <> ''",
        ),
    ],
};

const REQUESTS: TableSpec = TableSpec {
    name: "canonical.requests",
    columns: crate::db::requests::COLUMNS,
    numeric: &[
        "budget_amount",
        "score_data_richness",
        "score_agent_reputation",
        "score_signal",
        "score_confidence",
    ],
    label: "title",
    type_column: "request_type",
    has_currency: true,
    dimensions: &[
        ("budget_amount", "budget_amount IS NOT NULL"),
        ("currency_code", "currency_code IS NOT NULL"),
    ],
};

/// Text relevance weights (docs/search.md): the share of the query's words the record has, the
/// share of its name's words the query has, the full-text rank, the trigram resemblance of name
/// and query.
const WORDS_FOUND_WEIGHT: f64 = 0.35;
const NAME_FOUND_WEIGHT: f64 = 0.25;
const RANK_WEIGHT: f64 = 0.1;
const RESEMBLANCE_WEIGHT: f64 = 0.3;
/// Score weights (docs/search.md).
const TEXT_WEIGHT_WITH_POINT: f64 = 0.55;
const DISTANCE_WEIGHT: f64 = 0.30;
const CONFIDENCE_WEIGHT_WITH_POINT: f64 = 0.15;
const TEXT_WEIGHT: f64 = 0.85;
const CONFIDENCE_WEIGHT: f64 = 0.15;
/// Scores are rounded to 4 decimals: a row left out of contention must fall under the cut by
/// more than the rounding can close.
const ROUNDING_MARGIN: f64 = 0.000_1;
/// Distance at which the distance score falls to 1/e when no radius was given.
const DEFAULT_DISTANCE_SCALE_M: f64 = 10_000.0;

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Hit {
    pub canonical_table: String,
    /// 3 exact with the whole name in the query, 2 exact, 1 complete, 0 partial (docs/search.md).
    pub tier: i32,
    pub id: Uuid,
    pub label: String,
    pub score: f64,
    pub text_score: f64,
    pub distance_score: Option<f64>,
    pub confidence: f64,
    pub distance_m: Option<f64>,
    /// The full record as JSON text (the same fields as the REST reads).
    pub record: String,
}

impl Hit {
    pub fn table(&self) -> CanonicalTable {
        self.canonical_table
            .parse()
            .unwrap_or(CanonicalTable::Entities)
    }
}

fn dimension_predicate(spec: &TableSpec, dimension: &str) -> Option<&'static str> {
    spec.dimensions
        .iter()
        .chain(COMMON_DIMENSIONS.iter())
        .find(|(d, _)| *d == dimension)
        .map(|(_, p)| *p)
}

/// A table takes part unless a filter or a required dimension names something it cannot have.
fn applies(spec: &TableSpec, req: &SearchRequest) -> bool {
    let type_filters = ["entity_type", "listing_type", "request_type"];
    let foreign_type_filter = type_filters
        .iter()
        .any(|f| *f != spec.type_column && req.filters.contains_key(*f));
    let currency_without_column = req.filters.contains_key("currency_code") && !spec.has_currency;
    let missing_dimension = req
        .dimensions
        .iter()
        .any(|d| dimension_predicate(spec, d).is_none());
    !(foreign_type_filter || currency_without_column || missing_dimension)
}

pub(super) fn tables(req: &SearchRequest) -> Vec<&'static TableSpec> {
    let chosen: Vec<&'static TableSpec> = match req.canonical_type {
        CanonicalType::Entity => vec![&ENTITIES],
        CanonicalType::Listing => vec![&LISTINGS],
        CanonicalType::Request => vec![&REQUESTS],
        CanonicalType::Mixed => vec![&ENTITIES, &LISTINGS, &REQUESTS],
    };
    chosen
        .into_iter()
        .filter(|spec| applies(spec, req))
        .collect()
}

/// The point as `geography`: sphere distances.
pub(super) fn push_point(qb: &mut Statement, point: (f64, f64)) {
    push_spot(qb, point);
    qb.push("::geography");
}

/// The point as a plain geometry: the degrees the `location::geometry` index orders by.
pub(super) fn push_spot(qb: &mut Statement, (lat, lng): (f64, f64)) {
    qb.push("ST_SetSRID(ST_MakePoint(")
        .bind(Param::Float(lng))
        .push(", ")
        .bind(Param::Float(lat))
        .push("), 4326)");
}

fn push_table(
    qb: &mut Statement,
    spec: &TableSpec,
    req: &SearchRequest,
    text: &TextQuery,
    bound: Option<f64>,
) {
    let label = spec.label;
    // The parts of text relevance (docs/search.md) and the tier, computed on the matching rows;
    // the outer select weighs them.
    qb.push(&format!(
        "(SELECT canonical_table, id, label, country_code, confidence, distance_m, \
         ({WORDS_FOUND_WEIGHT} * words_found + {NAME_FOUND_WEIGHT} * name_found + {RANK_WEIGHT} * rank)::float8 \
         AS text_base, \
         CASE WHEN exact AND name_found >= 1 THEN 3 WHEN exact THEN 2 \
         WHEN words_found >= 1 OR name_found >= 1 THEN 1 ELSE 0 END AS tier \
         FROM (SELECT '{}'::text AS canonical_table, id, {label} AS label, country_code, ",
        spec.name
    ));
    text.push_words_found(qb, req);
    qb.push(" AS words_found, ");
    text.push_name_found(qb, req, label);
    qb.push(" AS name_found, least(1.0, 10 * ts_rank_cd(search_document, ");
    text.push(qb, req);
    qb.push(")) AS rank, ");
    text.push_exact(qb, req);
    qb.push(" AS exact, score_confidence::float8 AS confidence, ");
    match req.point {
        Some(point) => {
            qb.push("ST_Distance(location, ");
            push_point(qb, point);
            qb.push(", false) AS distance_m");
        }
        None => {
            qb.push("NULL::float8 AS distance_m");
        }
    }
    qb.push(&format!(" FROM {} WHERE ", spec.name));
    push_conditions(qb, spec, req, text, bound);
    if req.sort == SortOrder::Distance
        && let Some(point) = req.point
    {
        // PostgreSQL walks the GiST index nearest first only for an ORDER BY of the distance
        // alone, not (distance, id): the rows come from the words' index within the bound.
        qb.push(" ORDER BY location <-> ");
        push_point(qb, point);
        qb.push(", id LIMIT ").bind(Param::Int(req.max_results));
    }
    // OFFSET 0 keeps this a subquery of its own: flattened, the parts would be computed once per
    // use (the name's share twice: in the text score and in the tier).
    qb.push(" OFFSET 0) AS matched");
    if let (Some(_), Some(radius), SortOrder::Relevance) = (req.point, req.radius_m, req.sort) {
        // The subquery's own distance: computed once a row rather than twice. (OFFSET 0 keeps
        // PostgreSQL from pushing this test down into it.)
        qb.push(" WHERE distance_m <= ")
            .bind(Param::Float(radius as f64));
    }
    qb.push(")");
}

/// What a row of `spec` must be to match `req` (one boolean expression): its text, status,
/// place and filters. With `sort=distance`, `bound` (metres, from `nearest`) narrows the circle:
/// the n nearest matches are within it.
pub(super) fn push_conditions(
    qb: &mut Statement,
    spec: &TableSpec,
    req: &SearchRequest,
    text: &TextQuery,
    bound: Option<f64>,
) {
    text.push_candidates(qb, req, spec.label);
    match req.filters.get("status") {
        Some(statuses) => {
            // A merged record is a redirect to its survivor: search never shows it.
            qb.push(" AND status = ANY(")
                .bind(Param::TextArray(statuses.clone()))
                .push(") AND status <> 'merged'");
        }
        None => {
            qb.push(" AND status NOT IN ('archived', 'withdrawn', 'merged')");
        }
    }
    let reach = match (req.radius_m.map(|r| r as f64), bound) {
        (Some(radius), Some(bound)) => Some(radius.min(bound)),
        (radius, bound) => radius.or(bound),
    };
    if let (Some((lat, lng)), Some(radius)) = (req.point, reach) {
        // The grid cells covering the circle's box of longitudes and latitudes (`cells`), in the
        // same GIN index as the words (migration 0026): PostgreSQL estimates a box's rows from the
        // cells' frequencies, and intersects words and cells in one index scan. The sphere distance
        // then keeps the circle: here when the nearest n are read in order, else from the
        // distance the row's score needs anyway (below).
        qb.push(" AND canonical.cells_at(location_lat, location_lng) && ")
            .bind(Param::BigIntArray(super::cells::radius_cells(
                lat, lng, radius,
            )))
            .push("::int8[]");
        if req.sort == SortOrder::Distance {
            qb.push(" AND ST_Distance(location, ");
            push_point(qb, (lat, lng));
            qb.push(", false) <= ").bind(Param::Float(radius));
        }
    }
    for (key, column) in [
        ("country_code", "country_code"),
        ("currency_code", "currency_code"),
        (spec.type_column, spec.type_column),
    ] {
        if let Some(values) = req.filters.get(key) {
            qb.push(&format!(" AND {column} = ANY("))
                .bind(Param::TextArray(values.clone()))
                .push(")");
        }
    }
    if let Some(cities) = req.filters.get("city") {
        let lowered: Vec<String> = cities.iter().map(|c| c.to_lowercase()).collect();
        qb.push(" AND lower(city) = ANY(")
            .bind(Param::TextArray(lowered))
            .push(")");
    }
    if let Some(categories) = req.filters.get("categories") {
        let lowered: Vec<String> = categories.iter().map(|c| c.to_lowercase()).collect();
        qb.push(" AND EXISTS (SELECT 1 FROM unnest(categories) AS c WHERE lower(c) = ANY(")
            .bind(Param::TextArray(lowered))
            .push("))");
    }
    for dimension in &req.dimensions {
        if let Some(predicate) = dimension_predicate(spec, dimension) {
            qb.push(&format!(" AND {predicate}"));
        }
    }
}

/// The score of a row without its resemblance (unrounded): what `statement` ranks by to find
/// the rows still in contention.
fn push_base_score(qb: &mut Statement, req: &SearchRequest) {
    match req.point {
        Some(_) => {
            let scale = distance_scale(req);
            qb.push(&format!(
                "({TEXT_WEIGHT_WITH_POINT} * text_base + {DISTANCE_WEIGHT} * {} \
                 + {CONFIDENCE_WEIGHT_WITH_POINT} * confidence)::float8",
                distance_score(scale)
            ));
        }
        None => {
            qb.push(&format!(
                "({TEXT_WEIGHT} * text_base + {CONFIDENCE_WEIGHT} * confidence)::float8"
            ));
        }
    }
}

/// The most the resemblance adds to a score.
fn resemblance_share(req: &SearchRequest) -> f64 {
    let text_weight = match req.point {
        Some(_) => TEXT_WEIGHT_WITH_POINT,
        None => TEXT_WEIGHT,
    };
    text_weight * RESEMBLANCE_WEIGHT
}

fn push_score(qb: &mut Statement, req: &SearchRequest) {
    let share = resemblance_share(req);
    qb.push(&format!(
        "round((base_score + {share} * resemblance)::numeric, 4)::float8 AS score, "
    ));
    match req.point {
        Some(_) => {
            let scale = distance_scale(req);
            qb.push(&format!(
                "round({}::numeric, 4)::float8 AS distance_score",
                distance_score(scale)
            ));
        }
        None => {
            qb.push("NULL::float8 AS distance_score");
        }
    }
}

/// exp(−distance / scale). A record on the other side of the world from a point given without a
/// radius is ~1,700 scales away, where `exp` underflows and PostgreSQL raises an error rather than
/// return 0: the exponent stops at −700 (a score of 1e−304).
fn distance_score(scale: f64) -> String {
    format!("exp(-least(distance_m / {scale}, 700))")
}

/// The distance at which the distance score falls to 1/e.
fn distance_scale(req: &SearchRequest) -> f64 {
    req.radius_m
        .map_or(DEFAULT_DISTANCE_SCALE_M, |r| r as f64 / 2.0)
        .max(1.0)
}

fn push_union(
    qb: &mut Statement,
    specs: &[&'static TableSpec],
    req: &SearchRequest,
    text: &TextQuery,
    bound: Option<f64>,
) {
    for (i, spec) in specs.iter().enumerate() {
        if i > 0 {
            qb.push(" UNION ALL ");
        }
        push_table(qb, spec, req, text, bound);
    }
}

/// The statement for `req`; `None` when no table can match (e.g. a listing-only filter on entities).
pub fn statement(req: &SearchRequest, text: &TextQuery) -> Option<Statement> {
    statement_within(req, text, None)
}

/// `statement`, reading with `sort=distance` only the records within `bound` metres of the point
/// (`nearest::bound`): the same answer when the n nearest matches are within it.
fn statement_within(
    req: &SearchRequest,
    text: &TextQuery,
    bound: Option<f64>,
) -> Option<Statement> {
    let specs = tables(req);
    if specs.is_empty() {
        return None;
    }
    // Relevance: exact hits whose whole name is in the query (tier 3), other exact hits (2),
    // complete ones (every query word, or the whole name, as typed or closely spelt: 1), then
    // partial ones; by score within a tier.
    let order = match req.sort {
        SortOrder::Distance => "distance_m, id",
        SortOrder::Relevance => "tier DESC, score DESC, id",
    };
    let mut qb = Statement::default();
    let prune = matches!(text, TextQuery::Corrected(c) if c.need != Need::Every);
    // The hits are gathered once (a CTE used twice is materialised).
    qb.push("WITH hits AS (");
    push_union(&mut qb, &specs, req, text, bound);
    qb.push(")");
    if prune {
        qb.push(", complete AS (SELECT country_code FROM hits WHERE tier > 0)");
    }
    qb.push(", kept AS (SELECT *, ");
    push_base_score(&mut qb, req);
    qb.push(" AS base_score FROM hits");
    if prune {
        // Look-alikes (docs/search.md): when some hit is complete, a partial hit stays only in
        // the country of a complete one, or near the caller's point.
        qb.push(
            " WHERE tier > 0 OR NOT EXISTS (SELECT 1 FROM complete) \
             OR country_code IS NULL OR country_code IN (SELECT country_code FROM complete)",
        );
        if req.point.is_some() {
            qb.push(&format!(" OR distance_m <= {}", distance_scale(req)));
        }
    }
    qb.push(")");
    let by_relevance = req.sort == SortOrder::Relevance;
    if by_relevance {
        // The contention band (docs/search.md): the 2n best rows without their resemblance get
        // their full scores, and the n-th best of them by (tier, score) is a floor: n rows
        // reach it. A row outside that sample in a lower tier, or in its tier with a score that
        // stays under it even with the most its resemblance can add, ranks under those n rows:
        // the trigram comparisons run only for the rows still in contention. (Outside the
        // sample no row is of a higher tier: the sample is the best by tier first.) Twice n
        // rather than n: the n-th best of 2n full scores is well above the lowest of n, which
        // narrows the band (a category within 10 km at 10M records: 506 rows compared
        // instead of 1,905).
        let share = resemblance_share(req);
        let n = req.max_results.max(1);
        // (The resemblance is computed over the limited rows: in the same SELECT as the sort,
        // PostgreSQL computes it for every row before sorting.)
        qb.push(&format!(
            ", sample AS (SELECT tier, base_score + {share} * "
        ));
        push_resemblance(&mut qb, req);
        qb.push(
            " AS full_score FROM (SELECT tier, base_score, label FROM kept \
             ORDER BY tier DESC, base_score DESC LIMIT ",
        )
        .bind(Param::Int(2 * n))
        .push(
            ") AS best), cut AS (SELECT tier, full_score AS floor FROM sample \
             ORDER BY tier DESC, full_score DESC OFFSET ",
        )
        .bind(Param::Int(n - 1))
        .push(" LIMIT 1)");
    }
    // The ranked hits first; the records are built for the kept rows only.
    qb.push(" SELECT top.*, CASE top.canonical_table");
    for spec in &specs {
        qb.push(&format!(" WHEN '{}' THEN {}", spec.name, record_json(spec)));
    }
    qb.push(" END AS record FROM (SELECT canonical_table, id, label, tier, ");
    push_score(&mut qb, req);
    qb.push(&format!(
        ", round((text_base + {RESEMBLANCE_WEIGHT} * resemblance)::numeric, 4)::float8 AS text_score, \
         confidence, distance_m FROM (SELECT kept.*, "
    ));
    push_resemblance(&mut qb, req);
    qb.push(" AS resemblance FROM kept");
    if by_relevance {
        let margin = resemblance_share(req) + ROUNDING_MARGIN;
        qb.push(&format!(
            " WHERE NOT EXISTS (SELECT 1 FROM cut) OR tier > (SELECT tier FROM cut) \
             OR (tier = (SELECT tier FROM cut) AND base_score >= (SELECT floor FROM cut) - {margin})"
        ));
    }
    qb.push(&format!(") AS hits ORDER BY {order} LIMIT "));
    qb.bind(Param::Int(req.max_results));
    qb.push(&format!(") AS top ORDER BY {order}"));
    Some(qb)
}

/// 0..1: how much the record's name or title looks like the query as a whole (trigrams).
fn push_resemblance(qb: &mut Statement, req: &SearchRequest) {
    qb.push("((similarity(label, ")
        .bind_text(&req.query)
        .push(") + word_similarity(")
        .bind_text(&req.query)
        .push(", label)) / 2)");
}

/// `(SELECT <record as JSON text> FROM <table> WHERE id = top.id)`, numerics as strings.
fn record_json(spec: &TableSpec) -> String {
    let numerics: Vec<String> = spec
        .numeric
        .iter()
        .map(|c| format!("'{c}', r.{c}::text"))
        .collect();
    format!(
        "(SELECT (to_jsonb(r) || jsonb_build_object({}))::text FROM (SELECT {} FROM {} WHERE id = top.id) AS r)",
        numerics.join(", "),
        spec.columns,
        spec.name
    )
}

type PgArgs = sqlx::postgres::PgArguments;

pub(super) fn bind_all<'q, O>(
    mut query: sqlx::query::QueryAs<'q, sqlx::Postgres, O, PgArgs>,
    params: &'q [Param],
) -> sqlx::query::QueryAs<'q, sqlx::Postgres, O, PgArgs> {
    for param in params {
        query = match param {
            Param::Text(v) => query.bind(v),
            Param::TextArray(v) => query.bind(v),
            Param::BigIntArray(v) => query.bind(v),
            Param::Float(v) => query.bind(v),
            Param::Int(v) => query.bind(v),
        };
    }
    query
}

async fn run_with(
    conn: &mut sqlx::PgConnection,
    req: &SearchRequest,
    text: &TextQuery,
    ran: &mut Option<&mut Vec<Statement>>,
) -> Result<Vec<Hit>, sqlx::Error> {
    let bound = super::nearest::bound(conn, req, text, ran).await?;
    let Some(statement) = statement_within(req, text, bound) else {
        return Ok(Vec::new());
    };
    let hits = bind_all(sqlx::query_as::<_, Hit>(&statement.sql), &statement.params)
        .fetch_all(&mut *conn)
        .await?;
    if let Some(ran) = ran {
        ran.push(statement);
    }
    Ok(hits)
}

/// The fuzzy step's text query for `req`: its words corrected against the vocabulary, at least
/// half of them needed. `None` when too few of the words have a close spelling for anything to
/// match.
pub async fn corrected_text_query<'c>(
    executor: impl sqlx::PgExecutor<'c>,
    req: &SearchRequest,
    need: Need,
) -> Result<Option<TextQuery>, sqlx::Error> {
    let words = super::spelling::lookup(executor, &req.query).await?;
    let spellings: Vec<Vec<String>> = words.into_iter().map(|w| w.spellings).collect();
    Ok(corrected_query(&spellings, need).map(TextQuery::Corrected))
}

/// Quotes (phrases) and `-word` (exclusion) are websearch operators a corrected query cannot
/// keep: next to exact hits, such a search answers with them alone.
fn has_operators(query: &str) -> bool {
    let query = websearch_text(query);
    query.contains('"') || query.split_whitespace().any(|w| w.starts_with('-'))
}

/// Exact words first. Fewer exact hits than asked for: the records having every word as typed
/// or as a close spelling join below them. No exact hit: the fuzzy step (at least half of the
/// words). `pool` should plan each call for its values (`db::connect_search`): a cached generic
/// plan cannot know how selective the words and the radius are. One connection serves all the
/// steps, so the pool's liveness check runs once per search.
pub async fn run(
    pool: &crate::db::lean::LeanPool,
    req: &SearchRequest,
) -> Result<(Vec<Hit>, TextMatching), sqlx::Error> {
    let mut conn = pool.acquire().await?;
    run_steps(&mut conn, req, None).await
}

/// `run`, also returning the statements it ran, in order (benchmarks replay them in pgbench).
pub async fn run_recorded(
    conn: &mut sqlx::PgConnection,
    req: &SearchRequest,
) -> Result<(Vec<Hit>, TextMatching, Vec<Statement>), sqlx::Error> {
    let mut ran = Vec::new();
    let (hits, matching) = run_steps(conn, req, Some(&mut ran)).await?;
    Ok((hits, matching, ran))
}

async fn run_steps(
    conn: &mut sqlx::PgConnection,
    req: &SearchRequest,
    mut ran: Option<&mut Vec<Statement>>,
) -> Result<(Vec<Hit>, TextMatching), sqlx::Error> {
    let exact = run_with(conn, req, &TextQuery::Exact, &mut ran).await?;
    let full = exact.len() as i64 >= req.max_results;
    if full || (!exact.is_empty() && has_operators(&req.query)) {
        return Ok((exact, TextMatching::Exact));
    }
    let lookup = super::spelling::lookup_statement(&req.query);
    let rows: Vec<(String, Vec<String>)> = bind_all(sqlx::query_as(&lookup.sql), &lookup.params)
        .fetch_all(&mut *conn)
        .await?;
    if let Some(ran) = ran.as_mut() {
        ran.push(lookup);
    }
    let words: Vec<WordSpellings> = rows
        .into_iter()
        .map(|(word, spellings)| WordSpellings { word, spellings })
        .collect();
    let spellings: Vec<Vec<String>> = words.iter().map(|w| w.spellings.clone()).collect();
    if !exact.is_empty() {
        // Every word is only itself: the corrected query would find the exact hits again.
        if words.iter().all(WordSpellings::only_itself) {
            return Ok((exact, TextMatching::Exact));
        }
        let hits = match corrected_query(&spellings, Need::Every) {
            Some(every) => run_with(conn, req, &TextQuery::Corrected(every), &mut ran).await?,
            None => exact,
        };
        return Ok((hits, TextMatching::Exact));
    }
    let mut fuzzy = match corrected_query(&spellings, Need::Half) {
        Some(half) => run_with(conn, req, &TextQuery::Corrected(half), &mut ran).await?,
        None => Vec::new(),
    };
    // No complete hit among three words or more: a record whose whole name is in the query may
    // have fewer than half of them (`Hawksmoor Seven Dials`).
    if words.len() >= 3
        && !fuzzy.iter().any(|hit| hit.tier > 0)
        && let Some(name) = corrected_query(&spellings, Need::HalfOrName)
    {
        fuzzy = run_with(conn, req, &TextQuery::Corrected(name), &mut ran).await?;
    }
    Ok((fuzzy, TextMatching::Fuzzy))
}

/// The plan PostgreSQL chooses for `req` (tests and benchmarks check that the indexes are used):
/// the exact statement (`need` `None`), or a corrected one after the spelling lookup. `prefix` is
/// `EXPLAIN` or e.g. `EXPLAIN (ANALYZE, BUFFERS)`. Empty when no statement would run.
pub async fn explain(
    conn: &mut sqlx::PgConnection,
    req: &SearchRequest,
    need: Option<Need>,
    prefix: &str,
) -> Result<String, sqlx::Error> {
    let text = match need {
        None => TextQuery::Exact,
        Some(need) => match corrected_text_query(&mut *conn, req, need).await? {
            Some(corrected) => corrected,
            None => return Ok(String::new()),
        },
    };
    let Some(statement) = statement(req, &text) else {
        return Ok(String::new());
    };
    explain_statement(conn, &statement, prefix).await
}

/// The plan of one statement `run_recorded` returned.
pub async fn explain_statement(
    conn: &mut sqlx::PgConnection,
    statement: &Statement,
    prefix: &str,
) -> Result<String, sqlx::Error> {
    let sql = format!("{prefix} {}", statement.sql);
    let lines: Vec<(String,)> = bind_all(sqlx::query_as(&sql), &statement.params)
        .fetch_all(conn)
        .await?;
    Ok(lines
        .into_iter()
        .map(|(line,)| line)
        .collect::<Vec<_>>()
        .join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dash_standing_alone_is_punctuation_and_an_attached_one_excludes() {
        assert_eq!(
            websearch_text("Osteria Nonna - Trastevere"),
            "Osteria Nonna Trastevere"
        );
        assert_eq!(
            websearch_text("Harbour Grill – Canary Wharf"),
            "Harbour Grill Canary Wharf"
        );
        assert_eq!(websearch_text("pizza -chain"), "pizza -chain");
        assert!(has_operators("pizza -chain"));
        assert!(has_operators("\"harbour grill\""));
        assert!(!has_operators("Osteria Nonna - Trastevere"));
    }
}
