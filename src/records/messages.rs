//! Private messages between two agents.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::FromRow;
use utoipa::ToSchema;
use uuid::Uuid;

/// A private message. Only its sender and its recipient can read it.
#[derive(Debug, Clone, FromRow, Serialize, ToSchema, async_graphql::SimpleObject)]
#[graphql(complex)]
pub struct Message {
    pub id: Uuid,
    /// The agent that sent it (from the sender's bearer credential).
    pub sender_agent_id: Uuid,
    pub recipient_agent_id: Uuid,
    /// The message this one answers.
    pub reply_to_message_id: Option<Uuid>,
    /// With `target_table` and `target_id`: the record the message is about.
    pub target_schema: Option<String>,
    pub target_table: Option<String>,
    pub target_id: Option<Uuid>,
    /// 1 to 65536 characters.
    pub message_content: String,
    /// Free-form references (objects), at most 20.
    #[schema(value_type = Vec<Object>)]
    pub attachments: Value,
    /// Null while unread; set once, by the recipient.
    pub read_at_tstamp_utc: Option<DateTime<Utc>>,
    pub created_at_tstamp_utc: DateTime<Utc>,
    pub updated_at_tstamp_utc: DateTime<Utc>,
}

/// Body of `POST /api/v1/messages` and input of the `sendMessage` mutation.
#[derive(Debug, Deserialize, ToSchema, async_graphql::InputObject)]
#[serde(deny_unknown_fields)]
#[graphql(name = "MessageCreateInput")]
pub struct MessageCreate {
    /// The agent the message is for; it must exist.
    pub recipient_agent_id: Uuid,
    /// 1 to 65536 characters.
    pub message_content: String,
    /// A message you sent or received that this one answers.
    #[serde(default)]
    pub reply_to_message_id: Option<Uuid>,
    /// `canonical` or `public`; with `target_table` and `target_id`, all three or none.
    #[serde(default)]
    pub target_schema: Option<String>,
    /// `entities`, `listings`, `requests` (canonical) or `space_time_entries` (public).
    #[serde(default)]
    pub target_table: Option<String>,
    #[serde(default)]
    pub target_id: Option<Uuid>,
    /// Free-form reference objects, at most 20, together at most 16 KiB of JSON.
    #[serde(default)]
    #[schema(value_type = Option<Vec<Object>>)]
    pub attachments: Option<Vec<Value>>,
}
