//! Cursor paging of the REST lists: every list takes an opaque `after` and answers, when a next
//! page exists, `Link: <…>; rel="next"` and `X-Next-Cursor`; pages read one after the other hold
//! every row exactly once, even while rows arrive; a cursor the list did not write is a 422 at
//! `query.after`; the OpenAPI document declares the parameter and both headers on every list.

use crate::harness::{TestApp, TestResponse, east, entity_entry};
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use serde_json::{Value, json};

const MAN: (f64, f64) = (53.4808, -2.2426);

fn next_cursor(r: &TestResponse) -> Option<String> {
    r.headers
        .get("x-next-cursor")
        .map(|v| v.to_str().unwrap().to_string())
}

fn link(r: &TestResponse) -> Option<String> {
    r.headers
        .get(header::LINK)
        .map(|v| v.to_str().unwrap().to_string())
}

/// The URL of a `Link: <url>; rel="next"` header.
fn next_url(link: &str) -> &str {
    let (url, rel) = link.split_once(">; ").expect("<url>; rel");
    assert_eq!(rel, "rel=\"next\"");
    url.strip_prefix('<').unwrap()
}

fn ids(page: &Value) -> Vec<String> {
    page.as_array()
        .unwrap_or_else(|| panic!("not an array: {page}"))
        .iter()
        .map(|row| row["id"].as_str().unwrap().to_string())
        .collect()
}

