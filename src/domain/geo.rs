//! Distances on the sphere PostGIS uses for `geography` with `use_spheroid = false`.

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
