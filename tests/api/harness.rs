//! Test harness: a real PostgreSQL + PostGIS, the real router, one fresh database per test.
//!
//! Without DATABASE_URL a throw-away cluster (fsync off) is started, or reused, under
//! `target/tmp/pg`. Migrations run once into a template database named after the migrations'
//! checksums; every test then gets `CREATE DATABASE ... TEMPLATE` (fast, fully isolated, parallel).

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use sha2::Digest;
use spacetime_records::config::Config;
use spacetime_records::db::cluster::{Durability, EmbeddedCluster};
use spacetime_records::domain::AgentStatus;
use spacetime_records::state::AppState;
use spacetime_records::{app, db};
use sqlx::PgPool;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use tower::ServiceExt;
use uuid::Uuid;

static ADMIN_URL: OnceLock<String> = OnceLock::new();
static TEMPLATE: tokio::sync::OnceCell<String> = tokio::sync::OnceCell::const_new();
static COUNTER: AtomicUsize = AtomicUsize::new(0);

pub fn tmp_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
}

/// URL of a database with the rights to create databases.
fn admin_url() -> &'static str {
    ADMIN_URL.get_or_init(|| {
        if let Ok(url) = std::env::var("DATABASE_URL") {
            return url;
        }
        // Several test processes may start at once: one starts the cluster, the others wait.
        let lock = std::fs::File::create(tmp_dir().join("pg.lock")).expect("lock file");
        lock.lock().expect("locking the test cluster");
        let cluster =
            EmbeddedCluster::ensure_running(&tmp_dir().join("pg"), None, Durability::ThrowAway)
                .expect("starting the test PostgreSQL cluster (run .ci/setup first)");
        cluster.url("postgres")
    })
}

fn with_database(url: &str, database: &str) -> String {
    let (base, query) = url
        .split_once('?')
        .map_or((url, None), |(b, q)| (b, Some(q)));
    let server = base.rsplit_once('/').map_or(base, |(s, _)| s);
    match query {
        Some(q) => format!("{server}/{database}?{q}"),
        None => format!("{server}/{database}"),
    }
}

/// The migrated template database of the test cluster.
async fn template() -> &'static str {
    template_on(admin_url(), &TEMPLATE).await
}

/// The migrated template database on the server `admin` names, built once per migration set
/// (guarded by an advisory lock).
pub async fn template_on<'a>(admin: &str, cell: &'a tokio::sync::OnceCell<String>) -> &'a str {
    let admin_url = admin.to_string();
    cell.get_or_init(|| async move {
        // A digest of every migration's checksum: a new or edited migration names a new template.
        let mut digest = sha2::Sha256::new();
        for migration in db::MIGRATOR.iter() {
            digest.update(&*migration.checksum);
        }
        let checksum: String = digest.finalize()[..16]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let name = format!("strs_tmpl_{checksum}");
        let admin = db::connect(&admin_url, 2)
            .await
            .expect("connecting to the test server");
        sqlx::query("SELECT pg_advisory_lock(727272)")
            .execute(&admin)
            .await
            .unwrap();
        let exists: bool =
            sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)")
                .bind(&name)
                .fetch_one(&admin)
                .await
                .unwrap();
        if !exists {
            let building = format!("{name}_build");
            sqlx::query(&format!("DROP DATABASE IF EXISTS {building}"))
                .execute(&admin)
                .await
                .unwrap();
            sqlx::query(&format!("CREATE DATABASE {building}"))
                .execute(&admin)
                .await
                .unwrap();
            let pool = db::connect(&with_database(&admin_url, &building), 2)
                .await
                .unwrap();
            db::migrate(&pool)
                .await
                .expect("migrating the template database");
            pool.close().await;
            sqlx::query(&format!("ALTER DATABASE {building} RENAME TO {name}"))
                .execute(&admin)
                .await
                .unwrap();
        }
        drop_leftover_databases(&admin).await;
        sqlx::query("SELECT pg_advisory_unlock(727272)")
            .execute(&admin)
            .await
            .unwrap();
        admin.close().await;
        name
    })
    .await
}

