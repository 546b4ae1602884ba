//! Observation entries: supporting evidence for a record, never a record of their own. Without a
//! target and without a clear match they wait for review.

use super::batch_view::BatchView;
use super::entity::{Found, find};
use super::keys::entity_keys;
use super::outcome::Decision;
use crate::db::entries::SpaceTimeEntry;
use crate::domain::{CanonicalTable, LinkType};
use crate::error::AppResult;
use crate::transform::extract;
use serde_json::json;
use sqlx::PgConnection;

pub async fn apply(
    conn: &mut PgConnection,
    view: &mut BatchView,
    entry: &SpaceTimeEntry,
) -> AppResult<Decision> {
    if let (Some(table), Some(id)) = (entry.target_canonical_table, entry.target_canonical_id) {
        return Ok(Decision::linked(
            table,
            id,
            LinkType::SupportingEvidence,
            "observation of the target",
            json!({}),
        ));
    }
    let keys = match extract::observation_keys(&entry.context) {
        Ok(k) => entity_keys(
            k.display_name.as_deref(),
            k.website_url.as_deref(),
            k.phone.as_deref(),
            k.country_code.as_deref(),
            entry.source_ref.as_deref(),
        ),
        Err(reason) => return Ok(Decision::rejected(&reason)),
    };
    Ok(match find(conn, view, entry, &keys).await? {
        Found::Record(id, meta) => Decision::linked(
            CanonicalTable::Entities,
            id,
            LinkType::SupportingEvidence,
            "observation of the matched entity",
            meta,
        ),
        Found::Ambiguous(meta) => Decision::review("the observation fits several entities", meta),
        Found::Nothing(meta) => {
            Decision::review("the observation matches no record and needs a target", meta)
        }
    })
}
