use crate::harness::{TestApp, urlencode};
use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::json;

const AGENT_FIELDS: &str = "id principalId agentType displayName agentHandle description status scoreTrust scoreReputation truthCertificateAmountGbp capabilities metadata createdAtTstampUtc updatedAtTstampUtc";

#[tokio::test]
async fn graphql_and_rest_return_the_same_agent() {
    let app = TestApp::new().await;
    let (id, _) = app.register("Twin").await;
    let rest = app.get(&format!("/api/v1/agents/{id}")).await.body;
    let gql = app
        .graphql(
            &format!("query($id: UUID!) {{ agent(id: $id) {{ {AGENT_FIELDS} }} }}"),
            json!({"id": id}),
            None,
        )
        .await;
    assert_eq!(gql.status, StatusCode::OK);
    let agent = &gql.body["data"]["agent"];
    for (rest_field, gql_field) in [
        ("id", "id"),
        ("agent_handle", "agentHandle"),
        ("display_name", "displayName"),
        ("score_trust", "scoreTrust"),
        ("score_reputation", "scoreReputation"),
        ("truth_certificate_amount_gbp", "truthCertificateAmountGbp"),
        ("metadata", "metadata"),
        ("capabilities", "capabilities"),
    ] {
        assert_eq!(rest[rest_field], agent[gql_field], "{rest_field}");
    }
    let instant =
        |v: &serde_json::Value| chrono::DateTime::parse_from_rfc3339(v.as_str().unwrap()).unwrap();
    assert_eq!(
        instant(&rest["created_at_tstamp_utc"]),
        instant(&agent["createdAtTstampUtc"])
    );
    assert_eq!(rest["agent_type"], "api_agent");
    assert_eq!(agent["agentType"], "API_AGENT");
}

