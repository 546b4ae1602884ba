//! RFC 7946 GeoJSON for REST answers under `Accept: application/geo+json`: a FeatureCollection
//! of Point features (coordinates longitude first) whose `properties` are each record exactly
//! as the JSON answer writes it, so a GIS client and a JSON client read the same fields.
//!
//! Typed structs rather than geozero's writer: the OpenAPI document needs these shapes as
//! schemas, and a point's geometry is two numbers. geozero reads the polygons callers send.

use super::canonical::{CanonicalRequest, Entity, Listing};
use super::entries::SpaceTimeEntry;
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

/// Something with an id and a point on the map.
pub trait Located {
    fn feature_id(&self) -> Uuid;
    /// (longitude, latitude), the order GeoJSON writes them.
    fn lng_lat(&self) -> [f64; 2];
}

#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
pub enum PointType {
    Point,
}

#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
pub enum FeatureType {
    Feature,
}

#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
pub enum FeatureCollectionType {
    FeatureCollection,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PointGeometry {
    #[serde(rename = "type")]
    pub kind: PointType,
    /// [longitude, latitude] in degrees (WGS 84).
    #[schema(min_items = 2, max_items = 2)]
    pub coordinates: [f64; 2],
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Feature<T> {
    #[serde(rename = "type")]
    pub kind: FeatureType,
    pub id: Uuid,
    pub geometry: PointGeometry,
    pub properties: T,
}

impl<T: Located> Feature<T> {
    pub fn of(record: T) -> Self {
        Feature {
            kind: FeatureType::Feature,
            id: record.feature_id(),
            geometry: PointGeometry {
                kind: PointType::Point,
                coordinates: record.lng_lat(),
            },
            properties: record,
        }
    }
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct FeatureCollection<T> {
    #[serde(rename = "type")]
    pub kind: FeatureCollectionType,
    pub features: Vec<Feature<T>>,
}

impl<T: Located> FromIterator<T> for FeatureCollection<T> {
    fn from_iter<I: IntoIterator<Item = T>>(records: I) -> Self {
        FeatureCollection {
            kind: FeatureCollectionType::FeatureCollection,
            features: records.into_iter().map(Feature::of).collect(),
        }
    }
}

impl Located for Entity {
    fn feature_id(&self) -> Uuid {
        self.id
    }
    fn lng_lat(&self) -> [f64; 2] {
        [self.location_lng, self.location_lat]
    }
}

impl Located for Listing {
    fn feature_id(&self) -> Uuid {
        self.id
    }
    fn lng_lat(&self) -> [f64; 2] {
        [self.core.location_lng, self.core.location_lat]
    }
}

impl Located for CanonicalRequest {
    fn feature_id(&self) -> Uuid {
        self.id
    }
    fn lng_lat(&self) -> [f64; 2] {
        [self.core.location_lng, self.core.location_lat]
    }
}

impl Located for SpaceTimeEntry {
    fn feature_id(&self) -> Uuid {
        self.id
    }
    fn lng_lat(&self) -> [f64; 2] {
        [self.longitude, self.latitude]
    }
}
