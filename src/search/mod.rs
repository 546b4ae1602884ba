//! Search by text, place and radius. `request` validates what a caller asked for, `sql` turns it
//! into one statement and `nearest` into the bounded walk that precedes it with `sort=distance`
//! (the only SQL built at run time; every value is bound), `spelling` corrects the words of a
//! query (typos, partial words), `filters` holds the small filter language. Scoring is documented
//! in docs/search.md.

pub mod cells;
pub mod filters;
mod nearest;
pub mod request;
pub mod spelling;
pub mod sql;

pub use request::{CanonicalType, SearchInput, SearchRequest, SortOrder};
pub use spelling::Need;
pub use sql::{
    Hit, Param, Statement, TextMatching, TextQuery, corrected_text_query, explain,
    explain_statement, run, run_recorded, statement,
};
