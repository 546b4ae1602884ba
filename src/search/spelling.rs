//! The corrected text queries: each word of the search corrected against the vocabulary of every
//! word the canonical records use (`canonical.search_words`, kept by triggers), then a full-text
//! query that needs every word (next to exact hits) or at least half of them (when nothing matched
//! exactly), each as typed or as one of its close spellings.
//!
//! A trigram scan of every name is slow over a whole country (the index's posting lists for
//! common trigrams are long); the vocabulary is small, so correcting words there and answering
//! from the full-text GIN index costs about what an exact search does. docs/search.md explains
//! the rules, docs/benchmarks.md the figures.

use super::sql::{Param, Statement};
use itertools::Itertools;

/// The longest words of a query taken into account; more would multiply the combinations.
pub const MAX_QUERY_WORDS: i64 = 6;
/// Close spellings kept per word: the word itself, then one edit away, then the most similar.
pub const SPELLINGS_PER_WORD: i64 = 8;
/// Words this long or longer are also corrected by swapping two neighbouring letters: trigram
/// similarity alone misses that typo in words of five and six letters (0.20 and 0.27, under the
/// 0.3 threshold), while it catches every insertion, deletion and substitution there (≥ 0.33).
pub const MIN_SWAPPED_LETTERS: i64 = 5;

/// For each word of `query` (the `simple` parser's words, the same the records are indexed with),
/// the vocabulary words close to it: trigram-similar (pg_trgm's `%`, similarity ≥ 0.3), equal to
/// the word with two neighbouring letters swapped (words of five letters or more, looked up in the
/// b-tree index), or, for a word of three or more letters, starting with it. A word the records
/// use is its own best match; words one edit away (Levenshtein, or the swap) come next, then the
/// most similar.
pub fn lookup_statement(query: &str) -> Statement {
    let mut statement = Statement::default();
    // `canonical.close_spellings` (migrations/0024) reads the vocabulary through its indexes.
    statement
        .push("SELECT q.word, canonical.close_spellings(q.word, q.swapped, ")
        .bind(Param::Int(SPELLINGS_PER_WORD))
        .push(
            ") AS spellings FROM (SELECT w AS word, CASE WHEN length(w) >= ",
        )
        .bind(Param::Int(MIN_SWAPPED_LETTERS))
        .push(
            " THEN ARRAY(SELECT overlay(w PLACING substr(w, i + 1, 1) || substr(w, i, 1) FROM i FOR 2) \
             FROM generate_series(1, length(w) - 1) AS i) ELSE '{}'::text[] END AS swapped \
             FROM unnest(tsvector_to_array(to_tsvector('simple', ",
        )
        .bind(Param::Text(query.to_string()))
        .push("))) AS w ORDER BY length(w) DESC, w LIMIT ")
        .bind(Param::Int(MAX_QUERY_WORDS))
        .push(") AS q ORDER BY q.word");
    statement
}

/// One word of a query and its close spellings (empty when no vocabulary word is close).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WordSpellings {
    pub word: String,
    pub spellings: Vec<String>,
}

impl WordSpellings {
    /// The records use this word as typed and no other close spelling: correcting it adds nothing.
    pub fn only_itself(&self) -> bool {
        self.spellings.len() == 1 && self.spellings[0] == self.word
    }
}

/// Each query word's spellings, as `lookup_statement` returns them.
pub async fn lookup<'c>(
    executor: impl sqlx::PgExecutor<'c>,
    query: &str,
) -> Result<Vec<WordSpellings>, sqlx::Error> {
    let statement = lookup_statement(query);
    let rows: Vec<(String, Vec<String>)> =
        super::sql::bind_all(sqlx::query_as(&statement.sql), &statement.params)
            .fetch_all(executor)
            .await?;
    Ok(rows
        .into_iter()
        .map(|(word, spellings)| WordSpellings { word, spellings })
        .collect())
}

/// How many of the query's words a corrected query needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// Every word, as typed or as one of its spellings: next to exact hits, it adds the record a
    /// typo that is itself a real word ("grille" for "grill") would otherwise hide.
    Every,
    /// At least half of them, rounded up: when nothing matched exactly, one word nobody uses
    /// leaves the others to find the record.
    Half,
    /// At least half of them, or fewer when the record's whole name is among the query's words:
    /// a longer name of the venue (`Hawksmoor Seven Dials` for *Hawksmoor*). Run only when the
    /// `Half` query found no complete hit.
    HalfOrName,
}

/// A corrected text query, in PostgreSQL's tsquery syntax (bound as parameters, never spliced
/// into the statement).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CorrectedQuery {
    /// Matches documents that contain the words `need` asks for, each word as any of its
    /// spellings; for `HalfOrName`, any one of the words (it ranks, `whole_names` chooses).
    pub tsquery: String,
    /// One query per word that has spellings, to score the share of the words a record has.
    pub word_queries: Vec<String>,
    /// How many words the query has (those without any spelling included).
    pub words: usize,
    /// Every spelling of every word: a name word among them counts as in the query.
    pub spellings: Vec<String>,
    pub need: Need,
    /// `HalfOrName`: the candidates are the records the `Half` query matches, and those whose
    /// name is one of these, as `canonical.name_word_key` writes a name (migration 0025).
    pub whole_names: Option<WholeNames>,
}