#[tokio::test]
async fn register_me_create_and_revoke_keys_over_graphql() {
    let app = TestApp::new().await;
    let reg = app
        .graphql("mutation { registerAgent(input: {agentType: SCRAPER, displayName: \"Gql Bot\"}) { apiKey agent { id agentHandle } key { id scopes } } }", json!({}), None)
        .await;
    let data = &reg.body["data"]["registerAgent"];
    let key = data["apiKey"]
        .as_str()
        .unwrap_or_else(|| panic!("{}", reg.text))
        .to_string();
    let me = app
        .graphql(
            "{ me { id } myApiKeys { id keyPrefix status } }",
            json!({}),
            Some(&key),
        )
        .await;
    assert_eq!(me.body["data"]["me"]["id"], data["agent"]["id"]);
    assert!(!me.text.contains(&key));
    let created = app
        .graphql(
            "mutation { createApiKey { apiKey key { id status } } }",
            json!({}),
            Some(&key),
        )
        .await;
    let new_id = created.body["data"]["createApiKey"]["key"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let revoked = app
        .graphql(
            "mutation($id: UUID!) { revokeApiKey(id: $id) }",
            json!({"id": new_id}),
            Some(&key),
        )
        .await;
    assert_eq!(revoked.body["data"]["revokeApiKey"], true);
    let gone = app
        .graphql(
            "mutation($id: UUID!) { revokeApiKey(id: $id) }",
            json!({"id": uuid::Uuid::now_v7()}),
            Some(&key),
        )
        .await;
    assert_eq!(gone.body["errors"][0]["extensions"]["code"], "NOT_FOUND");
}

#[tokio::test]
async fn graphql_errors_carry_the_rest_codes() {
    let app = TestApp::new().await;
    let anonymous = app.graphql("{ me { id } }", json!({}), None).await;
    assert_eq!(
        anonymous.body["errors"][0]["extensions"]["code"],
        "UNAUTHENTICATED"
    );
    let invalid = app
        .graphql("mutation { createAgent(input: {agentType: HUMAN, displayName: \"x\", agentHandle: \"NO\"}) { id } }", json!({}), None)
        .await;
    let ext = &invalid.body["errors"][0]["extensions"];
    assert_eq!(ext["code"], "VALIDATION_ERROR");
    assert_eq!(ext["status"], 422);
    assert_eq!(ext["classification"], "BAD_REQUEST");
    assert_eq!(
        anonymous.body["errors"][0]["extensions"]["classification"],
        "UNAUTHORIZED"
    );
    assert_eq!(ext["detail"][0]["loc"], json!(["input", "agent_handle"]));
    let bad_page = app
        .graphql(
            "{ agents(first: 501) { edges { node { id } } } }",
            json!({}),
            None,
        )
        .await;
    assert_eq!(
        bad_page.body["errors"][0]["extensions"]["code"],
        "VALIDATION_ERROR"
    );
}

#[tokio::test]
async fn an_invalid_bearer_on_graphql_is_401() {
    let app = TestApp::new().await;
    let r = app
        .graphql(
            "{ agents { edges { node { id } } } }",
            json!({}),
            Some("str_bogus"),
        )
        .await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn connections_page_with_cursors_and_resolve_principals_in_batches() {
    let app = TestApp::new().await;
    let p = app
        .post(
            "/api/v1/principals",
            json!({"principal_type": "company", "display_name": "Owner"}),
        )
        .await;
    for i in 0..3 {
        app.post("/api/v1/agents", json!({"agent_type": "human", "display_name": format!("A{i}"), "principal_id": p.body["id"]})).await;
    }
    let q = "query($after: String) { agents(first: 2, after: $after) { edges { cursor node { displayName principal { displayName } } } pageInfo { hasNextPage endCursor } } }";
    let first = app.graphql(q, json!({}), None).await;
    let page = &first.body["data"]["agents"];
    assert_eq!(page["edges"].as_array().unwrap().len(), 2, "{}", first.text);
    assert_eq!(page["pageInfo"]["hasNextPage"], true);
    assert_eq!(
        page["edges"][0]["node"]["principal"]["displayName"],
        "Owner"
    );
    let second = app
        .graphql(q, json!({"after": page["pageInfo"]["endCursor"]}), None)
        .await;
    let page2 = &second.body["data"]["agents"];
    assert_eq!(page2["edges"].as_array().unwrap().len(), 1);
    assert_eq!(page2["pageInfo"]["hasNextPage"], false);
    assert_eq!(page2["edges"][0]["node"]["displayName"], "A0");
    let owned = app.graphql("query($id: UUID!) { principal(id: $id) { agents { edges { node { displayName } } } } }", json!({"id": p.body["id"]}), None).await;
    assert_eq!(
        owned.body["data"]["principal"]["agents"]["edges"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
}

#[tokio::test]
async fn get_serves_queries_but_never_mutations() {
    let app = TestApp::new().await;
    let ok = app.get("/graphql?query=%7B%20agents%20%7B%20edges%20%7B%20node%20%7B%20id%20%7D%20%7D%20%7D%20%7D").await;
    assert_eq!(ok.status, StatusCode::OK);
    assert!(ok.body["data"]["agents"].is_object(), "{}", ok.text);
    let req = Request::get(
        "/graphql?query=mutation%20%7B%20createAccessToken%20%7B%20accessToken%20%7D%20%7D",
    )
    .body(Body::empty())
    .unwrap();
    let r = app.send(req).await;
    assert_eq!(r.status, StatusCode::METHOD_NOT_ALLOWED, "{}", r.text);
    assert_eq!(r.headers["allow"], "POST");
    assert_eq!(
        r.body["errors"][0]["extensions"]["code"],
        "METHOD_NOT_ALLOWED"
    );
    for missing in ["/graphql", "/graphql?operationName=x", "/graphql?query=%20"] {
        let r = app.get(missing).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{missing}");
        assert_eq!(r.body["errors"][0]["extensions"]["code"], "BAD_REQUEST");
        assert_eq!(
            r.body["errors"][0]["extensions"]["detail"][0]["loc"],
            json!(["query", "query"])
        );
        assert!(r.body.get("data").is_none(), "{}", r.text);
    }
}

#[tokio::test]
async fn overly_deep_queries_are_refused() {
    let app = TestApp::new().await;
    let mut q = String::from("id");
    for _ in 0..3 {
        q = format!("principal {{ agents {{ edges {{ node {{ {q} }} }} }} }}");
    }
    let r = app
        .graphql(
            &format!("{{ agents {{ edges {{ node {{ {q} }} }} }} }}"),
            json!({}),
            None,
        )
        .await;
    assert_eq!(
        r.body["errors"][0]["extensions"]["code"], "QUERY_TOO_DEEP",
        "{}",
        r.text
    );
}

fn sha256_hex(text: &str) -> String {
    use sha2::Digest;
    format!("{:x}", sha2::Sha256::digest(text.as_bytes()))
}

#[tokio::test]
async fn automatic_persisted_queries_follow_the_apollo_protocol() {
    let app = TestApp::new().await;
    let (agent_id, _) = app.register("Persisted Reader").await;
    let query = "query($id: UUID!) { agent(id: $id) { displayName } }";
    let hash = sha256_hex(query);
    let persisted = json!({"persistedQuery": {"version": 1, "sha256Hash": hash}});
    let post = |body: serde_json::Value| {
        let app = &app;
        async move { app.post("/graphql", body).await }
    };

    let unknown = post(json!({"variables": {"id": agent_id}, "extensions": persisted})).await;
    assert_eq!(unknown.status, StatusCode::OK, "{}", unknown.text);
    assert_eq!(
        unknown.body["errors"][0]["message"],
        "PersistedQueryNotFound"
    );
    assert_eq!(
        unknown.body["errors"][0]["extensions"]["code"],
        "PERSISTED_QUERY_NOT_FOUND"
    );
    let registered =
        post(json!({"query": query, "variables": {"id": agent_id}, "extensions": persisted})).await;
    assert_eq!(
        registered.body["data"]["agent"]["displayName"], "Persisted Reader",
        "{}",
        registered.text
    );
    let by_hash = post(json!({"variables": {"id": agent_id}, "extensions": persisted})).await;
    assert_eq!(
        by_hash.body["data"]["agent"]["displayName"], "Persisted Reader",
        "{}",
        by_hash.text
    );

    // GET with only the hash: a short, cacheable URL.
    let url = format!(
        "/graphql?variables={}&extensions={}",
        urlencode(&json!({"id": agent_id}).to_string()),
        urlencode(&persisted.to_string())
    );
    let get = app.get(&url).await;
    assert_eq!(get.status, StatusCode::OK, "{}", get.text);
    assert_eq!(get.body["data"]["agent"]["displayName"], "Persisted Reader");

    let mismatch = post(json!({"query": "{ me { id } }", "extensions": persisted})).await;
    assert_eq!(
        mismatch.body["errors"][0]["extensions"]["code"],
        "PERSISTED_QUERY_HASH_MISMATCH"
    );

    // A persisted mutation is still refused over GET.
    let mutation = "mutation { registerAgent(input: {displayName: \"x\", agentType: API_AGENT}) { agent { id } } }";
    let mutation_hash =
        json!({"persistedQuery": {"version": 1, "sha256Hash": sha256_hex(mutation)}});
    post(json!({"query": mutation, "extensions": mutation_hash})).await;
    let refused = app
        .get(&format!(
            "/graphql?extensions={}",
            urlencode(&mutation_hash.to_string())
        ))
        .await;
    assert_eq!(
        refused.status,
        StatusCode::METHOD_NOT_ALLOWED,
        "{}",
        refused.text
    );
}
