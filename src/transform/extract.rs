//! Entry `context` → the draft of a canonical record. Invalid content is a reason to reject the
//! entry (returned as `Err(reason)`), never a guess.

use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use serde_json::{Map, Value};
use std::str::FromStr;
use uuid::Uuid;

/// Context layers and links shared by every kind of record.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CommonDraft {
    pub description: Option<String>,
    pub categories: Vec<String>,
    pub link_urls: Vec<Value>,
    pub address_text: Option<String>,
    pub city: Option<String>,
    pub country_code: Option<String>,
    pub context_l0_routing: Map<String, Value>,
    pub context_l1_common: Map<String, Value>,
    pub context_l2_specific: Map<String, Value>,
    pub context_l2_available_features: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct EntityDraft {
    pub entity_type: String,
    pub display_name: String,
    pub legal_name: Option<String>,
    pub website_url: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub tags: Vec<String>,
    pub common: CommonDraft,
}

/// A listing (offer) or a request (need): the same shape from the two sides of a market.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OfferDraft {
    pub offer_type: String,
    pub title: String,
    pub amount: Option<Decimal>,
    pub currency_code: Option<String>,
    pub availability_status: Option<String>,
    pub parent_entity_id: Option<Uuid>,
    pub needed_from: Option<DateTime<Utc>>,
    pub needed_by: Option<DateTime<Utc>>,
    pub common: CommonDraft,
}

/// What an observation offers for finding the record it supports.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ObservationKeys {
    pub display_name: Option<String>,
    pub website_url: Option<String>,
    pub phone: Option<String>,
    pub country_code: Option<String>,
}

type Reason = String;

struct Reader<'a> {
    context: &'a Map<String, Value>,
}

impl<'a> Reader<'a> {
    fn text(&self, keys: &[&str], max: usize) -> Result<Option<String>, Reason> {
        for key in keys {
            match self.context.get(*key) {
                None | Some(Value::Null) => continue,
                Some(Value::String(s)) if s.trim().is_empty() => continue,
                Some(Value::String(s)) if s.chars().count() > max => {
                    return Err(format!("context.{key} is longer than {max} characters"));
                }
                Some(Value::String(s)) => return Ok(Some(s.trim().to_string())),
                Some(_) => return Err(format!("context.{key} must be a string")),
            }
        }
        Ok(None)
    }

