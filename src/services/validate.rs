//! Field checks shared by several services' create inputs.

use crate::domain::Violations;

pub fn email(v: &mut Violations, field: &str, value: Option<&str>) {
    if let Some(email) = value {
        let ok = email.len() <= 320
            && email
                .split_once('@')
                .is_some_and(|(l, d)| !l.is_empty() && d.contains('.'));
        v.check(ok, field, "must be an email address", "value_error");
    }
}

pub fn http_url(v: &mut Violations, field: &str, value: Option<&str>) {
    if let Some(raw) = value {
        let ok = raw.len() <= 2048
            && url::Url::parse(raw)
                .is_ok_and(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some());
        v.check(ok, field, "must be an absolute http(s) URL", "url_parsing");
    }
}

pub fn phone(v: &mut Violations, field: &str, value: Option<&str>) {
    if let Some(p) = value {
        let digits = p.chars().filter(char::is_ascii_digit).count();
        let ok = p.len() <= 64
            && (5..=17).contains(&digits)
            && p.chars()
                .all(|c| c.is_ascii_digit() || " +-().".contains(c));
        v.check(
            ok,
            field,
            "must be a phone number (digits, spaces, + - . ( ))",
            "value_error",
        );
    }
}
