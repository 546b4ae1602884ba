//! Credentials without I/O: API key format and hashing, and access tokens (JWT).
pub mod api_key;
pub mod jwt;
