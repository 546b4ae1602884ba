//! A full disk: the data directory on a size-limited tmpfs (mounted when the tests run as root;
//! skipped with the reason printed otherwise). Writes are refused with 507 on REST, GraphQL and
//! MCP below the free-space floor, an attachment that meets ENOSPC is 507 and leaves no
//! temporary file, reads keep working, and writes resume by themselves once space is freed.

use crate::harness::{TestApp, entity_entry, tmp_dir};
use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::Duration;
use tower::ServiceExt;

const MIB: u64 = 1024 * 1024;

/// A tmpfs of `size_mib` mounted on a fresh directory, unmounted and removed when dropped.
pub struct SmallDisk {
    pub path: PathBuf,
}

impl SmallDisk {
    /// `None` (with the reason printed) where this process may not mount.
    pub fn mount(name: &str, size_mib: u64) -> Option<SmallDisk> {
        if !nix::unistd::geteuid().is_root() {
            eprintln!("skipped: mounting a small tmpfs needs root");
            return None;
        }
        let path = tmp_dir().join(format!("{name}-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(&path).unwrap();
        let mounted = std::process::Command::new("mount")
            .args([
                "-t",
                "tmpfs",
                "-o",
                &format!("size={size_mib}m,mode=0755"),
                "tmpfs",
            ])
            .arg(&path)
            .output();
        match mounted {
            Ok(output) if output.status.success() => Some(SmallDisk { path }),
            Ok(output) => {
                eprintln!(
                    "skipped: mounting a tmpfs is not permitted here: {}",
                    String::from_utf8_lossy(&output.stderr).trim()
                );
                let _ = std::fs::remove_dir(&path);
                None
            }
            Err(error) => {
                eprintln!("skipped: mount could not run: {error}");
                let _ = std::fs::remove_dir(&path);
                None
            }
        }
    }

    pub fn free_bytes(&self) -> u64 {
        let stats = nix::sys::statvfs::statvfs(&self.path).unwrap();
        stats.blocks_available() as u64 * stats.fragment_size() as u64
    }

    /// Fills the disk with a file until `leave` bytes are free; returns the file.
    pub fn fill_leaving(&self, leave: u64) -> PathBuf {
        let filler = self
            .path
            .join(format!("filler-{}", uuid::Uuid::new_v4().simple()));
        let size = self.free_bytes().saturating_sub(leave);
        std::fs::write(&filler, vec![0u8; size as usize]).unwrap();
        filler
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg("-l")
            .arg(&self.path)
            .status();
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

fn temporary_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for shard in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        for file in std::fs::read_dir(shard.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            if file.file_name().to_string_lossy().ends_with(".tmp") {
                found.push(file.path());
            }
        }
    }
    found
}

/// An entry with `files` as plain-text attachments.
fn multipart(key: &str, files: &[Vec<u8>]) -> Request<Body> {
    let entry = entity_entry("Full Disk Ltd", 53.48, -2.24, json!({})).to_string();
    let mut parts = vec![("entry", None, None, entry.as_bytes())];
    for bytes in files {
        parts.push((
            "attachments",
            Some("f.txt"),
            Some("text/plain"),
            bytes.as_slice(),
        ));
    }
    crate::attachments::multipart(key, &parts)
}

/// A JSON-RPC call of an MCP tool, answered as the tool's structured result.
async fn mcp_tool(app: &TestApp, key: &str, name: &str, arguments: Value) -> Value {
    let request = Request::post("/mcp/")
        .header("host", "localhost")
        .header("authorization", format!("Bearer {key}"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-06-18")
        .body(Body::from(
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                   "params": {"name": name, "arguments": arguments}})
            .to_string(),
        ))
        .unwrap();
    let response = app.router.clone().oneshot(request).await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    let text = String::from_utf8_lossy(&bytes);
    // A JSON answer, or one server-sent event carrying it.
    let json = text
        .lines()
        .find_map(|l| l.strip_prefix("data:"))
        .unwrap_or(&text)
        .trim()
        .to_string();
    serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {text}"))
}

#[tokio::test]
async fn a_full_disk_is_507_on_rest_graphql_and_mcp_and_writes_resume_when_space_returns() {
    let Some(disk) = SmallDisk::mount("disk-full", 48) else {
        return;
    };
    let data_dir = disk.path.join("data");
    let app = TestApp::with_config(|c| {
        c.data_dir = data_dir.clone();
        c.min_free_disk_mb = 8;
    })
    .await;
    let (_, key) = app.register("Disk Filler").await;
    let entry = entity_entry("Space Left Ltd", 53.48, -2.24, json!({}));
    let r = app
        .post_as("/api/v1/space-time-entries", entry.clone(), &key)
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);

    // 12 MiB free, above the 8 MiB floor: the first 7 MiB file fits, the second meets ENOSPC.
    let filler = disk.fill_leaving(12 * MIB);
    let files = vec![vec![b'a'; 7 * MIB as usize], vec![b'b'; 7 * MIB as usize]];
    let r = app.send(multipart(&key, &files)).await;
    assert_eq!(r.status, StatusCode::INSUFFICIENT_STORAGE, "{}", r.text);
    assert_eq!(r.body["code"], "INSUFFICIENT_STORAGE");
    assert!(r.body["detail"].as_str().unwrap().contains("disk is full"));
    assert_eq!(
        temporary_files(&data_dir.join("attachments")),
        Vec::<PathBuf>::new(),
        "a failed write leaves no temporary file"
    );

    // Now below the floor (the first file took 7 MiB): every transport refuses writes.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    assert!(disk.free_bytes() < 8 * MIB);
    let r = app
        .post_as("/api/v1/space-time-entries", entry.clone(), &key)
        .await;
    assert_eq!(r.status, StatusCode::INSUFFICIENT_STORAGE, "{}", r.text);
    assert_eq!(r.body["code"], "INSUFFICIENT_STORAGE");
    assert!(
        r.body["detail"].as_str().unwrap().contains("nearly full"),
        "{}",
        r.text
    );
    let r = app
        .graphql(
            "mutation($input: SpaceTimeEntryInput!) { createSpaceTimeEntry(input: $input) { id } }",
            json!({"input": {"entryType": "ENTITY", "latitude": "53.48", "longitude": "-2.24"}}),
            Some(&key),
        )
        .await;
    assert_eq!(
        r.body["errors"][0]["extensions"]["code"], "INSUFFICIENT_STORAGE",
        "{}",
        r.text
    );
    assert_eq!(r.body["errors"][0]["extensions"]["status"], 507);
    let tool = mcp_tool(&app, &key, "create_space_time_entry", entry.clone()).await;
    assert_eq!(tool["result"]["isError"], true, "{tool}");
    assert_eq!(tool["result"]["structuredContent"]["status"], 507, "{tool}");
    assert_eq!(
        tool["result"]["structuredContent"]["code"],
        "INSUFFICIENT_STORAGE"
    );
    // Reads go on, and /ready says why writes are refused without taking the process out.
    let r = app.get_as("/api/v1/space-time-entries", &key).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let r = app
        .graphql(
            "{ entries(first: 1) { edges { node { id } } } }",
            json!({}),
            Some(&key),
        )
        .await;
    assert!(r.body["errors"].is_null(), "{}", r.text);
    let ready = app.get("/ready").await;
    assert_eq!(ready.status, StatusCode::OK);
    assert!(
        ready.body["disk"]
            .as_str()
            .unwrap()
            .starts_with("below the floor"),
        "{}",
        ready.text
    );
    let metrics = app.get("/metrics").await;
    assert!(metrics.text.contains("strs_storage_refusals_total"));

    // Space comes back: writes are accepted again within a second, with no restart.
    std::fs::remove_file(&filler).unwrap();
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let r = app.post_as("/api/v1/space-time-entries", entry, &key).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let r = app.send(multipart(&key, &files[..1])).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    assert!(
        app.get("/ready").await.body["disk"]
            .as_str()
            .unwrap()
            .starts_with("ok")
    );
}

#[tokio::test]
async fn temporary_files_left_by_an_interrupted_write_are_swept_at_start() {
    let app = TestApp::new().await;
    let shard = app.state.config.data_dir.join("attachments").join("ab");
    std::fs::create_dir_all(&shard).unwrap();
    let stale = shard.join(".abcdef.0123.tmp");
    std::fs::write(&stale, b"").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&stale)
        .unwrap()
        .set_modified(std::time::SystemTime::now() - Duration::from_secs(3600))
        .unwrap();
    let fresh = shard.join(".abcdef.4567.tmp");
    std::fs::write(&fresh, b"").unwrap();
    // A process starting over the same data directory sweeps the stale one only (the fresh one
    // may be another process's write in progress).
    let config = (*app.state.config).clone();
    let _second = spacetime_records::app::build_state(config, app.database_url())
        .await
        .unwrap();
    assert!(!stale.exists());
    assert!(fresh.exists());
}

