//! `claim` and `withdraw` intents, the same for every kind of canonical record.

use super::outcome::Decision;
use crate::db::canonical;
use crate::db::entries::SpaceTimeEntry;
use crate::domain::{CanonicalTable, LinkType};
use crate::error::AppResult;
use serde_json::json;
use sqlx::PgConnection;
use uuid::Uuid;

/// A claim makes the agent the record's contact, unless another agent already is (then a human
/// decides).
pub async fn claim(
    conn: &mut PgConnection,
    entry: &SpaceTimeEntry,
    table: CanonicalTable,
    id: Uuid,
) -> AppResult<Decision> {
    let Some((contact, _)) = canonical::ownership(conn, table, id).await? else {
        return Ok(Decision::rejected("the target record does not exist"));
    };
    Ok(match contact {
        Some(owner) if owner == entry.agent_id => Decision::linked(
            table,
            id,
            LinkType::Matched,
            "already claimed by this agent",
            json!({}),
        ),
        Some(_) => Decision::review(
            "the record is already claimed by another agent",
            json!({"target_id": id}),
        ),
        None => {
            canonical::set_contact_agent(conn, table, id, entry.agent_id).await?;
            Decision::linked(
                table,
                id,
                LinkType::Updated,
                "claimed: contact agent set",
                json!({}),
            )
        }
    })
}

/// Only the agent that created a record may withdraw it; anyone else's withdrawal is reviewed.
pub async fn withdraw(
    conn: &mut PgConnection,
    entry: &SpaceTimeEntry,
    table: CanonicalTable,
    id: Uuid,
) -> AppResult<Decision> {
    let Some((_, creator)) = canonical::ownership(conn, table, id).await? else {
        return Ok(Decision::rejected("the target record does not exist"));
    };
    if creator != Some(entry.agent_id) {
        return Ok(Decision::review(
            "only the creating agent can withdraw a record",
            json!({"target_id": id}),
        ));
    }
    canonical::set_status(conn, table, id, "withdrawn").await?;
    Ok(Decision::linked(
        table,
        id,
        LinkType::Updated,
        "withdrawn by its creating agent",
        json!({}),
    ))
}