    fn strings(&self, key: &str) -> Result<Vec<String>, Reason> {
        match self.context.get(key) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::String(s)) => Ok(vec![s.trim().to_string()]
                .into_iter()
                .filter(|s| !s.is_empty())
                .collect()),
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| {
                    v.as_str()
                        .map(|s| s.trim().to_string())
                        .ok_or(format!("context.{key} must hold strings"))
                })
                .filter(|r| r.as_ref().map_or(true, |s| !s.is_empty()))
                .collect(),
            Some(_) => Err(format!("context.{key} must be an array of strings")),
        }
    }

    fn object(&self, key: &str) -> Result<Map<String, Value>, Reason> {
        match self.context.get(key) {
            None | Some(Value::Null) => Ok(Map::new()),
            Some(Value::Object(map)) => Ok(map.clone()),
            Some(_) => Err(format!("context.{key} must be an object")),
        }
    }

    fn decimal(&self, key: &str) -> Result<Option<Decimal>, Reason> {
        let invalid = || format!("context.{key} must be a non-negative decimal");
        let value = match self.context.get(key) {
            None | Some(Value::Null) => return Ok(None),
            Some(Value::Number(n)) => Decimal::from_str(&n.to_string()).map_err(|_| invalid())?,
            Some(Value::String(s)) => {
                crate::domain::decimal::parse_decimal_str(s.trim()).map_err(|_| invalid())?
            }
            Some(_) => return Err(invalid()),
        };
        if value.is_sign_negative() {
            Err(invalid())
        } else {
            Ok(Some(value))
        }
    }

    fn timestamp(&self, key: &str) -> Result<Option<DateTime<Utc>>, Reason> {
        match self.text(&[key], 64)? {
            None => Ok(None),
            Some(s) => DateTime::parse_from_rfc3339(&s)
                .map(|t| Some(t.with_timezone(&Utc)))
                .map_err(|_| format!("context.{key} must be an ISO 8601 date-time")),
        }
    }

    fn uuid(&self, key: &str) -> Result<Option<Uuid>, Reason> {
        match self.text(&[key], 64)? {
            None => Ok(None),
            Some(s) => Uuid::parse_str(&s)
                .map(Some)
                .map_err(|_| format!("context.{key} must be a UUID")),
        }
    }

    fn country_code(&self) -> Result<Option<String>, Reason> {
        match self.text(&["country_code"], 2)? {
            Some(code) if code.len() == 2 && code.chars().all(|c| c.is_ascii_alphabetic()) => {
                Ok(Some(code.to_ascii_uppercase()))
            }
            Some(_) => Err("context.country_code must be an ISO 3166-1 alpha-2 code".into()),
            None => Ok(None),
        }
    }

    fn currency_code(&self) -> Result<Option<String>, Reason> {
        match self.text(&["currency_code"], 3)? {
            Some(code) if code.len() == 3 && code.chars().all(|c| c.is_ascii_alphabetic()) => {
                Ok(Some(code.to_ascii_uppercase()))
            }
            Some(_) => Err("context.currency_code must be an ISO 4217 code".into()),
            None => Ok(None),
        }
    }

    fn website(&self) -> Result<Option<String>, Reason> {
        let Some(raw) = self.text(&["website_url", "website"], 2048)? else {
            return Ok(None);
        };
        let with_scheme = if raw.contains("://") {
            raw.clone()
        } else {
            format!("https://{raw}")
        };
        match url::Url::parse(&with_scheme) {
            Ok(u)
                if matches!(u.scheme(), "http" | "https")
                    && u.host_str().is_some_and(|h| h.contains('.')) =>
            {
                Ok(Some(with_scheme))
            }
            _ => Err("context.website_url must be an http(s) URL".into()),
        }
    }

    fn links(&self) -> Result<Vec<Value>, Reason> {
        match self.context.get("link_urls") {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .map(|item| match item {
                    Value::String(url) => {
                        Ok(serde_json::json!({"url": url, "label": null, "description": null}))
                    }
                    Value::Object(map) if map.get("url").is_some_and(Value::is_string) => {
                        Ok(serde_json::json!({
                            "url": map["url"],
                            "label": map.get("label").filter(|v| v.is_string()),
                            "description": map.get("description").filter(|v| v.is_string()),
                        }))
                    }
                    _ => {
                        Err("context.link_urls items must be {url, label, description}".to_string())
                    }
                })
                .collect(),
            Some(_) => Err("context.link_urls must be an array".into()),
        }
    }

    fn common(&self) -> Result<CommonDraft, Reason> {
        let mut l1 = self.object("context_l1_common")?;
        if let Some(source_url) = self.text(&["source_url"], 2048)? {
            l1.entry("source_url").or_insert(Value::String(source_url));
        }
        Ok(CommonDraft {
            description: self.text(&["description"], 10_000)?,
            categories: self.strings("categories")?,
            link_urls: self.links()?,
            address_text: self.text(&["address_text", "address"], 1000)?,
            city: self.text(&["city"], 200)?,
            country_code: self.country_code()?,
            context_l0_routing: self.object("context_l0_routing")?,
            context_l1_common: l1,
            context_l2_specific: self.object("context_l2_specific")?,
            context_l2_available_features: self.strings("context_l2_available_features")?,
        })
    }
}

fn reader(context: &Value) -> Result<Reader<'_>, Reason> {
    context
        .as_object()
        .map(|context| Reader { context })
        .ok_or_else(|| "context must be an object".to_string())
}

pub fn entity_draft(context: &Value) -> Result<EntityDraft, Reason> {
    let r = reader(context)?;
    let display_name = r
        .text(&["display_name", "name"], 300)?
        .ok_or("context.display_name (or name) is required for an entity")?;
    let email = r.text(&["email"], 320)?;
    if email.as_deref().is_some_and(|e| !e.contains('@')) {
        return Err("context.email must be an email address".into());
    }
    Ok(EntityDraft {
        entity_type: r
            .text(&["entity_type"], 100)?
            .unwrap_or_else(|| "company".into()),
        display_name,
        legal_name: r.text(&["legal_name"], 300)?,
        website_url: r.website()?,
        email,
        phone: r.text(&["phone"], 64)?,
        tags: r.strings("tags")?,
        common: r.common()?,
    })
}

