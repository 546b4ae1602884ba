//! Judges a draft entry against the context rubric of its type, before anything is stored: which
//! criteria it meets, what the minimum viable context lacks, and which anti-patterns it shows,
//! each finding with its fix. The rules and weights are written in docs/rubric-evaluation.md.
//!
//! Pure: the caller looks up whatever needs the database (whether a referenced entity exists) and
//! passes the answer in, so every rule is unit-tested on its own.

use super::extract;
use crate::domain::{EntryType, FindingSeverity, UsefulnessVerdict};
use crate::records::evaluation::{CriterionCheck, Finding, RubricEvaluation};
use chrono::{DateTime, Duration, Utc};
use rust_decimal::Decimal;
use serde_json::{Map, Value};
use uuid::Uuid;

/// Each blocking finding costs this much of the score of 1; each warning costs `WARNING_WEIGHT`.
const BLOCKING_WEIGHT: Decimal = Decimal::from_parts(4, 0, 0, false, 1);
const WARNING_WEIGHT: Decimal = Decimal::from_parts(1, 0, 0, false, 1);
/// A draft without blocking findings is `useful` from this score on (two warnings at most).
const USEFUL_FROM: Decimal = Decimal::from_parts(8, 0, 0, false, 1);
/// One string this long is page text, not a curated fact (descriptions are a sentence or two).
const RAW_TEXT_CHARS: usize = 2_000;
/// Clocks drift; an observation later than this past the evaluation time is in the future.
const CLOCK_SKEW_MINUTES: i64 = 5;
/// Past these ages an observation is "years-old data posted as new" (offers change faster).
const STALE_ENTITY_DAYS: i64 = 3 * 365;
const STALE_OFFER_DAYS: i64 = 2 * 365;

/// The rubric, as far as the rules need it.
pub struct RubricView<'a> {
    pub entry_type: &'a str,
    pub schema_ref: &'a str,
    pub version: i32,
    pub criteria: Vec<&'a str>,
    pub minimum_viable_context: &'a [String],
}

/// The draft entry, as published (after the same validation as a real post).
pub struct Draft<'a> {
    pub entry_type: EntryType,
    pub latitude: f64,
    pub longitude: f64,
    pub observed_at: Option<DateTime<Utc>>,
    pub source_ref: Option<&'a str>,
    pub idempotency_key: Option<&'a str>,
    pub context: &'a Map<String, Value>,
    /// Where the draft sits in the request, e.g. `["body"]`: the root of each finding's `loc`.
    pub loc: &'a [&'a str],
}

/// The entity a listing (provider) or request (requester) links to, if the draft names one.
pub fn referenced_entity(draft: &Draft) -> Option<(&'static str, Uuid)> {
    let key = match draft.entry_type {
        EntryType::Listing => "provider_entity_id",
        EntryType::Request => "requester_entity_id",
        _ => return None,
    };
    let id = draft.context.get(key)?.as_str()?;
    Uuid::parse_str(id.trim()).ok().map(|id| (key, id))
}

struct Findings<'r> {
    rubric: &'r RubricView<'r>,
    root: &'r [&'r str],
    found: Vec<Finding>,
}

impl Findings<'_> {
    fn add(
        &mut self,
        code: &str,
        criterion: &str,
        severity: FindingSeverity,
        loc: &[&str],
        message: impl Into<String>,
        fix: impl Into<String>,
    ) {
        let criterion = self
            .rubric
            .criteria
            .contains(&criterion)
            .then(|| criterion.to_string());
        self.found.push(Finding {
            code: code.into(),
            criterion,
            severity,
            loc: self
                .root
                .iter()
                .chain(loc)
                .map(ToString::to_string)
                .collect(),
            message: message.into(),
            fix: fix.into(),
        });
    }
}

use FindingSeverity::{Blocking, Warning};