/// The records `Need::HalfOrName` looks at: those having at least half of the words, or a name
/// made of one or two of the query's spellings. Each is found through an index; scoring every
/// record that has any one of the words instead read 1,499 rows within 10 km of a city.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WholeNames {
    /// The `Half` query.
    pub half_tsquery: String,
    /// Every set of one or two spellings (of two letters or more), in byte order, joined by
    /// spaces. A name of more words made of the query's spellings has at least half of the
    /// query's words, so the `Half` query finds it, as long as the query has six words at most
    /// (`MAX_QUERY_WORDS`).
    pub name_keys: Vec<String>,
}

/// The longest names `WholeNames::name_keys` spells out.
const MAX_WHOLE_NAME_WORDS: usize = 2;

/// `None` when fewer words have a spelling than must match: nothing can.
pub fn corrected_query(spellings_per_word: &[Vec<String>], need: Need) -> Option<CorrectedQuery> {
    let min_words = match need {
        Need::Every => spellings_per_word.len(),
        Need::Half | Need::HalfOrName => spellings_per_word.len().div_ceil(2),
    };
    let groups: Vec<String> = spellings_per_word
        .iter()
        .filter(|spellings| !spellings.is_empty())
        .map(|spellings| {
            let alternatives: Vec<String> = spellings.iter().map(|s| quote_lexeme(s)).collect();
            format!("({})", alternatives.join(" | "))
        })
        .collect();
    let spellings: Vec<String> = spellings_per_word
        .iter()
        .flatten()
        .unique()
        .cloned()
        .collect();
    // `HalfOrName` ranks with any one word (its candidates are `whole_names`).
    let (tsquery, whole_names) = match need {
        Need::HalfOrName => (
            any_combination(&groups, 1.min(min_words))?,
            Some(WholeNames {
                half_tsquery: any_combination(&groups, min_words)?,
                name_keys: name_keys(&spellings),
            }),
        ),
        _ => (any_combination(&groups, min_words)?, None),
    };
    Some(CorrectedQuery {
        tsquery,
        word_queries: groups,
        words: spellings_per_word.len(),
        spellings,
        need,
        whole_names,
    })
}

/// A tsquery matching documents that have `required` of the `groups` (each a parenthesised
/// alternative of spellings); `None` when nothing can match.
fn any_combination(groups: &[String], required: usize) -> Option<String> {
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
    Some(alternatives.join(" | "))
}

/// `WholeNames::name_keys` for these spellings.
fn name_keys(spellings: &[String]) -> Vec<String> {
    let words: Vec<&str> = spellings
        .iter()
        .map(String::as_str)
        .filter(|w| w.chars().count() > 1)
        .sorted()
        .dedup()
        .collect();
    (1..=MAX_WHOLE_NAME_WORDS)
        .flat_map(|size| {
            words
                .iter()
                .combinations(size)
                .map(|set| set.iter().join(" "))
        })
        .collect()
}

/// A lexeme as a quoted tsquery operand: taken literally, never parsed as operators. Quotes and
/// backslashes inside are doubled, as PostgreSQL's tsquery input requires.
fn quote_lexeme(lexeme: &str) -> String {
    format!("'{}'", lexeme.replace('\\', "\\\\").replace('\'', "''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spellings(list: &[&[&str]]) -> Vec<Vec<String>> {
        list.iter()
            .map(|w| w.iter().map(ToString::to_string).collect())
            .collect()
    }

    fn corrected(list: &[&[&str]]) -> Option<CorrectedQuery> {
        corrected_query(&spellings(list), Need::Half)
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
    fn next_to_exact_hits_every_word_must_match() {
        let query = corrected_query(
            &spellings(&[&["harbour"], &["grille", "grill"]]),
            Need::Every,
        )
        .unwrap();
        assert_eq!(query.tsquery, "(('harbour') & ('grille' | 'grill'))");
        assert_eq!(query.spellings, vec!["harbour", "grille", "grill"]);
        assert_eq!(
            corrected_query(&spellings(&[&["harbour"], &[]]), Need::Every),
            None
        );
    }

    #[test]
    fn a_whole_name_in_the_query_is_looked_for_by_any_one_word() {
        let query = corrected_query(
            &spellings(&[&["hawksmoor"], &["seven"], &["dials"]]),
            Need::HalfOrName,
        )
        .unwrap();
        assert_eq!(query.tsquery, "(('hawksmoor')) | (('seven')) | (('dials'))");
        let whole_names = query.whole_names.unwrap();
        assert_eq!(
            whole_names.half_tsquery,
            "(('hawksmoor') & ('seven')) | (('hawksmoor') & ('dials')) | (('seven') & ('dials'))"
        );
        assert_eq!(
            whole_names.name_keys,
            vec![
                "dials",
                "hawksmoor",
                "seven",
                "dials hawksmoor",
                "dials seven",
                "hawksmoor seven"
            ]
        );
    }

    #[test]
    fn whole_names_are_spelt_in_byte_order_without_one_letter_words() {
        let query = corrected_query(
            &spellings(&[&["nonna", "nonnas"], &["s"], &["café", "cafe"]]),
            Need::HalfOrName,
        )
        .unwrap();
        assert_eq!(
            query.whole_names.unwrap().name_keys,
            vec![
                "cafe",
                "café",
                "nonna",
                "nonnas",
                "cafe café",
                "cafe nonna",
                "cafe nonnas",
                "café nonna",
                "café nonnas",
                "nonna nonnas"
            ]
        );
        assert_eq!(
            corrected_query(&spellings(&[&["emma"], &["hill"]]), Need::Half)
                .unwrap()
                .whole_names,
            None
        );
    }

    #[test]
    fn quotes_and_backslashes_stay_inside_the_lexeme() {
        assert_eq!(quote_lexeme(r"o'brien\x"), r"'o''brien\\x'");
    }
}