/// Databases of earlier runs whose process is gone (their names carry the pid).
async fn drop_leftover_databases(admin: &PgPool) {
    let names: Vec<String> =
        sqlx::query_scalar("SELECT datname FROM pg_database WHERE datname LIKE 't\\_%'")
            .fetch_all(admin)
            .await
            .unwrap();
    for name in names {
        let pid: Option<i32> = name.split('_').nth(1).and_then(|p| p.parse().ok());
        let alive = pid.is_some_and(|p| std::path::Path::new(&format!("/proc/{p}")).exists());
        if !alive {
            let _ = sqlx::query(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
                .execute(admin)
                .await;
        }
    }
}

/// The token-signing secret of test apps and of the server processes tests start.
pub const TEST_JWT_SECRET: &str = "test-secret-test-secret-test-secret-0123";

pub struct TestApp {
    pub router: Router,
    pub state: AppState,
    _database: Option<ThrowAwayDatabase>,
}

/// A test's own database and data directory, dropped with the test: a full run would otherwise
/// leave a PostGIS database per test (gigabytes) on the disk until the next run.
pub struct ThrowAwayDatabase {
    admin_url: String,
    pub name: String,
    pub url: String,
    pub data_dir: PathBuf,
}

impl ThrowAwayDatabase {
    /// A fresh database cloned from the migrated template of the server `admin` names.
    pub async fn create_on(admin: &str, template: &str) -> ThrowAwayDatabase {
        let name = format!(
            "t_{}_{}_{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::SeqCst),
            Uuid::new_v4().simple()
        );
        let pool = db::connect(admin, 1).await.unwrap();
        sqlx::query(&format!("CREATE DATABASE {name} TEMPLATE {template}"))
            .execute(&pool)
            .await
            .unwrap();
        pool.close().await;
        ThrowAwayDatabase {
            admin_url: admin.to_string(),
            url: with_database(admin, &name),
            data_dir: tmp_dir().join("data").join(&name),
            name,
        }
    }
}

impl Drop for ThrowAwayDatabase {
    fn drop(&mut self) {
        let name = self.name.clone();
        let admin_url = self.admin_url.clone();
        // Drop runs inside the test's runtime, which cannot be blocked on: a thread of its own.
        let dropped = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a runtime for dropping the test database");
            runtime.block_on(async {
                let admin = db::connect(&admin_url, 1).await?;
                sqlx::query(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
                    .execute(&admin)
                    .await?;
                admin.close().await;
                Ok::<_, anyhow::Error>(())
            })
        })
        .join();
        if let Ok(Err(error)) = dropped {
            eprintln!("could not drop the test database {}: {error}", self.name);
        }
        let _ = std::fs::remove_dir_all(&self.data_dir);
    }
}

pub struct TestResponse {
    pub status: StatusCode,
    pub headers: axum::http::HeaderMap,
    pub body: Value,
    pub text: String,
    /// The body as sent (binary answers: tiles, attachments).
    pub bytes: Vec<u8>,
}

impl TestApp {
    pub async fn new() -> TestApp {
        TestApp::with_config(|_| {}).await
    }

    pub async fn with_config(adjust: impl FnOnce(&mut Config)) -> TestApp {
        let _ = tracing_subscriber::fmt()
            .with_test_writer()
            .with_env_filter("warn,sqlx=error")
            .try_init();
        let template = template().await;
        let database = ThrowAwayDatabase::create_on(admin_url(), template).await;
        let mut config = Config::for_data_dir(database.data_dir.clone());
        config.jwt_secret = Some(TEST_JWT_SECRET.into());
        config.db_max_connections = 5;
        adjust(&mut config);
        let state = app::build_state(config, &database.url).await.unwrap();
        TestApp {
            router: app::build_router(state.clone()),
            state,
            _database: Some(database),
        }
    }

    /// A test app over a database the test manages itself (its own cluster, say).
    pub fn over(state: AppState) -> TestApp {
        TestApp {
            router: app::build_router(state.clone()),
            state,
            _database: None,
        }
    }

    /// The URL of this test's database (for a second server process on it).
    pub fn database_url(&self) -> &str {
        &self
            ._database
            .as_ref()
            .expect("a test app over its own database")
            .url
    }

    pub fn pool(&self) -> &PgPool {
        &self.state.pool
    }

    pub async fn send(&self, request: Request<Body>) -> TestResponse {
        let method = request.method().to_string();
        let path = request.uri().path().to_string();
        let response = self.router.clone().oneshot(request).await.unwrap();
        let status = response.status();
        let headers = response.headers().clone();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        let text = String::from_utf8_lossy(&bytes).to_string();
        let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        let media_type = headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(|t| t.split(';').next().unwrap_or(t).trim());
        assert_documented(&method, &path, status, media_type, &body);
        TestResponse {
            status,
            headers,
            body,
            text,
            bytes: bytes.to_vec(),
        }
    }