pub fn evaluate(
    rubric: &RubricView,
    draft: &Draft,
    missing_reference: Option<&str>,
    now: DateTime<Utc>,
) -> RubricEvaluation {
    let mut f = Findings {
        rubric,
        root: draft.loc,
        found: Vec::new(),
    };
    let missing = missing_minimum(rubric, draft.context);
    for key in &missing {
        f.add(
            "missing_minimum_context",
            criterion_of_key(key),
            Warning,
            &["context", key],
            format!("context.{key} is part of the minimum viable context and is missing"),
            format!("add context.{key} as the rubric's recommended_context_shape shows"),
        );
    }
    transformer_verdict(&mut f, draft);
    if let Some(key) = missing_reference {
        f.add(
            "unknown_linked_entity",
            if key == "provider_entity_id" { "provider_link" } else { "requester_identity" },
            Blocking,
            &["context", key],
            format!("context.{key} names no existing canonical entity"),
            "link only an id that search returned; otherwise describe the party in description or link_urls",
        );
    }
    single_record(&mut f, draft);
    source_and_time(&mut f, draft, now);
    place(&mut f, draft);
    identity(&mut f, draft);
    evidence(&mut f, draft.context);
    raw_material(&mut f, draft.context);
    offer_terms(&mut f, draft, now);
    layers(&mut f, draft.context);
    judged(rubric, missing, f.found)
}

fn judged(rubric: &RubricView, missing: Vec<String>, findings: Vec<Finding>) -> RubricEvaluation {
    let penalty: Decimal = findings
        .iter()
        .map(|f| match f.severity {
            Blocking => BLOCKING_WEIGHT,
            Warning => WARNING_WEIGHT,
        })
        .sum();
    let score = (Decimal::ONE - penalty).max(Decimal::ZERO).round_dp(2);
    let verdict = if findings.iter().any(|f| f.severity == Blocking) {
        UsefulnessVerdict::NotUseful
    } else if score >= USEFUL_FROM {
        UsefulnessVerdict::Useful
    } else {
        UsefulnessVerdict::NeedsWork
    };
    let criteria = rubric
        .criteria
        .iter()
        .map(|name| CriterionCheck {
            criterion: name.to_string(),
            met: !findings
                .iter()
                .any(|f| f.criterion.as_deref() == Some(*name)),
        })
        .collect();
    RubricEvaluation {
        entry_type: rubric.entry_type.to_string(),
        schema_ref: rubric.schema_ref.to_string(),
        rubric_version: rubric.version,
        usefulness_score: score,
        verdict,
        criteria,
        missing_minimum_context: missing,
        findings,
    }
}

/// A key counts as present under its own name or the alias the transformer reads.
fn missing_minimum(rubric: &RubricView, context: &Map<String, Value>) -> Vec<String> {
    let present = |key: &str| {
        let aliases: &[&str] = match key {
            "display_name" | "title" => &["name"],
            "website_url" => &["website"],
            "address_text" => &["address"],
            _ => &[],
        };
        std::iter::once(key)
            .chain(aliases.iter().copied())
            .any(|k| context.get(k).is_some_and(has_content))
    };
    rubric
        .minimum_viable_context
        .iter()
        .filter(|key| !present(key))
        .cloned()
        .collect()
}

fn criterion_of_key(key: &str) -> &'static str {
    match key {
        "source_url" => "source_backed",
        "context_l1_common" => "evidence_and_uncertainty",
        "city" | "country_code" | "address_text" => "real_place",
        _ => "single_record",
    }
}

fn has_content(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::String(s) => !s.trim().is_empty(),
        Value::Array(items) => !items.is_empty(),
        Value::Object(map) => !map.is_empty(),
        _ => true,
    }
}

/// What the transformer itself would refuse is blocking: the entry would end `rejected`.
fn transformer_verdict(f: &mut Findings, draft: &Draft) {
    let context = Value::Object(draft.context.clone());
    let refused = match draft.entry_type {
        EntryType::Entity => extract::entity_draft(&context).err(),
        EntryType::Listing => extract::offer_draft(&context, true, "offer").err(),
        EntryType::Request => extract::offer_draft(&context, false, "request").err(),
        EntryType::Observation => extract::observation_keys(&context).err(),
    };
    if let Some(reason) = refused {
        let key = reason
            .strip_prefix("context.")
            .and_then(|rest| rest.split([' ', ',']).next())
            .unwrap_or("");
        let loc: Vec<&str> = if key.is_empty() {
            vec!["context"]
        } else {
            vec!["context", key]
        };
        f.add(
            "transformer_would_reject",
            "single_record",
            Blocking,
            &loc,
            format!("the transformer would reject this entry: {reason}"),
            "correct the field as the message says; the rubric's canonical_basis lists each field's form",
        );
    }
}

