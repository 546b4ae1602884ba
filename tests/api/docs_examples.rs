//! The served agent docs are executable: every `curl` command of every doc slug's `sh` blocks runs
//! against the server, with the documented status (a trailing `# 201`-style comment, otherwise
//! any 2xx). Shell variables and the docs' placeholder ids are bound to records that exist.

use crate::harness::{TestApp, entity_entry};
use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::json;
use spacetime_records::services::docs::{AGENT_DOC_SLUGS, TERMS_SLUGS};

/// One `curl` command as written in a doc, with the comment that follows it.
struct Example {
    line: String,
    expected: Option<u16>,
}

/// The `curl` commands of a Markdown doc's `sh` blocks (continuation lines joined).
fn examples(markdown: &str) -> Vec<Example> {
    let mut out = Vec::new();
    for block in markdown.split("```sh").skip(1) {
        let code = block.split("```").next().unwrap_or("");
        let joined = code.replace("\\\n", " ");
        let mut pending = String::new();
        for line in joined.lines() {
            pending.push_str(line);
            if quote_open(&pending) {
                pending.push('\n');
                continue;
            }
            let raw = std::mem::take(&mut pending);
            let (command, comment) = split_comment(&raw);
            if command.trim_start().starts_with("curl ") {
                let expected = comment.split(|c: char| !c.is_ascii_digit()).find_map(|w| {
                    (w.len() == 3)
                        .then(|| w.parse::<u16>().ok())
                        .flatten()
                        .filter(|s| (100..600).contains(s))
                });
                out.push(Example {
                    line: command.to_string(),
                    expected,
                });
            }
        }
    }
    out
}

/// Whether a single- or double-quoted string is still open at the end of `text`.
fn quote_open(text: &str) -> bool {
    let (mut single, mut double) = (false, false);
    for c in text.chars() {
        match c {
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            _ => {}
        }
    }
    single || double
}

/// Splits off a shell comment: a `#` outside quotes after white space.
fn split_comment(line: &str) -> (&str, &str) {
    let (mut single, mut double, mut previous) = (false, false, ' ');
    for (i, c) in line.char_indices() {
        match c {
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '#' if !single && !double && previous.is_whitespace() => {
                return (&line[..i], &line[i..]);
            }
            _ => {}
        }
        previous = c;
    }
    (line, "")
}

struct Call {
    method: String,
    uri: String,
    headers: Vec<(String, String)>,
    body: Option<String>,
}

fn parse_curl(line: &str) -> Call {
    let words = shell_words::split(line).unwrap_or_else(|e| panic!("not shell: {line}: {e}"));
    let mut call = Call {
        method: String::new(),
        uri: String::new(),
        headers: Vec::new(),
        body: None,
    };
    let (mut data, mut query, mut get) = (Vec::new(), Vec::new(), false);
    let mut form: Vec<String> = Vec::new();
    let mut it = words.into_iter().skip(1);
    while let Some(word) = it.next() {
        match word.as_str() {
            "-s" | "-S" | "-sS" | "-i" | "-v" | "--fail" => {}
            "-G" | "--get" => get = true,
            "-X" | "--request" => call.method = it.next().unwrap(),
            "-H" | "--header" => {
                let h = it.next().unwrap();
                let (k, v) = h.split_once(':').unwrap();
                call.headers
                    .push((k.trim().to_string(), v.trim().to_string()));
            }
            "-d" | "--data" | "--data-raw" => data.push(it.next().unwrap()),
            "--data-urlencode" => {
                let pair = it.next().unwrap();
                let (k, v) = pair.split_once('=').unwrap();
                query.push(format!("{k}={}", urlencode(v)));
            }
            "-F" | "--form" => form.push(it.next().unwrap()),
            "-o" | "-w" | "--output" | "--write-out" => {
                it.next();
            }
            other if other.starts_with('-') => panic!("unsupported curl option {other} in: {line}"),
            url => call.uri = url.to_string(),
        }
    }
    if get {
        query.append(&mut data);
    }
    if !query.is_empty() {
        let sep = if call.uri.contains('?') { '&' } else { '?' };
        call.uri = format!("{}{sep}{}", call.uri, query.join("&"));
    }
    if !data.is_empty() {
        call.body = Some(data.join("&"));
    }
    if !form.is_empty() {
        call.headers.push((
            "content-type".into(),
            format!("multipart/form-data; boundary={BOUNDARY}"),
        ));
        call.body = Some(multipart(&form));
    }
    if call.method.is_empty() {
        call.method = if call.body.is_some() {
            "POST".into()
        } else {
            "GET".into()
        };
    }
    call
}

