//! Configuration from environment variables (and the matching command-line flags), read also from
//! a `.env` file in the current directory, where the real environment wins. Bad values fail at
//! start-up, never at the first request. Every variable is listed in README.md and .env.example
//! (a test holds the three together).

use clap::Args;
use std::net::SocketAddr;
use std::path::PathBuf;

#[derive(Debug, Clone, Args)]
pub struct Config {
    /// PostgreSQL URL. When unset, a private PostGIS cluster is started in `<data_dir>/postgres`.
    #[arg(long, env = "DATABASE_URL", hide_env_values = true)]
    pub database_url: Option<Secret>,

    /// Directory for the embedded cluster, attachments and the generated token-signing secret.
    #[arg(long, env = "STRS_DATA_DIR", default_value = "./data")]
    pub data_dir: PathBuf,

    /// Address the HTTP server listens on.
    #[arg(long, env = "STRS_BIND", default_value = "127.0.0.1:8080")]
    pub bind: SocketAddr,

    /// Secret for signing access tokens (HS256, at least 32 bytes). Several server processes
    /// sharing one database must share it; when unset, one is generated into the data directory.
    #[arg(long, env = "STRS_JWT_SECRET", hide_env_values = true)]
    pub jwt_secret: Option<Secret>,

    /// Directory of the PostgreSQL server binaries (initdb, pg_ctl). Found via pg_config when unset.
    #[arg(long, env = "STRS_PG_BINDIR")]
    pub pg_bindir: Option<PathBuf>,

    /// Maximum size of a JSON or GraphQL request body, in bytes.
    #[arg(long, env = "STRS_MAX_BODY_BYTES", default_value_t = 1024 * 1024)]
    pub max_body_bytes: usize,

    /// Size of the database connection pool.
    #[arg(long, env = "STRS_DB_MAX_CONNECTIONS", default_value_t = 16)]
    pub db_max_connections: u32,

    /// Seconds a request may take before it is answered with 503.
    #[arg(long, env = "STRS_REQUEST_TIMEOUT_SECS", default_value_t = 30)]
    pub request_timeout_secs: u64,

    /// Anonymous notes and signals allowed per client address per minute (shared by all processes).
    #[arg(long, env = "STRS_ANON_WRITES_PER_MINUTE", default_value_t = 30)]
    pub anon_writes_per_minute: i32,

    /// Messages one agent may send per hour (shared by all processes); 429 with Retry-After above.
    #[arg(long, env = "STRS_MESSAGES_PER_HOUR", default_value_t = 120)]
    pub messages_per_hour: i32,

    /// Agents and principals created anonymously per client address (IPv6 per /64) and hour.
    #[arg(long, env = "STRS_REGISTRATIONS_PER_HOUR", default_value_t = 60)]
    pub registrations_per_hour: i32,

    /// Run the background transformer worker in this process.
    #[arg(long, env = "STRS_TRANSFORMER_WORKER", default_value_t = true, action = clap::ArgAction::Set)]
    pub transformer_worker: bool,

    /// Concurrent drain loops of the background transformer in this process. Default: the number
    /// of cores plus one (a loop spends part of its time waiting on PostgreSQL, so one per core
    /// leaves cores idle; see docs/bench-log/ingest.md).
    #[arg(long, env = "STRS_TRANSFORMER_LOOPS", value_parser = clap::value_parser!(u16).range(1..=64))]
    pub transformer_loops: Option<u16>,

    /// Lifetime of access tokens issued by POST /api/v1/agents/me/tokens, in seconds.
    #[arg(long, env = "STRS_ACCESS_TOKEN_TTL_SECS", default_value_t = 900)]
    pub access_token_ttl_secs: u64,

    /// Requests in flight per process; past it a request is answered 503 at once (load shed).
    #[arg(long, env = "STRS_MAX_CONCURRENT_REQUESTS", default_value_t = 512)]
    pub max_concurrent_requests: usize,

    /// Open GraphQL WebSocket connections per process (an upgraded connection leaves the request
    /// count); past it an upgrade is answered 503 with `Retry-After`.
    #[arg(long, env = "STRS_MAX_WEBSOCKETS", default_value_t = 1024)]
    pub max_websockets: usize,

    /// How often an open GraphQL WebSocket's credential is checked again, in seconds: a key
    /// revoked or expired (or a token expired) since `connection_init` closes the connection
    /// (4403) within this time.
    #[arg(long, env = "STRS_WS_RECHECK_SECS", default_value_t = 30)]
    pub ws_recheck_secs: u64,

    /// How old, in seconds, the map tiles' counts per grid cell may grow before a tile of zoom
    /// 11 or less starts a rebuild (docs/explorer.md, "Density"): a change shows in those tiles'
    /// clusters at most this much (plus a rebuild) later.
    #[arg(long, env = "STRS_TILE_COUNTS_MAX_AGE_SECS", default_value_t = 300)]
    pub tile_counts_max_age_secs: u32,

