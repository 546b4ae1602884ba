//! GraphQL subscriptions over WebSocket (graphql-transport-ws), end to end: a second server
//! process (the real binary) shares the test's database; changes made through one process reach
//! subscribers on the other, through PostgreSQL's LISTEN/NOTIFY.

use crate::harness::{TestApp, east, entity_entry};
use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use spacetime_records::app;
use spacetime_records::topology::ServerProcess;
use std::time::Duration;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message as WsMessage;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

const WAIT: Duration = Duration::from_secs(20);

/// The service binary serving the test's database on a loopback port, with its own transformer.
async fn spawn_server(app: &TestApp) -> ServerProcess {
    let data_dir = crate::harness::tmp_dir().join(format!("process-{}", uuid::Uuid::new_v4()));
    crate::processes::spawn(app.database_url(), &[], data_dir, &[]).await
}

/// The test app's router on a loopback port (the "first process").
async fn serve_in_test(app: &TestApp) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(app::serve_connections(
        listener,
        app.router.clone(),
        Duration::from_secs(10),
        std::future::pending(),
    ));
    address.to_string()
}

pub(crate) struct Subscriber {
    socket: WebSocketStream<MaybeTlsStream<TcpStream>>,
    next_id: u32,
}

/// The upgrade request of a `graphql-transport-ws` client.
fn upgrade_request(base: &str) -> tokio_tungstenite::tungstenite::handshake::client::Request {
    let mut request = format!("ws://{base}/graphql")
        .into_client_request()
        .unwrap();
    request.headers_mut().insert(
        "Sec-WebSocket-Protocol",
        "graphql-transport-ws".parse().unwrap(),
    );
    request
}

impl Subscriber {
    pub(crate) async fn connect(base: &str, init: Value) -> Result<Subscriber, String> {
        let (mut socket, response) = tokio_tungstenite::connect_async(upgrade_request(base))
            .await
            .map_err(|e| e.to_string())?;
        assert_eq!(
            response.headers()["sec-websocket-protocol"],
            "graphql-transport-ws"
        );
        socket
            .send(WsMessage::text(
                json!({"type": "connection_init", "payload": init}).to_string(),
            ))
            .await
            .unwrap();
        let mut subscriber = Subscriber { socket, next_id: 0 };
        match subscriber.receive().await {
            Ok(ack) if ack["type"] == "connection_ack" => Ok(subscriber),
            Ok(other) => Err(other.to_string()),
            Err(closed) => Err(closed),
        }
    }

    /// Starts a subscription; returns its id.
    pub(crate) async fn subscribe(&mut self, query: &str, variables: Value) -> String {
        self.next_id += 1;
        let id = self.next_id.to_string();
        self.socket
            .send(WsMessage::text(
                json!({"id": id, "type": "subscribe",
                       "payload": {"query": query, "variables": variables}})
                .to_string(),
            ))
            .await
            .unwrap();
        id
    }

    /// The next protocol message (pings answered), or the close frame's code and reason.
    pub(crate) async fn receive(&mut self) -> Result<Value, String> {
        loop {
            let message = tokio::time::timeout(WAIT, self.socket.next())
                .await
                .expect("a message within the wait")
                .ok_or("the connection ended")?
                .map_err(|e| e.to_string())?;
            match message {
                WsMessage::Text(text) => {
                    let value: Value = serde_json::from_str(&text).unwrap();
                    if value["type"] == "ping" {
                        self.socket
                            .send(WsMessage::text(json!({"type": "pong"}).to_string()))
                            .await
                            .unwrap();
                        continue;
                    }
                    return Ok(value);
                }
                WsMessage::Close(frame) => {
                    return Err(frame.map_or("closed".into(), |f| {
                        format!("{} {}", u16::from(f.code), f.reason)
                    }));
                }
                _ => continue,
            }
        }
    }

    /// The next message of subscription `id`; messages of other subscriptions are kept aside.
    pub(crate) async fn next_of(&mut self, id: &str, aside: &mut Vec<Value>) -> Value {
        if let Some(position) = aside.iter().position(|m| m["id"] == id) {
            return aside.remove(position);
        }
        loop {
            let message = self.receive().await.expect("an open connection");
            if message["id"] == id {
                return message;
            }
            aside.push(message);
        }
    }
}

