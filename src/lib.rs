//! Space-Time Records Service. The code tour, floor by floor from the top (docs/architecture.md
//! draws them; `tests/api/architecture.rs` holds the rules between them):
//!
//! - `app`      the router: assembles the adapters, state construction, serve with graceful shutdown
//! - `rest`     /api/v1 handlers (canonical kinds written once, generic) and the OpenAPI document
//! - `graphql`  the schema: types, loaders, queries, mutations, subscriptions, the /graphql endpoint
//! - `mcp`      the MCP endpoint: tools over the same services, docs and rubrics as resources
//! - `ogc`      OGC API Features (/collections) for GIS clients, over the same services
//! - `web`      HTML pages the server renders itself (/, /api-docs, GraphiQL, the explorer)
//! - `http`     the edge every adapter stands on: bodies and their limits, media types,
//!   credentials → `Ctx`, the error response, JSON bodies, base URL, the edge middleware, CORS
//! - `services` every operation once; the adapters' only door to the data
//! - `db`       all SQL, one file per table group; the embedded PostGIS cluster and its supervisor
//! - `search`   search requests, the filter language, the one runtime SQL builder
//! - `transform` pure, versioned rules: extraction, names and addresses, matching, merging, ranking
//! - `export`   the bulk export's file formats (GeoParquet, FlatGeobuf, GeoJSON sequences, CSV),
//!   written a chunk of rows at a time
//! - `storage`  attachment bytes, content-addressed and synced before commit
//! - `auth`     API key format and hashing, access tokens (no I/O)
//! - `records`  each record's shape, once: row, JSON, OpenAPI schema and GraphQL object; list filters
//! - `domain`   enums of the spec, decimals, handles, areas, paging and its cursor, validation
//! - `error`    `AppError`: the one error type → HTTP status, body and GraphQL code
//! - `ctx`      `Ctx`: who is calling, passed explicitly to every service call
//! - `state`    `AppState`: pools (primary, lean, replicas), config, signing keys, request permits,
//!   disk guard; shared, never mutable per process
//! - `config`   environment variables → `Config` (fails fast on bad values)
//! - `telemetry` Prometheus metrics of this process (`/metrics`)
//! - `topology` a primary, a streaming replica and N server processes on one machine
//! - `alloc`    the global allocator (mimalloc, or dhat's heap profiler with `dhat-heap`)

pub mod alloc;
pub mod app;
pub mod auth;
pub mod config;
pub mod ctx;
pub mod db;
pub mod domain;
pub mod error;
pub mod export;
pub mod graphql;
pub mod http;
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
