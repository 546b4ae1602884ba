//! PostGraphile 4 (+ @graphile/postgis) as the GraphQL peer of `cargo bench --bench api`:
//! installed from `benches/peers/postgraphile/package-lock.json` (npm registry) on first use,
//! started against the bench database on a loopback port, stopped when dropped.

use anyhow::{Context, bail};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct PostGraphile {
    child: Child,
    pub url: String,
}

impl Drop for PostGraphile {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Computed columns PostGraphile needs to follow the service's polymorphic link from a
/// contribution to its canonical entity (no foreign key can express it), and back.
pub const COMPUTED_COLUMNS: &str = "
CREATE OR REPLACE FUNCTION public.canonical_link_contributions_entity(c public.canonical_link_contributions)
    RETURNS canonical.entities LANGUAGE sql STABLE AS
    $$ SELECT e.* FROM canonical.entities e
       WHERE c.target_canonical_table = 'canonical.entities' AND e.id = c.target_canonical_id $$;
CREATE OR REPLACE FUNCTION canonical.entities_contributions(e canonical.entities)
    RETURNS SETOF public.canonical_link_contributions LANGUAGE sql STABLE AS
    $$ SELECT c.* FROM public.canonical_link_contributions c
       WHERE c.target_canonical_table = 'canonical.entities' AND c.target_canonical_id = e.id
       ORDER BY c.id $$;";

fn peer_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benches/peers/postgraphile")
}

fn installed(dir: &Path) -> bool {
    dir.join("node_modules/.bin/postgraphile").exists()
}

/// Starts PostGraphile on `port` against `database_url`; `Ok(None)` with the reason printed when
/// it cannot run here (no node, npm unavailable): the bench goes on without the peer.
pub async fn start(database_url: &str, port: u16) -> anyhow::Result<Option<PostGraphile>> {
    let dir = peer_dir();
    if !installed(&dir) {
        let npm = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund", "--prefix"])
            .arg(&dir)
            .stdout(Stdio::null())
            .status();
        if !matches!(npm, Ok(status) if status.success()) || !installed(&dir) {
            println!("PostGraphile: skipped (npm ci in {} failed)", dir.display());
            return Ok(None);
        }
    }
    let child = Command::new(dir.join("node_modules/.bin/postgraphile"))
        .args(["--connection", database_url, "--schema", "canonical,public"])
        .args([
            "--append-plugins",
            "@graphile/postgis",
            "--host",
            "127.0.0.1",
        ])
        .args([
            "--port",
            &port.to_string(),
            "--disable-query-log",
            "--disable-graphiql",
        ])
        .current_dir(&dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
    let Ok(child) = child else {
        println!("PostGraphile: skipped (node could not start it)");
        return Ok(None);
    };
    let peer = PostGraphile {
        child,
        url: format!("http://127.0.0.1:{port}/graphql"),
    };
    let client = reqwest::Client::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let probe = client
            .post(&peer.url)
            .json(&serde_json::json!({"query": "{ __typename }"}))
            .send()
            .await;
        if matches!(&probe, Ok(r) if r.status().is_success()) {
            return Ok(Some(peer));
        }
        if Instant::now() > deadline {
            bail!("PostGraphile did not answer on {} within 60 s", peer.url);
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// One request's time, failing on a non-200 answer or GraphQL errors.
pub async fn post(
    client: &reqwest::Client,
    url: &str,
    body: &serde_json::Value,
) -> anyhow::Result<Duration> {
    let started = Instant::now();
    let response = client.post(url).json(body).send().await?;
    let status = response.status();
    let answer: serde_json::Value = response.json().await.context("a JSON answer")?;
    if !status.is_success() || answer.get("errors").is_some() {
        bail!("{url} answered {status}: {answer}");
    }
    Ok(started.elapsed())
}
