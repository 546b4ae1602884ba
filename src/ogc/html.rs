//! The HTML encoding of the OGC API Features resources (the standard's HTML conformance class):
//! plain pages in the documentation's frame, every link a browser can follow.

use super::collections::{Collection, OgcCollection, OgcCollections};
use super::feature::{OgcFeature, OgcFeatureCollection, OgcLink};
use crate::web::layout::{escape, page};
use serde_json::Value;

const NAV: &str = "<ul><li><a href=\"/\">Landing page</a></li>\
    <li><a href=\"/conformance?f=html\">Conformance</a></li>\
    <li><a href=\"/collections?f=html\">Collections</a></li>\
    <li><a href=\"/api-docs\">Documentation</a></li></ul>";

fn anchor(href: &str, text: &str) -> String {
    format!("<a href=\"{}\">{}</a>", escape(href), escape(text))
}

fn links(links: &[OgcLink]) -> String {
    let items: String = links
        .iter()
        .map(|l| {
            format!(
                "<li>{} <code>{}</code> ({})</li>",
                anchor(&l.href, &l.title),
                l.rel,
                l.media_type
            )
        })
        .collect();
    format!("<ul>{items}</ul>")
}

pub fn conformance(classes: &[&str]) -> String {
    let items: String = classes
        .iter()
        .map(|c| format!("<li><code>{}</code></li>", escape(c)))
        .collect();
    page(
        "Conformance",
        NAV,
        &format!("<h1>Conformance</h1><ul>{items}</ul>"),
    )
}

fn collection_body(c: &OgcCollection) -> String {
    let bbox = c
        .extent
        .spatial
        .bbox
        .first()
        .map(|b| format!("{b:?}"))
        .unwrap_or_default();
    format!(
        "<h2>{}</h2><p>{}</p><p>Extent (CRS84): <code>{}</code></p>{}",
        escape(c.title),
        escape(c.description),
        escape(&bbox),
        links(&c.links)
    )
}

pub fn collections(all: &OgcCollections) -> String {
    let body: String = all.collections.iter().map(collection_body).collect();
    page("Collections", NAV, &format!("<h1>Collections</h1>{body}"))
}

pub fn collection(c: &OgcCollection) -> String {
    page(c.title, NAV, &collection_body(c))
}

/// A property as a table cell: text as it is, anything else as JSON.
fn cell(value: &Value) -> String {
    match value {
        Value::String(s) => escape(s),
        Value::Null => String::new(),
        other => format!("<code>{}</code>", escape(&other.to_string())),
    }
}

fn name_of(f: &OgcFeature) -> String {
    ["display_name", "title"]
        .iter()
        .find_map(|k| f.properties.get(*k).and_then(Value::as_str))
        .unwrap_or("(untitled)")
        .to_string()
}

pub fn items(c: Collection, page_of: &OgcFeatureCollection) -> String {
    let rows: String = page_of
        .features
        .iter()
        .map(|f| {
            let href = format!("/collections/{}/items/{}?f=html", c.id(), f.id);
            let [lng, lat] = f.geometry.coordinates;
            format!(
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{lat:.5}, {lng:.5}</td><td>{}</td></tr>",
                anchor(&href, &name_of(f)),
                cell(f.properties.get("city").unwrap_or(&Value::Null)),
                cell(f.properties.get("country_code").unwrap_or(&Value::Null)),
                cell(
                    f.properties
                        .get("updated_at_tstamp_utc")
                        .unwrap_or(&Value::Null)
                ),
            )
        })
        .collect();
    let body = format!(
        "<h1>{}</h1><p>{} features on this page.</p>\
         <table><thead><tr><th>name</th><th>city</th><th>country</th><th>lat, lng</th><th>last change</th></tr></thead>\
         <tbody>{rows}</tbody></table>{}",
        escape(c.title()),
        page_of.number_returned,
        links(&page_of.links)
    );
    page(c.title(), NAV, &body)
}

pub fn item(c: Collection, f: &OgcFeature) -> String {
    let rows: String = f
        .properties
        .iter()
        .map(|(k, v)| {
            format!(
                "<tr><td><code>{}</code></td><td>{}</td></tr>",
                escape(k),
                cell(v)
            )
        })
        .collect();
    let [lng, lat] = f.geometry.coordinates;
    let body = format!(
        "<h1>{}</h1><p>{} <code>{}</code> at {lat:.6}, {lng:.6}</p>\
         <table><tbody>{rows}</tbody></table>{}",
        escape(&name_of(f)),
        escape(c.title()),
        f.id,
        links(&f.links)
    );
    page(&name_of(f), NAV, &body)
}
