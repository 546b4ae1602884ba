//! An area of the map to list records in: a bounding box or a GeoJSON (Multi)Polygon, checked
//! here and handed to PostGIS as one geometry in longitude/latitude (SRID 4326).
//!
//! A box is `west, south, east, north` in degrees as RFC 7946 §5.2 writes it; `west > east`
//! means the box crosses the antimeridian, so it becomes two boxes, one each side. A polygon's
//! edges are straight lines in longitude/latitude (RFC 7946 §3.1.1), which is how PostGIS's
//! `geometry` reads them; a polygon that crosses the antimeridian must be split into a
//! MultiPolygon as the RFC asks.

use super::Violations;
use geo_types::{Geometry, MultiPolygon, Rect, coord};
use geozero::ToGeo;
use geozero::geojson::GeoJson;

/// Most positions a polygon may have: enough for a detailed city boundary, small enough that
/// parsing and PostGIS's point-in-polygon tests stay cheap.
pub const MAX_POLYGON_POSITIONS: usize = 10_000;

/// A box in degrees; the GraphQL input `BoundingBox` and the REST `bbox` parameter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoundingBox {
    pub west: f64,
    pub south: f64,
    pub east: f64,
    pub north: f64,
}

fn in_range(value: f64, limit: f64) -> bool {
    value.is_finite() && (-limit..=limit).contains(&value)
}

/// The box as one or two rectangles, each problem reported at `field.west` and so on.
pub fn bounding_box(v: &mut Violations, field: &str, b: BoundingBox) -> Option<Geometry<f64>> {
    let before = v.len();
    for (name, value, limit) in [
        ("west", b.west, 180.0),
        ("south", b.south, 90.0),
        ("east", b.east, 180.0),
        ("north", b.north, 90.0),
    ] {
        v.check(
            in_range(value, limit),
            &format!("{field}.{name}"),
            &format!("must be between -{limit} and {limit}"),
            "range",
        );
    }
    v.check(
        b.south.partial_cmp(&b.north) != Some(std::cmp::Ordering::Greater),
        &format!("{field}.north"),
        "must not be south of south",
        "value_error",
    );
    if v.len() > before {
        return None;
    }
    let rect = |west: f64, east: f64| {
        Rect::new(
            coord! { x: west, y: b.south },
            coord! { x: east, y: b.north },
        )
        .to_polygon()
    };
    Some(if b.west <= b.east {
        Geometry::Polygon(rect(b.west, b.east))
    } else {
        Geometry::MultiPolygon(MultiPolygon(vec![
            rect(b.west, 180.0),
            rect(-180.0, b.east),
        ]))
    })
}

/// The REST form of a box, `west,south,east,north` (the order of RFC 7946 §5.2 and of most map
/// libraries' `getBounds().toArray().flat()`).
pub fn bounding_box_text(v: &mut Violations, field: &str, text: &str) -> Option<Geometry<f64>> {
    let numbers: Vec<f64> = text
        .split(',')
        .map(|part| part.trim().parse::<f64>())
        .collect::<Result<_, _>>()
        .unwrap_or_default();
    let [west, south, east, north] = numbers[..] else {
        v.push(
            field,
            "must be four numbers: west,south,east,north",
            "value_error",
        );
        return None;
    };
    bounding_box(
        v,
        field,
        BoundingBox {
            west,
            south,
            east,
            north,
        },
    )
}

