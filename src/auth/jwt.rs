//! Short-lived access tokens (HS256). A token names its agent, the API key it was minted from and
//! that key's scopes; the key's and agent's current state is still checked on every use.

use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

const ISSUER: &str = "spacetime-records";

#[derive(Debug, Serialize, Deserialize)]
pub struct Claims {
    pub sub: Uuid,
    pub kid: Uuid,
    pub scopes: Vec<String>,
    pub iat: i64,
    pub exp: i64,
    pub iss: String,
}

pub struct JwtKeys {
    encoding: EncodingKey,
    decoding: DecodingKey,
    pub ttl_secs: u64,
}

impl JwtKeys {
    pub fn new(secret: &[u8], ttl_secs: u64) -> JwtKeys {
        JwtKeys {
            encoding: EncodingKey::from_secret(secret),
            decoding: DecodingKey::from_secret(secret),
            ttl_secs,
        }
    }

    pub fn issue(
        &self,
        agent_id: Uuid,
        key_id: Uuid,
        scopes: Vec<String>,
    ) -> anyhow::Result<String> {
        let now = chrono::Utc::now().timestamp();
        let claims = Claims {
            sub: agent_id,
            kid: key_id,
            scopes,
            iat: now,
            exp: now + self.ttl_secs as i64,
            iss: ISSUER.into(),
        };
        Ok(jsonwebtoken::encode(
            &Header::new(Algorithm::HS256),
            &claims,
            &self.encoding,
        )?)
    }

    /// Signature, expiry (no leeway) and issuer are checked; any failure is simply "not valid".
    pub fn verify(&self, token: &str) -> Option<Claims> {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.leeway = 0;
        validation.set_issuer(&[ISSUER]);
        validation.set_required_spec_claims(&["exp", "sub", "iss"]);
        jsonwebtoken::decode::<Claims>(token, &self.decoding, &validation)
            .ok()
            .map(|data| data.claims)
    }
}

/// Cheap shape test that tells a JWT from an API key without parsing either.
pub fn looks_like_jwt(credential: &str) -> bool {
    credential.starts_with("eyJ") && credential.matches('.').count() == 2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_round_trip_and_reject_other_secrets() {
        let keys = JwtKeys::new(&[7u8; 32], 900);
        let agent = Uuid::now_v7();
        let token = keys
            .issue(agent, Uuid::now_v7(), vec!["admin".into()])
            .unwrap();
        assert!(looks_like_jwt(&token));
        assert_eq!(keys.verify(&token).unwrap().sub, agent);
        assert!(JwtKeys::new(&[8u8; 32], 900).verify(&token).is_none());
    }
}
