//! Canonical entities, listings, requests and their provenance, as a graph.

use super::agents::AgentNode;
use super::entries::EntryNode;
use super::enums::{CanonicalTable, LinkType};
use super::loaders::{
    AgentLoader, ContributionsByEntry, ContributionsByTarget, EntityLoader, EntryLoader,
    ListingLoader, RequestLoader,
};
use super::{ctx_parts, paging};
use crate::db::contributions::{ContributionFilter, LinkContribution};
use crate::db::entities::Entity;
use crate::db::listings::Listing;
use crate::db::requests::CanonicalRequest;
use crate::domain;
use crate::services::canonical;
use async_graphql::connection::Connection;
use async_graphql::dataloader::DataLoader;
use async_graphql::{Context, Json, Object, Result, SimpleObject, Union};
use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use serde_json::Value;
use uuid::Uuid;

/// A link of a canonical record.
#[derive(SimpleObject)]
pub struct LinkUrl {
    pub url: String,
    pub label: Option<String>,
    pub description: Option<String>,
}

impl From<&crate::db::entities::LinkUrl> for LinkUrl {
    fn from(l: &crate::db::entities::LinkUrl) -> Self {
        LinkUrl {
            url: l.url.clone(),
            label: l.label.clone(),
            description: l.description.clone(),
        }
    }
}

/// Any canonical record.
#[derive(Union)]
pub enum CanonicalRecord {
    Entity(EntityNode),
    Listing(ListingNode),
    Request(RequestNode),
}

pub async fn load_record(
    ctx: &Context<'_>,
    table: domain::CanonicalTable,
    id: Uuid,
) -> Result<Option<CanonicalRecord>> {
    Ok(match table {
        domain::CanonicalTable::Entities => load_entity(ctx, Some(id))
            .await?
            .map(CanonicalRecord::Entity),
        domain::CanonicalTable::Listings => {
            let loader = ctx.data_unchecked::<DataLoader<ListingLoader>>();
            loader
                .load_one(id)
                .await
                .map_err(|e| (*e).clone())?
                .map(|l| CanonicalRecord::Listing(ListingNode(l)))
        }
        domain::CanonicalTable::Requests => {
            let loader = ctx.data_unchecked::<DataLoader<RequestLoader>>();
            loader
                .load_one(id)
                .await
                .map_err(|e| (*e).clone())?
                .map(|r| CanonicalRecord::Request(RequestNode(r)))
        }
    })
}

pub async fn load_entity(ctx: &Context<'_>, id: Option<Uuid>) -> Result<Option<EntityNode>> {
    let Some(id) = id else { return Ok(None) };
    let loader = ctx.data_unchecked::<DataLoader<EntityLoader>>();
    Ok(loader
        .load_one(id)
        .await
        .map_err(|e| (*e).clone())?
        .map(EntityNode))
}

pub async fn load_agent(ctx: &Context<'_>, id: Option<Uuid>) -> Result<Option<AgentNode>> {
    let Some(id) = id else { return Ok(None) };
    let loader = ctx.data_unchecked::<DataLoader<AgentLoader>>();
    Ok(loader
        .load_one(id)
        .await
        .map_err(|e| (*e).clone())?
        .map(AgentNode))
}

pub async fn contributions_to(ctx: &Context<'_>, target: Uuid) -> Result<Vec<ContributionNode>> {
    let loader = ctx.data_unchecked::<DataLoader<ContributionsByTarget>>();
    let found = loader.load_one(target).await.map_err(|e| (*e).clone())?;
    Ok(found
        .unwrap_or_default()
        .into_iter()
        .map(ContributionNode)
        .collect())
}

pub async fn contributions_of_entry(
    ctx: &Context<'_>,
    entry: Uuid,
) -> Result<Vec<ContributionNode>> {
    let loader = ctx.data_unchecked::<DataLoader<ContributionsByEntry>>();
    let found = loader.load_one(entry).await.map_err(|e| (*e).clone())?;
    Ok(found
        .unwrap_or_default()
        .into_iter()
        .map(ContributionNode)
        .collect())
}

