//! Automatic persisted queries (Apollo's APQ protocol, version 1): a client sends
//! `extensions.persistedQuery.sha256Hash` without the document; when this process has seen the
//! document it runs it, otherwise it answers `PersistedQueryNotFound`
//! (`extensions.code` `PERSISTED_QUERY_NOT_FOUND`) and the client sends hash and document once
//! more, which is checked and remembered. Lets GET requests carry a short hash instead of a long
//! document (cacheable URLs) and saves the upload on every request.
//!
//! The store is a bounded per-process cache, not shared state: a process that has not seen a
//! hash (a new or another one behind the load balancer) answers "not found" and the protocol's
//! retry fills it, so nothing depends on which process a client reaches.

use async_graphql::{Request, ServerError, ServerResult, Value};
use sha2::{Digest, Sha256};
use std::sync::Arc;

/// Documents remembered per process, and the longest one remembered.
const REMEMBERED_DOCUMENTS: usize = 10_000;
const MAX_REMEMBERED_BYTES: usize = 64 * 1024;

#[derive(Clone)]
pub struct PersistedQueries {
    by_hash: Arc<quick_cache::sync::Cache<String, Arc<str>>>,
}

impl Default for PersistedQueries {
    fn default() -> Self {
        PersistedQueries {
            by_hash: Arc::new(quick_cache::sync::Cache::new(REMEMBERED_DOCUMENTS)),
        }
    }
}

fn error(code: &str, message: &str) -> ServerError {
    let mut error = ServerError::new(message, None);
    let mut extensions = async_graphql::ErrorExtensionValues::default();
    extensions.set("code", code);
    error.extensions = Some(extensions);
    error
}

/// The hash asked for, when the request uses the protocol.
fn asked_hash(request: &Request) -> ServerResult<Option<String>> {
    let Some(persisted) = request.extensions.get("persistedQuery") else {
        return Ok(None);
    };
    let invalid = || {
        error(
            "PERSISTED_QUERY_INVALID",
            "extensions.persistedQuery must be {\"version\": 1, \"sha256Hash\": \"<64 hex digits>\"}",
        )
    };
    let Value::Object(fields) = persisted else {
        return Err(invalid());
    };
    match fields.get("version") {
        Some(Value::Number(n)) if n.as_u64() == Some(1) => {}
        _ => {
            return Err(error(
                "PERSISTED_QUERY_NOT_SUPPORTED",
                "only version 1 of persisted queries is supported",
            ));
        }
    }
    match fields.get("sha256Hash") {
        Some(Value::String(hash))
            if hash.len() == 64 && hash.bytes().all(|b| b.is_ascii_hexdigit()) =>
        {
            Ok(Some(hash.to_ascii_lowercase()))
        }
        _ => Err(invalid()),
    }
}

impl PersistedQueries {
    /// Fills in the document of a hash-only request, or checks and remembers a sent one.
    /// Requests without the extension pass untouched.
    pub fn resolve(&self, request: &mut Request) -> ServerResult<()> {
        let Some(hash) = asked_hash(request)? else {
            return Ok(());
        };
        if request.query.is_empty() {
            let document = self
                .by_hash
                .get(&hash)
                .ok_or_else(|| error("PERSISTED_QUERY_NOT_FOUND", "PersistedQueryNotFound"))?;
            request.query = document.to_string();
            return Ok(());
        }
        let actual = format!("{:x}", Sha256::digest(request.query.as_bytes()));
        if actual != hash {
            return Err(error(
                "PERSISTED_QUERY_HASH_MISMATCH",
                "provided sha does not match query",
            ));
        }
        if request.query.len() <= MAX_REMEMBERED_BYTES {
            self.by_hash.insert(hash, Arc::from(request.query.as_str()));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_hash(query: &str, hash: &str) -> Request {
        let mut request = Request::new(query);
        let extension: Value =
            serde_json::from_value(serde_json::json!({"version": 1, "sha256Hash": hash})).unwrap();
        request
            .extensions
            .0
            .insert("persistedQuery".into(), extension);
        request
    }

    fn code(result: ServerResult<()>) -> String {
        let error = result.unwrap_err();
        let extensions = error.extensions.unwrap();
        serde_json::to_value(extensions.get("code").unwrap())
            .unwrap()
            .as_str()
            .unwrap()
            .to_string()
    }

    #[test]
    fn a_hash_is_unknown_until_its_document_was_sent_once() {
        let store = PersistedQueries::default();
        let query = "{ me { id } }";
        let hash = format!("{:x}", Sha256::digest(query.as_bytes()));
        assert_eq!(
            code(store.resolve(&mut with_hash("", &hash))),
            "PERSISTED_QUERY_NOT_FOUND"
        );
        store.resolve(&mut with_hash(query, &hash)).unwrap();
        let mut hash_only = with_hash("", &hash.to_uppercase());
        store.resolve(&mut hash_only).unwrap();
        assert_eq!(hash_only.query, query);
    }

    #[test]
    fn a_wrong_hash_or_version_is_refused() {
        let store = PersistedQueries::default();
        assert_eq!(
            code(store.resolve(&mut with_hash("{ me { id } }", &"a".repeat(64)))),
            "PERSISTED_QUERY_HASH_MISMATCH"
        );
        assert_eq!(
            code(store.resolve(&mut with_hash("", "short"))),
            "PERSISTED_QUERY_INVALID"
        );
        let mut old = Request::new("");
        old.extensions.0.insert(
            "persistedQuery".into(),
            serde_json::from_value(serde_json::json!({"version": 2, "sha256Hash": "x"})).unwrap(),
        );
        assert_eq!(
            code(store.resolve(&mut old)),
            "PERSISTED_QUERY_NOT_SUPPORTED"
        );
        store.resolve(&mut Request::new("{ me { id } }")).unwrap();
    }
}