async fn create_principal(app: &TestApp, name: &str) {
    let r = app
        .post(
            "/api/v1/principals",
            json!({"principal_type": "company", "display_name": name}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
}

/// Follows `Link: rel="next"` from `first` to the end; returns every page's ids in order, and
/// calls `between` after each page but the last.
async fn read_all(app: &TestApp, first: &str, mut between: impl AsyncFnMut(usize)) -> Vec<String> {
    let mut url = first.to_string();
    let mut all = Vec::new();
    for page in 0.. {
        let r = app.get(&url).await;
        assert_eq!(r.status, StatusCode::OK, "{url}: {}", r.text);
        let rows = ids(&r.body);
        all.extend(rows.iter().cloned());
        let (Some(link), Some(cursor)) = (link(&r), next_cursor(&r)) else {
            assert!(
                link(&r).is_none() && next_cursor(&r).is_none(),
                "both or neither"
            );
            break;
        };
        assert!(!rows.is_empty(), "a next page after an empty one");
        url = next_url(&link).to_string();
        assert!(url.ends_with(&format!("after={cursor}")), "{url}");
        between(page).await;
    }
    all
}

#[tokio::test]
async fn pages_of_a_list_hold_every_row_once_even_while_rows_arrive() {
    let app = TestApp::new().await;
    for n in 0..7 {
        create_principal(&app, &format!("Principal {n}")).await;
    }
    let before = ids(&app.get("/api/v1/principals?limit=500").await.body);
    assert!(before.len() >= 7);

    // Two more principals arrive after each page: newer than every page read, so on none of them.
    let mut arrived = 0;
    let paged = read_all(&app, "/api/v1/principals?limit=3", async |_| {
        for _ in 0..2 {
            arrived += 1;
            create_principal(&app, &format!("Late {arrived}")).await;
        }
    })
    .await;
    assert_eq!(paged, before, "no gap, no duplicate, the same order");
    assert!(arrived >= 4, "rows arrived between pages");
    // A new first page starts with them.
    let fresh = ids(&app.get("/api/v1/principals?limit=500").await.body);
    assert_eq!(fresh.len(), before.len() + arrived);
    assert_eq!(&fresh[arrived..], &before[..]);
}

#[tokio::test]
async fn a_list_inside_a_box_pages_to_the_end_keeping_its_filters() {
    let app = TestApp::new().await;
    let admin = app.admin_key().await;
    let (_, key) = app.register("Box Pager").await;
    let names = [
        "Alder Bakery",
        "Birch Bookshop",
        "Cedar Cycles",
        "Damson Dentist",
        "Elm Electricals",
    ];
    for (i, name) in names.iter().enumerate() {
        let (lat, lng) = east(MAN.0, MAN.1, 400.0 * i as f64);
        let r = app
            .publish(&key, &admin, entity_entry(name, lat, lng, json!({})))
            .await;
        assert_eq!(r["link_type"], "created", "{r}");
    }
    // One far away, outside the box.
    app.publish(
        &key,
        &admin,
        entity_entry("Oslo Optician", 59.91, 10.75, json!({})),
    )
    .await;
    let bbox = "bbox=-2.30,53.45,-2.15,53.50";
    let all = ids(&app
        .get(&format!("/api/v1/entities?{bbox}&limit=500"))
        .await
        .body);
    assert_eq!(all.len(), names.len());

    let first = format!("/api/v1/entities?{bbox}&status=active&limit=2");
    let r = app.get(&first).await;
    let url = next_url(&link(&r).expect("a next page")).to_string();
    assert!(
        url.starts_with(
            "/api/v1/entities?bbox=-2.30%2C53.45%2C-2.15%2C53.50&status=active&limit=2&after="
        ),
        "the caller's parameters, in order, then after: {url}"
    );
    let paged = read_all(&app, &first, async |_| {}).await;
    assert_eq!(paged, all);

    // GeoJSON pages carry the same headers.
    let r = app.get(&format!("{first}&f=geojson")).await;
    assert_eq!(r.body["type"], "FeatureCollection");
    assert_eq!(r.body["features"].as_array().unwrap().len(), 2);
    assert!(next_url(&link(&r).unwrap()).contains("f=geojson"));
}

#[tokio::test]
async fn the_next_link_is_absolute_and_replaces_the_cursor_it_was_given() {
    let app = TestApp::new().await;
    for n in 0..5 {
        create_principal(&app, &format!("Linked {n}")).await;
    }
    let get = |path: String| {
        let request = Request::builder()
            .uri(path)
            .header(header::HOST, "records.example.org:8080")
            .header("x-forwarded-proto", "https")
            .body(Body::empty())
            .unwrap();
        app.send(request)
    };
    let first = get("/api/v1/principals?limit=2".into()).await;
    let url = next_url(&link(&first).unwrap()).to_string();
    let prefix = "https://records.example.org:8080/api/v1/principals?limit=2&after=";
    assert!(url.starts_with(prefix), "{url}");
    let second = get(url
        .trim_start_matches("https://records.example.org:8080")
        .into())
    .await;
    let url2 = next_url(&link(&second).unwrap()).to_string();
    assert!(url2.starts_with(prefix), "{url2}");
    assert_eq!(url2.matches("after=").count(), 1, "{url2}");
    assert_ne!(url, url2);
    // The last page says nothing more.
    let all = ids(&app.get("/api/v1/principals?limit=500").await.body);
    let r = app
        .get(&format!("/api/v1/principals?limit={}", all.len()))
        .await;
    assert!(link(&r).is_none() && next_cursor(&r).is_none());
}

/// Every GET under /api/v1 answering a JSON array, with its path parameters filled in.
fn lists(doc: &Value) -> Vec<String> {
    let mut lists = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        let Some(get) = item.get("get") else { continue };
        let ok = &get["responses"]["200"];
        if !path.starts_with("/api/v1/")
            || ok["content"]["application/json"]["schema"]["type"] != "array"
        {
            continue;
        }
        let parameters = get["parameters"].as_array().cloned().unwrap_or_default();
        assert!(
            parameters
                .iter()
                .any(|p| p["name"] == "after" && p["in"] == "query"),
            "{path} takes no `after`"
        );
        for name in ["Link", "X-Next-Cursor"] {
            assert!(
                ok["headers"][name]["description"].is_string(),
                "{path} does not declare {name}"
            );
        }
        let concrete: Vec<String> = path
            .split('/')
            .map(|segment| {
                if segment.starts_with('{') {
                    uuid::Uuid::now_v7().to_string()
                } else {
                    segment.to_string()
                }
            })
            .collect();
        lists.push(concrete.join("/"));
    }
    lists
}

#[tokio::test]
async fn every_list_declares_its_cursor_and_refuses_one_it_did_not_write_at_query_after() {
    let app = TestApp::new().await;
    let (_, key) = app.register("Cursor Tester").await;
    for n in 0..2 {
        create_principal(&app, &format!("Cursor {n}")).await;
    }
    let foreign = next_cursor(&app.get("/api/v1/principals?limit=1").await).unwrap();
    let doc = app.get("/openapi.json").await.body;
    let lists = lists(&doc);
    assert!(lists.len() >= 19, "{lists:?}");
    let mut edited = foreign.clone();
    let last = if edited.ends_with('2') { "3" } else { "2" };
    edited.replace_range(edited.len() - 1.., last);
    for list in &lists {
        // A list whose path is not the principals' cannot read their cursor.
        let bad: Vec<&str> = if list == "/api/v1/principals" {
            vec!["not-a-cursor", &edited]
        } else {
            vec!["not-a-cursor", &edited, &foreign]
        };
        for cursor in bad {
            let r = app.get_as(&format!("{list}?after={cursor}"), &key).await;
            assert_eq!(
                r.status,
                StatusCode::UNPROCESSABLE_ENTITY,
                "{list}: {}",
                r.text
            );
            assert_eq!(
                r.body["detail"][0]["loc"],
                json!(["query", "after"]),
                "{list}: {}",
                r.text
            );
        }
    }
    // Bounding-box lists too, and a bad limit is reported with it.
    let r = app
        .get("/api/v1/listings?bbox=-3,53,-2,54&after=x&limit=0")
        .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        crate::harness::locs(&r.body),
        ["query.limit", "query.after"]
    );
}