/// A canonical entity: the service's current truth about one business, place or organisation.
pub struct EntityNode(pub Entity);

#[Object(name = "Entity")]
impl EntityNode {
    async fn id(&self) -> Uuid {
        self.0.id
    }
    async fn entity_type(&self) -> &str {
        &self.0.entity_type
    }
    async fn display_name(&self) -> &str {
        &self.0.display_name
    }
    async fn legal_name(&self) -> Option<&str> {
        self.0.legal_name.as_deref()
    }
    async fn description(&self) -> Option<&str> {
        self.0.description.as_deref()
    }
    async fn website_url(&self) -> Option<&str> {
        self.0.website_url.as_deref()
    }
    async fn email(&self) -> Option<&str> {
        self.0.email.as_deref()
    }
    async fn phone(&self) -> Option<&str> {
        self.0.phone.as_deref()
    }
    async fn address_text(&self) -> Option<&str> {
        self.0.address_text.as_deref()
    }
    async fn city(&self) -> Option<&str> {
        self.0.city.as_deref()
    }
    async fn country_code(&self) -> Option<&str> {
        self.0.country_code.as_deref()
    }
    async fn categories(&self) -> &[String] {
        &self.0.categories
    }
    async fn tags(&self) -> &[String] {
        &self.0.tags
    }
    async fn link_urls(&self) -> Vec<LinkUrl> {
        self.0.link_urls.0.iter().map(LinkUrl::from).collect()
    }
    async fn contact_agent_id(&self) -> Option<Uuid> {
        self.0.contact_agent_id
    }
    async fn location_lat(&self) -> f64 {
        self.0.location_lat
    }
    async fn location_lng(&self) -> f64 {
        self.0.location_lng
    }
    async fn status(&self) -> &str {
        &self.0.status
    }
    /// 0 to 1: how complete the record and its context are.
    async fn score_data_richness(&self) -> Decimal {
        self.0.score_data_richness
    }
    async fn score_agent_reputation(&self) -> Option<Decimal> {
        self.0.score_agent_reputation
    }
    /// 0 to 1 from signals; null without signals.
    async fn score_signal(&self) -> Option<Decimal> {
        self.0.score_signal
    }
    /// 0 to 1: corroboration by independent agents, recency, signals.
    async fn score_confidence(&self) -> Decimal {
        self.0.score_confidence
    }
    async fn context_l0_routing(&self) -> Json<&Value> {
        Json(&self.0.context_l0_routing)
    }
    async fn context_l1_common(&self) -> Json<&Value> {
        Json(&self.0.context_l1_common)
    }
    async fn context_l2_specific(&self) -> Json<&Value> {
        Json(&self.0.context_l2_specific)
    }
    async fn context_l2_available_features(&self) -> &[String] {
        &self.0.context_l2_available_features
    }
    async fn created_at_tstamp_utc(&self) -> DateTime<Utc> {
        self.0.created_at_tstamp_utc
    }
    async fn updated_at_tstamp_utc(&self) -> DateTime<Utc> {
        self.0.updated_at_tstamp_utc
    }
    /// Provenance: every entry that created, updated, matched or supported this record.
    async fn contributions(&self, ctx: &Context<'_>) -> Result<Vec<ContributionNode>> {
        contributions_to(ctx, self.0.id).await
    }
    /// The agent that claimed this record as its contact.
    async fn contact_agent(&self, ctx: &Context<'_>) -> Result<Option<AgentNode>> {
        load_agent(ctx, self.0.contact_agent_id).await
    }
    /// Notes on this entity that the caller may see, oldest first.
    async fn notes(&self, ctx: &Context<'_>) -> Result<Vec<super::feedback::NoteNode>> {
        let loader = ctx.data_unchecked::<DataLoader<super::loaders::NotesByTarget>>();
        let found = loader.load_one(self.0.id).await.map_err(|e| (*e).clone())?;
        Ok(found
            .unwrap_or_default()
            .into_iter()
            .map(super::feedback::NoteNode)
            .collect())
    }
    /// Signals on this entity, oldest first.
    async fn signals(&self, ctx: &Context<'_>) -> Result<Vec<super::feedback::SignalNode>> {
        let loader = ctx.data_unchecked::<DataLoader<super::loaders::SignalsByTarget>>();
        let found = loader.load_one(self.0.id).await.map_err(|e| (*e).clone())?;
        Ok(found
            .unwrap_or_default()
            .into_iter()
            .map(super::feedback::SignalNode)
            .collect())
    }
    /// Reported duplicate pairs involving this entity (never merged automatically).
    async fn duplicate_candidates(
        &self,
        ctx: &Context<'_>,
    ) -> Result<Vec<super::feedback::DuplicateCandidateNode>> {
        let loader = ctx.data_unchecked::<DataLoader<super::loaders::DuplicatesByRecord>>();
        let found = loader.load_one(self.0.id).await.map_err(|e| (*e).clone())?;
        Ok(found
            .unwrap_or_default()
            .into_iter()
            .map(super::feedback::DuplicateCandidateNode)
            .collect())
    }
    /// Listings offered by this entity, newest first.
    async fn listings(
        &self,
        ctx: &Context<'_>,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<Connection<String, ListingNode>> {
        let (state, _) = ctx_parts(ctx);
        let after_given = after.is_some();
        let page = canonical::listings_of_provider(state, self.0.id, paging::params(first, after)?)
            .await?;
        Ok(paging::connection(page, |l| l.id, ListingNode, after_given))
    }
}

