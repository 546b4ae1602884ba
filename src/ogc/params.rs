//! The query of an OGC API Features request, read by hand rather than by serde: the standard asks
//! for 400 on an unknown or malformed parameter (`/req/core/query-param-unknown`,
//! `/req/core/query-param-invalid`), and `limit` past the maximum is lowered, not refused.

use super::cursor;
use super::error::{OgcError, bad_parameter};
use crate::services::features::{DEFAULT_LIMIT, Keyset, MAX_LIMIT, TimeRange};
use chrono::{DateTime, Datelike, NaiveDate, NaiveTime, Utc};
use std::collections::BTreeMap;

/// The parameters given, each at most once; any name not in `allowed` is a 400.
pub fn read(query: Option<&str>, allowed: &[&str]) -> Result<BTreeMap<String, String>, OgcError> {
    let mut out = BTreeMap::new();
    for (name, value) in url::form_urlencoded::parse(query.unwrap_or("").as_bytes()) {
        if !allowed.contains(&name.as_ref()) {
            return Err(bad_parameter(
                &name,
                format!(
                    "unknown parameter; this resource takes {}",
                    allowed.join(", ")
                ),
            ));
        }
        if out.insert(name.to_string(), value.to_string()).is_some() {
            return Err(bad_parameter(&name, "given more than once"));
        }
    }
    Ok(out)
}

/// 1 or more; past `MAX_LIMIT` (even past what fits in 64 bits) it is lowered to it.
pub fn limit(text: Option<&str>) -> Result<i64, OgcError> {
    let Some(text) = text else {
        return Ok(DEFAULT_LIMIT);
    };
    let limit = match text.parse::<i64>() {
        Ok(n) => n,
        // Past a 64-bit integer the number is malformed, as the OpenAPI document says (int64);
        // a large but valid number is lowered to the maximum, as the standard allows.
        Err(_) if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) => {
            return Err(bad_parameter("limit", "must fit in a 64-bit integer"));
        }
        Err(_) => return Err(bad_parameter("limit", "must be a whole number")),
    };
    if limit < 1 {
        return Err(bad_parameter("limit", "must be at least 1"));
    }
    Ok(limit.min(MAX_LIMIT))
}

/// `minx,miny,maxx,maxy` in CRS84 degrees; the 3D form (six numbers) has its heights dropped,
/// since records have none.
pub fn bbox(text: Option<&str>) -> Option<String> {
    let text = text?;
    let parts: Vec<&str> = text.split(',').collect();
    Some(match parts[..] {
        [w, s, _, e, n, _] => format!("{w},{s},{e},{n}"),
        _ => text.to_string(),
    })
}

pub fn keyset(text: Option<&str>) -> Result<Keyset, OgcError> {
    match text {
        None => Ok(Keyset::First),
        Some(text) => cursor::decode(text).ok_or_else(|| {
            bad_parameter(
                "cursor",
                "not a cursor of this server; follow the next and prev links",
            )
        }),
    }
}

/// An instant (`2026-11-01T10:00:00Z`, or a date: that whole day) or an interval with `/`,
/// either end open as `..` or empty (`2026-11-01/..`, `../2026-11-30T00:00:00Z`).
pub fn datetime(text: Option<&str>) -> Result<TimeRange, OgcError> {
    let Some(text) = text else {
        return Ok(TimeRange::default());
    };
    let bad = || {
        bad_parameter(
            "datetime",
            "must be an RFC 3339 date-time or date, or an interval start/end with '..' for an open end",
        )
    };
    let parts: Vec<&str> = text.split('/').collect();
    let range = match parts[..] {
        [instant] => {
            let (from, to) = (start(instant), end(instant));
            TimeRange {
                from: Some(from.flatten().ok_or_else(bad)?),
                to: Some(to.flatten().ok_or_else(bad)?),
            }
        }
        [first, last] => TimeRange {
            from: start(first).ok_or_else(bad)?,
            to: end(last).ok_or_else(bad)?,
        },
        _ => return Err(bad()),
    };
    if let TimeRange {
        from: Some(from),
        to: Some(to),
    } = range
        && from > to
    {
        return Err(bad_parameter(
            "datetime",
            "the interval ends before it starts",
        ));
    }
    Ok(range)
}

/// `Some(None)` for an open end, `None` when it does not parse or lies outside years 1 to 9999
/// (PostgreSQL could not compare a timestamp far outside them).
fn bound(text: &str, day_end: bool) -> Option<Option<DateTime<Utc>>> {
    if text.is_empty() || text == ".." {
        return Some(None);
    }
    let t = match DateTime::parse_from_rfc3339(text) {
        Ok(t) => t.with_timezone(&Utc),
        Err(_) => {
            let day = NaiveDate::parse_from_str(text, "%Y-%m-%d").ok()?;
            let time = if day_end {
                NaiveTime::from_hms_micro_opt(23, 59, 59, 999_999)?
            } else {
                NaiveTime::MIN
            };
            day.and_time(time).and_utc()
        }
    };
    (1..=9999).contains(&t.year()).then_some(Some(t))
}

fn start(text: &str) -> Option<Option<DateTime<Utc>>> {
    bound(text, false)
}

fn end(text: &str) -> Option<Option<DateTime<Utc>>> {
    bound(text, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_read_as_the_standard_writes_them() {
        let t = |s: &str| DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc);
        let closed = datetime(Some("2026-11-01T00:00:00Z/2026-11-02T00:00:00Z"))
            .ok()
            .unwrap();
        assert_eq!(closed.from, Some(t("2026-11-01T00:00:00Z")));
        assert_eq!(closed.to, Some(t("2026-11-02T00:00:00Z")));
        let open = datetime(Some("../2026-11-02T00:00:00Z")).ok().unwrap();
        assert_eq!(
            (open.from, open.to),
            (None, Some(t("2026-11-02T00:00:00Z")))
        );
        let open = datetime(Some("2026-11-01T00:00:00Z/")).ok().unwrap();
        assert_eq!(
            (open.from, open.to),
            (Some(t("2026-11-01T00:00:00Z")), None)
        );
        let day = datetime(Some("2026-11-01")).ok().unwrap();
        assert_eq!(day.from, Some(t("2026-11-01T00:00:00Z")));
        assert_eq!(day.to, Some(t("2026-11-01T23:59:59.999999Z")));
        for bad in [
            "yesterday",
            "..",
            "a/b/c",
            "2026-11-02/2026-11-01",
            "2026-13-01",
            "+99999-01-01",
        ] {
            assert!(datetime(Some(bad)).is_err(), "{bad}");
        }
    }

    #[test]
    fn limit_is_clamped_above_and_refused_below() {
        assert_eq!(limit(None).ok(), Some(DEFAULT_LIMIT));
        assert_eq!(limit(Some("5000")).ok(), Some(MAX_LIMIT));
        assert_eq!(limit(Some("9223372036854775807")).ok(), Some(MAX_LIMIT));
        for bad in ["0", "-1", "ten", "", "1.5", "9223372036854775808"] {
            assert!(limit(Some(bad)).is_err(), "{bad}");
        }
    }
}
