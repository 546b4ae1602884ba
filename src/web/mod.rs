//! HTML pages the server renders itself, self-contained (no outside script, font or style):
//! `/api-docs`, the quick start and reference built from docs/ and the OpenAPI document, and the
//! GraphiQL IDE at `GET /graphql` (bundled from npm, embedded).

pub mod api_docs;
pub mod graphiql;
mod layout;
mod reference;