/// Keys that hold lists of plain values by design; an array of records anywhere else is a bundle.
const LIST_KEYS: &[&str] = &[
    "categories",
    "tags",
    "link_urls",
    "context_l2_available_features",
    "services",
    "price_includes",
    "price_excludes",
    "requirements",
    "opening_hours",
    "languages",
    "payment_methods",
    "photos",
];
const RECORD_NAME_KEYS: &[&str] = &["name", "display_name", "title", "business_name", "company"];

fn single_record(f: &mut Findings, draft: &Draft) {
    if let Some(path) = bundled_array(draft.context, &mut vec!["context".to_string()]) {
        let loc: Vec<&str> = path.iter().map(String::as_str).collect();
        f.add(
            "bundled_records",
            "single_record",
            Blocking,
            &loc,
            format!("{} holds several named records", path.join(".")),
            "post one entry per real-world record, each with its own place, source and idempotency_key",
        );
    }
    for key in ["phone", "website_url", "email"] {
        if let Some(Value::String(value)) = draft.context.get(key)
            && several_values(key, value)
        {
            f.add(
                "bundled_records",
                "single_record",
                Blocking,
                &["context", key],
                format!("context.{key} holds several values"),
                "keep one value per field; a branch with its own phone or website is its own entry",
            );
        }
    }
    let title = ["title", "display_name", "name"]
        .iter()
        .find_map(|k| draft.context.get(*k).and_then(Value::as_str));
    if let Some(title) = title
        && is_catch_all_title(title)
    {
        f.add(
            "catch_all_title",
            "single_record",
            Blocking,
            &["context", "title"],
            format!("'{title}' names a collection, not one record"),
            "post each offer, need or business as its own entry with its own title",
        );
    }
}

fn bundled_array(map: &Map<String, Value>, path: &mut Vec<String>) -> Option<Vec<String>> {
    for (key, value) in map {
        path.push(key.clone());
        let found = match value {
            Value::Array(items) if !LIST_KEYS.contains(&key.as_str()) => {
                let records = items
                    .iter()
                    .filter(|item| {
                        item.as_object()
                            .is_some_and(|o| RECORD_NAME_KEYS.iter().any(|k| o.contains_key(*k)))
                    })
                    .count();
                (records >= 2).then(|| path.clone())
            }
            Value::Object(inner) => bundled_array(inner, path),
            _ => None,
        };
        path.pop();
        if found.is_some() {
            return found;
        }
    }
    None
}

fn several_values(key: &str, value: &str) -> bool {
    match key {
        "phone" => {
            let numbers = value
                .split([',', ';', '|', '\n', '/'])
                .filter(|p| p.chars().filter(char::is_ascii_digit).count() >= 6)
                .count();
            numbers >= 2
        }
        "website_url" => value.matches("://").count() >= 2 || value.split_whitespace().count() >= 2,
        _ => value.matches('@').count() >= 2,
    }
}

fn is_catch_all_title(title: &str) -> bool {
    let t = title.trim().to_lowercase();
    const WHOLE: &[&str] = &[
        "products", "services", "listings", "jobs", "requests", "offers",
    ];
    const STARTS: &[&str] = &["all ", "various ", "list of ", "multiple ", "several "];
    WHOLE.contains(&t.as_str()) || STARTS.iter().any(|s| t.starts_with(s))
}