    /// `Host` values the MCP endpoint answers (comma-separated hostnames or host:port); the
    /// loopback names by default, which protects a local server from DNS rebinding. A public
    /// deployment lists its own hostnames.
    #[arg(
        long,
        env = "STRS_MCP_ALLOWED_HOSTS",
        value_delimiter = ',',
        default_value = "localhost,127.0.0.1,::1"
    )]
    pub mcp_allowed_hosts: Vec<String>,

    /// Browser origins allowed to call the MCP endpoint (comma-separated, with scheme, e.g.
    /// `https://app.example.com:443`); empty by default. A server bound to a loopback address
    /// also lets in loopback origins (`http://localhost:*`, `127.0.0.1`, `[::1]`); any other
    /// `Origin` is refused (403). Requests without one (every non-browser client) pass.
    #[arg(long, env = "STRS_MCP_ALLOWED_ORIGINS", value_delimiter = ',')]
    pub mcp_allowed_origins: Vec<String>,

    /// Browser origins allowed to read the public surface (tiles, TileJSON, search, OGC API
    /// Features, GraphQL, `/` and `/openapi.json`) with CORS: `*` (the default) for any, a
    /// comma-separated list (`https://maps.example.org`), or empty for none. Credentials are
    /// never allowed (`http/cors.rs`).
    #[arg(
        long,
        env = "STRS_CORS_ORIGINS",
        value_delimiter = ',',
        default_value = "*"
    )]
    pub cors_origins: Vec<String>,

    /// A MapLibre style URL for the explorer's basemap instead of the bundled offline one (an
    /// absolute `http`/`https` URL, e.g. a hosted style, or a deployment's own style over
    /// PMTiles); unset by default. The explorer's content security policy then also allows the
    /// style's origin, so its sources, sprite and glyphs must be there (docs/explorer.md).
    #[arg(long, env = "STRS_BASEMAP_STYLE")]
    pub basemap_style: Option<String>,

    /// Read replicas (streaming standbys of `DATABASE_URL`), comma-separated. Reads that
    /// tolerate lag (lists, search, public reads, GraphQL queries) go to a replica in rotation;
    /// writes, credential lookups and an agent's reads just after its own writes go to the primary.
    #[arg(
        long,
        env = "DATABASE_REPLICA_URL",
        value_delimiter = ',',
        hide_env_values = true
    )]
    pub replica_urls: Vec<Secret>,

    /// A replica further behind the primary than this (milliseconds of replay) leaves the
    /// rotation until it catches up.
    #[arg(long, env = "STRS_REPLICA_MAX_LAG_MS", default_value_t = 5_000)]
    pub replica_max_lag_ms: u64,

    /// How often each process measures its replicas' lag and reachability (milliseconds).
    #[arg(long, env = "STRS_REPLICA_CHECK_MS", default_value_t = 1_000)]
    pub replica_check_ms: u64,

    /// After a write, the same agent's reads go to the primary for this many seconds.
    #[arg(long, env = "STRS_READ_YOUR_WRITES_SECS", default_value_t = 5)]
    pub read_your_writes_secs: u64,

    /// Free space (MiB) kept in reserve on the volume of the data directory: below it, writes are
    /// refused with 507 before PostgreSQL or the attachment store meets a full disk (a PostgreSQL
    /// that cannot write its WAL stops, and its crash recovery needs space too). The default is
    /// a few 16 MiB WAL segments plus headroom; 0 turns the check off.
    #[arg(long, env = "STRS_MIN_FREE_DISK_MB", default_value_t = 256)]
    pub min_free_disk_mb: u64,

    /// Log lines as JSON objects (one per line) instead of text.
    #[arg(long, env = "STRS_LOG_JSON", default_value_t = false)]
    pub log_json: bool,
}

