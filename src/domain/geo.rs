//! Distances on the sphere PostGIS uses for `geography` with `use_spheroid = false`.

use super::Violations;

/// Largest radius of a spatial question, as search allows.
pub const MAX_RADIUS_M: i64 = 100_000;

/// A point on the globe and a radius of 1 m to 100 km, each problem reported at its GraphQL
/// argument name (`latitude`, `longitude`, `radiusMeters`).
pub fn check_circle(v: &mut Violations, latitude: f64, longitude: f64, radius_meters: i64) {
    v.check(
        latitude.is_finite() && (-90.0..=90.0).contains(&latitude),
        "latitude",
        "must be between -90 and 90",
        "range",
    );
    v.check(
        longitude.is_finite() && (-180.0..=180.0).contains(&longitude),
        "longitude",
        "must be between -180 and 180",
        "range",
    );
    v.check(
        (1..=MAX_RADIUS_M).contains(&radius_meters),
        "radiusMeters",
        "must be between 1 and 100000",
        "range",
    );
}

/// PostGIS's mean Earth radius for spherical geography distances.
const SPHERE_RADIUS_M: f64 = 6_371_008.771_4;

/// Great-circle distance (haversine) in metres between two (latitude, longitude) points, as
/// PostGIS computes it on the sphere.
pub fn sphere_distance_m(a: (f64, f64), b: (f64, f64)) -> f64 {
    let (lat1, lat2) = (a.0.to_radians(), b.0.to_radians());
    let d_lat = lat2 - lat1;
    let d_lng = (b.1 - a.1).to_radians();
    let h = (d_lat / 2.0).sin().powi(2) + lat1.cos() * lat2.cos() * (d_lng / 2.0).sin().powi(2);
    2.0 * SPHERE_RADIUS_M * h.sqrt().min(1.0).asin()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sphere_distance_agrees_with_postgis() {
        // SELECT ST_Distance('POINT(-2.2426 53.4808)'::geography,
        //                    'POINT(-2.2400 53.4820)'::geography, false) → 217.72332986
        let d = sphere_distance_m((53.4808, -2.2426), (53.4820, -2.2400));
        assert!((d - 217.723_329_86).abs() < 1e-6, "{d}");
        assert_eq!(sphere_distance_m((10.0, 20.0), (10.0, 20.0)), 0.0);
    }
}

/// A GeoJSON Feature (RFC 7946) with a Point geometry. Coordinates are longitude first, as the
/// RFC orders them. Hand-built: for one point a geometry crate adds nothing.
pub fn point_feature(
    latitude: f64,
    longitude: f64,
    id: &str,
    properties: serde_json::Value,
) -> serde_json::Value {
    serde_json::json!({
        "type": "Feature",
        "id": id,
        "geometry": {"type": "Point", "coordinates": [longitude, latitude]},
        "properties": properties,
    })
}

#[cfg(test)]
mod geojson_tests {
    #[test]
    fn a_point_feature_puts_longitude_first() {
        let feature =
            super::point_feature(53.48, -2.24, "x", serde_json::json!({"kind": "entity"}));
        assert_eq!(
            feature["geometry"]["coordinates"],
            serde_json::json!([-2.24, 53.48])
        );
        assert_eq!(feature["type"], "Feature");
        assert_eq!(feature["properties"]["kind"], "entity");
    }
}
