//! Several server processes over one primary and a streaming replica (`processes::Topology`):
//! work shared exactly once, idempotency and the ledger across processes, revocation seen by
//! every process at once, reads routed to the replica with read-your-writes, a lagging or dead
//! replica taken out of rotation, and what operators scrape.

use crate::harness::{east, entity_entry};
use crate::processes::{Topology, call, read_metrics, spawn_with_log};
use crate::subscriptions::Subscriber;
use futures::future::join_all;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use std::time::{Duration, Instant};
use uuid::Uuid;

const SETTLE: Duration = Duration::from_secs(60);

async fn register(client: &reqwest::Client, base: &str, name: &str) -> (Uuid, String) {
    let (status, body) = call(
        client,
        Method::POST,
        &format!("{base}/api/v1/agents/register"),
        None,
        Some(&json!({"agent_type": "api_agent", "display_name": name})),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    (
        body["agent"]["id"].as_str().unwrap().parse().unwrap(),
        body["api_key"].as_str().unwrap().to_string(),
    )
}

/// Polls `probe` until it answers true or `SETTLE` passes.
async fn eventually<F: AsyncFn() -> bool>(what: &str, probe: F) {
    let deadline = Instant::now() + SETTLE;
    while !probe().await {
        assert!(Instant::now() < deadline, "never happened: {what}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Waits until the replica has replayed everything the primary has written so far.
async fn replica_caught_up(topology: &Topology) {
    let target: String = sqlx::query_scalar("SELECT pg_current_wal_insert_lsn()::text")
        .fetch_one(&topology.primary_pool)
        .await
        .unwrap();
    // The test cluster commits asynchronously: one synchronous commit flushes (and so lets the
    // replica receive) everything inserted before it.
    let mut flush = topology.primary_pool.begin().await.unwrap();
    sqlx::query("SET LOCAL synchronous_commit = on")
        .execute(&mut *flush)
        .await
        .unwrap();
    sqlx::query("SELECT pg_current_xact_id()")
        .execute(&mut *flush)
        .await
        .unwrap();
    flush.commit().await.unwrap();
    let replica = spacetime_records::db::connect(&topology.replica.url, 1)
        .await
        .unwrap();
    eventually("the replica replays the primary's writes", async || {
        sqlx::query_scalar::<_, bool>("SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn")
            .bind(&target)
            .fetch_one(&replica)
            .await
            .unwrap()
    })
    .await;
    replica.close().await;
}

async fn ready_report(client: &reqwest::Client, topology: &Topology, server: usize) -> Value {
    let (status, body) = call(
        client,
        Method::GET,
        &topology.url(server, "/ready"),
        None,
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body
}

fn replica_state(report: &Value) -> String {
    report
        .as_object()
        .unwrap()
        .iter()
        .find(|(k, _)| k.starts_with("replica "))
        .map(|(_, v)| v.as_str().unwrap().to_string())
        .unwrap_or_else(|| panic!("no replica in {report}"))
}

fn entry_ids(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn three_processes_share_the_transformer_and_decide_every_entry_exactly_once() {
    let topology = Topology::start(3, &[("STRS_TRANSFORMER_LOOPS", "2")]).await;
    let client = reqwest::Client::new();
    let mut keys = Vec::new();
    for (i, name) in ["North", "South", "East"].iter().enumerate() {
        keys.push(
            register(&client, &topology.servers[i].base_url(), name)
                .await
                .1,
        );
    }
    // 40 businesses in cells a degree apart, each seen by all three agents, every sighting
    // posted through another process, all at once.
    let posts = (0..40).flat_map(|business| {
        let (lat, lng) = east(45.0 + f64::from(business % 8), f64::from(business / 8), 0.0);
        let keys = &keys;
        let topology = &topology;
        let client = &client;
        (0..3).map(move |sighting: usize| async move {
            let body = entity_entry(
                &format!("Workshop Number {business}"),
                lat,
                lng,
                json!({"website_url": format!("https://workshop-{business}.example")}),
            );
            let server = (business as usize + sighting) % 3;
            call(
                client,
                Method::POST,
                &topology.url(server, "/api/v1/space-time-entries"),
                Some(&keys[sighting]),
                Some(&body),
            )
            .await
        })
    });
    for (status, body) in join_all(posts).await {
        assert_eq!(status, StatusCode::CREATED, "{body}");
    }
    eventually("every entry decided", async || {
        topology
            .count("SELECT count(*) FROM space_time_entries WHERE status = 'pending'")
            .await
            == 0
    })
    .await;
    assert_eq!(
        topology
            .count("SELECT count(*) FROM space_time_entries WHERE status = 'processed'")
            .await,
        120
    );
    // Exactly once: one contribution per entry, one entity per business.
    assert_eq!(
        topology
            .count(
                "SELECT count(*) FROM space_time_entries e WHERE (SELECT count(*) FROM \
                 canonical_link_contributions c WHERE c.source_space_time_entry_id = e.id) <> 1"
            )
            .await,
        0
    );
    assert_eq!(
        topology
            .count("SELECT count(*) FROM canonical.entities")
            .await,
        40
    );
    // Each process says how many it decided; together, every entry once.
    let mut decided = Vec::new();
    for server in 0..3 {
        let metrics = read_metrics(&client, topology.url(server, "/metrics")).await;
        decided.push(counter(
            &metrics,
            "strs_transformer_entries_processed_total",
        ));
    }
    assert_eq!(decided.iter().sum::<f64>(), 120.0, "{decided:?}");
    assert!(
        decided.iter().filter(|n| **n > 0.0).count() >= 2,
        "the work was not shared: {decided:?}"
    );
}

/// The value of an unlabelled counter in a Prometheus exposition (0 when absent).
fn counter(exposition: &str, name: &str) -> f64 {
    exposition
        .lines()
        .find_map(|line| line.strip_prefix(name)?.strip_prefix(' '))
        .map_or(0.0, |value| value.trim().parse().unwrap())
}

#[tokio::test]
async fn twenty_identical_posts_spread_over_three_processes_store_one_entry() {
    let topology = Topology::start(3, &[]).await;
    let client = reqwest::Client::new();
    let (_, key) = register(&client, &topology.servers[0].base_url(), "Repeater").await;
    let mut body = entity_entry("Twenty Times Bakery", 51.5, -0.12, json!({}));
    body["idempotency_key"] = json!("web_page:twenty-times:entity::twenty times bakery");
    let answers = join_all((0..20).map(|i| {
        let url = topology.url(i % 3, "/api/v1/space-time-entries");
        let (client, key, body) = (&client, &key, &body);
        async move { call(client, Method::POST, &url, Some(key), Some(body)).await }
    }))
    .await;
    let created = answers
        .iter()
        .filter(|(s, _)| *s == StatusCode::CREATED)
        .count();
    let conflicts = answers
        .iter()
        .filter(|(s, _)| *s == StatusCode::CONFLICT)
        .count();
    assert_eq!((created, conflicts), (1, 19), "{answers:?}");
    assert_eq!(
        topology
            .count("SELECT count(*) FROM space_time_entries")
            .await,
        1
    );
}

#[tokio::test]
async fn certificates_written_through_three_processes_at_once_form_one_unbroken_chain() {
    use spacetime_records::domain::ledger::{self, GENESIS_HASH};
    let topology = Topology::start(3, &[]).await;
    let client = reqwest::Client::new();
    let (_, key) = register(&client, &topology.servers[0].base_url(), "Signer").await;
    let (status, term) = call(
        &client,
        Method::POST,
        &topology.url(1, "/api/v1/transaction-terms"),
        Some(&key),
        Some(&json!({"title": "Deposit terms", "terms_text": "A deposit of 250 GBP."})),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{term}");
    let (status, signature) = call(
        &client,
        Method::POST,
        &topology.url(2, "/api/v1/transaction-terms-signatures"),
        Some(&key),
        Some(&json!({"transaction_term_id": term["id"], "signature": "sig"})),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{signature}");
    let answers = join_all((0..30).map(|i| {
        let url = topology.url(i % 3, "/api/v1/committed-trust-certificates");
        let body = json!({"transaction_terms_signature_id": signature["id"],
                          "currency_code": "GBP", "value_amount": format!("{}.00", i + 1)});
        let (client, key) = (&client, &key);
        async move { call(client, Method::POST, &url, Some(key), Some(&body)).await }
    }))
    .await;
    for (status, body) in &answers {
        assert_eq!(*status, StatusCode::CREATED, "{body}");
    }
    replica_caught_up(&topology).await;
    // Verified as any client would, from the public API of one process.
    let (_, head) = call(
        &client,
        Method::GET,
        &topology.url(1, "/api/v1/committed-trust-certificates/ledger/head"),
        None,
        None,
    )
    .await;
    assert_eq!(head["ledger_seq"], 30, "{head}");
    let (_, all) = call(
        &client,
        Method::GET,
        &topology.url(1, "/api/v1/committed-trust-certificates?limit=500"),
        None,
        None,
    )
    .await;
    let first = all
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["ledger_seq"] == 1)
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let (status, proof) = call(
        &client,
        Method::GET,
        &topology.url(
            2,
            &format!("/api/v1/committed-trust-certificates/{first}/proof?limit=100"),
        ),
        None,
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{proof}");
    assert_eq!(proof["reaches_head"], true);
    let chain = proof["chain"].as_array().unwrap();
    assert_eq!(chain.len(), 30);
    assert_eq!(ledger::verify_chain(GENESIS_HASH, chain), Ok(()));
    assert_eq!(chain.last().unwrap()["entry_hash"], head["entry_hash"]);
}

#[tokio::test]
async fn a_change_made_through_one_process_reaches_a_subscriber_on_another() {
    let topology = Topology::start(2, &[]).await;
    let client = reqwest::Client::new();
    let (_, key) = register(&client, &topology.servers[0].base_url(), "Watcher").await;
    let base = topology.servers[0].base_url();
    let mut feed = Subscriber::connect(
        base.trim_start_matches("http://"),
        json!({"Authorization": format!("Bearer {key}")}),
    )
    .await
    .unwrap();
    let processed = feed
        .subscribe("subscription { entryProcessed { id status } }", json!({}))
        .await;
    // The first process opens its LISTEN connection with the first subscription: post through
    // the second until an event arrives, then check it is one of ours.
    let mut posted = Vec::new();
    let mut aside = Vec::new();
    let event = loop {
        let (lat, lng) = east(48.85, 2.35, 100.0 * posted.len() as f64);
        let (status, entry) = call(
            &client,
            Method::POST,
            &topology.url(1, "/api/v1/space-time-entries"),
            Some(&key),
            Some(&entity_entry(
                &format!("Atelier {}", posted.len()),
                lat,
                lng,
                json!({}),
            )),
        )
        .await;
        assert_eq!(status, StatusCode::CREATED, "{entry}");
        posted.push(entry["id"].clone());
        let wait =
            tokio::time::timeout(Duration::from_secs(3), feed.next_of(&processed, &mut aside));
        if let Ok(event) = wait.await {
            break event;
        }
        assert!(posted.len() < 10, "no event reached the subscriber");
    };
    let entry = &event["payload"]["data"]["entryProcessed"];
    assert!(posted.contains(&entry["id"]), "{event}");
    assert_eq!(entry["status"], "PROCESSED");
}

#[tokio::test]
async fn a_key_revoked_through_one_process_is_refused_by_every_process_even_while_the_replica_lags()
{
    let topology = Topology::start(3, &[("STRS_REPLICA_MAX_LAG_MS", "600000")]).await;
    let client = reqwest::Client::new();
    let (_, key) = register(&client, &topology.servers[0].base_url(), "Rotator").await;
    let (status, second) = call(
        &client,
        Method::POST,
        &topology.url(0, "/api/v1/agents/me/api-keys"),
        Some(&key),
        Some(&json!({})),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{second}");
    let second_key = second["api_key"].as_str().unwrap().to_string();
    let second_id = second["key"]["id"].as_str().unwrap().to_string();
    replica_caught_up(&topology).await;
    for server in 0..3 {
        let (status, _) = call(
            &client,
            Method::GET,
            &topology.url(server, "/api/v1/agents/me"),
            Some(&second_key),
            None,
        )
        .await;
        assert_eq!(status, StatusCode::OK);
    }
    topology.replica.pause_replay().await;
    let (status, _) = call(
        &client,
        Method::DELETE,
        &topology.url(1, &format!("/api/v1/agents/me/api-keys/{second_id}")),
        Some(&key),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    // The replica still holds the key as active; no process takes its word for it.
    let replica = spacetime_records::db::connect(&topology.replica.url, 1)
        .await
        .unwrap();
    let on_replica: String = sqlx::query_scalar("SELECT status FROM agent_api_keys WHERE id = $1")
        .bind(second_id.parse::<Uuid>().unwrap())
        .fetch_one(&replica)
        .await
        .unwrap();
    replica.close().await;
    assert_eq!(on_replica, "active");
    for server in 0..3 {
        for path in ["/api/v1/agents/me", "/api/v1/space-time-entries?limit=1"] {
            let (status, body) = call(
                &client,
                Method::GET,
                &topology.url(server, path),
                Some(&second_key),
                None,
            )
            .await;
            assert_eq!(
                status,
                StatusCode::UNAUTHORIZED,
                "process {server} {path}: {body}"
            );
        }
    }
    topology.replica.resume_replay().await;
}

#[tokio::test]
async fn lag_tolerant_reads_go_to_the_replica_while_a_writer_reads_its_own_writes() {
    let topology = Topology::start(3, &[("STRS_REPLICA_MAX_LAG_MS", "600000")]).await;
    let client = reqwest::Client::new();
    let (_, key) = register(&client, &topology.servers[0].base_url(), "Writer").await;
    replica_caught_up(&topology).await;
    topology.replica.pause_replay().await;
    let (status, entry) = call(
        &client,
        Method::POST,
        &topology.url(0, "/api/v1/space-time-entries"),
        Some(&key),
        Some(&entity_entry("Lagging Lane Books", 52.2, 0.12, json!({}))),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{entry}");
    let id = entry["id"].as_str().unwrap().to_string();
    let list = "/api/v1/space-time-entries?limit=500";
    // Anyone else's list comes from the replica, which has not replayed the post.
    let (_, public) = call(&client, Method::GET, &topology.url(1, list), None, None).await;
    assert!(
        !entry_ids(&public).contains(&id),
        "the list did not come from the replica"
    );
    // The writer's own reads, on any process, come from the primary for a while.
    for server in 0..3 {
        let (status, own) = call(
            &client,
            Method::GET,
            &topology.url(server, list),
            Some(&key),
            None,
        )
        .await;
        assert_eq!(status, StatusCode::OK);
        assert!(
            entry_ids(&own).contains(&id),
            "process {server} did not read the writer's write"
        );
    }
    // A read by id that misses on the replica asks the primary before answering 404.
    let (status, fetched) = call(
        &client,
        Method::GET,
        &topology.url(2, &format!("/api/v1/space-time-entries/{id}")),
        None,
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{fetched}");
    topology.replica.resume_replay().await;
    eventually("the replica catches up and shows the entry", async || {
        let (_, public) = call(&client, Method::GET, &topology.url(1, list), None, None).await;
        entry_ids(&public).contains(&id)
    })
    .await;
}

#[tokio::test]
async fn a_lagging_or_stopped_replica_leaves_the_rotation_and_ready_reports_it() {
    let mut topology = Topology::start(2, &[("STRS_REPLICA_MAX_LAG_MS", "1000")]).await;
    let client = reqwest::Client::new();
    let (_, key) = register(&client, &topology.servers[0].base_url(), "Prober").await;
    assert_eq!(
        replica_state(&ready_report(&client, &topology, 1).await),
        "ok"
    );
    topology.replica.pause_replay().await;
    let (status, entry) = call(
        &client,
        Method::POST,
        &topology.url(0, "/api/v1/space-time-entries"),
        Some(&key),
        Some(&entity_entry("Stale Street Deli", 40.7, -74.0, json!({}))),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{entry}");
    let id = entry["id"].as_str().unwrap().to_string();
    eventually("the lagging replica leaves the rotation", async || {
        replica_state(&ready_report(&client, &topology, 1).await).starts_with("lagging")
    })
    .await;
    // Out of rotation, lag-tolerant reads go to the primary and see the new entry.
    let (_, public) = call(
        &client,
        Method::GET,
        &topology.url(1, "/api/v1/space-time-entries?limit=500"),
        None,
        None,
    )
    .await;
    assert!(entry_ids(&public).contains(&id));
    let metrics = read_metrics(&client, topology.url(1, "/metrics")).await;
    assert!(
        metrics
            .lines()
            .any(|l| l.starts_with("strs_db_replica_in_rotation{") && l.ends_with(" 0")),
        "{metrics}"
    );
    topology.replica.resume_replay().await;
    eventually("the replica returns to the rotation", async || {
        let state = replica_state(&ready_report(&client, &topology, 1).await);
        state == "ok"
    })
    .await;
    topology.replica.cluster.stop().unwrap();
    // Until its next check, a process may still send a read to the stopped replica (503 with
    // Retry-After); each takes it out within STRS_REPLICA_CHECK_MS.
    for server in 0..2 {
        eventually("a stopped replica is reported unreachable", async || {
            replica_state(&ready_report(&client, &topology, server).await) == "unreachable"
        })
        .await;
    }
    for server in 0..2 {
        let (status, body) = call(
            &client,
            Method::GET,
            &topology.url(server, "/api/v1/space-time-entries?limit=5"),
            None,
            None,
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{body}");
    }
    // The replica is gone for good: stop its servers before the replica's drop runs.
    topology.servers.clear();
}

#[tokio::test]
async fn metrics_count_requests_by_route_and_report_pools_replica_lag_and_backlog() {
    let topology = Topology::start(1, &[]).await;
    let client = reqwest::Client::new();
    let (_, key) = register(&client, &topology.servers[0].base_url(), "Counted").await;
    for i in 0..3 {
        let (status, _) = call(
            &client,
            Method::POST,
            &topology.url(0, "/api/v1/space-time-entries"),
            Some(&key),
            Some(&entity_entry(
                &format!("Counted Shop {i}"),
                41.9,
                12.5 + f64::from(i) * 0.01,
                json!({}),
            )),
        )
        .await;
        assert_eq!(status, StatusCode::CREATED);
    }
    let (status, _) = call(
        &client,
        Method::GET,
        &topology.url(0, &format!("/api/v1/entities/{}", Uuid::nil())),
        None,
        None,
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let response = client
        .get(topology.url(0, "/metrics"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/plain")
    );
    let metrics = response.text().await.unwrap();
    let has = |prefix: &str| metrics.lines().any(|l| l.starts_with(prefix));
    // Routes by template, never by concrete path (one series per route, not per id).
    assert!(
        metrics
            .lines()
            .any(|l| l.starts_with("strs_http_requests_total{")
                && l.contains("method=\"POST\"")
                && l.contains("route=\"/api/v1/space-time-entries\"")
                && l.contains("status=\"201\"")
                && l.ends_with(" 3")),
        "{metrics}"
    );
    assert!(
        has("strs_http_requests_total{")
            && metrics.contains("route=\"/api/v1/entities/{entity_id}\""),
        "{metrics}"
    );
    assert!(!metrics.contains(&Uuid::nil().to_string()));
    assert!(has("strs_http_request_duration_seconds_bucket{"));
    assert!(has("strs_db_pool_connections{pool=\"primary\""));
    assert!(has("strs_db_pool_max_connections{pool=\"replica_lean\""));
    assert!(has("strs_db_replica_lag_seconds{server=\""));
    assert!(has("strs_db_replica_in_rotation{server=\""));
    assert!(has("strs_transformer_backlog_entries "));
    assert!(
        !metrics.contains("postgres://"),
        "no URL (nor credentials) in metrics"
    );
}

#[tokio::test]
async fn json_logs_are_one_object_per_line() {
    let topology = Topology::start(0, &[]).await;
    let log = topology.database.data_dir.join("json.log");
    std::fs::create_dir_all(&topology.database.data_dir).unwrap();
    let server = spawn_with_log(
        &topology.database.url,
        std::slice::from_ref(&topology.replica.url),
        topology.database.data_dir.clone(),
        &[("STRS_LOG_JSON", "true"), ("RUST_LOG", "info")],
        Some(&log),
    )
    .await;
    drop(server);
    let text = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    assert!(!lines.is_empty());
    for line in &lines {
        let value: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        assert!(
            value["level"].is_string() && value["timestamp"].is_string(),
            "{line}"
        );
    }
    assert!(lines.iter().any(|l| l.contains("\"listening\"")), "{text}");
}
