//! The certificate ledger's hash chain (`strs-ctc-v1`, docs/certificate-ledger.md): pure functions,
//! so the service and a verifying client compute the same bytes.
//!
//! A certificate's `entry_hash` is the lower-case hex SHA-256 of the RFC 8785 (JCS) canonical JSON
//! of the object made of exactly the fields in `HASHED_FIELDS`, with the values the API returns
//! for them. `prev_hash` is the `entry_hash` of the certificate before it (`GENESIS_HASH` for the
//! first), so altering any certificate breaks every hash after it.

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

pub const ALGORITHM: &str = "strs-ctc-v1";

/// `prev_hash` of the first certificate.
pub const GENESIS_HASH: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// The fields a certificate's hash covers: every field of the record except `entry_hash` itself.
/// A field added to the record later is not hashed under this algorithm version.
pub const HASHED_FIELDS: &[&str] = &[
    "id",
    "transaction_terms_signature_id",
    "agent_id",
    "currency_code",
    "value_amount",
    "metadata",
    "created_at_tstamp_utc",
    "ledger_seq",
    "prev_hash",
];

/// The hashed bytes of a certificate given as its API JSON object.
pub fn canonical_bytes(certificate: &Value) -> Result<Vec<u8>, String> {
    let object = certificate
        .as_object()
        .ok_or("a certificate is a JSON object")?;
    let mut hashed = Map::new();
    for field in HASHED_FIELDS {
        let value = object
            .get(*field)
            .ok_or_else(|| format!("the certificate has no {field}"))?;
        hashed.insert((*field).to_string(), value.clone());
    }
    serde_jcs::to_vec(&Value::Object(hashed)).map_err(|e| e.to_string())
}

/// `entry_hash` of a certificate given as its API JSON object.
pub fn entry_hash(certificate: &Value) -> Result<String, String> {
    let digest = Sha256::digest(canonical_bytes(certificate)?);
    Ok(digest.iter().map(|b| format!("{b:02x}")).collect())
}

/// Checks a run of certificates in ledger order: each hash recomputes, each `prev_hash` names the
/// one before, and sequence numbers have no gap. `before` is the `entry_hash` preceding the first
/// (the genesis hash when the run starts at 1). Returns the first broken sequence number.
pub fn verify_chain(before: &str, chain: &[Value]) -> Result<(), String> {
    let mut previous_hash = before.to_string();
    let mut previous_seq: Option<i64> = None;
    for certificate in chain {
        let seq = certificate["ledger_seq"]
            .as_i64()
            .ok_or("ledger_seq is not an integer")?;
        if previous_seq.is_some_and(|p| p + 1 != seq) {
            return Err(format!("gap before ledger_seq {seq}"));
        }
        if certificate["prev_hash"] != previous_hash.as_str() {
            return Err(format!("prev_hash of ledger_seq {seq} does not match"));
        }
        let recomputed = entry_hash(certificate)?;
        if certificate["entry_hash"] != recomputed.as_str() {
            return Err(format!(
                "entry_hash of ledger_seq {seq} does not match its content"
            ));
        }
        previous_hash = recomputed;
        previous_seq = Some(seq);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn certificate(seq: i64, prev: &str, amount: &str) -> Value {
        let mut c = json!({
            "id": "0196c8d3-0000-7000-8000-000000000001",
            "transaction_terms_signature_id": "0196c8d2-8a9b-7c0d-a1e2-f3a4b5c6d7e8",
            "agent_id": "0196c8c4-7a10-7f3e-b2d4-1e9a5c7f0b22",
            "currency_code": "GBP",
            "value_amount": amount,
            "metadata": {"z": 1, "a": "é"},
            "created_at_tstamp_utc": "2026-11-23T13:00:00.123456Z",
            "ledger_seq": seq,
            "prev_hash": prev,
        });
        let hash = entry_hash(&c).unwrap();
        c["entry_hash"] = json!(hash);
        c
    }

    #[test]
    fn the_canonical_form_is_jcs_of_the_hashed_fields_only() {
        let c = certificate(1, GENESIS_HASH, "250.00");
        let text = String::from_utf8(canonical_bytes(&c).unwrap()).unwrap();
        assert!(text.starts_with(r#"{"agent_id":"0196c8c4"#), "{text}");
        assert!(text.contains(r#""metadata":{"a":"é","z":1}"#), "{text}");
        assert!(!text.contains("entry_hash"));
    }

    #[test]
    fn a_chain_verifies_and_any_altered_field_breaks_it() {
        let first = certificate(1, GENESIS_HASH, "250.00");
        let second = certificate(2, first["entry_hash"].as_str().unwrap(), "10");
        assert_eq!(
            verify_chain(GENESIS_HASH, &[first.clone(), second.clone()]),
            Ok(())
        );

        let mut altered = first.clone();
        altered["value_amount"] = json!("2500.00");
        assert!(verify_chain(GENESIS_HASH, &[altered, second.clone()]).is_err());

        let mut forked = second.clone();
        forked["prev_hash"] = json!(GENESIS_HASH);
        assert!(verify_chain(GENESIS_HASH, &[first.clone(), forked]).is_err());

        let third = certificate(4, second["entry_hash"].as_str().unwrap(), "1");
        assert!(verify_chain(GENESIS_HASH, &[first, second, third]).is_err());
    }
}