/// A GeoJSON Polygon or MultiPolygon geometry (or a Feature holding one), read by geozero.
pub fn polygon(
    v: &mut Violations,
    field: &str,
    geojson: &serde_json::Value,
) -> Option<Geometry<f64>> {
    let text = geojson.to_string();
    let geometry = match GeoJson(&text).to_geo() {
        Ok(geometry) => geometry,
        Err(error) => {
            v.push(
                field,
                format!("not a GeoJSON geometry: {error}"),
                "value_error",
            );
            return None;
        }
    };
    let rings: Vec<&geo_types::LineString<f64>> = match &geometry {
        Geometry::Polygon(p) => std::iter::once(p.exterior()).chain(p.interiors()).collect(),
        Geometry::MultiPolygon(m) => m
            .iter()
            .flat_map(|p| std::iter::once(p.exterior()).chain(p.interiors()))
            .collect(),
        _ => {
            v.push(field, "must be a Polygon or a MultiPolygon", "value_error");
            return None;
        }
    };
    let positions: usize = rings.iter().map(|ring| ring.0.len()).sum();
    if positions > MAX_POLYGON_POSITIONS {
        v.push(
            field,
            format!("has {positions} positions; at most {MAX_POLYGON_POSITIONS} are allowed"),
            "too_long",
        );
        return None;
    }
    // geo-types closes an open ring itself; a ring still needs three distinct corners.
    if rings.iter().any(|ring| ring.0.len() < 4) {
        v.push(
            field,
            "every ring needs at least three corners",
            "value_error",
        );
        return None;
    }
    let outside = rings
        .iter()
        .flat_map(|ring| ring.coords())
        .any(|c| !in_range(c.x, 180.0) || !in_range(c.y, 90.0));
    if outside {
        v.push(
            field,
            "positions must be [longitude, latitude] within [-180, 180] and [-90, 90]",
            "range",
        );
        return None;
    }
    Some(geometry)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn locs(v: Violations) -> Vec<String> {
        match v.into_result() {
            Ok(()) => vec![],
            result => crate::error::validation_locs(result),
        }
    }

    #[test]
    fn a_box_across_the_antimeridian_becomes_two() {
        let mut v = Violations::default();
        let area = bounding_box(
            &mut v,
            "bbox",
            BoundingBox {
                west: 170.0,
                south: -20.0,
                east: -170.0,
                north: -10.0,
            },
        );
        let Some(Geometry::MultiPolygon(parts)) = area else {
            panic!("{area:?}");
        };
        assert_eq!(parts.0.len(), 2);
        let xs: Vec<f64> = parts
            .iter()
            .flat_map(|p| p.exterior().coords().map(|c| c.x))
            .collect();
        assert!(xs.contains(&180.0) && xs.contains(&-180.0) && xs.contains(&170.0));
    }

    #[test]
    fn a_bad_box_is_reported_at_each_side() {
        let mut v = Violations::default();
        let area = bounding_box(
            &mut v,
            "bbox",
            BoundingBox {
                west: -181.0,
                south: 10.0,
                east: 0.0,
                north: 5.0,
            },
        );
        assert!(area.is_none());
        assert_eq!(locs(v), [r#"["bbox","west"]"#, r#"["bbox","north"]"#]);
    }

    #[test]
    fn a_text_box_needs_four_numbers() {
        let mut v = Violations::default();
        assert!(bounding_box_text(&mut v, "bbox", "-2.3, 53.4,-2.2,53.5").is_some());
        for bad in ["", "1,2,3", "1,2,3,4,5", "a,b,c,d", "1,,3,4"] {
            assert!(bounding_box_text(&mut v, "bbox", bad).is_none(), "{bad}");
        }
        assert_eq!(locs(v).len(), 5);
    }

    #[test]
    fn polygons_are_read_and_bounded() {
        let square = json!({"type": "Polygon", "coordinates": [[[0,0],[1,0],[1,1],[0,1],[0,0]]]});
        let mut v = Violations::default();
        assert!(matches!(
            polygon(&mut v, "polygon", &square),
            Some(Geometry::Polygon(_))
        ));
        let feature = json!({"type": "Feature", "properties": {}, "geometry": square});
        assert!(polygon(&mut v, "polygon", &feature).is_some());
        assert!(locs(v).is_empty());

        for bad in [
            json!({"type": "Point", "coordinates": [0, 0]}),
            json!({"type": "Polygon", "coordinates": [[[0,0],[1,0],[0,0]]]}),
            json!({"type": "Polygon", "coordinates": [[[0,0],[200,0],[1,1],[0,0]]]}),
            json!({"type": "Polygon"}),
            json!("not geojson"),
        ] {
            let mut v = Violations::default();
            assert!(polygon(&mut v, "polygon", &bad).is_none(), "{bad}");
            assert_eq!(locs(v), [r#"["polygon"]"#], "{bad}");
        }

        let ring: Vec<[f64; 2]> = (0..=MAX_POLYGON_POSITIONS)
            .map(|i| {
                let a = i as f64 / MAX_POLYGON_POSITIONS as f64 * std::f64::consts::TAU;
                [a.cos(), a.sin()]
            })
            .collect();
        let mut v = Violations::default();
        let huge = json!({"type": "Polygon", "coordinates": [ring]});
        assert!(polygon(&mut v, "polygon", &huge).is_none());
    }
}
