//! GraphQL documents the API and hot-paths benches send.

/// The 28 fields of an entity, as REST returns them.
pub const ENTITY_BY_ID: &str = "query($id: UUID!) { entity(id: $id) { id entityType displayName legalName
  description websiteUrl email phone addressText city countryCode categories tags
  linkUrls { url label description } contactAgentId locationLat locationLng status
  scoreDataRichness scoreAgentReputation scoreSignal scoreConfidence contextL0Routing
  contextL1Common contextL2Specific contextL2AvailableFeatures createdAtTstampUtc updatedAtTstampUtc } }";

/// Who contributed what, two levels deep.
pub const NESTED: &str = "{ agents(first: 50) { edges { node { displayName entries(first: 10) { edges { node {
    id contributions(first: 5) { linkType entity { displayName contributions(first: 10) { linkType entry { id agent { displayName } } } } } } } } } } } }";

/// A page of `entitiesNear` around Manchester.
pub const NEAR_PAGE: &str =
    "{ entitiesNear(latitude: 53.4808, longitude: -2.2426, radiusMeters: 1000, first: 20) {
    edges { distanceMeters node { id displayName city categories scoreConfidence } } } }";
