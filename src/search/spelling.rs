//! The fuzzy step's text query: each word of the search corrected against the vocabulary of every
//! word the canonical records use (`canonical.search_words`, kept by triggers), then a full-text
//! query that needs at least half of the words, each as typed or as one of its close spellings.
//!
//! A trigram scan of every name is slow over a whole country (the index's posting lists for
//! common trigrams are long); the vocabulary is small, so correcting words there and answering
//! from the full-text GIN index costs about what an exact search does. docs/search.md explains
//! the rules, docs/benchmarks.md the figures.

use super::sql::{Param, Statement};
use itertools::Itertools;

/// The longest words of a query taken into account; more would multiply the combinations.
pub const MAX_QUERY_WORDS: i64 = 6;
/// Close spellings kept per word, the most similar first.
pub const SPELLINGS_PER_WORD: i64 = 8;

/// For each word of `query` (the `simple` parser's words, the same the records are indexed with),
/// the vocabulary words that are trigram-similar to it (pg_trgm's `%`, similarity ≥ 0.3) or, for
/// a word of three or more letters, start with it. A word the records use is its own best match.
pub fn lookup_statement(query: &str) -> Statement {
    let mut statement = Statement::default();
    statement
        .push(
            "SELECT q.word, ARRAY(SELECT v.word FROM canonical.search_words AS v \
             WHERE v.word % q.word OR v.word LIKE CASE WHEN length(q.word) >= 3 THEN \
             replace(replace(replace(q.word, '\\', '\\\\'), '%', '\\%'), '_', '\\_') || '%' END \
             GROUP BY v.word ORDER BY similarity(v.word, q.word) DESC, v.word LIMIT ",
        )
        .bind(Param::Int(SPELLINGS_PER_WORD))
        .push(
            ") AS spellings FROM (SELECT w AS word \
             FROM unnest(tsvector_to_array(to_tsvector('simple', ",
        )
        .bind(Param::Text(query.to_string()))
        .push("))) AS w ORDER BY length(w) DESC, w LIMIT ")
        .bind(Param::Int(MAX_QUERY_WORDS))
        .push(") AS q ORDER BY q.word");
    statement
}

/// Each query word's spellings, as `lookup_statement` returns them.
pub async fn lookup<'c>(
    executor: impl sqlx::PgExecutor<'c>,
    query: &str,
) -> Result<Vec<Vec<String>>, sqlx::Error> {
    let statement = lookup_statement(query);
    let rows: Vec<(String, Vec<String>)> =
        super::sql::bind_all(sqlx::query_as(&statement.sql), &statement.params)
            .fetch_all(executor)
            .await?;
    Ok(rows.into_iter().map(|(_, spellings)| spellings).collect())
}

/// The fuzzy step's text query, in PostgreSQL's tsquery syntax (bound as parameters, never
/// spliced into the statement).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CorrectedQuery {
    /// Matches documents that contain at least half of the query's words (rounded up), each word
    /// as any of its spellings: one misspelling no vocabulary word is close to still leaves the
    /// others to find the record.
    pub tsquery: String,
    /// One query per word that has spellings, to score the share of the words a record has.
    pub word_queries: Vec<String>,
    /// How many words the query has (those without any spelling included).
    pub words: usize,
}

/// `None` when fewer words have a spelling than must match: nothing can.
pub fn corrected_query(spellings_per_word: &[Vec<String>]) -> Option<CorrectedQuery> {
    let required = spellings_per_word.len().div_ceil(2);
    let groups: Vec<String> = spellings_per_word
        .iter()
        .filter(|spellings| !spellings.is_empty())
        .map(|spellings| {
            let alternatives: Vec<String> = spellings.iter().map(|s| quote_lexeme(s)).collect();
            format!("({})", alternatives.join(" | "))
        })
        .collect();
    if required == 0 || groups.len() < required {
        return None;
    }
    let alternatives: Vec<String> = (0..groups.len())
        .combinations(required)
        .map(|combination| {
            let words: Vec<&str> = combination.iter().map(|&i| groups[i].as_str()).collect();
            format!("({})", words.join(" & "))
        })
        .collect();
    Some(CorrectedQuery {
        tsquery: alternatives.join(" | "),
        word_queries: groups,
        words: spellings_per_word.len(),
    })
}

/// A lexeme as a quoted tsquery operand: taken literally, never parsed as operators. Quotes and
/// backslashes inside are doubled, as PostgreSQL's tsquery input requires.
fn quote_lexeme(lexeme: &str) -> String {
    format!("'{}'", lexeme.replace('\\', "\\\\").replace('\'', "''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corrected(list: &[&[&str]]) -> Option<CorrectedQuery> {
        let spellings: Vec<Vec<String>> = list
            .iter()
            .map(|w| w.iter().map(|s| s.to_string()).collect())
            .collect();
        corrected_query(&spellings)
    }

    fn tsquery(list: &[&[&str]]) -> Option<String> {
        corrected(list).map(|c| c.tsquery)
    }

    #[test]
    fn one_word_must_match_as_one_of_its_spellings() {
        let query = corrected(&[&["plumber", "plumbers"]]).unwrap();
        assert_eq!(query.tsquery, "(('plumber' | 'plumbers'))");
        assert_eq!(query.word_queries, vec!["('plumber' | 'plumbers')"]);
        assert_eq!(query.words, 1);
    }

    #[test]
    fn half_of_the_words_rounded_up_must_match() {
        assert_eq!(
            tsquery(&[&["emma"], &["hill", "hills"], &["jones"]]).as_deref(),
            Some(
                "(('emma') & ('hill' | 'hills')) | (('emma') & ('jones')) | (('hill' | 'hills') & ('jones'))"
            )
        );
        assert_eq!(
            tsquery(&[&["emma"], &["hill"]]).as_deref(),
            Some("(('emma')) | (('hill'))")
        );
    }

    #[test]
    fn a_word_without_spellings_cannot_be_one_of_the_matched_words() {
        let query = corrected(&[&["emma"], &["hill"], &[]]).unwrap();
        assert_eq!(query.tsquery, "(('emma') & ('hill'))");
        assert_eq!(query.word_queries, vec!["('emma')", "('hill')"]);
        assert_eq!(query.words, 3);
        assert_eq!(tsquery(&[&["emma"], &[], &[]]), None);
        assert_eq!(tsquery(&[&[]]), None);
        assert_eq!(tsquery(&[]), None);
    }

    #[test]
    fn quotes_and_backslashes_stay_inside_the_lexeme() {
        assert_eq!(quote_lexeme(r"o'brien\x"), r"'o''brien\\x'");
    }
}