/// Waits until the process behind `subscriber` hears the database: touches a record until a
/// subscription on it (started after the ones under test) sees the change.
async fn wait_until_listening(subscriber: &mut Subscriber, app: &TestApp, canary: &str) {
    let id = subscriber
        .subscribe(
            "subscription($id: UUID!) { canonicalRecordChanged(id: $id) { id } }",
            json!({"id": canary}),
        )
        .await;
    for _ in 0..100 {
        sqlx::query("UPDATE canonical.entities SET updated_at_tstamp_utc = now() WHERE id = $1")
            .bind(canary.parse::<uuid::Uuid>().unwrap())
            .execute(app.pool())
            .await
            .unwrap();
        if let Ok(Some(Ok(WsMessage::Text(text)))) =
            tokio::time::timeout(Duration::from_millis(200), subscriber.socket.next()).await
        {
            let message: Value = serde_json::from_str(&text).unwrap();
            if message["id"] != id.as_str() {
                continue; // a subscription under test that also follows the canary
            }
            assert_eq!(
                message["payload"]["data"]["canonicalRecordChanged"]["id"],
                canary
            );
            subscriber
                .socket
                .send(WsMessage::text(
                    json!({"id": id, "type": "complete"}).to_string(),
                ))
                .await
                .unwrap();
            return;
        }
    }
    panic!("the subscription never heard a change");
}

fn data<'a>(message: &'a Value, field: &str) -> &'a Value {
    assert_eq!(message["type"], "next", "{message}");
    assert!(message["payload"]["errors"].is_null(), "{message}");
    &message["payload"]["data"][field]
}

