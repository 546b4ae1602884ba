//! Messages, transaction terms, signatures and the certificate ledger: two- and three-agent
//! scenarios through the real router (REST and GraphQL) over PostGIS.

use crate::harness::{TestApp, assert_matches_openapi, locs};
use axum::http::StatusCode;
use serde_json::{Value, json};
use spacetime_records::domain::AgentStatus;
use spacetime_records::domain::ledger::{self, GENESIS_HASH};

async fn send(app: &TestApp, key: &str, to: &str, text: &str) -> Value {
    let r = app
        .post_as(
            "/api/v1/messages",
            json!({"recipient_agent_id": to, "message_content": text}),
            key,
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    r.body
}

#[tokio::test]
async fn only_sender_and_recipient_read_a_message_and_only_the_recipient_marks_it_read() {
    let app = TestApp::new().await;
    let (a, ka) = app.register("Alice").await;
    let (b, kb) = app.register("Bob").await;
    let (_c, kc) = app.register("Carol").await;
    let m = send(
        &app,
        &ka,
        &b.to_string(),
        "Can you quote for a boiler service?",
    )
    .await;
    let id = m["id"].as_str().unwrap();
    assert_eq!(m["sender_agent_id"], a.to_string());
    assert_eq!(m["read_at_tstamp_utc"], Value::Null);

    for key in [&ka, &kb] {
        assert_eq!(
            app.get_as(&format!("/api/v1/messages/{id}"), key)
                .await
                .status,
            StatusCode::OK
        );
    }
    assert_eq!(
        app.get_as(&format!("/api/v1/messages/{id}"), &kc)
            .await
            .status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        app.get(&format!("/api/v1/messages/{id}")).await.status,
        StatusCode::UNAUTHORIZED
    );
    let listed = app.get_as("/api/v1/messages", &kc).await;
    assert_eq!(listed.body, json!([]));
    for key in [&kc, &ka] {
        let r = app
            .request(
                "PATCH",
                &format!("/api/v1/messages/{id}/read"),
                None,
                Some(key),
            )
            .await;
        assert_eq!(r.status, StatusCode::NOT_FOUND, "{}", r.text);
    }

    let unread = app.get_as("/api/v1/messages?unread_only=true", &kb).await;
    assert_eq!(unread.body.as_array().unwrap().len(), 1);
    let count = "{ unreadCount }";
    assert_eq!(
        app.graphql(count, json!({}), Some(&kb)).await.body["data"]["unreadCount"],
        1
    );

    let first = app
        .request(
            "PATCH",
            &format!("/api/v1/messages/{id}/read"),
            None,
            Some(&kb),
        )
        .await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.text);
    let read_at = first.body["read_at_tstamp_utc"].clone();
    assert!(read_at.is_string());
    let again = app
        .request(
            "PATCH",
            &format!("/api/v1/messages/{id}/read"),
            None,
            Some(&kb),
        )
        .await;
    assert_eq!(again.body["read_at_tstamp_utc"], read_at);
    assert_eq!(
        app.graphql(count, json!({}), Some(&kb)).await.body["data"]["unreadCount"],
        0
    );
    assert_eq!(
        app.get_as("/api/v1/messages?unread_only=true", &kb)
            .await
            .body,
        json!([])
    );
}

