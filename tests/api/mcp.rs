//! The MCP endpoint driven by real clients over loopback: rmcp's own client (protocol
//! 2026-07-28 and the initialize handshake of 2025-11-25) and raw JSON-RPC for 2025-06-18.

use crate::harness::{TestApp, entity_entry};
use rmcp::model::{CallToolRequestParams, ProtocolVersion, ReadResourceRequestParams};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientLifecycleMode, ClientServiceExt, ServiceExt};
use serde_json::{Map, Value, json};

/// Serves the test app's router on a loopback port; returns the MCP URL.
async fn serve(app: &TestApp) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let service = app
        .router
        .clone()
        .into_make_service_with_connect_info::<std::net::SocketAddr>();
    tokio::spawn(async move { axum::serve(listener, service).await });
    format!("http://{address}/mcp/")
}

fn arguments(value: Value) -> Map<String, Value> {
    value.as_object().unwrap().clone()
}

fn assert_valid(schema: &Map<String, Value>, instance: &Value, what: &str) {
    let validator =
        jsonschema::validator_for(&Value::Object(schema.clone())).expect("a valid schema");
    let errors: Vec<String> = validator
        .iter_errors(instance)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{what}: {errors:?}\n{instance}");
}

#[tokio::test]
async fn an_agent_searches_publishes_and_verifies_over_mcp_with_the_rmcp_client() {
    let app = TestApp::new().await;
    let admin = app.admin_key().await;
    let (_, key) = app.register("MCP Agent").await;
    app.publish(
        &key,
        &admin,
        entity_entry(
            "Ancoats Bakery",
            53.4839,
            -2.2350,
            json!({"categories": ["bakery"]}),
        ),
    )
    .await;
    let url = serve(&app).await;
    let transport = StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(url).auth_header(key.clone()),
    );
    let client = ()
        .serve_with_lifecycle(
            transport,
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .expect("server/discover on 2026-07-28");

    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    for expected in [
        "search_records",
        "get_canonical_record",
        "get_context_rubric",
        "evaluate_entry_draft",
        "create_space_time_entry",
        "get_entry_processing_result",
        "send_message",
        "list_messages",
        "list_transaction_terms",
        "sign_transaction_terms",
    ] {
        assert!(
            names.contains(&expected),
            "{expected} missing from {names:?}"
        );
    }
    for t in &tools {
        assert!(
            t.description.as_ref().is_some_and(|d| d.len() > 60),
            "{} needs a description",
            t.name
        );
        assert!(t.output_schema.is_some(), "{} has no output schema", t.name);
        let hints = t.annotations.as_ref().expect("annotations");
        assert!(
            hints.read_only_hint.is_some()
                && hints.destructive_hint.is_some()
                && hints.idempotent_hint.is_some()
        );
        jsonschema::validator_for(&Value::Object((*t.input_schema).clone()))
            .expect("input schema compiles");
    }
    let schema_of = |name: &str| {
        tools
            .iter()
            .find(|t| t.name == name)
            .unwrap()
            .output_schema
            .clone()
            .unwrap()
    };
    let creating = tools
        .iter()
        .find(|t| t.name == "create_space_time_entry")
        .unwrap();
    assert_eq!(
        creating.annotations.as_ref().unwrap().read_only_hint,
        Some(false)
    );

    let found = client
        .call_tool(
            CallToolRequestParams::new("search_records")
                .with_arguments(arguments(json!({"query": "ancoats bakery"}))),
        )
        .await
        .unwrap();
    assert_eq!(found.is_error, Some(false));
    let found = found.structured_content.unwrap();
    assert_valid(&schema_of("search_records"), &found, "search_records");
    assert_eq!(
        found["results"][0]["record"]["display_name"], "Ancoats Bakery",
        "{found}"
    );
    let entity_id = found["results"][0]["record"]["id"]
        .as_str()
        .unwrap()
        .to_string();

    let record = client
        .call_tool(
            CallToolRequestParams::new("get_canonical_record").with_arguments(arguments(
                json!({"canonical_table": "canonical.entities", "id": entity_id}),
            )),
        )
        .await
        .unwrap()
        .structured_content
        .unwrap();
    assert_valid(
        &schema_of("get_canonical_record"),
        &record,
        "get_canonical_record",
    );
    assert_eq!(record["contributions"][0]["link_type"], "created");

    let mut entry = entity_entry(
        "Tib Street Florist",
        53.4845,
        -2.2341,
        json!({"phone": "+44 161 496 0999"}),
    );
    entry["idempotency_key"] = json!("mcp-test:tib-street-florist");
    entry["source_ref"] = json!("https://tibstreetflorist.example/contact");
    let created = client
        .call_tool(
            CallToolRequestParams::new("create_space_time_entry")
                .with_arguments(arguments(entry.clone())),
        )
        .await
        .unwrap();
    assert_eq!(created.is_error, Some(false), "{created:?}");
    let created = created.structured_content.unwrap();
    assert_valid(
        &schema_of("create_space_time_entry"),
        &created,
        "create_space_time_entry",
    );
    assert_eq!(created["status"], "pending");
    let entry_id = created["id"].as_str().unwrap().to_string();

    let repeat = client
        .call_tool(
            CallToolRequestParams::new("create_space_time_entry").with_arguments(arguments(entry)),
        )
        .await
        .unwrap();
    assert_eq!(repeat.is_error, Some(true));
    assert_eq!(
        repeat.structured_content.as_ref().unwrap()["code"],
        "CONFLICT"
    );
    assert_eq!(
        repeat.structured_content.as_ref().unwrap()["existing_id"],
        entry_id.as_str()
    );

    let processed = app
        .request(
            "POST",
            &format!("/api/v1/transformer/process/{entry_id}"),
            None,
            Some(&admin),
        )
        .await;
    assert_eq!(processed.status, axum::http::StatusCode::OK);
    let result = client
        .call_tool(
            CallToolRequestParams::new("get_entry_processing_result")
                .with_arguments(arguments(json!({"entry_id": entry_id}))),
        )
        .await
        .unwrap()
        .structured_content
        .unwrap();
    assert_valid(
        &schema_of("get_entry_processing_result"),
        &result,
        "get_entry_processing_result",
    );
    assert_eq!(result["entry"]["status"], "processed", "{result}");
    assert_eq!(result["contributions"][0]["link_type"], "created");
    assert_eq!(
        app.count("SELECT count(*) FROM space_time_entries").await,
        2
    );

    let rubric = client
        .read_resource(ReadResourceRequestParams::new("strs://rubrics/entity"))
        .await
        .unwrap();
    assert!(format!("{:?}", rubric.contents[0]).contains("minimum_viable_context"));
    let resources = client.list_all_resources().await.unwrap();
    assert!(
        resources
            .iter()
            .any(|r| r.uri == "strs://docs/agent_ingestion")
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn invalid_arguments_are_tool_errors_with_the_rest_field_detail() {
    let app = TestApp::new().await;
    let (_, key) = app.register("MCP Typo Agent").await;
    let url = serve(&app).await;
    let client = ()
        .serve(StreamableHttpClientTransport::from_config(
            StreamableHttpClientTransportConfig::with_uri(url).auth_header(key),
        ))
        .await
        .expect("initialize handshake (2025-11-25)");
    assert_eq!(
        client.peer_info().unwrap().protocol_version,
        ProtocolVersion::V_2025_11_25
    );
    let bad = client
        .call_tool(
            CallToolRequestParams::new("create_space_time_entry").with_arguments(arguments(
                json!({"entry_type": "entity", "latitude": 95, "longitude": 1, "colour": "red"}),
            )),
        )
        .await
        .unwrap();
    assert_eq!(bad.is_error, Some(true));
    let body = bad.structured_content.unwrap();
    assert_eq!(body["status"], 422);
    assert_eq!(body["detail"][0]["loc"], json!(["arguments", "colour"]));
    let range = client
        .call_tool(
            CallToolRequestParams::new("search_records")
                .with_arguments(arguments(json!({"query": "bakery", "max_results": 500}))),
        )
        .await
        .unwrap();
    assert_eq!(range.is_error, Some(true));
    assert_eq!(
        range.structured_content.unwrap()["detail"][0]["loc"],
        json!(["arguments", "max_results"])
    );
    assert_eq!(
        app.count("SELECT count(*) FROM space_time_entries").await,
        0
    );
    client.cancel().await.unwrap();
}

async fn post(
    url: &str,
    key: Option<&str>,
    extra: &[(&str, &str)],
    body: Value,
) -> reqwest::Response {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    if let Some(key) = key {
        request = request.header("authorization", format!("Bearer {key}"));
    }
    for (name, value) in extra {
        request = request.header(*name, *value);
    }
    request.json(&body).send().await.unwrap()
}

fn initialize(version: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}})
}

