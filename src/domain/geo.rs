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

/// The box of longitudes and latitudes (min lng, min lat, max lng, max lat) holding every point
/// within `radius_m` of (`lat`, `lng`): the circle's latitudes, and its widest longitude span
/// (every longitude where the circle holds a pole or crosses the antimeridian). Slightly
/// enlarged so that rounding never leaves a point of the circle outside. The nearby query reads
/// the GiST index of `location::geometry` with it; search covers it with grid cells.
pub fn circle_box(lat: f64, lng: f64, radius_m: f64) -> (f64, f64, f64, f64) {
    use std::f64::consts::FRAC_PI_2;
    let phi = lat.to_radians();
    let theta = radius_m.max(0.0) / SPHERE_RADIUS_M * 1.001 + 1e-9;
    let (south, north) = ((phi - theta).to_degrees(), (phi + theta).to_degrees());
    if theta >= FRAC_PI_2 || phi + theta >= FRAC_PI_2 || phi - theta <= -FRAC_PI_2 {
        return (-180.0, south.max(-90.0), 180.0, north.min(90.0));
    }
    let dlng = (theta.sin() / phi.cos()).min(1.0).asin().to_degrees();
    if lng - dlng < -180.0 || lng + dlng > 180.0 {
        return (-180.0, south, 180.0, north);
    }
    (lng - dlng, south, lng + dlng, north)
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

    #[test]
    fn a_circle_holding_a_pole_spans_every_longitude() {
        let (west, south, east, north) = circle_box(89.5, 10.0, 100_000.0);
        assert_eq!((west, east, north), (-180.0, 180.0, 90.0));
        assert!(south < 89.5);
        let across = circle_box(10.0, 179.95, 20_000.0);
        assert_eq!((across.0, across.2), (-180.0, 180.0));
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
