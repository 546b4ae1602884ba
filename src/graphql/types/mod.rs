//! The schema's types: one file per part of the graph, each with its objects' edges
//! (`#[ComplexObject]`), its queries and its mutations over the service functions.

pub mod agents;
pub mod canonical;
pub mod certificates;
pub mod docs;
pub mod entries;
pub mod feedback;
pub mod messages;
pub mod nearby;
pub mod node;
pub mod principals;
pub mod processing;
pub mod proposals;
pub mod provenance;
pub mod review;
pub mod search;
pub mod subscriptions;
pub mod terms;
pub mod within;