#[tokio::test]
async fn the_2025_06_18_handshake_is_negotiated() {
    let app = TestApp::new().await;
    let (_, key) = app.register("Old Client").await;
    let url = serve(&app).await;
    let r = post(&url, Some(&key), &[], initialize("2025-06-18")).await;
    assert_eq!(r.status(), 200);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["result"]["protocolVersion"], "2025-06-18", "{body}");
    assert_eq!(body["result"]["serverInfo"]["name"], "spacetime-records");
    let tools = post(
        &url,
        Some(&key),
        &[("mcp-protocol-version", "2025-06-18")],
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    )
    .await;
    assert_eq!(tools.status(), 200);
    let tools: Value = tools.json().await.unwrap();
    assert_eq!(
        tools["result"]["tools"].as_array().unwrap().len(),
        10,
        "{tools}"
    );
}

#[tokio::test]
async fn mcp_needs_a_valid_bearer_an_allowed_origin_and_an_allowed_host() {
    let app = TestApp::new().await;
    let (_, key) = app.register("Guarded").await;
    let url = serve(&app).await;
    let none = post(&url, None, &[], initialize("2025-11-25")).await;
    assert_eq!(none.status(), 401);
    assert!(none.headers().get("www-authenticate").is_some());
    let bad = post(&url, Some("str_not_a_key"), &[], initialize("2025-11-25")).await;
    assert_eq!(bad.status(), 401);
    let origin = post(
        &url,
        Some(&key),
        &[("origin", "https://evil.example")],
        initialize("2025-11-25"),
    )
    .await;
    assert_eq!(origin.status(), 403);
    let host = post(
        &url,
        Some(&key),
        &[("host", "evil.example")],
        initialize("2025-11-25"),
    )
    .await;
    assert!(host.status().is_client_error(), "{}", host.status());
    let ok = post(&url, Some(&key), &[], initialize("2025-11-25")).await;
    assert_eq!(ok.status(), 200);
}