/// A canonical listing: one concrete offer.
pub struct ListingNode(pub Listing);

#[Object(name = "Listing")]
impl ListingNode {
    async fn id(&self) -> Uuid {
        self.0.id
    }
    async fn created_by_agent_id(&self) -> Option<Uuid> {
        self.0.created_by_agent_id
    }
    async fn principal_id(&self) -> Option<Uuid> {
        self.0.principal_id
    }
    async fn provider_entity_id(&self) -> Option<Uuid> {
        self.0.provider_entity_id
    }
    async fn contact_agent_id(&self) -> Option<Uuid> {
        self.0.contact_agent_id
    }
    async fn listing_type(&self) -> &str {
        &self.0.listing_type
    }
    async fn title(&self) -> &str {
        &self.0.title
    }
    async fn description(&self) -> Option<&str> {
        self.0.description.as_deref()
    }
    async fn categories(&self) -> &[String] {
        &self.0.categories
    }
    async fn link_urls(&self) -> Vec<LinkUrl> {
        self.0.link_urls.0.iter().map(LinkUrl::from).collect()
    }
    async fn price_amount(&self) -> Option<Decimal> {
        self.0.price_amount
    }
    async fn currency_code(&self) -> Option<&str> {
        self.0.currency_code.as_deref()
    }
    async fn availability_status(&self) -> Option<&str> {
        self.0.availability_status.as_deref()
    }
    async fn location_lat(&self) -> f64 {
        self.0.location_lat
    }
    async fn location_lng(&self) -> f64 {
        self.0.location_lng
    }
    async fn address_text(&self) -> Option<&str> {
        self.0.address_text.as_deref()
    }
    async fn city(&self) -> Option<&str> {
        self.0.city.as_deref()
    }
    async fn country_code(&self) -> Option<&str> {
        self.0.country_code.as_deref()
    }
    async fn valid_from_tstamp_utc(&self) -> Option<DateTime<Utc>> {
        self.0.valid_from_tstamp_utc
    }
    async fn valid_to_tstamp_utc(&self) -> Option<DateTime<Utc>> {
        self.0.valid_to_tstamp_utc
    }
    async fn status(&self) -> &str {
        &self.0.status
    }
    /// 0 to 1: how complete the record and its context are.
    async fn score_data_richness(&self) -> Decimal {
        self.0.score_data_richness
    }
    async fn score_agent_reputation(&self) -> Option<Decimal> {
        self.0.score_agent_reputation
    }
    /// 0 to 1 from signals; null without signals.
    async fn score_signal(&self) -> Option<Decimal> {
        self.0.score_signal
    }
    /// 0 to 1: corroboration by independent agents, recency, signals.
    async fn score_confidence(&self) -> Decimal {
        self.0.score_confidence
    }
    async fn context_l0_routing(&self) -> Json<&Value> {
        Json(&self.0.context_l0_routing)
    }
    async fn context_l1_common(&self) -> Json<&Value> {
        Json(&self.0.context_l1_common)
    }
    async fn context_l2_specific(&self) -> Json<&Value> {
        Json(&self.0.context_l2_specific)
    }
    async fn context_l2_available_features(&self) -> &[String] {
        &self.0.context_l2_available_features
    }
    async fn created_at_tstamp_utc(&self) -> DateTime<Utc> {
        self.0.created_at_tstamp_utc
    }
    async fn updated_at_tstamp_utc(&self) -> DateTime<Utc> {
        self.0.updated_at_tstamp_utc
    }
    /// Provenance: every entry that created, updated, matched or supported this record.
    async fn contributions(&self, ctx: &Context<'_>) -> Result<Vec<ContributionNode>> {
        contributions_to(ctx, self.0.id).await
    }
    /// The agent that claimed this record as its contact.
    async fn contact_agent(&self, ctx: &Context<'_>) -> Result<Option<AgentNode>> {
        load_agent(ctx, self.0.contact_agent_id).await
    }
    /// The entity offering this listing.
    async fn provider(&self, ctx: &Context<'_>) -> Result<Option<EntityNode>> {
        load_entity(ctx, self.0.provider_entity_id).await
    }
}

