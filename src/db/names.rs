//! Canonical records whose name starts with some text, for argument completion: the text's words
//! as prefixes against the search document (its GIN index does the work), then the name itself.

use uuid::Uuid;

/// A table and the column that names its records.
const TABLES: &[(&str, &str)] = &[
    ("canonical.entities", "display_name"),
    ("canonical.listings", "title"),
    ("canonical.requests", "title"),
];

/// `'word':* & 'word':*` from the text's letters and digits; None when it has none. Every word
/// is a prefix: the document's parser may split a name where this does not.
fn prefix_query(text: &str) -> Option<String> {
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| format!("'{}':*", w.to_lowercase()))
        .collect();
    (!words.is_empty()).then(|| words.join(" & "))
}

/// `text` as a LIKE pattern matching names that start with it.
fn starts_with(text: &str) -> String {
    let mut pattern = String::with_capacity(text.len() + 1);
    for c in text.to_lowercase().chars() {
        if matches!(c, '%' | '_' | '\\') {
            pattern.push('\\');
        }
        pattern.push(c);
    }
    pattern.push('%');
    pattern
}

/// Up to `limit` records of `table` (one of `canonical.entities`, `canonical.listings`,
/// `canonical.requests`) whose name starts with `text`, case-insensitively, by name; merged
/// records (redirects to their survivor) left out. Rows are `(id, name)`.
pub async fn by_name_prefix<'c>(
    pool: impl super::Reads<'c>,
    table: &str,
    text: &str,
    limit: i64,
) -> sqlx::Result<Vec<(Uuid, String)>> {
    let Some((table, label)) = TABLES.iter().find(|(name, _)| *name == table) else {
        return Ok(Vec::new());
    };
    let Some(words) = prefix_query(text) else {
        return Ok(Vec::new());
    };
    sqlx::query_as(&format!(
        "SELECT id, {label} FROM {table}
         WHERE search_document @@ to_tsquery('simple', $1)
           AND lower({label}) LIKE $2 ESCAPE '\\' AND status <> 'merged'
         ORDER BY {label}, id LIMIT $3"
    ))
    .bind(words)
    .bind(starts_with(text.trim_start()))
    .bind(limit)
    .fetch_all(pool)
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_text_becomes_prefix_words_and_a_literal_pattern() {
        assert_eq!(
            prefix_query("Ancoats Bak").as_deref(),
            Some("'ancoats':* & 'bak':*")
        );
        assert_eq!(prefix_query("O'Bri").as_deref(), Some("'o':* & 'bri':*"));
        assert_eq!(prefix_query(" -- "), None);
        assert_eq!(starts_with("50%_off\\"), "50\\%\\_off\\\\%");
    }
}