#[tokio::test]
async fn configured_origins_and_hosts_are_let_in() {
    let app = TestApp::with_config(|c| {
        c.mcp_allowed_origins = vec!["https://app.example:443".into()];
        c.mcp_allowed_hosts = vec!["records.example".into(), "127.0.0.1".into()];
    })
    .await;
    let (_, key) = app.register("Configured").await;
    let url = serve(&app).await;
    let origin = post(
        &url,
        Some(&key),
        &[("origin", "https://app.example")],
        initialize("2025-11-25"),
    )
    .await;
    assert_eq!(origin.status(), 200);
    let host = post(
        &url,
        Some(&key),
        &[("host", "records.example")],
        initialize("2025-11-25"),
    )
    .await;
    assert_eq!(host.status(), 200);
}

fn prompt_text(result: &rmcp::model::GetPromptResult) -> String {
    serde_json::to_string(&result.messages).unwrap()
}

#[tokio::test]
async fn prompts_guide_publishing_explain_provenance_and_list_what_is_in_review() {
    let app = TestApp::new().await;
    let admin = app.admin_key().await;
    let (_, key) = app.register("Prompted Agent").await;
    let (lat, lng) = (53.4808, -2.2426);
    let acme = app
        .publish(
            &key,
            &admin,
            entity_entry(
                "Acme Plumbing",
                lat,
                lng,
                json!({"website_url": "https://acme-prompt.example"}),
            ),
        )
        .await["canonical_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let url = serve(&app).await;
    let client = ()
        .serve(StreamableHttpClientTransport::from_config(
            StreamableHttpClientTransportConfig::with_uri(url).auth_header(key.clone()),
        ))
        .await
        .expect("initialize handshake");
    let capabilities = &client.peer_info().unwrap().capabilities;
    assert!(capabilities.prompts.is_some() && capabilities.completions.is_some());

    let prompts = client.list_all_prompts().await.unwrap();
    let names: Vec<&str> = prompts.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        names,
        ["publish_entry", "explain_provenance", "review_for_me"]
    );
    assert!(prompts.iter().all(|p| p.description.is_some()));

    let publish = client
        .get_prompt(
            rmcp::model::GetPromptRequestParams::new("publish_entry").with_arguments(arguments(
                json!({"entry_type": "listing", "subject": "Acme boiler service"}),
            )),
        )
        .await
        .unwrap();
    let text = prompt_text(&publish);
    for step in [
        "get_context_rubric",
        "search_records",
        "Acme boiler service",
        "evaluate_entry_draft",
        "create_space_time_entry",
        "idempotency_key",
        "get_entry_processing_result",
        "get_canonical_record",
        "strs://rubrics/listing",
        "minimum_viable_context",
    ] {
        assert!(text.contains(step), "{step} missing from {text}");
    }
    let unknown_type = client
        .get_prompt(
            rmcp::model::GetPromptRequestParams::new("publish_entry")
                .with_arguments(arguments(json!({"entry_type": "shop"}))),
        )
        .await;
    assert!(unknown_type.is_err(), "an unknown entry type is refused");

    let provenance = client
        .get_prompt(
            rmcp::model::GetPromptRequestParams::new("explain_provenance").with_arguments(
                arguments(json!({"canonical_table": "canonical.entities", "record_id": acme})),
            ),
        )
        .await
        .unwrap();
    let text = prompt_text(&provenance);
    assert!(
        text.contains("Acme Plumbing") && text.contains("created"),
        "{text}"
    );
    let missing = client
        .get_prompt(
            rmcp::model::GetPromptRequestParams::new("explain_provenance").with_arguments(
                arguments(json!({"canonical_table": "canonical.entities", "record_id": uuid::Uuid::nil()})),
            ),
        )
        .await;
    assert!(missing.is_err(), "a missing record is refused");

    let empty = client
        .get_prompt(rmcp::model::GetPromptRequestParams::new("review_for_me"))
        .await
        .unwrap();
    assert!(prompt_text(&empty).contains("None of your entries"));
    // Acme's name with another record's phone, close to both: processing cannot decide alone.
    let (east_lat, east_lng) = crate::harness::east(lat, lng, 40.0);
    app.publish(
        &key,
        &admin,
        entity_entry(
            "Bolt Heating",
            east_lat,
            east_lng,
            json!({"phone": "0161 496 0777"}),
        ),
    )
    .await;
    let (mid_lat, mid_lng) = crate::harness::east(lat, lng, 20.0);
    let split = app
        .publish(
            &key,
            &admin,
            entity_entry(
                "Acme Plumbing",
                mid_lat,
                mid_lng,
                json!({"phone": "0161 496 0777"}),
            ),
        )
        .await;
    assert_eq!(split["status"], "review_required", "{split}");
    let waiting = client
        .get_prompt(rmcp::model::GetPromptRequestParams::new("review_for_me"))
        .await
        .unwrap();
    let text = prompt_text(&waiting);
    assert!(
        text.contains(split["space_time_entry_id"].as_str().unwrap()),
        "{text}"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn completion_offers_types_slugs_and_record_ids_by_name() {
    let app = TestApp::new().await;
    let admin = app.admin_key().await;
    let (_, key) = app.register("Completing Agent").await;
    let bakery = app
        .publish(
            &key,
            &admin,
            entity_entry("Ancoats Bakery", 53.4839, -2.2350, json!({})),
        )
        .await["canonical_id"]
        .as_str()
        .unwrap()
        .to_owned();
    app.publish(
        &key,
        &admin,
        entity_entry("Northern Quarter Books", 53.4840, -2.2360, json!({})),
    )
    .await;
    let url = serve(&app).await;
    let client = ()
        .serve(StreamableHttpClientTransport::from_config(
            StreamableHttpClientTransportConfig::with_uri(url).auth_header(key),
        ))
        .await
        .unwrap();
    let prompt = |argument: &'static str, value: &'static str| {
        client.complete_prompt_simple(
            if argument == "entry_type" {
                "publish_entry"
            } else {
                "explain_provenance"
            },
            argument,
            value,
        )
    };
    assert_eq!(prompt("entry_type", "li").await.unwrap(), ["listing"]);
    assert_eq!(prompt("entry_type", "").await.unwrap().len(), 4);
    assert_eq!(
        prompt("canonical_table", "canonical.e").await.unwrap(),
        ["canonical.entities"]
    );
    assert_eq!(prompt("record_id", "ancoats ba").await.unwrap(), [bakery]);
    assert_eq!(
        prompt("record_id", "Bakery").await.unwrap(),
        Vec::<String>::new()
    );
    let in_listings = client
        .complete_prompt_argument(
            "explain_provenance",
            "record_id",
            "Ancoats",
            Some(rmcp::model::CompletionContext::with_arguments(
                [(
                    "canonical_table".to_string(),
                    "canonical.listings".to_string(),
                )]
                .into(),
            )),
        )
        .await
        .unwrap();
    assert!(in_listings.values.is_empty(), "{in_listings:?}");
    assert_eq!(
        client
            .complete_resource_simple("strs://rubrics/{entry_type}", "entry_type", "re")
            .await
            .unwrap(),
        ["request"]
    );
    assert!(
        client
            .complete_resource_simple("strs://docs/{slug}", "slug", "agent_")
            .await
            .unwrap()
            .contains(&"agent_ingestion".to_string())
    );
    assert!(
        client
            .complete_prompt_simple("no_such_prompt", "x", "y")
            .await
            .unwrap()
            .is_empty()
    );
    let templates = client.list_all_resource_templates().await.unwrap();
    assert_eq!(templates.len(), 3);
    client.cancel().await.unwrap();
}

fn tool_call(meta: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "get_context_rubric", "arguments": {"entry_type": "entity"}, "_meta": meta}})
}