#[tokio::test]
async fn lists_are_newest_first_and_filter_by_counterparty() {
    let app = TestApp::new().await;
    let (a, ka) = app.register("Alice").await;
    let (b, kb) = app.register("Bob").await;
    let (c, kc) = app.register("Carol").await;
    send(&app, &ka, &b.to_string(), "one").await;
    send(&app, &kb, &a.to_string(), "two").await;
    send(&app, &kc, &a.to_string(), "three").await;
    let all = app.get_as("/api/v1/messages", &ka).await;
    let texts: Vec<&str> = all
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["message_content"].as_str().unwrap())
        .collect();
    assert_eq!(texts, ["three", "two", "one"]);
    let with_b = app
        .get_as(&format!("/api/v1/messages?counterparty_agent_id={b}"), &ka)
        .await;
    assert_eq!(with_b.body.as_array().unwrap().len(), 2);
    let with_c = app
        .get_as(
            &format!("/api/v1/messages?counterparty_agent_id={c}&limit=1"),
            &ka,
        )
        .await;
    assert_eq!(with_c.body[0]["message_content"], "three");

    let q = "query($c: UUID!) { conversation(counterpartyId: $c) { edges { node { messageContent sender { id } } } }
              me { sentMessages { edges { node { messageContent } } } receivedMessages(unreadOnly: true) { edges { node { messageContent } } } } }";
    let r = app.graphql(q, json!({"c": b}), Some(&ka)).await;
    assert_eq!(
        r.body["data"]["conversation"]["edges"]
            .as_array()
            .unwrap()
            .len(),
        2,
        "{}",
        r.text
    );
    assert_eq!(
        r.body["data"]["me"]["sentMessages"]["edges"][0]["node"]["messageContent"],
        "one"
    );
    assert_eq!(
        r.body["data"]["me"]["receivedMessages"]["edges"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    // Another agent's messages are never shown on the graph.
    let other = app
        .graphql(
            "query($a: UUID!) { agent(id: $a) { sentMessages { edges { node { id } } } } }",
            json!({"a": a}),
            Some(&kc),
        )
        .await;
    assert_eq!(
        other.body["data"]["agent"]["sentMessages"],
        Value::Null,
        "{}",
        other.text
    );
}

#[tokio::test]
async fn bad_messages_are_refused_with_their_field() {
    let app = TestApp::new().await;
    let (a, ka) = app.register("Alice").await;
    let (b, kb) = app.register("Bob").await;
    let (c, kc) = app.register("Carol").await;
    let unknown = uuid::Uuid::now_v7();
    let cases = [
        (
            json!({"recipient_agent_id": unknown, "message_content": "hi"}),
            "body.recipient_agent_id",
        ),
        (
            json!({"recipient_agent_id": b, "message_content": ""}),
            "body.message_content",
        ),
        (
            json!({"recipient_agent_id": b, "message_content": "x".repeat(65_537)}),
            "body.message_content",
        ),
        (
            json!({"recipient_agent_id": a, "message_content": "me"}),
            "body.recipient_agent_id",
        ),
        (json!({"recipient_agent_id": b}), "body.message_content"),
        (
            json!({"recipient_agent_id": b, "message_content": "hi", "attachments": [1]}),
            "body.attachments.0",
        ),
        (
            json!({"recipient_agent_id": b, "message_content": "hi", "target_schema": "canonical"}),
            "body.target_id",
        ),
        (
            json!({"recipient_agent_id": b, "message_content": "hi", "sender_agent_id": b}),
            "body.sender_agent_id",
        ),
    ];
    for (body, loc) in cases {
        let r = app.post_as("/api/v1/messages", body.clone(), &ka).await;
        assert_eq!(
            r.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{body}: {}",
            r.text
        );
        assert_eq!(locs(&r.body), [loc], "{body}");
    }
    // A reply must answer a message the caller can see.
    let private = send(&app, &kb, &c.to_string(), "between B and C").await;
    let reply = json!({"recipient_agent_id": b, "message_content": "re", "reply_to_message_id": private["id"]});
    let r = app.post_as("/api/v1/messages", reply.clone(), &ka).await;
    assert_eq!(locs(&r.body), ["body.reply_to_message_id"]);
    let r = app.post_as("/api/v1/messages", json!({"recipient_agent_id": b, "message_content": "re", "reply_to_message_id": private["id"]}), &kc).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    assert_eq!(
        app.post(
            "/api/v1/messages",
            json!({"recipient_agent_id": b, "message_content": "hi"})
        )
        .await
        .status,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(app.count("SELECT count(*) FROM messages").await, 2);
}

#[tokio::test]
async fn the_send_quota_answers_429_with_retry_after() {
    let app = TestApp::with_config(|c| c.messages_per_hour = 2).await;
    let (_, ka) = app.register("Alice").await;
    let (b, _) = app.register("Bob").await;
    send(&app, &ka, &b.to_string(), "1").await;
    send(&app, &ka, &b.to_string(), "2").await;
    let r = app
        .post_as(
            "/api/v1/messages",
            json!({"recipient_agent_id": b, "message_content": "3"}),
            &ka,
        )
        .await;
    assert_eq!(r.status, StatusCode::TOO_MANY_REQUESTS, "{}", r.text);
    assert_eq!(r.body["code"], "RATE_LIMITED");
    assert!(r.headers.get("retry-after").is_some());
    assert_eq!(app.count("SELECT count(*) FROM messages").await, 2);
}

async fn term(app: &TestApp, key: &str, body: Value) -> Value {
    let r = app.post_as("/api/v1/transaction-terms", body, key).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    r.body
}

#[tokio::test]
async fn private_terms_are_seen_and_signed_only_by_their_parties() {
    let app = TestApp::new().await;
    let (a, ka) = app.register("Supplier").await;
    let (b, kb) = app.register("Customer").await;
    let (_, kc) = app.register("Stranger").await;
    let public = term(&app, &ka, json!({"title": "Standard terms", "terms_text": "1. Pay.\r\n2. Go.\r\n", "currency_code": "GBP", "value_amount": "120.50"})).await;
    assert_eq!(public["terms_text"], "1. Pay.\n2. Go.");
    assert_eq!(
        public["content_sha256"],
        spacetime_records::services::terms::sha256_hex(b"1. Pay.\n2. Go.")
    );
    assert_eq!(public["terms_version"], "1");
    assert_eq!(public["created_by_agent_id"], a.to_string());
    let private = term(&app, &ka, json!({"title": "Deal for B", "terms_text": "Net 30.", "visibility": "private", "offered_to_agent_ids": [b]})).await;
    let pid = private["id"].as_str().unwrap();

    let anonymous = app.get("/api/v1/transaction-terms").await;
    assert_eq!(anonymous.body.as_array().unwrap().len(), 1);
    assert_eq!(
        app.get(&format!("/api/v1/transaction-terms/{pid}"))
            .await
            .status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        app.get_as(&format!("/api/v1/transaction-terms/{pid}"), &kc)
            .await
            .status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        app.get_as(&format!("/api/v1/transaction-terms/{pid}"), &kb)
            .await
            .status,
        StatusCode::OK
    );
    assert_eq!(
        app.get_as("/api/v1/transaction-terms", &kb)
            .await
            .body
            .as_array()
            .unwrap()
            .len(),
        2
    );

    // A private term of others answers exactly like a missing one.
    let hidden = app
        .post_as(
            "/api/v1/transaction-terms-signatures",
            json!({"transaction_term_id": pid, "signature": "sig"}),
            &kc,
        )
        .await;
    let missing = app
        .post_as(
            "/api/v1/transaction-terms-signatures",
            json!({"transaction_term_id": uuid::Uuid::now_v7(), "signature": "sig"}),
            &kc,
        )
        .await;
    assert_eq!(hidden.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(hidden.body, missing.body);

    let signed = app.post_as("/api/v1/transaction-terms-signatures", json!({"transaction_term_id": pid, "signature": "base64:3q2+7w==", "counterparty_agent_id": a}), &kb).await;
    assert_eq!(signed.status, StatusCode::CREATED, "{}", signed.text);
    assert_eq!(signed.body["signed_by_agent_id"], b.to_string());
    assert_eq!(
        signed.body["signed_content_sha256"],
        private["content_sha256"]
    );
    let sid = signed.body["id"].as_str().unwrap();
    let repeat = app
        .post_as(
            "/api/v1/transaction-terms-signatures",
            json!({"transaction_term_id": pid, "signature": "again"}),
            &kb,
        )
        .await;
    assert_eq!(repeat.status, StatusCode::CONFLICT);
    assert_eq!(repeat.body["existing_id"], sid);
    // Signatures on a private term are hidden from others, like the term.
    assert_eq!(
        app.get(&format!("/api/v1/transaction-terms-signatures/{sid}"))
            .await
            .status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        app.get("/api/v1/transaction-terms-signatures").await.body,
        json!([])
    );
    let mine = app
        .get_as(
            &format!("/api/v1/transaction-terms-signatures?signed_by_agent_id={b}"),
            &kb,
        )
        .await;
    assert_eq!(mine.body.as_array().unwrap().len(), 1);

    let bad = app.post_as("/api/v1/transaction-terms", json!({"title": "", "terms_text": "x", "currency_code": "gbp", "value_amount": -1, "valid_from_tstamp_utc": "2026-12-01T00:00:00Z", "valid_to_tstamp_utc": "2026-11-01T00:00:00Z"}), &ka).await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);
    let mut found = locs(&bad.body);
    found.sort();
    assert_eq!(
        found,
        [
            "body.currency_code",
            "body.title",
            "body.valid_to_tstamp_utc",
            "body.value_amount"
        ]
    );
    assert_eq!(
        app.post(
            "/api/v1/transaction-terms",
            json!({"title": "t", "terms_text": "x"})
        )
        .await
        .status,
        StatusCode::UNAUTHORIZED
    );
}

async fn signed_term(app: &TestApp, key: &str) -> String {
    let t = term(
        app,
        key,
        json!({"title": "Deposit terms", "terms_text": "A deposit of 250 GBP."}),
    )
    .await;
    let s = app
        .post_as(
            "/api/v1/transaction-terms-signatures",
            json!({"transaction_term_id": t["id"], "signature": "sig"}),
            key,
        )
        .await;
    assert_eq!(s.status, StatusCode::CREATED, "{}", s.text);
    s.body["id"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn certificates_are_checked_immutable_and_counted_in_gbp() {
    let app = TestApp::new().await;
    let (a, ka) = app.register("Signer").await;
    let (_, kb) = app.register("Other").await;
    let sig = signed_term(&app, &ka).await;
    let other = app.post_as("/api/v1/committed-trust-certificates", json!({"transaction_terms_signature_id": sig, "currency_code": "GBP", "value_amount": 10}), &kb).await;
    assert_eq!(other.status, StatusCode::FORBIDDEN, "{}", other.text);
    assert_eq!(other.body["code"], "FORBIDDEN");
    for (amount, currency) in [
        (json!(0), "GBP"),
        (json!(-5), "GBP"),
        (json!("abc"), "GBP"),
        (json!("1e3"), "GBP"),
        (json!(5), "gbp"),
        (json!(5), "GBPP"),
    ] {
        let r = app.post_as("/api/v1/committed-trust-certificates", json!({"transaction_terms_signature_id": sig, "currency_code": currency, "value_amount": amount}), &ka).await;
        assert_eq!(
            r.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{amount} {currency}: {}",
            r.text
        );
    }
    let created = app.post_as("/api/v1/committed-trust-certificates", json!({"transaction_terms_signature_id": sig, "currency_code": "GBP", "value_amount": "250.00", "metadata": {"purpose": "deposit"}}), &ka).await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
    assert_eq!(created.body["agent_id"], a.to_string());
    assert_eq!(created.body["ledger_seq"], 1);
    assert_eq!(created.body["prev_hash"], GENESIS_HASH);
    app.post_as("/api/v1/committed-trust-certificates", json!({"transaction_terms_signature_id": sig, "currency_code": "EUR", "value_amount": 99.5}), &ka).await;
    let agent = app.get(&format!("/api/v1/agents/{a}")).await;
    assert_eq!(agent.body["truth_certificate_amount_gbp"], "250.00");
    let eur = app
        .get("/api/v1/committed-trust-certificates?currency_code=EUR")
        .await;
    assert_eq!(eur.body.as_array().unwrap().len(), 1);
    assert_eq!(
        app.get("/api/v1/committed-trust-certificates?currency_code=eu")
            .await
            .status,
        StatusCode::UNPROCESSABLE_ENTITY
    );

    let id = created.body["id"].as_str().unwrap();
    for method in ["PUT", "PATCH", "DELETE"] {
        let r = app
            .request(
                method,
                &format!("/api/v1/committed-trust-certificates/{id}"),
                Some(json!({"value_amount": 1})),
                Some(&ka),
            )
            .await;
        assert_eq!(r.status, StatusCode::METHOD_NOT_ALLOWED, "{method}");
    }
    assert_eq!(
        app.get(&format!("/api/v1/committed-trust-certificates/{id}"))
            .await
            .body,
        created.body
    );
    let refused = sqlx::query("UPDATE committed_trust_certificates SET value_amount = 1")
        .execute(app.pool())
        .await;
    assert!(refused.is_err(), "the database refuses updates");
    assert!(
        sqlx::query("DELETE FROM committed_trust_certificates")
            .execute(app.pool())
            .await
            .is_err()
    );
}

/// Fetches every proof page from the first certificate to the head and verifies the chain.
async fn verify_ledger(app: &TestApp) -> Result<i64, String> {
    let head = app
        .get("/api/v1/committed-trust-certificates/ledger/head")
        .await
        .body;
    let mut certificates: Vec<Value> = Vec::new();
    let first = app
        .get("/api/v1/committed-trust-certificates?limit=500")
        .await
        .body;
    let Some(first_id) = first
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["ledger_seq"] == 1)
        .map(|c| c["id"].clone())
    else {
        return Ok(0);
    };
    let mut next = first_id.as_str().unwrap().to_string();
    loop {
        let proof = app
            .get(&format!(
                "/api/v1/committed-trust-certificates/{next}/proof?limit=7"
            ))
            .await
            .body;
        assert_eq!(proof["algorithm"], ledger::ALGORITHM);
        let chain = proof["chain"].as_array().unwrap().clone();
        let skip = usize::from(!certificates.is_empty());
        certificates.extend(chain.iter().skip(skip).cloned());
        if proof["reaches_head"] == true {
            break;
        }
        next = chain.last().unwrap()["id"].as_str().unwrap().to_string();
    }
    ledger::verify_chain(GENESIS_HASH, &certificates)?;
    let last = certificates.last().unwrap();
    assert_eq!(last["entry_hash"], head["entry_hash"]);
    Ok(last["ledger_seq"].as_i64().unwrap())
}

#[tokio::test]
async fn concurrent_certificates_form_one_unbroken_chain_and_tampering_is_detected() {
    let app = TestApp::new().await;
    let mut signatures = Vec::new();
    for i in 0..4 {
        let (_, key) = app.register(&format!("Agent {i}")).await;
        signatures.push((key.clone(), signed_term(&app, &key).await));
    }
    let posts = (0..20).map(|i| {
        let (key, sig) = signatures[i % 4].clone();
        let app = &app;
        async move {
            app.post_as("/api/v1/committed-trust-certificates", json!({"transaction_terms_signature_id": sig, "currency_code": "GBP", "value_amount": i + 1}), &key).await.status
        }
    });
    let statuses = futures::future::join_all(posts).await;
    assert!(
        statuses.iter().all(|s| *s == StatusCode::CREATED),
        "{statuses:?}"
    );
    assert_eq!(verify_ledger(&app).await, Ok(20));

    // Altered behind the service's back (trigger off for this test only): verification fails.
    let mut conn = app.pool().acquire().await.unwrap();
    sqlx::query("ALTER TABLE committed_trust_certificates DISABLE TRIGGER committed_trust_certificates_immutable").execute(&mut *conn).await.unwrap();
    sqlx::query(
        "UPDATE committed_trust_certificates SET value_amount = 1000000 WHERE ledger_seq = 7",
    )
    .execute(&mut *conn)
    .await
    .unwrap();
    let broken = verify_ledger(&app).await;
    assert!(
        broken.as_ref().is_err_and(|e| e.contains("ledger_seq 7")),
        "{broken:?}"
    );
}

#[tokio::test]
async fn rest_and_graphql_show_the_same_terms_signatures_and_certificates() {
    let app = TestApp::new().await;
    let (a, ka) = app.register("Signer").await;
    let sig = signed_term(&app, &ka).await;
    let cert = app.post_as("/api/v1/committed-trust-certificates", json!({"transaction_terms_signature_id": sig, "currency_code": "GBP", "value_amount": 5}), &ka).await.body;
    let q = "query($id: UUID!, $a: UUID!) {
        committedTrustCertificate(id: $id) { id entryHash valueAmount agent { id truthCertificateAmountGbp }
          signature { id term { title signatures { signedBy { id } } } certificates { id } }
          proof { reachesHead chain { ledgerSeq } head { ledgerSeq } } }
        agent(id: $a) { transactionTerms { id } signatures { id } certificates { id } }
        certificateLedgerHead { ledgerSeq entryHash } }";
    let r = app
        .graphql(q, json!({"id": cert["id"], "a": a}), None)
        .await;
    assert!(r.body["errors"].is_null(), "{}", r.text);
    let c = &r.body["data"]["committedTrustCertificate"];
    assert_eq!(c["entryHash"], cert["entry_hash"]);
    assert_eq!(c["valueAmount"], cert["value_amount"]);
    assert_eq!(c["agent"]["truthCertificateAmountGbp"], "5");
    assert_eq!(c["signature"]["id"], sig.as_str());
    assert_eq!(
        c["signature"]["term"]["signatures"][0]["signedBy"]["id"],
        a.to_string()
    );
    assert_eq!(c["signature"]["certificates"][0]["id"], cert["id"]);
    assert_eq!(c["proof"]["reachesHead"], true);
    assert_eq!(r.body["data"]["agent"]["certificates"][0]["id"], cert["id"]);
    assert_eq!(
        r.body["data"]["certificateLedgerHead"]["entryHash"],
        cert["entry_hash"]
    );

    let m = "mutation($s: UUID!) { createCommittedTrustCertificate(input: {transactionTermsSignatureId: $s, currencyCode: \"gbp\", valueAmount: \"1\"}) { id } }";
    let refused = app.graphql(m, json!({"s": sig}), Some(&ka)).await;
    assert_eq!(
        refused.body["errors"][0]["extensions"]["code"], "VALIDATION_ERROR",
        "{}",
        refused.text
    );
    let t = "mutation { createTransactionTerm(input: {title: \"GraphQL terms\", termsText: \"Text\"}) { id contentSha256 createdBy { id } } }";
    let made = app.graphql(t, json!({}), Some(&ka)).await;
    let id = made.body["data"]["createTransactionTerm"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let rest = app.get(&format!("/api/v1/transaction-terms/{id}")).await;
    assert_eq!(
        rest.body["content_sha256"],
        made.body["data"]["createTransactionTerm"]["contentSha256"]
    );
}

#[tokio::test]
async fn every_answer_of_these_routes_matches_its_openapi_schema() {
    let app = TestApp::new().await;
    let (a, ka) = app.register("Alice").await;
    let (b, kb) = app.register("Bob").await;
    let check = |method: &str, path: &str, r: &crate::harness::TestResponse| {
        assert_matches_openapi(method, path, r.status, &r.body);
    };
    let empty_head = app
        .get("/api/v1/committed-trust-certificates/ledger/head")
        .await;
    check(
        "GET",
        "/api/v1/committed-trust-certificates/ledger/head",
        &empty_head,
    );

    let sent = app.post_as("/api/v1/messages", json!({"recipient_agent_id": b, "message_content": "hi", "attachments": [{"href": "https://x.example"}]}), &ka).await;
    check("POST", "/api/v1/messages", &sent);
    let id = sent.body["id"].as_str().unwrap();
    check(
        "POST",
        "/api/v1/messages",
        &app.post_as("/api/v1/messages", json!({"message_content": ""}), &ka)
            .await,
    );
    check(
        "POST",
        "/api/v1/messages",
        &app.post("/api/v1/messages", json!({})).await,
    );
    check(
        "GET",
        "/api/v1/messages",
        &app.get_as("/api/v1/messages?unread_only=true", &kb).await,
    );
    check(
        "GET",
        "/api/v1/messages/{message_id}",
        &app.get_as(&format!("/api/v1/messages/{id}"), &kb).await,
    );
    check(
        "GET",
        "/api/v1/messages/{message_id}",
        &app.get_as(&format!("/api/v1/messages/{}", uuid::Uuid::now_v7()), &kb)
            .await,
    );
    let read = app
        .request(
            "PATCH",
            &format!("/api/v1/messages/{id}/read"),
            None,
            Some(&kb),
        )
        .await;
    assert_eq!(read.status, StatusCode::OK);
    check("PATCH", "/api/v1/messages/{message_id}/read", &read);

    let t = app.post_as("/api/v1/transaction-terms", json!({"title": "T", "terms_text": "Text", "visibility": "private", "offered_to_agent_ids": [b], "currency_code": "GBP", "value_amount": 1.5, "valid_to_tstamp_utc": "2099-01-01T00:00:00Z"}), &ka).await;
    check("POST", "/api/v1/transaction-terms", &t);
    let tid = t.body["id"].as_str().unwrap();
    check(
        "GET",
        "/api/v1/transaction-terms",
        &app.get_as(
            &format!("/api/v1/transaction-terms?created_by_agent_id={a}"),
            &kb,
        )
        .await,
    );
    check(
        "GET",
        "/api/v1/transaction-terms/{transaction_term_id}",
        &app.get_as(&format!("/api/v1/transaction-terms/{tid}"), &kb)
            .await,
    );
    let s = app
        .post_as(
            "/api/v1/transaction-terms-signatures",
            json!({"transaction_term_id": tid, "signature": "sig"}),
            &kb,
        )
        .await;
    check("POST", "/api/v1/transaction-terms-signatures", &s);
    let sid = s.body["id"].as_str().unwrap();
    check(
        "POST",
        "/api/v1/transaction-terms-signatures",
        &app.post_as(
            "/api/v1/transaction-terms-signatures",
            json!({"transaction_term_id": tid, "signature": "sig"}),
            &kb,
        )
        .await,
    );
    check(
        "GET",
        "/api/v1/transaction-terms-signatures",
        &app.get_as("/api/v1/transaction-terms-signatures", &kb)
            .await,
    );
    check(
        "GET",
        "/api/v1/transaction-terms-signatures/{signature_id}",
        &app.get_as(&format!("/api/v1/transaction-terms-signatures/{sid}"), &kb)
            .await,
    );

    let c = app.post_as("/api/v1/committed-trust-certificates", json!({"transaction_terms_signature_id": sid, "currency_code": "GBP", "value_amount": "2.50"}), &kb).await;
    check("POST", "/api/v1/committed-trust-certificates", &c);
    check("POST", "/api/v1/committed-trust-certificates", &app.post_as("/api/v1/committed-trust-certificates", json!({"transaction_terms_signature_id": sid, "currency_code": "GBP", "value_amount": 1}), &ka).await);
    let cid = c.body["id"].as_str().unwrap();
    check(
        "GET",
        "/api/v1/committed-trust-certificates",
        &app.get("/api/v1/committed-trust-certificates?currency_code=GBP")
            .await,
    );
    check(
        "GET",
        "/api/v1/committed-trust-certificates/{certificate_id}",
        &app.get(&format!("/api/v1/committed-trust-certificates/{cid}"))
            .await,
    );
    check(
        "GET",
        "/api/v1/committed-trust-certificates/{certificate_id}/proof",
        &app.get(&format!("/api/v1/committed-trust-certificates/{cid}/proof"))
            .await,
    );
    check(
        "GET",
        "/api/v1/committed-trust-certificates/ledger/head",
        &app.get("/api/v1/committed-trust-certificates/ledger/head")
            .await,
    );
    check(
        "GET",
        "/api/v1/agents/{agent_id}",
        &app.get(&format!("/api/v1/agents/{b}")).await,
    );
}

#[tokio::test]
async fn a_paused_agent_reads_but_sends_publishes_signs_and_certifies_nothing() {
    let app = TestApp::new().await;
    let (a, ka) = app.register("Pausable").await;
    let (b, _) = app.register("Bob").await;
    let sig = signed_term(&app, &ka).await;
    let t = app
        .get(&format!("/api/v1/transaction-terms-signatures/{sig}"))
        .await
        .body["transaction_term_id"]
        .clone();
    app.set_agent_status(a, AgentStatus::Paused).await;
    let writes = [
        (
            "/api/v1/messages",
            json!({"recipient_agent_id": b, "message_content": "hi"}),
        ),
        (
            "/api/v1/transaction-terms",
            json!({"title": "T", "terms_text": "x"}),
        ),
        (
            "/api/v1/transaction-terms-signatures",
            json!({"transaction_term_id": t, "signature": "s"}),
        ),
        (
            "/api/v1/committed-trust-certificates",
            json!({"transaction_terms_signature_id": sig, "currency_code": "GBP", "value_amount": 1}),
        ),
    ];
    for (path, body) in writes {
        let r = app.post_as(path, body, &ka).await;
        assert_eq!(r.status, StatusCode::FORBIDDEN, "{path}: {}", r.text);
        assert!(r.body["detail"].as_str().unwrap().contains("paused"));
    }
    assert_eq!(
        app.get_as("/api/v1/messages", &ka).await.status,
        StatusCode::OK
    );
}
