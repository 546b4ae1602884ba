//! Where the records are, for a map to open there: the `bounds` and `center` of a TileJSON and of
//! the tiles' `metadata.json`, from the records' extent (`db::tile_extent`, a bounded-cost read).

use crate::db;
use crate::db::tile_extent::Extent;
use crate::domain::CanonicalTable;
use crate::error::AppResult;
use crate::state::AppState;

/// Where a map of some kinds should look: `bounds` (west, south, east, north) and `center`
/// (longitude, latitude, zoom).
pub struct Area {
    pub bounds: [f64; 4],
    pub center: [f64; 3],
}

/// Web Mercator ends at this latitude (north and south).
const MERCATOR_LAT: f64 = 85.051_128_779_806_6;
/// The deepest zoom a `center` names: one record alone is shown at street level, not closer.
const CENTER_MAX_ZOOM: f64 = 14.0;

/// The extent of the records of `tables` (bounded cost: `db::tile_extent`), or the whole world
/// when they hold none, and a centre whose zoom shows all of it on a 512-pixel map.
pub async fn area(state: &AppState, tables: &[CanonicalTable]) -> AppResult<Area> {
    let extent =
        db::tile_extent::extent(crate::services::read_route::search_reads(state), tables).await?;
    Ok(area_of(extent))
}

/// The area of an extent; the whole world for none.
fn area_of(extent: Option<Extent>) -> Area {
    let Some(e) = extent else {
        return Area {
            bounds: [-180.0, -MERCATOR_LAT, 180.0, MERCATOR_LAT],
            center: [0.0, 20.0, 1.0],
        };
    };
    let south = e.south.clamp(-MERCATOR_LAT, MERCATOR_LAT);
    let north = e.north.clamp(-MERCATOR_LAT, MERCATOR_LAT);
    let bounds = [e.west, south, e.east, north];
    // Mercator's y of a latitude, in the units where the world is 2π high and 360° wide.
    let y = |lat: f64| {
        (std::f64::consts::FRAC_PI_4 + lat.to_radians() / 2.0)
            .tan()
            .ln()
    };
    let (lng_span, y_span) = (e.east - e.west, y(north) - y(south));
    // At zoom z the world is 512 * 2^z pixels wide (MapLibre's 512-pixel tiles), so a span of
    // s degrees fills 512 pixels at zoom log2(360 / s); alike for Mercator's 2π of height.
    let zoom = |fraction: f64| {
        if fraction > 0.0 {
            fraction.log2()
        } else {
            CENTER_MAX_ZOOM
        }
    };
    let fit = zoom(360.0 / lng_span)
        .min(zoom(std::f64::consts::TAU / y_span))
        .floor()
        .clamp(0.0, CENTER_MAX_ZOOM);
    // The centre of the Mercator box, so a map centred there has the box in the middle.
    let mid_y = (y(north) + y(south)) / 2.0;
    let mid_lat = (2.0 * mid_y.exp().atan() - std::f64::consts::FRAC_PI_2).to_degrees();
    let round = |v: f64| (v * 1e6).round() / 1e6;
    Area {
        bounds: bounds.map(round),
        center: [round((e.west + e.east) / 2.0), round(mid_lat), fit],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn extent(west: f64, south: f64, east: f64, north: f64) -> Option<Extent> {
        Some(Extent {
            west,
            south,
            east,
            north,
        })
    }

    #[test]
    fn no_record_is_the_whole_world() {
        let area = area_of(None);
        assert_eq!(area.bounds[0], -180.0);
        assert_eq!(area.center, [0.0, 20.0, 1.0]);
    }

    #[test]
    fn the_centre_is_the_middle_at_the_zoom_that_shows_the_whole_box() {
        // Manchester to London and Dublin: about six degrees wide.
        let area = area_of(extent(-6.2603, 51.5072, -0.1276, 53.4808));
        assert_eq!(area.center[2], 5.0);
        assert!((area.center[0] - (-3.19395)).abs() < 1e-5);
        assert!(area.center[1] > 52.4 && area.center[1] < 52.6);
        // A whole continent, a city, one point.
        assert_eq!(area_of(extent(-10.0, 35.0, 30.0, 60.0)).center[2], 3.0);
        assert_eq!(area_of(extent(-2.3, 53.4, -2.2, 53.5)).center[2], 11.0);
        assert_eq!(area_of(extent(-2.2, 53.4, -2.2, 53.4)).center[2], 14.0);
    }

    #[test]
    fn latitudes_past_web_mercator_are_held_at_its_edge() {
        let area = area_of(extent(-60.0, -89.0, 60.0, 89.0));
        assert!((area.bounds[1] + MERCATOR_LAT).abs() < 1e-5);
        assert!((area.bounds[3] - MERCATOR_LAT).abs() < 1e-5);
    }
}
