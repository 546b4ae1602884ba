//! A canonical record as an OGC API feature: a GeoJSON Point feature whose properties are the
//! record's fields as REST writes them, except that scores, confidences and amounts are JSON
//! numbers (so GIS tools load them as numeric columns; REST keeps the specification's decimal
//! strings) and the id is the feature's own `id`, not repeated among the properties.

use crate::records::geojson::Located;
use crate::records::geojson::{FeatureCollectionType, FeatureType, PointGeometry, PointType};
use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::{Map, Value};
use utoipa::ToSchema;
use uuid::Uuid;

/// The decimal fields of the three kinds.
pub const DECIMALS: [&str; 6] = [
    "score_data_richness",
    "score_agent_reputation",
    "score_signal",
    "score_confidence",
    "price_amount",
    "budget_amount",
];

/// A link of an OGC API resource.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct OgcLink {
    pub href: String,
    /// `self`, `alternate`, `next`, `prev`, `collection`, `items`, …
    pub rel: &'static str,
    /// The media type the link answers with.
    #[serde(rename = "type")]
    pub media_type: &'static str,
    pub title: String,
}

/// One record as a GeoJSON feature.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct OgcFeature {
    #[serde(rename = "type")]
    pub kind: FeatureType,
    /// The record's id.
    pub id: Uuid,
    pub geometry: PointGeometry,
    /// The record's fields as REST writes them, with scores, confidences and amounts as numbers.
    #[schema(value_type = Object)]
    pub properties: Map<String, Value>,
    /// `self`, `alternate` and `collection` on a feature read alone; empty within a page.
    pub links: Vec<OgcLink>,
}

/// A page of features.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct OgcFeatureCollection {
    #[serde(rename = "type")]
    pub kind: FeatureCollectionType,
    pub features: Vec<OgcFeature>,
    /// `self`, `alternate` (HTML), `collection`, and `next` / `prev` where there are more.
    pub links: Vec<OgcLink>,
    /// When the page was read.
    #[serde(rename = "timeStamp")]
    pub time_stamp: DateTime<Utc>,
    /// Features on this page.
    #[serde(rename = "numberReturned")]
    pub number_returned: usize,
}

pub fn feature<T: Serialize + Located>(record: &T, links: Vec<OgcLink>) -> OgcFeature {
    let mut properties = match serde_json::to_value(record) {
        Ok(Value::Object(map)) => map,
        // Records serialise to objects; anything else would be a bug caught by the tests.
        _ => Map::new(),
    };
    properties.remove("id");
    for name in DECIMALS {
        if let Some(value) = properties.get_mut(name)
            && let Some(number) = value
                .as_str()
                .and_then(|s| s.parse::<f64>().ok())
                .and_then(serde_json::Number::from_f64)
        {
            *value = Value::Number(number);
        }
    }
    OgcFeature {
        kind: FeatureType::Feature,
        id: record.feature_id(),
        geometry: PointGeometry {
            kind: PointType::Point,
            coordinates: record.lng_lat(),
        },
        properties,
        links,
    }
}
