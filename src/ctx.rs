//! Who is calling. Built once per request by the transport and passed explicitly to services.

use crate::domain::AgentStatus;
use crate::error::{AppError, AppResult};
use uuid::Uuid;

#[derive(Debug, Clone)]
pub struct Actor {
    pub agent_id: Uuid,
    pub key_id: Uuid,
    pub principal_id: Option<Uuid>,
    pub scopes: Vec<String>,
    pub agent_status: AgentStatus,
    /// The agent wrote within the read-your-writes window: its reads go to the primary.
    pub wrote_recently: bool,
}

#[derive(Debug, Clone, Default)]
pub struct Ctx {
    pub actor: Option<Actor>,
    pub request_id: String,
    /// The client's address, for per-client limits on anonymous writes.
    pub client: Option<String>,
}

impl Ctx {
    pub fn anonymous() -> Ctx {
        Ctx::default()
    }

    pub fn require_actor(&self) -> AppResult<&Actor> {
        self.actor.as_ref().ok_or(AppError::Unauthorized)
    }

    /// Publishing needs an active agent: a paused agent keeps its keys but cannot write.
    pub fn require_active_writer(&self, scope: &str) -> AppResult<&Actor> {
        let actor = self.require_scope(scope)?;
        if actor.agent_status == AgentStatus::Paused {
            return Err(AppError::Forbidden(
                "this agent is paused and cannot publish".into(),
            ));
        }
        Ok(actor)
    }

    /// Messages, terms, signatures and certificates need an active agent (any scope): a paused
    /// agent keeps its keys and can read, but makes no new statements.
    pub fn require_active_agent(&self) -> AppResult<&Actor> {
        let actor = self.require_actor()?;
        if actor.agent_status == AgentStatus::Paused {
            return Err(AppError::Forbidden(
                "this agent is paused and cannot send, publish, sign or certify".into(),
            ));
        }
        Ok(actor)
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