/// `default_type` is the entry's subtype, else "offer" (listings) or "request" (requests).
pub fn offer_draft(
    context: &Value,
    is_listing: bool,
    default_type: &str,
) -> Result<OfferDraft, Reason> {
    let r = reader(context)?;
    let kind = if is_listing { "listing" } else { "request" };
    let title = r
        .text(&["title", "name"], 300)?
        .ok_or(format!("context.title is required for a {kind}"))?;
    let (type_key, amount_key, parent_key) = if is_listing {
        ("listing_type", "price_amount", "provider_entity_id")
    } else {
        ("request_type", "budget_amount", "requester_entity_id")
    };
    let needed_from = if is_listing {
        None
    } else {
        r.timestamp("needed_from_tstamp_utc")?
    };
    let needed_by = if is_listing {
        None
    } else {
        r.timestamp("needed_by_tstamp_utc")?
    };
    if let (Some(from), Some(by)) = (needed_from, needed_by)
        && from > by
    {
        return Err(
            "context.needed_by_tstamp_utc must not be before needed_from_tstamp_utc".into(),
        );
    }
    Ok(OfferDraft {
        offer_type: r
            .text(&[type_key], 100)?
            .unwrap_or_else(|| default_type.to_string()),
        title,
        amount: r.decimal(amount_key)?,
        currency_code: r.currency_code()?,
        availability_status: if is_listing {
            r.text(&["availability_status"], 100)?
        } else {
            None
        },
        parent_entity_id: r.uuid(parent_key)?,
        needed_from,
        needed_by,
        common: r.common()?,
    })
}

pub fn observation_keys(context: &Value) -> Result<ObservationKeys, Reason> {
    let r = reader(context)?;
    Ok(ObservationKeys {
        display_name: r.text(&["display_name", "name"], 300)?,
        website_url: r.website()?,
        phone: r.text(&["phone"], 64)?,
        country_code: r.country_code()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_entity_draft_reads_aliases_and_normalises_codes() {
        let d = entity_draft(&json!({"name": " Acme ", "website": "acme.co.uk", "country_code": "gb",
            "categories": "plumber", "link_urls": ["https://acme.co.uk/about"], "source_url": "https://dir.example/acme"}))
        .unwrap();
        assert_eq!(d.display_name, "Acme");
        assert_eq!(d.website_url.as_deref(), Some("https://acme.co.uk"));
        assert_eq!(d.common.country_code.as_deref(), Some("GB"));
        assert_eq!(d.common.categories, vec!["plumber"]);
        assert_eq!(d.common.link_urls[0]["url"], "https://acme.co.uk/about");
        assert_eq!(
            d.common.context_l1_common["source_url"],
            "https://dir.example/acme"
        );
        assert_eq!(d.entity_type, "company");
    }

    #[test]
    fn invalid_content_is_a_reason_to_reject() {
        assert!(
            entity_draft(&json!({}))
                .unwrap_err()
                .contains("display_name")
        );
        assert!(entity_draft(&json!({"name": "A", "country_code": "GBR"})).is_err());
        assert!(entity_draft(&json!({"name": "A", "website_url": "ftp://x.example"})).is_err());
        assert!(entity_draft(&json!({"name": 42})).is_err());
        assert!(offer_draft(&json!({"title": "T", "price_amount": "-3"}), true, "offer").is_err());
        assert!(offer_draft(&json!({"description": "no title"}), false, "request").is_err());
    }

    #[test]
    fn offers_read_their_side_specific_fields() {
        let listing = offer_draft(
            &json!({"title": "Boiler service", "price_amount": 80, "currency_code": "gbp"}),
            true,
            "offer",
        )
        .unwrap();
        assert_eq!(listing.amount, Some(Decimal::from(80)));
        assert_eq!(listing.currency_code.as_deref(), Some("GBP"));
        assert_eq!(listing.offer_type, "offer");
        let request = offer_draft(
            &json!({"title": "Need a plumber", "budget_amount": "150.50",
            "needed_by_tstamp_utc": "2026-12-01T00:00:00Z"}),
            false,
            "quote",
        )
        .unwrap();
        assert_eq!(request.amount, Some(Decimal::new(15050, 2)));
        assert_eq!(request.offer_type, "quote");
        assert!(request.needed_by.is_some());
    }
}
