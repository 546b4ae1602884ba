//! The `filters` mini-language and `response_must_include_dimensions`.
//!
//! `filters`: comma-separated `key:value` pairs; `|` separates alternatives within one value, and
//! a repeated key adds alternatives. All keys must hold (AND), any alternative of a key may (OR):
//! `country_code:GB|IE,city:Manchester,categories:plumber,status:active`.

use std::collections::BTreeMap;

/// Keys and the record kinds that have them.
pub const FILTER_KEYS: &[&str] = &[
    "country_code",
    "city",
    "categories",
    "status",
    "entity_type",
    "listing_type",
    "request_type",
    "currency_code",
];

pub const DIMENSIONS: &[&str] = &[
    "phone",
    "website_url",
    "email",
    "address_text",
    "city",
    "country_code",
    "description",
    "categories",
    "link_urls",
    "price_amount",
    "budget_amount",
    "currency_code",
    "availability_status",
    "contact_agent_id",
];

const MAX_FILTER_PAIRS: usize = 20;
const MAX_ALTERNATIVES: usize = 20;

pub type Filters = BTreeMap<String, Vec<String>>;

pub fn parse_filters(raw: &str) -> Result<Filters, String> {
    let mut filters = Filters::new();
    let pairs: Vec<&str> = raw
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    if pairs.len() > MAX_FILTER_PAIRS {
        return Err(format!("at most {MAX_FILTER_PAIRS} filters"));
    }
    for pair in pairs {
        let (key, value) = pair
            .split_once(':')
            .ok_or(format!("'{pair}' is not key:value"))?;
        let key = key.trim().to_ascii_lowercase();
        let key = if key == "category" {
            "categories".to_string()
        } else {
            key
        };
        if !FILTER_KEYS.contains(&key.as_str()) {
            return Err(format!(
                "unknown filter '{key}'; known: {}",
                FILTER_KEYS.join(", ")
            ));
        }
        let alternatives: Vec<String> = value
            .split('|')
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .map(|v| normalise(&key, v))
            .collect();
        if alternatives.is_empty() {
            return Err(format!("filter '{key}' has no value"));
        }
        let slot = filters.entry(key.clone()).or_default();
        slot.extend(alternatives);
        if slot.len() > MAX_ALTERNATIVES {
            return Err(format!(
                "filter '{key}' has more than {MAX_ALTERNATIVES} alternatives"
            ));
        }
    }
    Ok(filters)
}

/// Codes compare upper-case; categories and cities compare case-insensitively (in SQL).
fn normalise(key: &str, value: &str) -> String {
    match key {
        "country_code" | "currency_code" => value.to_ascii_uppercase(),
        _ => value.to_string(),
    }
}

pub fn parse_dimensions(raw: &str) -> Result<Vec<String>, String> {
    let mut dimensions = Vec::new();
    for name in raw.split(',').map(str::trim).filter(|d| !d.is_empty()) {
        if !DIMENSIONS.contains(&name) {
            return Err(format!(
                "unknown dimension '{name}'; known: {}",
                DIMENSIONS.join(", ")
            ));
        }
        if !dimensions.iter().any(|d| d == name) {
            dimensions.push(name.to_string());
        }
    }
    Ok(dimensions)
}

/// The dimensions a serialised record has (non-null, non-empty).
pub fn dimensions_present(record: &serde_json::Value) -> Vec<String> {
    use serde_json::Value;
    DIMENSIONS
        .iter()
        .filter(|d| match record.get(**d) {
            None | Some(Value::Null) => false,
            Some(Value::String(s)) => !s.trim().is_empty(),
            Some(Value::Array(a)) => !a.is_empty(),
            Some(_) => true,
        })
        .map(ToString::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_parse_into_keys_with_alternatives() {
        let f = parse_filters(
            "country_code:gb|ie, city:Manchester,category:plumber,categories:heating",
        )
        .unwrap();
        assert_eq!(f["country_code"], vec!["GB", "IE"]);
        assert_eq!(f["city"], vec!["Manchester"]);
        assert_eq!(f["categories"], vec!["plumber", "heating"]);
        assert!(parse_filters("").unwrap().is_empty());
    }

    #[test]
    fn unknown_keys_and_malformed_pairs_are_errors() {
        assert!(parse_filters("colour:red").is_err());
        assert!(parse_filters("city").is_err());
        assert!(parse_filters("city:").is_err());
        assert!(parse_filters("city:|").is_err());
    }

    #[test]
    fn dimensions_are_checked_and_detected() {
        assert_eq!(
            parse_dimensions("phone, website_url,phone").unwrap(),
            vec!["phone", "website_url"]
        );
        assert!(parse_dimensions("shoe_size").is_err());
        let record = serde_json::json!({"phone": "1", "website_url": "", "categories": ["a"], "email": null});
        assert_eq!(dimensions_present(&record), vec!["phone", "categories"]);
    }
}