    pub async fn request(
        &self,
        method: &str,
        path: &str,
        body: Option<Value>,
        key: Option<&str>,
    ) -> TestResponse {
        let mut builder = Request::builder().method(method).uri(path);
        if let Some(key) = key {
            builder = builder.header(header::AUTHORIZATION, format!("Bearer {key}"));
        }
        let request = match body {
            Some(body) => builder
                .header(header::CONTENT_TYPE, "application/json")
                .body(Body::from(body.to_string())),
            None => builder.body(Body::empty()),
        };
        self.send(request.unwrap()).await
    }

    pub async fn get(&self, path: &str) -> TestResponse {
        self.request("GET", path, None, None).await
    }

    pub async fn get_as(&self, path: &str, key: &str) -> TestResponse {
        self.request("GET", path, None, Some(key)).await
    }

    pub async fn post(&self, path: &str, body: Value) -> TestResponse {
        self.request("POST", path, Some(body), None).await
    }

    pub async fn post_as(&self, path: &str, body: Value, key: &str) -> TestResponse {
        self.request("POST", path, Some(body), Some(key)).await
    }

    pub async fn graphql(&self, query: &str, variables: Value, key: Option<&str>) -> TestResponse {
        self.request(
            "POST",
            "/graphql",
            Some(json!({"query": query, "variables": variables})),
            key,
        )
        .await
    }

    /// The argument-free fields of a GraphQL object type, by introspection, each as
    /// `(name, named type's kind, named type's name)` with lists and non-null unwrapped.
    pub async fn plain_fields(&self, type_name: &str) -> Vec<(String, String, String)> {
        let r = self
            .graphql(
                "query($name: String!) { __type(name: $name) { fields { name args { name }
                   type { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } }",
                json!({"name": type_name}),
                None,
            )
            .await;
        let fields = r.body["data"]["__type"]["fields"]
            .as_array()
            .unwrap_or_else(|| panic!("no GraphQL type {type_name}: {}", r.text));
        fields
            .iter()
            .filter(|f| f["args"].as_array().is_none_or(Vec::is_empty))
            .map(|f| {
                let mut ty = &f["type"];
                while matches!(ty["kind"].as_str(), Some("NON_NULL" | "LIST")) {
                    ty = &ty["ofType"];
                }
                let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
                (text(&f["name"]), text(&ty["kind"]), text(&ty["name"]))
            })
            .collect()
    }

    /// Registers an agent; returns (agent id, raw API key).
    pub async fn register(&self, display_name: &str) -> (Uuid, String) {
        let r = self
            .post(
                "/api/v1/agents/register",
                json!({"agent_type": "api_agent", "display_name": display_name}),
            )
            .await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
        (
            r.body["agent"]["id"].as_str().unwrap().parse().unwrap(),
            r.body["api_key"].as_str().unwrap().to_string(),
        )
    }

    /// An operator key carrying the `admin` scope (what `admin create-key` prints).
    pub async fn admin_key(&self) -> String {
        let created =
            spacetime_records::services::api_keys::issue_operator_key(&self.state, "Test Operator")
                .await
                .map_err(|e| e.public_message())
                .unwrap();
        created.api_key
    }
}

/// `text` as a query-string value (form encoding: a space is `+`).
pub fn urlencode(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

/// The text at `key` of every item of a JSON array (each item has one).
pub fn texts<'a>(items: &'a Value, key: &str) -> Vec<&'a str> {
    items
        .as_array()
        .unwrap_or_else(|| panic!("not an array: {items}"))
        .iter()
        .map(|item| item[key].as_str().unwrap())
        .collect()
}

/// The `loc` of each 422 detail item, as strings joined by dots.
pub fn locs(body: &Value) -> Vec<String> {
    body["detail"]
        .as_array()
        .unwrap_or_else(|| panic!("not a 422 body: {body}"))
        .iter()
        .map(|item| {
            item["loc"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p.as_str().map_or(p.to_string(), str::to_string))
                .collect::<Vec<_>>()
                .join(".")
        })
        .collect()
}

