use crate::harness::{TestApp, locs};
use axum::body::Body;
use axum::http::{Request, StatusCode};

/// (form field name, file name, declared content type, bytes)
pub(crate) type Part<'a> = (&'a str, Option<&'a str>, Option<&'a str>, &'a [u8]);

const PNG: &[u8] =
    b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0\x1f\x15\xc4\x89";

pub(crate) fn multipart(key: &str, parts: &[Part<'_>]) -> Request<Body> {
    let boundary = "XBOUNDARYX";
    let mut body = Vec::new();
    for (name, filename, content_type, bytes) in parts {
        body.extend_from_slice(
            format!("--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"").as_bytes(),
        );
        if let Some(f) = filename {
            body.extend_from_slice(format!("; filename=\"{f}\"").as_bytes());
        }
        body.extend_from_slice(b"\r\n");
        if let Some(t) = content_type {
            body.extend_from_slice(format!("Content-Type: {t}\r\n").as_bytes());
        }
        body.extend_from_slice(b"\r\n");
        body.extend_from_slice(bytes);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    Request::post("/api/v1/space-time-entries")
        .header("authorization", format!("Bearer {key}"))
        .header(
            "content-type",
            format!("multipart/form-data; boundary={boundary}"),
        )
        .body(Body::from(body))
        .unwrap()
}

const ENTRY: &[u8] = br#"{"entry_type": "entity", "latitude": 53.48, "longitude": -2.24, "context": {"name": "Evidence Ltd"}}"#;

#[tokio::test]
async fn attachments_round_trip_and_are_stored_content_addressed() {
    let app = TestApp::new().await;
    let (_, key) = app.register("Uploader").await;
    let r = app
        .send(multipart(
            &key,
            &[
                ("entry", None, None, ENTRY),
                ("attachments", Some("pixel.png"), Some("image/png"), PNG),
                (
                    "attachments",
                    Some("notes.txt"),
                    None,
                    b"seen on the shop front",
                ),
                (
                    "attachments",
                    Some("report.pdf"),
                    Some("application/octet-stream"),
                    b"%PDF-1.4\n%evidence\n",
                ),
            ],
        ))
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let attachments = r.body["attachments"].as_array().unwrap();
    assert_eq!(attachments.len(), 3);
    assert_eq!(attachments[0]["media_type"], "image/png");
    assert_eq!(attachments[0]["filename"], "pixel.png");
    assert_eq!(attachments[1]["media_type"], "text/plain");
    assert_eq!(attachments[2]["media_type"], "application/pdf");
    assert_eq!(attachments[0]["size_bytes"], PNG.len());
    let sha = attachments[0]["sha256"].as_str().unwrap();
    assert!(attachments[0]["uri"].as_str().unwrap().ends_with(sha));
    let stored = app
        .state
        .config
        .data_dir
        .join("attachments")
        .join(&sha[..2])
        .join(sha);
    assert_eq!(std::fs::read(stored).unwrap(), PNG);
    let download = app
        .get(attachments[0]["download_url"].as_str().unwrap())
        .await;
    assert_eq!(download.status, StatusCode::OK);
    assert_eq!(download.headers["content-type"], "image/png");
    let read = app
        .get(&format!(
            "/api/v1/space-time-entries/{}",
            r.body["id"].as_str().unwrap()
        ))
        .await;
    assert_eq!(read.body["attachments"], r.body["attachments"]);
    assert_eq!(
        app.get(&format!("/api/v1/attachments/{}", "0".repeat(64)))
            .await
            .status,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn unsupported_or_disguised_attachments_are_415_and_nothing_is_stored() {
    let app = TestApp::new().await;
    let (_, key) = app.register("Disguiser").await;
    let exe = b"MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff\x00\x00";
    let r = app
        .send(multipart(
            &key,
            &[
                ("entry", None, None, ENTRY),
                ("attachments", Some("a.exe"), None, exe),
            ],
        ))
        .await;
    assert_eq!(r.status, StatusCode::UNSUPPORTED_MEDIA_TYPE, "{}", r.text);
    let disguised = app
        .send(multipart(
            &key,
            &[
                ("entry", None, None, ENTRY),
                (
                    "attachments",
                    Some("a.png"),
                    Some("image/png"),
                    b"%PDF-1.4\n",
                ),
            ],
        ))
        .await;
    assert_eq!(disguised.status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert_eq!(
        app.count("SELECT count(*) FROM space_time_entries").await,
        0
    );
}

#[tokio::test]
async fn oversized_attachments_are_413_and_too_many_files_422() {
    let app = TestApp::new().await;
    let (_, key) = app.register("Big").await;
    let big = vec![b'a'; 10 * 1024 * 1024 + 1];
    let r = app
        .send(multipart(
            &key,
            &[
                ("entry", None, None, ENTRY),
                ("attachments", Some("big.txt"), None, &big),
            ],
        ))
        .await;
    assert_eq!(r.status, StatusCode::PAYLOAD_TOO_LARGE, "{}", r.text);
    let many: Vec<Part<'_>> = std::iter::once(("entry", None, None, ENTRY))
        .chain((0..17).map(|_| ("attachments", Some("n.txt"), None, &b"note"[..])))
        .collect();
    let too_many = app.send(multipart(&key, &many)).await;
    assert_eq!(
        too_many.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "{}",
        too_many.text
    );
    assert_eq!(locs(&too_many.body), ["body.attachments"]);
    let total: Vec<u8> = vec![b'b'; 9 * 1024 * 1024];
    let parts: Vec<Part<'_>> = std::iter::once(("entry", None, None, ENTRY))
        .chain((0..3).map(|_| ("attachments", Some("t.txt"), None, &total[..])))
        .collect();
    assert_eq!(
        app.send(multipart(&key, &parts)).await.status,
        StatusCode::PAYLOAD_TOO_LARGE
    );
    assert_eq!(
        app.count("SELECT count(*) FROM space_time_entries").await,
        0
    );
}

#[tokio::test]
async fn multipart_problems_are_located_under_body_entry() {
    let app = TestApp::new().await;
    let (_, key) = app.register("Formy").await;
    let missing = app
        .send(multipart(
            &key,
            &[("attachments", Some("n.txt"), None, b"note")],
        ))
        .await;
    assert_eq!(locs(&missing.body), ["body.entry"]);
    let bad = app
        .send(multipart(
            &key,
            &[(
                "entry",
                None,
                None,
                br#"{"entry_type": "entity", "latitude": 1}"#,
            )],
        ))
        .await;
    assert_eq!(locs(&bad.body), ["body.entry.longitude"]);
    let unknown = app
        .send(multipart(
            &key,
            &[("entry", None, None, ENTRY), ("photo", None, None, b"x")],
        ))
        .await;
    assert_eq!(locs(&unknown.body), ["body.photo"]);
}

#[tokio::test]
async fn downloads_find_attachments_by_an_index_on_their_hash() {
    let app = TestApp::new().await;
    let indexed: bool = sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM pg_indexes WHERE tablename = 'space_time_entry_attachments'
         AND indexdef LIKE '%(sha256)%')",
    )
    .fetch_one(app.pool())
    .await
    .unwrap();
    assert!(indexed);
    let unknown = app
        .get(&format!("/api/v1/attachments/{}", "a".repeat(64)))
        .await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
    let malformed = app.get("/api/v1/attachments/not-a-hash").await;
    assert_eq!(malformed.status, StatusCode::NOT_FOUND);
}