/// Loads `./.env` (the current directory only, never a parent's) into the environment when the
/// file exists. A variable the environment already has keeps its value, so the order is: flag,
/// then environment, then `.env`, then the default. A malformed file stops start-up. Call it
/// before any thread starts: it sets environment variables.
pub fn load_dotenv() -> anyhow::Result<bool> {
    match dotenvy::from_path(".env") {
        Ok(()) => Ok(true),
        Err(dotenvy::Error::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(anyhow::Error::new(e).context("reading .env in the current directory")),
    }
}

impl Config {
    /// Defaults for tests and tools: everything as documented, no database URL.
    pub fn for_data_dir(data_dir: PathBuf) -> Config {
        Config {
            database_url: None,
            data_dir,
            bind: "127.0.0.1:0".parse().expect("static address"),
            jwt_secret: None,
            pg_bindir: None,
            max_body_bytes: 1024 * 1024,
            db_max_connections: 16,
            request_timeout_secs: 30,
            access_token_ttl_secs: 900,
            transformer_worker: false,
            transformer_loops: None,
            anon_writes_per_minute: 30,
            messages_per_hour: 120,
            registrations_per_hour: 60,
            max_concurrent_requests: 512,
            max_websockets: 1024,
            ws_recheck_secs: 30,
            tile_counts_max_age_secs: 300,
            mcp_allowed_hosts: vec!["localhost".into(), "127.0.0.1".into(), "::1".into()],
            mcp_allowed_origins: Vec::new(),
            cors_origins: vec!["*".into()],
            basemap_style: None,
            replica_urls: Vec::new(),
            replica_max_lag_ms: 5_000,
            replica_check_ms: 1_000,
            read_your_writes_secs: 5,
            min_free_disk_mb: 256,
            log_json: false,
        }
    }

    pub fn transformer_loops(&self) -> usize {
        self.transformer_loops.map_or_else(
            || std::thread::available_parallelism().map_or(2, |n| n.get() + 1),
            usize::from,
        )
    }

    /// The free-space floor of the data volume, in bytes.
    pub fn min_free_disk_bytes(&self) -> u64 {
        self.min_free_disk_mb.saturating_mul(1024 * 1024)
    }

    pub fn validate(&self) -> anyhow::Result<()> {
        for origin in &self.cors_origins {
            check_origin(origin).map_err(anyhow::Error::msg)?;
        }
        if let Some(style) = &self.basemap_style {
            basemap_origin(style).map_err(anyhow::Error::msg)?;
        }
        if let Some(secret) = &self.jwt_secret {
            anyhow::ensure!(
                secret.expose().len() >= 32,
                "STRS_JWT_SECRET must be at least 32 bytes long"
            );
        }
        anyhow::ensure!(
            self.max_body_bytes >= 1024,
            "STRS_MAX_BODY_BYTES must be at least 1024"
        );
        anyhow::ensure!(
            self.anon_writes_per_minute >= 1,
            "STRS_ANON_WRITES_PER_MINUTE must be at least 1"
        );
        anyhow::ensure!(
            self.registrations_per_hour >= 1,
            "STRS_REGISTRATIONS_PER_HOUR must be at least 1"
        );
        anyhow::ensure!(
            self.messages_per_hour >= 1,
            "STRS_MESSAGES_PER_HOUR must be at least 1"
        );
        anyhow::ensure!(
            self.max_concurrent_requests >= 1,
            "STRS_MAX_CONCURRENT_REQUESTS must be at least 1"
        );
        anyhow::ensure!(
            self.max_websockets >= 1,
            "STRS_MAX_WEBSOCKETS must be at least 1"
        );
        anyhow::ensure!(
            (1..=3600).contains(&self.ws_recheck_secs),
            "STRS_WS_RECHECK_SECS must be between 1 and 3600"
        );
        anyhow::ensure!(
            (10..=86_400).contains(&self.tile_counts_max_age_secs),
            "STRS_TILE_COUNTS_MAX_AGE_SECS must be between 10 and 86400"
        );
        anyhow::ensure!(
            self.db_max_connections >= 1,
            "STRS_DB_MAX_CONNECTIONS must be at least 1"
        );
        anyhow::ensure!(
            (100..=3_600_000).contains(&self.replica_check_ms),
            "STRS_REPLICA_CHECK_MS must be between 100 and 3600000"
        );
        anyhow::ensure!(
            self.read_your_writes_secs <= 3_600,
            "STRS_READ_YOUR_WRITES_SECS must be at most 3600"
        );
        anyhow::ensure!(
            (60..=86_400).contains(&self.access_token_ttl_secs),
            "STRS_ACCESS_TOKEN_TTL_SECS must be between 60 and 86400"
        );
        Ok(())
    }
}

/// A value that must never reach a log: `Debug` prints `[redacted]` (a database URL carries its
/// password, the token secret signs every access token).
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("[redacted]")
    }
}

impl std::str::FromStr for Secret {
    type Err = std::convert::Infallible;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(Secret(s.to_string()))
    }
}

impl From<&str> for Secret {
    fn from(s: &str) -> Self {
        Secret(s.to_string())
    }
}

impl From<String> for Secret {
    fn from(s: String) -> Self {
        Secret(s)
    }
}

/// A problem with one configured origin, if any: `*` alone, or `http(s)://host[:port]`.
fn check_origin(origin: &str) -> Result<(), String> {
    let origin = origin.trim();
    if origin.is_empty() || origin == "*" {
        return Ok(());
    }
    let well_formed = (origin.starts_with("http://") || origin.starts_with("https://"))
        && !origin.ends_with('/')
        // What an HTTP header value may carry, so the CORS layer can send it back as it is.
        && origin.bytes().all(|b| b.is_ascii_graphic());
    if well_formed {
        Ok(())
    } else {
        Err(format!(
            "STRS_CORS_ORIGINS: '{origin}' is not an origin (scheme://host[:port], no path) or *"
        ))
    }
}

/// The origin (`https://host[:port]`) of a basemap style URL, which must be an absolute `http` or
/// `https` URL with a host: checked when the configuration is read.
pub fn basemap_origin(url: &str) -> Result<String, String> {
    let parsed = url::Url::parse(url)
        .map_err(|e| format!("STRS_BASEMAP_STYLE must be an absolute URL ({e}): {url}"))?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
        return Err(format!(
            "STRS_BASEMAP_STYLE must be an http or https URL with a host: {url}"
        ));
    }
    Ok(parsed.origin().ascii_serialization())
}
