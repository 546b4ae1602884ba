//! HTML pages the server renders itself, self-contained (no outside script, font or style):
//! `/api-docs`, the quick start and reference built from docs/ and the OpenAPI document.

pub mod api_docs;
mod layout;
mod reference;
