//! Decimal request values: a JSON number or a string matching the specification's pattern
//! `^(?!^[-+.]*$)[+-]?0*\d*\.?\d*$` (no exponent, no NaN, no infinity, not empty).

use rust_decimal::Decimal;
use serde::Deserialize;
use serde::de::{self, Deserializer, Visitor};
use std::str::FromStr;
use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Schema, Type};
use utoipa::openapi::{RefOr, schema::KnownFormat, schema::SchemaFormat};

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DecimalInput(pub Decimal);

/// True when `s` matches the specification's decimal string pattern.
pub fn matches_decimal_pattern(s: &str) -> bool {
    let unsigned = s.strip_prefix(['+', '-']).unwrap_or(s);
    let mut seen_dot = false;
    let mut digits = 0;
    for c in unsigned.chars() {
        match c {
            '0'..='9' => digits += 1,
            '.' if !seen_dot => seen_dot = true,
            _ => return false,
        }
    }
    digits > 0
}

pub fn parse_decimal_str(s: &str) -> Result<Decimal, String> {
    if !matches_decimal_pattern(s) {
        return Err(format!(
            "'{s}' is not a decimal: use digits with an optional sign and point"
        ));
    }
    let trimmed = s.strip_prefix('+').unwrap_or(s);
    let normalised = trimmed.strip_suffix('.').unwrap_or(trimmed);
    let normalised = if normalised.starts_with('.') || normalised.starts_with("-.") {
        normalised.replacen('.', "0.", 1)
    } else {
        normalised.to_string()
    };
    Decimal::from_str(&normalised)
        .map_err(|_| format!("'{s}' is out of the supported decimal range"))
}

struct DecimalVisitor;

impl Visitor<'_> for DecimalVisitor {
    type Value = DecimalInput;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a number or a decimal string")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<DecimalInput, E> {
        parse_decimal_str(v).map(DecimalInput).map_err(E::custom)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<DecimalInput, E> {
        Ok(DecimalInput(Decimal::from(v)))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<DecimalInput, E> {
        Ok(DecimalInput(Decimal::from(v)))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<DecimalInput, E> {
        if !v.is_finite() {
            return Err(E::custom("number must be finite"));
        }
        // Display of f64 is the shortest round-trip form without an exponent: "51.5074", not 51.507399..
        Decimal::from_str(&v.to_string())
            .map(DecimalInput)
            .map_err(|_| E::custom("number is out of range"))
    }
}

impl<'de> Deserialize<'de> for DecimalInput {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(DecimalVisitor)
    }
}

/// `#[serde(deserialize_with = "…")]` for a `Decimal` field of a create body written once for REST
/// and GraphQL: a JSON number or a decimal string, as the specification asks.
pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Decimal, D::Error> {
    DecimalInput::deserialize(d).map(|v| v.0)
}

/// The same for an optional field (use with `#[serde(default)]`).
pub fn deserialize_option<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Decimal>, D::Error> {
    Option::<DecimalInput>::deserialize(d).map(|v| v.map(|v| v.0))
}

impl DecimalInput {
    pub fn to_f64(self) -> f64 {
        use rust_decimal::prelude::ToPrimitive;
        self.0.to_f64().unwrap_or(f64::NAN)
    }
}

impl utoipa::PartialSchema for DecimalInput {
    fn schema() -> RefOr<Schema> {
        OneOfBuilder::new()
            .item(ObjectBuilder::new().schema_type(Type::Number))
            .item(
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .format(Some(SchemaFormat::KnownFormat(KnownFormat::Double)))
                    .pattern(Some(r"^(?!^[-+.]*$)[+-]?0*\d*\.?\d*$")),
            )
            .description(Some("A decimal: a JSON number or a decimal string"))
            .into()
    }
}
impl utoipa::ToSchema for DecimalInput {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_strings_follow_the_spec_pattern() {
        for ok in ["1", "-1.5", "+0.25", ".5", "5.", "007"] {
            assert!(parse_decimal_str(ok).is_ok(), "{ok}");
        }
        for bad in [
            "", "-", ".", "+-1", "1e5", "NaN", "inf", "1_000", " 1", "1.2.3",
        ] {
            assert!(parse_decimal_str(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn json_numbers_keep_their_written_digits() {
        let d: DecimalInput = serde_json::from_str("51.5074").unwrap();
        assert_eq!(d.0.to_string(), "51.5074");
        assert!(serde_json::from_str::<DecimalInput>("1e400").is_err());
    }
}