/// A canonical request: one concrete need.
pub struct RequestNode(pub CanonicalRequest);

#[Object(name = "CanonicalRequest")]
impl RequestNode {
    async fn id(&self) -> Uuid {
        self.0.id
    }
    async fn created_by_agent_id(&self) -> Option<Uuid> {
        self.0.created_by_agent_id
    }
    async fn principal_id(&self) -> Option<Uuid> {
        self.0.principal_id
    }
    async fn requester_entity_id(&self) -> Option<Uuid> {
        self.0.requester_entity_id
    }
    async fn contact_agent_id(&self) -> Option<Uuid> {
        self.0.contact_agent_id
    }
    async fn request_type(&self) -> &str {
        &self.0.request_type
    }
    async fn title(&self) -> &str {
        &self.0.title
    }
    async fn description(&self) -> Option<&str> {
        self.0.description.as_deref()
    }
    async fn categories(&self) -> &[String] {
        &self.0.categories
    }
    async fn link_urls(&self) -> Vec<LinkUrl> {
        self.0.link_urls.0.iter().map(LinkUrl::from).collect()
    }
    async fn budget_amount(&self) -> Option<Decimal> {
        self.0.budget_amount
    }
    async fn currency_code(&self) -> Option<&str> {
        self.0.currency_code.as_deref()
    }
    async fn location_lat(&self) -> f64 {
        self.0.location_lat
    }
    async fn location_lng(&self) -> f64 {
        self.0.location_lng
    }
    async fn address_text(&self) -> Option<&str> {
        self.0.address_text.as_deref()
    }
    async fn city(&self) -> Option<&str> {
        self.0.city.as_deref()
    }
    async fn country_code(&self) -> Option<&str> {
        self.0.country_code.as_deref()
    }
    async fn needed_from_tstamp_utc(&self) -> Option<DateTime<Utc>> {
        self.0.needed_from_tstamp_utc
    }
    async fn needed_by_tstamp_utc(&self) -> Option<DateTime<Utc>> {
        self.0.needed_by_tstamp_utc
    }
    async fn status(&self) -> &str {
        &self.0.status
    }
    /// 0 to 1: how complete the record and its context are.
    async fn score_data_richness(&self) -> Decimal {
        self.0.score_data_richness
    }
    async fn score_agent_reputation(&self) -> Option<Decimal> {
        self.0.score_agent_reputation
    }
    /// 0 to 1 from signals; null without signals.
    async fn score_signal(&self) -> Option<Decimal> {
        self.0.score_signal
    }
    /// 0 to 1: corroboration by independent agents, recency, signals.
    async fn score_confidence(&self) -> Decimal {
        self.0.score_confidence
    }
    async fn context_l0_routing(&self) -> Json<&Value> {
        Json(&self.0.context_l0_routing)
    }
    async fn context_l1_common(&self) -> Json<&Value> {
        Json(&self.0.context_l1_common)
    }
    async fn context_l2_specific(&self) -> Json<&Value> {
        Json(&self.0.context_l2_specific)
    }
    async fn context_l2_available_features(&self) -> &[String] {
        &self.0.context_l2_available_features
    }
    async fn created_at_tstamp_utc(&self) -> DateTime<Utc> {
        self.0.created_at_tstamp_utc
    }
    async fn updated_at_tstamp_utc(&self) -> DateTime<Utc> {
        self.0.updated_at_tstamp_utc
    }
    /// Provenance: every entry that created, updated, matched or supported this record.
    async fn contributions(&self, ctx: &Context<'_>) -> Result<Vec<ContributionNode>> {
        contributions_to(ctx, self.0.id).await
    }
    /// The agent that claimed this record as its contact.
    async fn contact_agent(&self, ctx: &Context<'_>) -> Result<Option<AgentNode>> {
        load_agent(ctx, self.0.contact_agent_id).await
    }
    /// The entity asking, when known.
    async fn requester(&self, ctx: &Context<'_>) -> Result<Option<EntityNode>> {
        load_entity(ctx, self.0.requester_entity_id).await
    }
}

