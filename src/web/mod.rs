//! HTML pages the server renders itself, self-contained (no outside script, font or style): the
//! landing page at `/` (or its JSON links), `/api-docs`, the quick start and reference built from
//! docs/ and the OpenAPI document, and the GraphiQL IDE at `GET /graphql` and the provenance
//! explorer at `GET /explore` (both bundled from npm packages and embedded).

pub mod api_docs;
pub mod explorer;
pub mod graphiql;
pub mod landing;
pub(crate) mod layout;
mod reference;