/// Entity entry bodies for the transformer tests.
pub fn entity_entry(name: &str, lat: f64, lng: f64, extra: Value) -> Value {
    let mut context = json!({"display_name": name, "country_code": "GB", "city": "Manchester"});
    if let (Some(c), Some(e)) = (context.as_object_mut(), extra.as_object()) {
        c.extend(e.clone());
    }
    json!({"entry_type": "entity", "latitude": lat, "longitude": lng, "observed_at_tstamp_utc": "2026-11-01T10:00:00Z",
           "source_type": "web_page", "context": context})
}

/// A point `metres` east of (lat, lng).
pub fn east(lat: f64, lng: f64, metres: f64) -> (f64, f64) {
    (lat, lng + metres / (111_320.0 * lat.to_radians().cos()))
}

impl TestApp {
    pub async fn post_entry(&self, key: &str, body: Value) -> TestResponse {
        self.post_as("/api/v1/space-time-entries", body, key).await
    }

    /// Posts an entry, processes it at once (admin) and returns the processing result.
    pub async fn publish(&self, key: &str, admin: &str, body: Value) -> Value {
        let created = self.post_entry(key, body).await;
        assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
        let id = created.body["id"].as_str().unwrap();
        let processed = self
            .request(
                "POST",
                &format!("/api/v1/transformer/process/{id}"),
                None,
                Some(admin),
            )
            .await;
        assert_eq!(processed.status, StatusCode::OK, "{}", processed.text);
        processed.body
    }

    /// The `loc`s of a GET the API refuses as invalid (asserting the 422).
    pub async fn refused_at(&self, path: &str) -> Vec<String> {
        let r = self.get(path).await;
        assert_eq!(
            r.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{path}: {}",
            r.text
        );
        locs(&r.body)
    }

    /// How many items the list at `path` answers with (a JSON array body).
    pub async fn list_len(&self, path: &str) -> usize {
        let r = self.get(path).await;
        r.body
            .as_array()
            .unwrap_or_else(|| panic!("not a list: {}", r.text))
            .len()
    }

    /// Runs `spacetime-records admin <args>` as the operator holding `admin` over this test's
    /// database, with a data directory of its own (`target/tmp/cli-<run>`).
    /// The directory (its JWT secret) is removed afterwards.
    pub fn admin_cli_output(&self, admin: &str, run: &str, args: &[&str]) -> std::process::Output {
        let data_dir = tmp_dir().join(format!("cli-{run}"));
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_spacetime-records"))
            .arg("admin")
            .args(args)
            .env("DATABASE_URL", self.database_url())
            .env("STRS_ADMIN_API_KEY", admin)
            .env("STRS_DATA_DIR", &data_dir)
            .output()
            .unwrap();
        let _ = std::fs::remove_dir_all(data_dir);
        output
    }

    /// The JSON an admin command prints, asserting that it succeeded.
    pub fn admin_cli(&self, admin: &str, run: &str, args: &[&str]) -> Value {
        let output = self.admin_cli_output(admin, run, args);
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        serde_json::from_slice(&output.stdout).unwrap()
    }

    /// Runs one statement of the test's own (rows to set up, fresh planner statistics).
    pub async fn execute(&self, sql: &str) {
        sqlx::query(sql).execute(self.pool()).await.unwrap();
    }

    /// Sets an agent's status the way an operator does (`admin agents disable`, …).
    pub async fn set_agent_status(&self, id: Uuid, status: AgentStatus) {
        spacetime_records::services::agents::set_status(&self.state, id, status)
            .await
            .map_err(|e| e.public_message())
            .unwrap();
    }

    pub async fn count(&self, sql: &str) -> i64 {
        sqlx::query_scalar(sql)
            .fetch_one(self.pool())
            .await
            .unwrap()
    }
}

/// The generated OpenAPI document as JSON, built once per test process.
fn openapi_json() -> &'static Value {
    static DOC: OnceLock<Value> = OnceLock::new();
    DOC.get_or_init(|| serde_json::to_value(app::openapi()).unwrap())
}