/// Provenance: which entry created, updated, matched or supported which record.
pub struct ContributionNode(pub LinkContribution);

#[Object(name = "LinkContribution")]
impl ContributionNode {
    async fn id(&self) -> Uuid {
        self.0.id
    }
    async fn source_space_time_entry_id(&self) -> Uuid {
        self.0.source_space_time_entry_id
    }
    async fn target_canonical_table(&self) -> CanonicalTable {
        self.0.target_canonical_table.into()
    }
    async fn target_canonical_id(&self) -> Uuid {
        self.0.target_canonical_id
    }
    async fn link_type(&self) -> LinkType {
        self.0.link_type.into()
    }
    async fn contribution_weight(&self) -> Decimal {
        self.0.contribution_weight
    }
    async fn information_power(&self) -> Option<Decimal> {
        self.0.information_power
    }
    async fn score_confidence(&self) -> Decimal {
        self.0.score_confidence
    }
    async fn transformer_name(&self) -> &str {
        &self.0.transformer_name
    }
    async fn transformer_version(&self) -> Option<&str> {
        self.0.transformer_version.as_deref()
    }
    async fn transformer_run_id(&self) -> Uuid {
        self.0.transformer_run_id
    }
    async fn reason(&self) -> Option<&str> {
        self.0.reason.as_deref()
    }
    async fn metadata(&self) -> Json<&Value> {
        Json(&self.0.metadata)
    }
    async fn created_at_tstamp_utc(&self) -> DateTime<Utc> {
        self.0.created_at_tstamp_utc
    }
    /// The entry that made this contribution.
    async fn entry(&self, ctx: &Context<'_>) -> Result<Option<EntryNode>> {
        let loader = ctx.data_unchecked::<DataLoader<EntryLoader>>();
        let id = self.0.source_space_time_entry_id;
        Ok(loader
            .load_one(id)
            .await
            .map_err(|e| (*e).clone())?
            .map(EntryNode))
    }
    /// The canonical record it contributed to.
    async fn target(&self, ctx: &Context<'_>) -> Result<Option<CanonicalRecord>> {
        load_record(
            ctx,
            self.0.target_canonical_table,
            self.0.target_canonical_id,
        )
        .await
    }
    /// The target when it is an entity (a shortcut for `target { ... on Entity }`).
    async fn entity(&self, ctx: &Context<'_>) -> Result<Option<EntityNode>> {
        match self.0.target_canonical_table {
            domain::CanonicalTable::Entities => {
                load_entity(ctx, Some(self.0.target_canonical_id)).await
            }
            _ => Ok(None),
        }
    }
}