fn source_and_time(f: &mut Findings, draft: &Draft, now: DateTime<Utc>) {
    let context_source = draft
        .context
        .get("source_url")
        .and_then(Value::as_str)
        .or_else(|| verification(draft.context).and_then(|v| v.get("source_url")?.as_str()))
        .filter(|s| !s.trim().is_empty());
    if draft.source_ref.is_none() && context_source.is_none() {
        f.add(
            "no_source",
            "source_backed",
            Blocking,
            &["source_ref"],
            "the draft names no source: neither source_ref nor context.source_url",
            "set source_ref (and context.source_url) to the page or record the facts were read from",
        );
    }
    for (loc, url) in [
        ("source_ref", draft.source_ref),
        ("context", context_source),
    ] {
        if let Some(url) = url
            && is_search_results_page(url)
        {
            let at: &[&str] = if loc == "context" {
                &["context", "source_url"]
            } else {
                &[loc]
            };
            f.add(
                "search_results_source",
                "source_backed",
                Blocking,
                at,
                format!("{url} is a search results page, not a source"),
                "open the result and cite the record's own page (its website, register entry or notice)",
            );
        }
    }
    let context_time = verification(draft.context)
        .and_then(|v| v.get("observed_at")?.as_str())
        .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
        .map(|t| t.with_timezone(&Utc));
    let Some(observed) = draft.observed_at.or(context_time) else {
        f.add(
            "no_observation_time",
            "source_backed",
            Blocking,
            &["observed_at_tstamp_utc"],
            "the draft does not say when the source was read",
            "set observed_at_tstamp_utc to the time the page was fetched (UTC)",
        );
        return;
    };
    if observed > now + Duration::minutes(CLOCK_SKEW_MINUTES) {
        f.add(
            "observed_in_future",
            "freshness",
            Blocking,
            &["observed_at_tstamp_utc"],
            format!("observed_at_tstamp_utc {observed} is in the future"),
            "send the real fetch time in UTC",
        );
    }
    let stale_days = if draft.entry_type == EntryType::Entity {
        STALE_ENTITY_DAYS
    } else {
        STALE_OFFER_DAYS
    };
    if observed < now - Duration::days(stale_days) {
        f.add(
            "stale_observation",
            "freshness",
            Warning,
            &["observed_at_tstamp_utc"],
            format!("observed {} days ago", (now - observed).num_days()),
            "re-read the source and post what it shows now, or leave the old record alone",
        );
    }
}

fn is_search_results_page(raw: &str) -> bool {
    let Ok(url) = url::Url::parse(raw.trim()) else {
        return false;
    };
    let host = url.host_str().unwrap_or("").trim_start_matches("www.");
    const ENGINES: &[&str] = &[
        "google.",
        "bing.com",
        "duckduckgo.com",
        "search.yahoo.",
        "yandex.",
        "baidu.com",
        "ecosia.org",
        "startpage.com",
        "search.brave.com",
        "qwant.com",
    ];
    let path = url.path().to_lowercase();
    let has_query = url.query_pairs().any(|(k, _)| {
        matches!(
            k.as_ref(),
            "q" | "query" | "search" | "keyword" | "keywords" | "find_desc" | "wd" | "p" | "text"
        )
    });
    let search_path = path
        .split('/')
        .any(|seg| matches!(seg, "search" | "results" | "s"));
    (ENGINES
        .iter()
        .any(|e| host.starts_with(e) || host.contains(&format!(".{e}")))
        && (has_query || search_path))
        || (search_path && has_query)
}

fn place(f: &mut Findings, draft: &Draft) {
    if draft.latitude.abs() < 1e-6 && draft.longitude.abs() < 1e-6 {
        f.add(
            "null_island",
            "real_place",
            Blocking,
            &["latitude"],
            "latitude and longitude are 0,0 (no real place)",
            "geocode the published address, or use the centre of the stated service area",
        );
    }
    if let Some(Value::String(code)) = draft.context.get("country_code")
        && (code == "UK" || !(code.len() == 2 && code.chars().all(|c| c.is_ascii_uppercase())))
    {
        let hint = if code.eq_ignore_ascii_case("uk") {
            " (the United Kingdom is GB)"
        } else {
            ""
        };
        f.add(
            "country_code_format",
            "real_place",
            Warning,
            &["context", "country_code"],
            format!("country_code '{code}' is not an uppercase ISO 3166-1 alpha-2 code{hint}"),
            "write the two uppercase letters of ISO 3166-1, e.g. GB",
        );
    }
}