#[tokio::test]
async fn log_notifications_follow_the_level_each_request_asks_for() {
    let app = TestApp::new().await;
    let (_, key) = app.register("Logged Agent").await;
    let url = serve(&app).await;
    let version = [("mcp-protocol-version", "2025-06-18")];
    let set = post(
        &url,
        Some(&key),
        &version,
        json!({"jsonrpc": "2.0", "id": 2, "method": "logging/setLevel", "params": {"level": "debug"}}),
    )
    .await;
    assert_eq!(set.status(), 200);
    let set: Value = set.json().await.unwrap();
    assert_eq!(set["result"], json!({}), "{set}");

    // No level asked: a plain JSON answer, no notification.
    let quiet = post(&url, Some(&key), &version, tool_call(json!({}))).await;
    assert!(
        quiet.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/json")
    );
    let quiet = quiet.text().await.unwrap();
    assert!(!quiet.contains("notifications/message"), "{quiet}");

    // Info asked for: the info line arrives before the result; the debug line does not.
    let level = |level: &str| json!({"io.modelcontextprotocol/logLevel": level});
    let logged = post(&url, Some(&key), &version, tool_call(level("info"))).await;
    assert_eq!(logged.status(), 200);
    let stream = logged.text().await.unwrap();
    let notice = stream.find("notifications/message").expect(&stream);
    assert!(
        stream.contains("\"level\":\"info\"") && stream.contains("succeeded"),
        "{stream}"
    );
    assert!(!stream.contains("\"level\":\"debug\""), "{stream}");
    assert!(notice < stream.find("\"result\"").unwrap(), "{stream}");

    let debug = post(&url, Some(&key), &version, tool_call(level("debug"))).await;
    let stream = debug.text().await.unwrap();
    assert!(stream.contains("\"level\":\"debug\""), "{stream}");

    // Only errors asked for: a successful call sends nothing.
    let errors_only = post(&url, Some(&key), &version, tool_call(level("error"))).await;
    let stream = errors_only.text().await.unwrap();
    assert!(!stream.contains("notifications/message"), "{stream}");
}

