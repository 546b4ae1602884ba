//! GraphQL twins of the domain enums (`remote` keeps them in lock-step with the domain: a new
//! variant there fails to compile here until it is added).

use crate::domain;
use async_graphql::Enum;

#[derive(Enum, Copy, Clone, Eq, PartialEq)]
#[graphql(remote = "domain::PrincipalType")]
pub enum PrincipalType {
    Person,
    Company,
    PublicBody,
    Internal,
    Customer,
    Supplier,
}

#[derive(Enum, Copy, Clone, Eq, PartialEq)]
#[graphql(remote = "domain::AgentType")]
pub enum AgentType {
    Human,
    Scraper,
    ApiAgent,
    SupplierAgent,
    CustomerAgent,
    Sensor,
}

#[derive(Enum, Copy, Clone, Eq, PartialEq)]
#[graphql(remote = "domain::AgentStatus")]
pub enum AgentStatus {
    Active,
    Paused,
    Disabled,
}

#[derive(Enum, Copy, Clone, Eq, PartialEq)]
#[graphql(remote = "domain::ApiKeyStatus")]
pub enum ApiKeyStatus {
    Active,
    Revoked,
    Expired,
}

#[derive(Enum, Copy, Clone, Eq, PartialEq)]
#[graphql(remote = "domain::EntryType")]
pub enum EntryType {
    Entity,
    Request,
    Listing,
    Observation,
}

#[derive(Enum, Copy, Clone, Eq, PartialEq)]
#[graphql(remote = "domain::EntryIntent")]
pub enum EntryIntent {
    Observe,
    Submit,
    AddContext,
    Correct,
    Claim,
    Verify,
    Withdraw,
}

#[derive(Enum, Copy, Clone, Eq, PartialEq)]
#[graphql(remote = "domain::EntryStatus")]
pub enum EntryStatus {
    Pending,
    Active,
    Processed,
    Superseded,
    Rejected,
    ReviewRequired,
    Archived,
}

/// canonical.entities, canonical.listings, canonical.requests.
#[derive(Enum, Copy, Clone, Eq, PartialEq)]
#[graphql(remote = "domain::CanonicalTable")]
pub enum CanonicalTable {
    Entities,
    Listings,
    Requests,
}

#[derive(Enum, Copy, Clone, Eq, PartialEq)]
#[graphql(remote = "domain::LinkType")]
pub enum LinkType {
    Created,
    Updated,
    Matched,
    Merged,
    SupportingEvidence,
    DuplicateOf,
}

#[derive(Enum, Copy, Clone, Eq, PartialEq)]
#[graphql(remote = "domain::NoteVisibility")]
pub enum NoteVisibility {
    Internal,
    Public,
    PrincipalOnly,
}

#[derive(Enum, Copy, Clone, Eq, PartialEq)]
#[graphql(remote = "domain::SignalType")]
pub enum SignalType {
    Confirm,
    Reject,
    Duplicate,
    Stale,
    Flag,
    BoostConfidence,
    ReduceConfidence,
}
