//! Space-Time Records Service. The code tour, one line per module:
//!
//! - `config`   environment variables → `Config` (fails fast on bad values)
//! - `state`    `AppState`: pool, config, signing keys (no mutable per-process state)
//! - `error`    `AppError`: the one error type → HTTP status, body and GraphQL code
//! - `ctx`      `Ctx`: who is calling, passed explicitly to every service call
//! - `domain`   enums of the spec, decimals, handles, paging, validation
//! - `auth`     API key format and hashing, access tokens (no I/O)
//! - `records`  each record's shape, once: row, JSON, OpenAPI schema and GraphQL object
//! - `db`       all SQL, one file per table group; the embedded PostGIS cluster
//! - `storage`  attachment bytes, content-addressed and synced before commit
//! - `transform` pure, versioned rules: extraction, matching, merging, ranking
//! - `search`   search requests, the filter language, the one runtime SQL builder
//! - `services` every operation once; REST and GraphQL are adapters over these
//! - `rest`     /api/v1 handlers, strict extractors, the generated OpenAPI document
//! - `graphql`  the schema: types, loaders, queries, mutations, the /graphql endpoint
//! - `mcp`      the MCP endpoint: tools over the same services, docs and rubrics as resources
//! - `ogc`      OGC API Features (/collections) for GIS clients, over the same services
//! - `cors`     CORS for the public read surface (`STRS_CORS_ORIGINS`)
//! - `web`      HTML pages the server renders itself (/api-docs)
//! - `app`      router, state construction, serve with graceful shutdown
//! - `telemetry` Prometheus metrics of this process (`/metrics`)
//! - `topology` a primary, a streaming replica and N server processes on one machine

pub mod alloc;
pub mod app;
pub mod auth;
pub mod config;
pub mod cors;
pub mod ctx;
pub mod db;
pub mod domain;
pub mod error;
pub mod graphql;
pub mod mcp;
pub mod ogc;
pub mod records;
pub mod rest;
pub mod search;
pub mod services;
pub mod state;
pub mod storage;
pub mod telemetry;
pub mod topology;
pub mod transform;
pub mod web;