#[tokio::test]
async fn changes_made_through_one_process_reach_subscribers_on_another() {
    let app = TestApp::new().await;
    let admin = app.admin_key().await;
    let (me, key) = app.register("Live Publisher").await;
    let (other, other_key) = app.register("Other Publisher").await;
    let canary = app
        .publish(
            &key,
            &admin,
            entity_entry("Canary Works", 53.40, -2.30, json!({})),
        )
        .await["canonical_id"]
        .as_str()
        .unwrap()
        .to_string();

    // The second process runs the transformer; this test's router only takes the posts.
    let second = spawn_server(&app).await;
    let mut feed = Subscriber::connect(
        &second.base_url()["http://".len()..],
        json!({"Authorization": format!("Bearer {key}")}),
    )
    .await
    .expect("an authenticated connection");
    let processed = feed
        .subscribe(
            "subscription { entryProcessed { id status agent { id } canonical { ... on Entity { displayName } } } }",
            json!({}),
        )
        .await;
    let near = feed
        .subscribe(
            "subscription($lat: Float!, $lng: Float!) { recordsNear(latitude: $lat, longitude: $lng, radiusMeters: 1000) { table id distanceMeters record { ... on Entity { displayName } } } }",
            json!({"lat": 53.4808, "lng": -2.2426}),
        )
        .await;
    let inbox = feed
        .subscribe(
            "subscription { messageReceived { messageContent sender { id } } }",
            json!({}),
        )
        .await;
    wait_until_listening(&mut feed, &app, &canary).await;
    let mut aside = Vec::new();

    // Another agent's entry and a record 5 km away come first: neither is in these feeds.
    let (far_lat, far_lng) = east(53.4808, -2.2426, 5_000.0);
    let theirs = app
        .post_entry(
            &other_key,
            entity_entry("Elsewhere Bakery", far_lat, far_lng, json!({})),
        )
        .await;
    assert_eq!(theirs.status, 201, "{}", theirs.text);
    let far = app
        .post_entry(
            &key,
            entity_entry("Far Joinery", far_lat, far_lng + 0.001, json!({})),
        )
        .await;
    let event = feed.next_of(&processed, &mut aside).await;
    let entry = data(&event, "entryProcessed");
    assert_eq!(entry["id"], far.body["id"], "{event}");
    assert_eq!(entry["status"], "PROCESSED");
    assert_eq!(entry["agent"]["id"], me.to_string());
    assert_eq!(entry["canonical"]["displayName"], "Far Joinery");

    let (lat, lng) = east(53.4808, -2.2426, 300.0);
    let close = app
        .post_entry(&key, entity_entry("Close Plumbing", lat, lng, json!({})))
        .await;
    let event = feed.next_of(&processed, &mut aside).await;
    assert_eq!(data(&event, "entryProcessed")["id"], close.body["id"]);
    let event = feed.next_of(&near, &mut aside).await;
    let change = data(&event, "recordsNear");
    assert_eq!(change["table"], "ENTITIES", "{event}");
    assert_eq!(change["record"]["displayName"], "Close Plumbing");
    let distance = change["distanceMeters"].as_f64().unwrap();
    assert!((distance - 300.0).abs() < 1.0, "{distance}");

    // A message between others is not delivered; one to this agent is.
    let (third, _) = app.register("Bystander").await;
    let elsewhere = app
        .post_as(
            "/api/v1/messages",
            json!({"recipient_agent_id": third, "message_content": "not for you"}),
            &other_key,
        )
        .await;
    assert_eq!(elsewhere.status, 201, "{}", elsewhere.text);
    let sent = app
        .post_as(
            "/api/v1/messages",
            json!({"recipient_agent_id": me, "message_content": "is the plumber open?"}),
            &other_key,
        )
        .await;
    assert_eq!(sent.status, 201, "{}", sent.text);
    let event = feed.next_of(&inbox, &mut aside).await;
    let message = data(&event, "messageReceived");
    assert_eq!(message["messageContent"], "is the plumber open?");
    assert_eq!(message["sender"]["id"], other.to_string());
    assert!(aside.iter().all(|m| m["id"] != inbox.as_str()), "{aside:?}");

    // The other way round: a subscriber on this test's router hears a change made through the
    // second process.
    let first = serve_in_test(&app).await;
    let mut watcher = Subscriber::connect(&first, json!({})).await.unwrap();
    let changed = watcher
        .subscribe(
            "subscription { canonicalRecordChanged(table: ENTITIES) { table id record { ... on Entity { displayName } } } }",
            json!({}),
        )
        .await;
    wait_until_listening(&mut watcher, &app, &canary).await;
    let posted = reqwest::Client::new()
        .post(format!("{}/api/v1/space-time-entries", second.base_url()))
        .bearer_auth(&key)
        .json(&entity_entry(
            "Second Process Cafe",
            53.45,
            -2.25,
            json!({}),
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(posted.status(), 201);
    let mut aside = Vec::new();
    loop {
        let event = watcher.next_of(&changed, &mut aside).await;
        let change = data(&event, "canonicalRecordChanged");
        if change["id"] == canary.as_str() {
            continue;
        }
        assert_eq!(
            change["record"]["displayName"], "Second Process Cafe",
            "{event}"
        );
        break;
    }
}

#[tokio::test]
async fn subscriptions_check_credentials_arguments_and_their_number() {
    let app = TestApp::new().await;
    let (_, key) = app.register("Subscriber").await;
    let base = serve_in_test(&app).await;

    let refused = Subscriber::connect(&base, json!({"Authorization": "Bearer not-a-key"})).await;
    let Err(closed) = refused else {
        panic!("a bad credential must close the connection");
    };
    assert!(closed.starts_with("4403"), "{closed}");

    let mut anonymous = Subscriber::connect(&base, json!({})).await.unwrap();
    let own = anonymous
        .subscribe("subscription { entryProcessed { id } }", json!({}))
        .await;
    let mut aside = Vec::new();
    let refusal = anonymous.next_of(&own, &mut aside).await;
    assert_eq!(
        refusal["payload"]["errors"][0]["extensions"]["code"], "UNAUTHENTICATED",
        "{refusal}"
    );
    let fence = anonymous
        .subscribe(
            "subscription { recordsNear(latitude: 95, longitude: 0, radiusMeters: 0) { id } }",
            json!({}),
        )
        .await;
    let refusal = anonymous.next_of(&fence, &mut aside).await;
    let error = &refusal["payload"]["errors"][0];
    assert_eq!(error["extensions"]["code"], "VALIDATION_ERROR", "{refusal}");
    assert_eq!(
        error["extensions"]["detail"].as_array().map(Vec::len),
        Some(2),
        "{refusal}"
    );

    let mut member = Subscriber::connect(&base, json!({"authorization": format!("Bearer {key}")}))
        .await
        .unwrap();
    let mut ids = Vec::new();
    for _ in 0..21 {
        ids.push(
            member
                .subscribe("subscription { entryProcessed { id } }", json!({}))
                .await,
        );
    }
    // Twenty run (and send nothing yet); one is refused (which one depends on the order the
    // server starts them in).
    let refusal = member.receive().await.unwrap();
    assert!(ids.contains(&refusal["id"].as_str().unwrap().to_string()));
    assert_eq!(
        refusal["payload"]["errors"][0]["extensions"]["code"], "FORBIDDEN",
        "{refusal}"
    );
    let completed = member.receive().await.unwrap();
    assert_eq!(completed, json!({"type": "complete", "id": refusal["id"]}));
    let more = tokio::time::timeout(Duration::from_millis(500), member.socket.next()).await;
    assert!(more.is_err(), "only one refusal: {more:?}");

    // A plain GET with the upgrade header but no GraphQL subprotocol is refused with a 4xx.
    let mut request = format!("ws://{base}/graphql")
        .into_client_request()
        .unwrap();
    request
        .headers_mut()
        .insert("Sec-WebSocket-Protocol", "chat".parse().unwrap());
    let refused = tokio_tungstenite::connect_async(request).await;
    assert!(
        matches!(&refused, Err(tokio_tungstenite::tungstenite::Error::Http(r)) if r.status() == 422),
        "{refused:?}"
    );
}

#[tokio::test]
async fn open_websockets_are_capped_per_process_and_a_closed_one_frees_its_place() {
    let app = TestApp::with_config(|config| config.max_websockets = 2).await;
    let base = serve_in_test(&app).await;
    let first = Subscriber::connect(&base, json!({})).await.unwrap();
    let _second = Subscriber::connect(&base, json!({})).await.unwrap();

    let refused = tokio_tungstenite::connect_async(upgrade_request(&base)).await;
    let Err(tokio_tungstenite::tungstenite::Error::Http(answer)) = &refused else {
        panic!("a third WebSocket must be refused: {refused:?}");
    };
    assert_eq!(answer.status(), 503);
    assert!(answer.headers().contains_key("retry-after"));
    let body: Value = serde_json::from_slice(answer.body().as_deref().unwrap_or_default()).unwrap();
    assert_eq!(body["code"], "NOT_READY", "{body}");
    // Plain requests are not counted against WebSockets.
    assert_eq!(
        app.get("/api/v1/agents").await.status,
        axum::http::StatusCode::OK
    );

    // Closing one frees its place (the server sees the close a moment later).
    let mut socket = first.socket;
    socket.close(None).await.unwrap();
    drop(socket);
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        match Subscriber::connect(&base, json!({})).await {
            Ok(_) => break,
            Err(refusal) if tokio::time::Instant::now() < deadline => {
                assert!(refusal.contains("503"), "{refusal}");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Err(refusal) => panic!("the closed WebSocket's place was never freed: {refusal}"),
        }
    }
}

#[tokio::test]
async fn a_revoked_key_loses_its_open_subscriptions_and_a_valid_one_keeps_them() {
    let app = TestApp::with_config(|config| config.ws_recheck_secs = 1).await;
    let (_, key) = app.register("Leaky").await;
    let (_, other) = app.register("Careful").await;
    let spare = app
        .post_as("/api/v1/agents/me/api-keys", json!({}), &key)
        .await;
    let spare_key = spare.body["api_key"].as_str().unwrap().to_string();
    let spare_id = spare.body["key"]["id"].as_str().unwrap().to_string();
    let base = serve_in_test(&app).await;

    let mut leaked = Subscriber::connect(
        &base,
        json!({"Authorization": format!("Bearer {spare_key}")}),
    )
    .await
    .unwrap();
    leaked
        .subscribe("subscription { messageReceived { id } }", json!({}))
        .await;
    let mut kept = Subscriber::connect(&base, json!({"Authorization": format!("Bearer {other}")}))
        .await
        .unwrap();
    kept.subscribe("subscription { messageReceived { id } }", json!({}))
        .await;

    let revoked = app
        .request(
            "DELETE",
            &format!("/api/v1/agents/me/api-keys/{spare_id}"),
            None,
            Some(&key),
        )
        .await;
    assert_eq!(revoked.status, axum::http::StatusCode::NO_CONTENT);
    let closed = leaked.receive().await;
    let Err(closed) = closed else {
        panic!("the revoked key's connection must close: {closed:?}");
    };
    assert!(closed.starts_with("4403"), "{closed}");

    // The other agent's connection outlives several checks and still answers.
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    let more = tokio::time::timeout(Duration::from_millis(200), kept.socket.next()).await;
    assert!(
        !matches!(more, Ok(Some(Ok(WsMessage::Close(_)))) | Ok(None)),
        "a valid credential's connection was closed: {more:?}"
    );
    kept.subscribe("subscription { entryProcessed { id } }", json!({}))
        .await;
    let quiet = tokio::time::timeout(Duration::from_millis(300), kept.receive()).await;
    assert!(
        quiet.is_err(),
        "a running subscription sends nothing yet: {quiet:?}"
    );
}