/// The OpenAPI path template that `path` matches, e.g. `/api/v1/messages/{message_id}`.
fn template_of(path: &str) -> Option<String> {
    let doc = openapi_json();
    let segments: Vec<&str> = path.split('/').collect();
    let mut best: Option<(usize, String)> = None;
    for template in doc["paths"].as_object()?.keys() {
        let parts: Vec<&str> = template.split('/').collect();
        if parts.len() != segments.len() {
            continue;
        }
        let mut literal = 0;
        let matches = parts.iter().zip(&segments).all(|(t, s)| {
            if t.starts_with('{') {
                !s.is_empty()
            } else {
                literal += 1;
                t == s
            }
        });
        // A literal segment beats a parameter: `/agents/me` is not `/agents/{agent_id}`.
        if matches && best.as_ref().is_none_or(|(l, _)| literal > *l) {
            best = Some((literal, template.clone()));
        }
    }
    best.map(|(_, t)| t)
}

/// Every answer a test sees must be documented: its status listed for its operation, its media
/// type among those documented for that status (binary ones too: tiles, images), and a JSON body
/// valid against that status's schema. Routes outside the document (the MCP endpoint, the
/// fallback 404) are not checked.
fn assert_documented(
    method: &str,
    path: &str,
    status: StatusCode,
    media_type: Option<&str>,
    body: &Value,
) {
    let Some(template) = template_of(path) else {
        return;
    };
    let operation = &openapi_json()["paths"][&template][method.to_lowercase()];
    if operation.is_null() {
        return;
    }
    let responses = &operation["responses"];
    assert!(
        !responses[status.as_str()].is_null(),
        "{method} {template} answered {status}, which /openapi.json does not document for it"
    );
    let Some(media_type) = media_type else {
        return;
    };
    let content = &responses[status.as_str()]["content"];
    let documented = !content[media_type].is_null();
    let json = media_type == "application/json" || media_type.ends_with("+json");
    if !json {
        // A route documented with a catch-all media type may answer any.
        assert!(
            documented
                || !content["*/*"].is_null()
                || !content["application/octet-stream"].is_null(),
            "{method} {template} answered {status} as {media_type}, which /openapi.json does not document"
        );
        return;
    }
    // Problem details and GraphQL-style bodies are checked only where documented; a GeoJSON
    // answer must be documented as such.
    assert!(
        documented || media_type == "application/json" || media_type == "application/problem+json",
        "{method} {template} answered {media_type}, which /openapi.json does not document"
    );
    if documented {
        assert_body_matches_openapi(method, &template, status, media_type, body);
    }
}

/// Fails unless `body` validates against the schema `/openapi.json` declares for the response of
/// `method` `path` (the templated path, e.g. `/api/v1/messages/{message_id}`) with `status`.
pub fn assert_matches_openapi(method: &str, path: &str, status: StatusCode, body: &Value) {
    assert_body_matches_openapi(method, path, status, "application/json", body);
}

/// As `assert_matches_openapi`, for the schema of one media type (`application/geo+json`, …).
pub fn assert_body_matches_openapi(
    method: &str,
    path: &str,
    status: StatusCode,
    media_type: &str,
    body: &Value,
) {
    let pointer = format!(
        "/paths/{}/{}/responses/{}/content/{}/schema",
        path.replace('~', "~0").replace('/', "~1"),
        method.to_lowercase(),
        status.as_u16(),
        media_type.replace('~', "~0").replace('/', "~1"),
    );
    let mut schema = openapi_json().clone();
    assert!(
        schema.pointer(&pointer).is_some(),
        "/openapi.json documents no JSON body for {method} {path} {status}"
    );
    // A URI fragment: braces of templated paths are percent-encoded.
    let fragment = pointer.replace('{', "%7B").replace('}', "%7D");
    schema["$ref"] = json!(format!("#{fragment}"));
    let validator = jsonschema::validator_for(&schema).expect("a valid schema");
    let errors: Vec<String> = validator
        .iter_errors(body)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{method} {path} {status}: the body does not match its OpenAPI schema: {errors:?}\n{body}"
    );
}

/// The plan PostgreSQL picks for `statement` with these SQL `arguments` (a prepared statement, as
/// the service runs it), one line per node.
pub async fn plan_of(conn: &mut sqlx::PgConnection, statement: &str, arguments: &str) -> String {
    sqlx::raw_sql(&format!("PREPARE planned AS {statement}"))
        .execute(&mut *conn)
        .await
        .unwrap();
    let plan: Vec<String> = sqlx::query_scalar(&format!("EXPLAIN EXECUTE planned({arguments})"))
        .fetch_all(&mut *conn)
        .await
        .unwrap();
    sqlx::raw_sql("DEALLOCATE planned")
        .execute(&mut *conn)
        .await
        .unwrap();
    plan.join("\n")
}
