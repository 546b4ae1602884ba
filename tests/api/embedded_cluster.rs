//! The embedded default as an operator runs it: the real binary with no `DATABASE_URL`, its own
//! PostgreSQL in the data directory. The postmaster killed with SIGKILL (what the OOM killer
//! does) while clients post: nothing acknowledged is lost, no 500, the cluster is started again
//! by the server that owns it, without a restart. Commands stop the cluster they started and
//! leave alone one they found running.

use crate::harness::tmp_dir;
use crate::processes::{call, read_metrics, spawn_embedded};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use spacetime_records::db::cluster::{self, Durability, EmbeddedCluster};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn fresh_data_dir(name: &str) -> PathBuf {
    let dir = tmp_dir()
        .join("embedded")
        .join(format!("{name}-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn postmaster_pid(data_dir: &Path) -> Option<i32> {
    cluster::postmaster_pid(&data_dir.join("postgres"))
}

/// Stops a cluster left running by a failed test, and removes the directory.
struct Cleanup(PathBuf);

impl Drop for Cleanup {
    fn drop(&mut self) {
        if postmaster_pid(&self.0).is_some()
            && let Ok(cluster) =
                EmbeddedCluster::ensure_running(&self.0.join("postgres"), None, Durability::Full)
        {
            let _ = cluster.stop();
        }
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs a command of the binary on `data_dir` (embedded cluster); its status and output.
fn command(data_dir: &Path, args: &[&str]) -> (std::process::ExitStatus, String) {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_spacetime-records"))
        .args(args)
        .env_remove("DATABASE_URL")
        .env("STRS_DATA_DIR", data_dir)
        .env("STRS_JWT_SECRET", crate::harness::TEST_JWT_SECRET)
        .env("RUST_LOG", "info,sqlx=warn")
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status, text)
}

/// A post's status, `Retry-After` and body.
type Answer = (u16, Option<String>, Value);

#[tokio::test]
async fn the_embedded_postgres_killed_while_clients_post_is_restarted_and_loses_nothing() {
    let dir = fresh_data_dir("killed");
    let _cleanup = Cleanup(dir.clone());
    let log = dir.join("server.log");
    let (mut server, key) = spawn_embedded(dir.clone(), &[], &log).await;
    let base = server.base_url();
    let client = reqwest::Client::new();

    // Eight clients post until told to stop; every answer is kept.
    let answers: Arc<Mutex<Vec<Answer>>> = Arc::default();
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut clients = Vec::new();
    for c in 0..8 {
        let (client, base, key) = (client.clone(), base.clone(), key.clone());
        let (answers, stop) = (answers.clone(), stop.clone());
        clients.push(tokio::spawn(async move {
            let mut n = 0;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                n += 1;
                let entry = json!({"entry_type": "observation", "latitude": 53.48, "longitude": -2.24,
                    "idempotency_key": format!("kill-{c}-{n}"), "context": {"note": "seen"}});
                let response = client
                    .post(format!("{base}/api/v1/space-time-entries"))
                    .bearer_auth(&key)
                    .json(&entry)
                    .send()
                    .await
                    .expect("an answer, not a broken connection");
                let status = response.status().as_u16();
                let retry = response
                    .headers()
                    .get("retry-after")
                    .map(|v| v.to_str().unwrap().to_string());
                let body: Value = response.json().await.unwrap_or(Value::Null);
                answers.lock().unwrap().push((status, retry, body));
                if status != 201 {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
        }));
    }
    tokio::time::sleep(Duration::from_millis(700)).await;
    let killed = postmaster_pid(&dir).expect("the postmaster's pid");
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(killed),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    let killed_at = Instant::now();

    // Back without a restart of the server: a new postmaster, /ready 200, posts acknowledged.
    let deadline = killed_at + Duration::from_secs(20);
    loop {
        assert!(
            Instant::now() < deadline,
            "not recovered 20 s after the kill; log:\n{}",
            std::fs::read_to_string(&log).unwrap_or_default()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
        let restarted = postmaster_pid(&dir).is_some_and(|pid| pid != killed);
        let (ready, _) = call(&client, Method::GET, &format!("{base}/ready"), None, None).await;
        if restarted && ready == StatusCode::OK {
            break;
        }
    }
    let recovered_after = killed_at.elapsed();
    let posted_before = answers.lock().unwrap().len();
    tokio::time::sleep(Duration::from_millis(500)).await;
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    for client in clients {
        client.await.unwrap();
    }
    let answers = answers.lock().unwrap().clone();
    let refused = answers.iter().filter(|(s, ..)| *s == 503).count();
    for (status, retry, body) in &answers {
        assert!(
            *status == 201 || *status == 503,
            "only 201 and 503 (never 500): {status} {body}"
        );
        if *status == 503 {
            assert_eq!(retry.as_deref(), Some("5"), "{body}");
            assert_eq!(body["code"], "NOT_READY", "{body}");
        }
    }
    assert!(
        answers[posted_before..].iter().any(|(s, ..)| *s == 201),
        "posts are acknowledged again after the recovery"
    );
    // Every acknowledged entry is there.
    let acknowledged: Vec<&str> = answers
        .iter()
        .filter(|(s, ..)| *s == 201)
        .map(|(_, _, body)| body["id"].as_str().unwrap())
        .collect();
    assert!(
        acknowledged.len() > 10,
        "{} acknowledged",
        acknowledged.len()
    );
    for id in &acknowledged {
        let (status, body) = call(
            &client,
            Method::GET,
            &format!("{base}/api/v1/space-time-entries/{id}"),
            Some(&key),
            None,
        )
        .await;
        assert_eq!(status, StatusCode::OK, "acknowledged {id} lost: {body}");
    }
    let (_, ready) = call(&client, Method::GET, &format!("{base}/ready"), None, None).await;
    assert_eq!(
        ready["embedded_postgres"], "running, supervised by this process (1 restart(s))",
        "{ready}"
    );
    let metrics = read_metrics(&client, format!("{base}/metrics")).await;
    assert!(
        metrics.contains("strs_embedded_postgres_restarts_total 1"),
        "{metrics}"
    );
    assert!(metrics.contains("strs_embedded_postgres_up 1"), "{metrics}");

    // Shutdown stops the cluster this server owns, and exits 0.
    let exit = server.stop().expect("the server stops on SIGTERM");
    let log = std::fs::read_to_string(&log).unwrap();
    assert!(exit.success(), "{exit}; log:\n{log}");
    assert!(postmaster_pid(&dir).is_none(), "the cluster was stopped");
    assert!(log.contains("this process owns it"), "{log}");
    assert!(log.contains("exited unexpectedly"), "{log}");
    assert!(log.contains("running again"), "{log}");
    // One line per change of state, not one per refused request.
    let errors = log.lines().filter(|l| l.contains("ERROR")).count();
    assert!(
        errors <= 4,
        "{errors} ERROR lines for {refused} refused requests:\n{log}"
    );
    eprintln!(
        "recovered {recovered_after:?} after the kill; {} acknowledged, {refused} refused with 503",
        acknowledged.len()
    );
}

#[tokio::test]
async fn commands_stop_the_cluster_they_started_and_leave_one_they_found_running() {
    let dir = fresh_data_dir("lifecycle");
    let _cleanup = Cleanup(dir.clone());
    // `migrate` creates and starts the cluster, migrates, and stops it again.
    let (status, output) = command(&dir, &["migrate"]);
    assert!(status.success(), "{output}");
    assert!(output.contains("migrations applied"), "{output}");
    assert!(
        postmaster_pid(&dir).is_none(),
        "migrate left the cluster running: {output}"
    );

    // A cluster someone else started is used and left running, by `migrate` and by `serve`.
    let cluster =
        EmbeddedCluster::ensure_running(&dir.join("postgres"), None, Durability::Full).unwrap();
    assert!(cluster.started_here());
    let (status, output) = command(&dir, &["migrate"]);
    assert!(status.success(), "{output}");
    assert!(
        cluster.is_running(),
        "migrate stopped a cluster it did not start"
    );
    let log = dir.join("serve.log");
    let (mut server, _) = spawn_embedded(dir.clone(), &[], &log).await;
    let client = reqwest::Client::new();
    let (_, ready) = call(
        &client,
        Method::GET,
        &format!("{}/ready", server.base_url()),
        None,
        None,
    )
    .await;
    assert!(
        ready["embedded_postgres"]
            .as_str()
            .unwrap()
            .contains("started by another process"),
        "{ready}"
    );
    let exit = server.stop().expect("the server stops on SIGTERM");
    let log = std::fs::read_to_string(&log).unwrap();
    assert!(exit.success(), "{log}");
    assert!(log.contains("does not own it"), "{log}");
    assert!(
        cluster.is_running(),
        "serve stopped a cluster it did not start"
    );
    cluster.stop().unwrap();
    assert!(!cluster.is_running());
    // Stopping a cluster that is not running is not an error.
    cluster.stop().unwrap();
}

/// A transformer batch holds up to 1,300 advisory locks until it commits: the embedded cluster's
/// lock table holds 19 loops' batches (PostgreSQL's default, four), and one session can take a
/// batch's worth many times over (docs/operations.md, "The lock table").
#[tokio::test]
async fn the_embedded_cluster_has_room_for_many_loops_locks() {
    let dir = fresh_data_dir("locks");
    let _cleanup = Cleanup(dir.clone());
    let cluster =
        EmbeddedCluster::ensure_running(&dir.join("postgres"), None, Durability::Full).unwrap();
    let pool = spacetime_records::db::connect(&cluster.url("postgres"), 1)
        .await
        .unwrap();
    let per_transaction: String = sqlx::query_scalar("SHOW max_locks_per_transaction")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(
        per_transaction,
        cluster::MAX_LOCKS_PER_TRANSACTION.to_string()
    );
    let slots = spacetime_records::db::lock_table_slots(&pool)
        .await
        .unwrap();
    let batch = spacetime_records::services::transformer::MAX_LOCKS_PER_BATCH as i64;
    assert!(slots >= 19 * batch, "{slots} lock slots");
    let mut tx = pool.begin().await.unwrap();
    let taken: i64 = sqlx::query_scalar(
        "SELECT count(*) FILTER (WHERE pg_try_advisory_xact_lock(i)) FROM generate_series(1, $1) AS i",
    )
    .bind(19 * batch)
    .fetch_one(&mut *tx)
    .await
    .unwrap();
    assert_eq!(taken, 19 * batch);
    tx.rollback().await.unwrap();
    pool.close().await;
    cluster.stop().unwrap();
}