fn identity(f: &mut Findings, draft: &Draft) {
    if draft.entry_type == EntryType::Entity {
        let has_key = ["website_url", "website", "phone"]
            .iter()
            .any(|k| draft.context.get(*k).is_some_and(has_content));
        if !has_key {
            f.add(
                "no_identity_key",
                "identity_consistency",
                Warning,
                &["context", "website_url"],
                "neither website_url nor phone: the record can only be matched by name and place",
                "add the entity's own website_url or public phone when the source shows one",
            );
        }
    }
    if let Some(Value::String(site)) = draft.context.get("website_url")
        && let Ok(url) = url::Url::parse(site)
        && url.query_pairs().any(|(k, _)| {
            k.starts_with("utm_")
                || matches!(
                    k.as_ref(),
                    "gclid" | "fbclid" | "msclkid" | "sessionid" | "sid" | "ref"
                )
        })
    {
        f.add(
            "tracking_parameters",
            "identity_consistency",
            Warning,
            &["context", "website_url"],
            "website_url carries tracking or session parameters",
            "send the canonical URL without its query string",
        );
    }
    if draft.idempotency_key.is_none() && draft.entry_type != EntryType::Observation {
        f.add(
            "no_idempotency_key",
            "identity_consistency",
            Warning,
            &["idempotency_key"],
            "without an idempotency_key a retried post stores the record twice",
            "set idempotency_key to source-type:normalised-source-ref:entry-type:subtype:normalised-name",
        );
    }
}

fn verification(context: &Map<String, Value>) -> Option<&Map<String, Value>> {
    context
        .get("context_l1_common")?
        .get("verification")?
        .as_object()
}

fn evidence(f: &mut Findings, context: &Map<String, Value>) {
    let Some(verification) = verification(context) else {
        f.add(
            "no_verification",
            "evidence_and_uncertainty",
            Warning,
            &["context", "context_l1_common", "verification"],
            "context_l1_common.verification is missing",
            "add verification with evidence_summary, uncertainty, source_url and observed_at",
        );
        return;
    };
    for key in ["evidence_summary", "uncertainty"] {
        let text = verification
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or("")
            .trim();
        let empty =
            text.is_empty() || matches!(text.to_lowercase().as_str(), "none" | "n/a" | "na" | "-");
        if empty {
            f.add(
                if key == "uncertainty" {
                    "no_uncertainty"
                } else {
                    "no_evidence_summary"
                },
                "evidence_and_uncertainty",
                Warning,
                &["context", "context_l1_common", "verification", key],
                format!("verification.{key} is empty or says nothing"),
                if key == "uncertainty" {
                    "say what is unverified, inferred or possibly stale"
                } else {
                    "summarise in your own words what the source shows"
                },
            );
        }
    }
}

const DUMP_KEYS: &[&str] = &[
    "html",
    "raw_html",
    "page_html",
    "body_html",
    "page_text",
    "raw_text",
    "page_content",
    "full_text",
    "markdown",
    "raw",
    "dom",
    "search_results",
];

fn raw_material(f: &mut Findings, context: &Map<String, Value>) {
    let mut strings = Vec::new();
    collect_strings(context, &mut vec!["context".to_string()], &mut strings);
    let dump_key = context
        .keys()
        .find(|k| DUMP_KEYS.contains(&k.to_lowercase().as_str()));
    let dumped = dump_key
        .map(|k| vec!["context".to_string(), k.clone()])
        .or_else(|| {
            strings
                .iter()
                .find(|(_, s)| s.chars().count() > RAW_TEXT_CHARS || looks_like_html(s))
                .map(|(path, _)| path.clone())
        });
    if let Some(path) = dumped {
        let loc: Vec<&str> = path.iter().map(String::as_str).collect();
        f.add(
            "raw_page_dump",
            "no_raw_dumps",
            Blocking,
            &loc,
            format!(
                "{} holds raw page material (HTML or page text)",
                path.join(".")
            ),
            "keep curated facts in one or two sentences; attach the page as evidence if it matters",
        );
    }
    if let Some((path, value)) = strings.iter().find(|(path, s)| is_placeholder(path, s)) {
        let loc: Vec<&str> = path.iter().map(String::as_str).collect();
        f.add(
            "placeholder_data",
            "no_raw_dumps",
            Blocking,
            &loc,
            format!("'{value}' is placeholder or test data"),
            "post only real, sourced records; never smoke tests or the rubric's template values",
        );
    }
}