#[tokio::test]
async fn a_loopback_bound_server_lets_in_loopback_origins_and_a_public_one_only_its_own() {
    let app = TestApp::new().await;
    let (_, key) = app.register("Local Browser").await;
    let url = serve(&app).await;
    for origin in [
        "http://localhost:6274",
        "http://127.0.0.1:3000",
        "http://[::1]:8080",
        "https://localhost",
    ] {
        let r = post(
            &url,
            Some(&key),
            &[("origin", origin)],
            initialize("2025-11-25"),
        )
        .await;
        assert_eq!(r.status(), 200, "{origin}");
    }
    for origin in [
        "http://evil.example",
        "http://localhost.evil.example:6274",
        "null",
    ] {
        let r = post(
            &url,
            Some(&key),
            &[("origin", origin)],
            initialize("2025-11-25"),
        )
        .await;
        assert_eq!(r.status(), 403, "{origin}");
    }

    let public = TestApp::with_config(|c| {
        c.bind = "0.0.0.0:8080".parse().unwrap();
        c.mcp_allowed_origins = vec!["https://app.example:443".into()];
    })
    .await;
    let (_, key) = public.register("Public Browser").await;
    let url = serve(&public).await;
    let local = post(
        &url,
        Some(&key),
        &[("origin", "http://localhost:6274")],
        initialize("2025-11-25"),
    )
    .await;
    assert_eq!(local.status(), 403, "a public deployment lists its origins");
    let listed = post(
        &url,
        Some(&key),
        &[("origin", "https://app.example")],
        initialize("2025-11-25"),
    )
    .await;
    assert_eq!(listed.status(), 200);
}
