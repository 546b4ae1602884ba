//! Collects every field problem of one request, so a client learns all of them at once.

use crate::error::{AppError, FieldError, LocPart};

#[derive(Debug, Default)]
pub struct Violations {
    root: Vec<LocPart>,
    items: Vec<FieldError>,
}

impl Violations {
    /// `root` is where the input lives: `["body"]` for REST bodies, `["input"]` for GraphQL.
    pub fn at(root: &[&str]) -> Self {
        Violations {
            root: root.iter().map(|s| LocPart::from(*s)).collect(),
            items: Vec::new(),
        }
    }

    pub fn push(&mut self, field: &str, msg: impl Into<String>, kind: &str) {
        let mut loc = self.root.clone();
        loc.extend(field.split('.').map(LocPart::from));
        self.items.push(FieldError {
            loc,
            msg: msg.into(),
            kind: kind.to_string(),
        });
    }

    pub fn check(&mut self, ok: bool, field: &str, msg: &str, kind: &str) {
        if !ok {
            self.push(field, msg, kind);
        }
    }

    pub fn check_len(&mut self, value: Option<&str>, field: &str, min: usize, max: usize) {
        if let Some(v) = value {
            let n = v.trim().chars().count();
            if n < min || v.chars().count() > max {
                self.push(
                    field,
                    format!("must be between {min} and {max} characters"),
                    "string_length",
                );
            }
        }
    }

    /// A page cursor parsed by `parse`, or a violation at `after` when it does not parse.
    pub fn cursor<T>(
        &mut self,
        after: Option<&str>,
        parse: impl Fn(&str) -> Option<T>,
    ) -> Option<T> {
        let parsed = parse(after?);
        self.check(
            parsed.is_some(),
            "after",
            "not a valid cursor",
            "value_error",
        );
        parsed
    }

    /// How many problems are recorded so far (to tell whether a group of checks passed).
    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn into_result(self) -> Result<(), AppError> {
        if self.items.is_empty() {
            Ok(())
        } else {
            Err(AppError::Validation(self.items))
        }
    }
}

/// Unit interval check shared by scores and weights.
pub fn is_unit_interval(value: &rust_decimal::Decimal) -> bool {
    *value >= rust_decimal::Decimal::ZERO && *value <= rust_decimal::Decimal::ONE
}