fn collect_strings(
    map: &Map<String, Value>,
    path: &mut Vec<String>,
    out: &mut Vec<(Vec<String>, String)>,
) {
    for (key, value) in map {
        path.push(key.clone());
        match value {
            Value::String(s) => out.push((path.clone(), s.clone())),
            Value::Object(inner) => collect_strings(inner, path, out),
            Value::Array(items) => {
                for item in items {
                    match item {
                        Value::String(s) => out.push((path.clone(), s.clone())),
                        Value::Object(inner) => collect_strings(inner, path, out),
                        _ => {}
                    }
                }
            }
            _ => {}
        }
        path.pop();
    }
}

fn looks_like_html(s: &str) -> bool {
    let lower = s.to_lowercase();
    [
        "<html", "<body", "<div", "<p>", "<br", "<span", "<script", "<table", "<li>", "&nbsp;",
    ]
    .iter()
    .any(|tag| lower.contains(tag))
}

fn is_placeholder(path: &[String], value: &str) -> bool {
    let v = value.trim().to_lowercase();
    // The rubric's recommended_context_shape writes each value as "<string: ...>".
    let template = v.starts_with('<') && v.ends_with('>') && !looks_like_html(&v);
    if template || v.contains("{{") || v.contains("lorem ipsum") {
        return true;
    }
    let field = path.last().map(String::as_str).unwrap_or("");
    if matches!(field, "display_name" | "name" | "title" | "legal_name") {
        const NAMES: &[&str] = &[
            "test",
            "testing",
            "smoke test",
            "dummy",
            "sample",
            "placeholder",
            "asdf",
            "foo",
            "bar",
            "foobar",
            "xxx",
            "tbd",
            "todo",
            "n/a",
            "example",
        ];
        let words: Vec<&str> = v
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .collect();
        return NAMES.contains(&v.as_str())
            || words
                .iter()
                .any(|w| matches!(*w, "test" | "dummy" | "placeholder" | "asdf" | "lorem"))
            || (words.first() == Some(&"sample") && words.len() <= 3);
    }
    if let Ok(url) = url::Url::parse(value.trim())
        && let Some(host) = url.host_str()
    {
        let host = host.trim_start_matches("www.");
        return matches!(
            host,
            "example.com" | "example.org" | "example.net" | "localhost" | "test.com"
        ) || host.starts_with("127.");
    }
    if field == "email" {
        return v.ends_with("@example.com") || v.starts_with("test@") || v.ends_with("@test.com");
    }
    false
}

fn offer_terms(f: &mut Findings, draft: &Draft, now: DateTime<Utc>) {
    let (amount_key, criterion) = match draft.entry_type {
        EntryType::Listing => ("price_amount", "price_and_availability"),
        EntryType::Request => ("budget_amount", "budget_and_currency"),
        _ => return,
    };
    if draft.context.get(amount_key).is_some_and(has_content)
        && !draft.context.get("currency_code").is_some_and(has_content)
    {
        f.add(
            "amount_without_currency",
            criterion,
            Warning,
            &["context", "currency_code"],
            format!("context.{amount_key} has no currency_code"),
            "add the ISO 4217 currency_code the source states, e.g. GBP",
        );
    }
    if draft.entry_type == EntryType::Request
        && let Some(by) = draft
            .context
            .get("needed_by_tstamp_utc")
            .and_then(Value::as_str)
            .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
        && by.with_timezone(&Utc) < now
    {
        f.add(
            "need_window_ended",
            "need_window",
            Warning,
            &["context", "needed_by_tstamp_utc"],
            "the need ended before now",
            "post only open needs; an ended one is withdrawn, not re-posted",
        );
    }
}

fn layers(f: &mut Findings, context: &Map<String, Value>) {
    let Some(Value::Array(features)) = context.get("context_l2_available_features") else {
        return;
    };
    let specific = context
        .get("context_l2_specific")
        .and_then(Value::as_object);
    let absent: Vec<&str> = features
        .iter()
        .filter_map(Value::as_str)
        .filter(|name| !specific.is_some_and(|s| s.contains_key(*name)))
        .collect();
    if !absent.is_empty() {
        f.add(
            "features_without_blocks",
            "layered_context",
            Warning,
            &["context", "context_l2_available_features"],
            format!(
                "context_l2_available_features names {} without a block in context_l2_specific",
                absent.join(", ")
            ),
            "list only the names of blocks present in context_l2_specific",
        );
    }
}

#[cfg(test)]
mod tests;
