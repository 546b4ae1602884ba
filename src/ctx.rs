//! Who is calling. Built once per request by the transport and passed explicitly to services.

use crate::error::{AppError, AppResult};
use uuid::Uuid;

#[derive(Debug, Clone)]
pub struct Actor {
    pub agent_id: Uuid,
    pub key_id: Uuid,
    pub principal_id: Option<Uuid>,
    pub scopes: Vec<String>,
}

#[derive(Debug, Clone, Default)]
pub struct Ctx {
    pub actor: Option<Actor>,
    pub request_id: String,
}

impl Ctx {
    pub fn anonymous() -> Ctx {
        Ctx::default()
    }

    pub fn require_actor(&self) -> AppResult<&Actor> {
        self.actor.as_ref().ok_or(AppError::Unauthorized)
    }

    pub fn require_scope(&self, scope: &str) -> AppResult<&Actor> {
        let actor = self.require_actor()?;
        if actor.scopes.iter().any(|s| s == scope) {
            Ok(actor)
        } else {
            Err(AppError::Forbidden(format!(
                "this operation needs an API key with the '{scope}' scope"
            )))
        }
    }
}