/// The embedded default on a small filesystem, as an operator would first run it: the real
/// binary, its PostgreSQL in the data directory on a 160 MiB tmpfs, a 48 MiB floor.
#[tokio::test]
async fn the_embedded_default_on_a_small_disk_refuses_writes_before_postgres_runs_out_and_recovers()
{
    use crate::processes::{call, spawn_embedded};
    use reqwest::Method;
    let Some(disk) = SmallDisk::mount("embedded-disk", 160) else {
        return;
    };
    let data_dir = disk.path.join("data");
    let log = tmp_dir().join(format!(
        "embedded-disk-{}.log",
        uuid::Uuid::new_v4().simple()
    ));
    let (mut server, key) =
        spawn_embedded(data_dir.clone(), &[("STRS_MIN_FREE_DISK_MB", "48")], &log).await;
    let base = server.base_url();
    let client = reqwest::Client::new();
    let entries = format!("{base}/api/v1/space-time-entries");
    let entry = entity_entry("Small Disk Ltd", 53.48, -2.24, json!({}));
    let post = || call(&client, Method::POST, &entries, Some(&key), Some(&entry));
    assert_eq!(post().await.0, 201);

    // Below the floor: writes refused with 507 before PostgreSQL meets ENOSPC; reads go on.
    let filler = disk.fill_leaving(40 * MIB);
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let (status, body) = post().await;
    assert_eq!(status, 507, "{body}");
    assert_eq!(body["code"], "INSUFFICIENT_STORAGE");
    let (status, _) = call(&client, Method::GET, &entries, Some(&key), None).await;
    assert_eq!(status, 200);
    let (status, ready) = call(&client, Method::GET, &format!("{base}/ready"), None, None).await;
    assert_eq!(status, 200, "{ready}");
    assert!(
        ready["disk"]
            .as_str()
            .unwrap()
            .starts_with("below the floor"),
        "{ready}"
    );

    // Space back: writes resume within a second, no restart.
    std::fs::remove_file(&filler).unwrap();
    tokio::time::sleep(Duration::from_millis(1100)).await;
    assert_eq!(post().await.0, 201);

    // The worst case: the disk completely full when PostgreSQL dies (as after a PANIC on a WAL
    // write). Its restart may fail for want of space; once space is freed it comes back by
    // itself, without a restart of the server.
    let pid: i32 = std::fs::read_to_string(data_dir.join("postgres").join("postmaster.pid"))
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let filler = disk.fill_leaving(0);
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    tokio::time::sleep(Duration::from_secs(2)).await;
    let (status, body) = post().await;
    assert!(status == 503 || status == 507, "{status} {body}");
    std::fs::remove_file(&filler).unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let (status, body) = post().await;
        if status == 201 {
            break;
        }
        assert!(status == 503 || status == 507, "{status} {body}");
        assert!(
            std::time::Instant::now() < deadline,
            "no write accepted 30 s after space was freed; log:\n{}",
            std::fs::read_to_string(&log).unwrap_or_default()
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    let exit = server.stop().expect("the server stops on SIGTERM");
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(exit.success(), "{exit}: {text}");
    assert!(text.contains("below the floor"), "{text}");
    assert!(text.contains("back above the floor"), "{text}");
    let _ = std::fs::remove_file(&log);
}