#[derive(Default)]
pub struct CanonicalQuery;

#[Object]
impl CanonicalQuery {
    /// One canonical entity by id; null when it does not exist.
    async fn entity(&self, ctx: &Context<'_>, id: Uuid) -> Result<Option<EntityNode>> {
        let (state, _) = ctx_parts(ctx);
        super::found(canonical::entity(state, id).await)
            .map(|e| e.map(EntityNode))
            .map_err(Into::into)
    }

    /// Canonical entities, newest first, optionally by status.
    async fn entities(
        &self,
        ctx: &Context<'_>,
        status: Option<String>,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<Connection<String, EntityNode>> {
        let (state, _) = ctx_parts(ctx);
        let after_given = after.is_some();
        let page = canonical::entities(
            state,
            status.as_deref(),
            paging::params(first, after)?,
            &["status"],
        )
        .await?;
        Ok(paging::connection(page, |e| e.id, EntityNode, after_given))
    }

    /// One canonical listing by id.
    async fn listing(&self, ctx: &Context<'_>, id: Uuid) -> Result<Option<ListingNode>> {
        let (state, _) = ctx_parts(ctx);
        super::found(canonical::listing(state, id).await)
            .map(|l| l.map(ListingNode))
            .map_err(Into::into)
    }

    /// Canonical listings, newest first.
    async fn listings(
        &self,
        ctx: &Context<'_>,
        status: Option<String>,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<Connection<String, ListingNode>> {
        let (state, _) = ctx_parts(ctx);
        let after_given = after.is_some();
        let page = canonical::listings(
            state,
            status.as_deref(),
            paging::params(first, after)?,
            &["status"],
        )
        .await?;
        Ok(paging::connection(page, |l| l.id, ListingNode, after_given))
    }

    /// One canonical request by id.
    async fn request(&self, ctx: &Context<'_>, id: Uuid) -> Result<Option<RequestNode>> {
        let (state, _) = ctx_parts(ctx);
        super::found(canonical::request(state, id).await)
            .map(|r| r.map(RequestNode))
            .map_err(Into::into)
    }

    /// Canonical requests, newest first.
    async fn requests(
        &self,
        ctx: &Context<'_>,
        status: Option<String>,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<Connection<String, RequestNode>> {
        let (state, _) = ctx_parts(ctx);
        let after_given = after.is_some();
        let page = canonical::requests(
            state,
            status.as_deref(),
            paging::params(first, after)?,
            &["status"],
        )
        .await?;
        Ok(paging::connection(page, |r| r.id, RequestNode, after_given))
    }

    /// Link contributions, newest first, by target and/or entry.
    async fn link_contributions(
        &self,
        ctx: &Context<'_>,
        target_canonical_table: Option<CanonicalTable>,
        target_canonical_id: Option<Uuid>,
        space_time_entry_id: Option<Uuid>,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<Connection<String, ContributionNode>> {
        let (state, _) = ctx_parts(ctx);
        let after_given = after.is_some();
        let filter = ContributionFilter {
            target_canonical_table: target_canonical_table.map(Into::into),
            target_canonical_id,
            space_time_entry_id,
        };
        let page = canonical::contributions(state, filter, paging::params(first, after)?).await?;
        Ok(paging::connection(
            page,
            |c| c.id,
            ContributionNode,
            after_given,
        ))
    }
}
