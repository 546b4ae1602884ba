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