const BOUNDARY: &str = "docs-example-boundary";

/// `-F name=value` fields; `-F name=@file;type=...` files are stood in by a tiny file of the
/// named type (the docs' files are not in the repository).
fn multipart(fields: &[String]) -> String {
    let mut body = String::new();
    for field in fields {
        let (name, value) = field.split_once('=').unwrap();
        match value.strip_prefix('@') {
            Some(file) => {
                let filename = file.split(';').next().unwrap();
                let (media, bytes) = if filename.ends_with(".pdf") {
                    ("application/pdf", "%PDF-1.4\n%%EOF\n")
                } else {
                    ("text/plain", "evidence captured from the source page\n")
                };
                body.push_str(&format!(
                    "--{BOUNDARY}\r\ncontent-disposition: form-data; name=\"{name}\"; filename=\"{filename}.txt\"\r\ncontent-type: {media}\r\n\r\n{bytes}\r\n"
                ));
            }
            None => body.push_str(&format!(
                "--{BOUNDARY}\r\ncontent-disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n"
            )),
        }
    }
    body.push_str(&format!("--{BOUNDARY}--\r\n"));
    body
}

fn urlencode(v: &str) -> String {
    v.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The ids and keys a doc's examples refer to, bound to records created for the run.
struct Bindings(Vec<(String, String)>);

impl Bindings {
    fn apply(&self, text: &str) -> String {
        let mut text = text.replace("{base_url}", "");
        for (name, value) in &self.0 {
            text = text.replace(name.as_str(), value);
        }
        text
    }
    fn bind(&mut self, name: &str, value: String) {
        self.0.insert(0, (name.to_string(), value));
    }
}

const AGENT: &str = "0196c8c4-7a10-7f3e-b2d4-1e9a5c7f0b22";
const ENTITY: &str = "0196c8a2-4f1e-7b3a-9d2e-5c1f0a7b8e41";
const REQUESTER: &str = "0196c8b0-1d2a-7e44-8a1b-3f6d9c2e7a10";
const LISTING: &str = "0196c8a9-3b5c-7d21-8e4f-6a2b9c1d0e73";
const TERM: &str = "0196c8d0-5e6f-7a81-9b2c-3d4e5f607182";
const SIGNATURE: &str = "0196c8d2-8a9b-7c0d-a1e2-f3a4b5c6d7e8";

async fn seeded(app: &TestApp) -> Bindings {
    let admin = app.admin_key().await;
    let (_, key) = app.register("Doc Reader").await;
    let (other, _) = app.register("Counterparty").await;
    let entity = app
        .publish(
            &key,
            &admin,
            entity_entry(
                "Docs Seed Plumbing",
                53.47,
                -2.25,
                json!({"categories": ["plumber"]}),
            ),
        )
        .await;
    let entity_id = entity["canonical_id"].as_str().unwrap().to_string();
    let entry_id = entity["space_time_entry_id"].as_str().unwrap().to_string();
    let mut listing = entity_entry(
        "Boiler service",
        53.48,
        -2.24,
        json!({"title": "Annual boiler service", "listing_type": "service"}),
    );
    listing["entry_type"] = json!("listing");
    let listing = app.publish(&key, &admin, listing).await;
    let term = app
        .post_as(
            "/api/v1/transaction-terms",
            json!({"title": "Seed terms", "terms_text": "Payment within 14 days."}),
            &key,
        )
        .await;
    let term_id = term.body["id"].as_str().expect("a term").to_string();
    let signature = app
        .post_as(
            "/api/v1/transaction-terms-signatures",
            json!({"transaction_term_id": term_id, "signature": "seed-signature"}),
            &key,
        )
        .await;
    let signature_id = signature.body["id"]
        .as_str()
        .expect("a signature")
        .to_string();
    let principal = app
        .post_as(
            "/api/v1/principals",
            json!({"principal_type": "company", "display_name": "Doc Group"}),
            &key,
        )
        .await;
    let principal_id = principal.body["id"]
        .as_str()
        .expect("a principal")
        .to_string();
    let pending = app
        .post(
            "/api/v1/agents/register",
            json!({"agent_type": "scraper", "display_name": "Doc Pending Member", "principal_id": principal_id}),
        )
        .await;
    let member_id = pending.body["agent"]["id"]
        .as_str()
        .expect("an agent")
        .to_string();
    Bindings(vec![
        ("$PRINCIPAL_ID".into(), principal_id),
        ("$MEMBER_ID".into(), member_id),
        (TERM.into(), term_id),
        (SIGNATURE.into(), signature_id),
        ("$STRS_ADMIN_KEY".into(), admin),
        ("$STRS_API_KEY".into(), key),
        ("$ENTRY_ID".into(), entry_id),
        ("$CANONICAL_ID".into(), entity_id.clone()),
        ("$ENTITY_ID".into(), entity_id.clone()),
        ("$AGENT_ID".into(), other.to_string()),
        (AGENT.into(), other.to_string()),
        (ENTITY.into(), entity_id.clone()),
        (REQUESTER.into(), entity_id),
        (
            LISTING.into(),
            listing["canonical_id"].as_str().unwrap().to_string(),
        ),
    ])
}

async fn run_doc(slug: &str, path: &str, failures: &mut Vec<String>) -> usize {
    let app = TestApp::new().await;
    let doc = app.get(path).await;
    assert_eq!(doc.status, StatusCode::OK, "{slug}");
    assert!(!doc.text.trim().is_empty(), "{slug} is empty");
    let mut bindings = seeded(&app).await;
    let examples = examples(&doc.text);
    for example in &examples {
        let call = parse_curl(&bindings.apply(&example.line));
        assert!(
            !call.uri.contains('$'),
            "{slug}: an unbound variable in {}",
            example.line
        );
        // curl always sends a Host header; the MCP endpoint checks it.
        let mut request = Request::builder()
            .method(call.method.as_str())
            .uri(&call.uri)
            .header("host", "localhost");
        for (k, v) in &call.headers {
            request = request.header(k, v);
        }
        let response = app
            .send(
                request
                    .body(
                        call.body
                            .clone()
                            .map(Body::from)
                            .unwrap_or_else(Body::empty),
                    )
                    .unwrap(),
            )
            .await;
        let as_documented = match example.expected {
            Some(status) => response.status.as_u16() == status,
            None => response.status.is_success(),
        };
        if !as_documented {
            failures.push(format!(
                "{slug}: {}\n  documented {:?}, answered {}: {}",
                example.line.trim(),
                example.expected,
                response.status,
                response.text
            ));
        }
        if response.status == StatusCode::CREATED && call.method == "POST" {
            let id = response.body["id"].as_str().unwrap_or_default().to_string();
            let path = call.uri.split('?').next().unwrap();
            match path {
                "/api/v1/transaction-terms" => bindings.bind(TERM, id),
                "/api/v1/transaction-terms-signatures" => bindings.bind(SIGNATURE, id),
                _ => {}
            }
        }
    }
    examples.len()
}

#[tokio::test]
async fn every_request_example_of_every_served_doc_runs_with_its_documented_status() {
    let (mut total, mut failures) = (0, Vec::new());
    for slug in AGENT_DOC_SLUGS {
        total += run_doc(
            slug,
            &format!("/api/v1/public/agent-docs/{slug}"),
            &mut failures,
        )
        .await;
    }
    for slug in TERMS_SLUGS {
        total += run_doc(
            slug,
            &format!("/api/v1/public/terms-and-conditions/{slug}"),
            &mut failures,
        )
        .await;
    }
    total += run_doc("index", "/api/v1/public", &mut failures).await;
    assert!(
        failures.is_empty(),
        "{} examples do not run as documented:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(total >= 30, "only {total} examples ran");
}

#[tokio::test]
async fn the_public_index_links_resolve() {
    let app = TestApp::new().await;
    let index = app.get("/api/v1/public").await;
    let catalogue = app.get("/api/v1/public/agent-docs").await;
    let mut hrefs: Vec<String> = index
        .text
        .split("](")
        .skip(1)
        .filter_map(|rest| rest.split(')').next())
        .filter(|href| href.starts_with('/'))
        .map(str::to_string)
        .collect();
    for group in catalogue.body.as_object().unwrap().values() {
        for item in group.as_array().unwrap() {
            hrefs.push(item["href"].as_str().unwrap().to_string());
        }
    }
    assert!(hrefs.len() > 19);
    for href in hrefs {
        let r = app.get(&href).await;
        assert_eq!(r.status, StatusCode::OK, "{href}");
        assert!(!r.text.trim().is_empty(), "{href}");
    }
}
