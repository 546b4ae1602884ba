//! The grid cells covering a radius search's circle, computed here and bound to the statement.
//! Each record's cells are `canonical.cells_at(lat, lng)` (migrations 0026, 0029): at levels
//! k = -4, -2, ..., 8 a cell is 2^-k degrees wide, row = floor(lat × 2^k), column = floor(lng × 2^k),
//! packed as `(k + 8) << 40 | (row + 2^19) << 20 | (column + 2^19)`. Computed in SQL the cover was
//! an SQL function PostgreSQL ran at plan time once per table of the search (about 1 ms each);
//! bound as a value, the planner still sees the cells and estimates their rows.

use crate::domain::geo::circle_box;

/// The finest level whose cover of the box needs at most this many cells is used.
const MAX_CELLS: i64 = 128;
const LEVELS: [i32; 7] = [8, 6, 4, 2, 0, -2, -4];
const OFFSET: i64 = 1 << 19;

/// The cells covering the box of the circle, at the finest level needing at most 128 of them
/// (the coarsest level when none does). Every point of the box is in one of them: rows and
/// columns are floors of the same scaled coordinates as `canonical.cells_at`.
pub fn radius_cells(lat: f64, lng: f64, radius_m: f64) -> Vec<i64> {
    let (west, south, east, north) = circle_box(lat, lng, radius_m);
    let span = |k: i32| {
        let scale = 2f64.powi(k);
        let rows = (
            (south * scale).floor() as i64,
            (north * scale).floor() as i64,
        );
        let columns = ((west * scale).floor() as i64, (east * scale).floor() as i64);
        (k, rows, columns)
    };
    let count =
        |(_, (r0, r1), (c0, c1)): &(i32, (i64, i64), (i64, i64))| (r1 - r0 + 1) * (c1 - c0 + 1);
    let (k, (r0, r1), (c0, c1)) = LEVELS
        .into_iter()
        .map(span)
        .find(|level| count(level) <= MAX_CELLS)
        .unwrap_or_else(|| span(LEVELS[LEVELS.len() - 1]));
    let level = i64::from(k + 8) << 40;
    (r0..=r1)
        .flat_map(|r| (c0..=c1).map(move |c| level | ((r + OFFSET) << 20) | (c + OFFSET)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_city_radius_is_covered_by_few_fine_cells() {
        let cells = radius_cells(53.4808, -2.2426, 10_000.0);
        assert!(
            !cells.is_empty() && cells.len() as i64 <= MAX_CELLS,
            "{}",
            cells.len()
        );
        // Level 4 (1/16°): a 10 km circle's box is about 0.3° × 0.18°, 6 × 4 cells; 1/64° would
        // take 20 × 13.
        assert_eq!(cells.len(), 24);
        assert!(cells.iter().all(|c| c >> 40 == 12), "{cells:?}");
    }

    #[test]
    fn a_whole_world_radius_falls_back_to_the_coarsest_cells() {
        let cells = radius_cells(0.0, 0.0, 19_000_000.0);
        assert!(cells.iter().all(|c| c >> 40 == 4), "{cells:?}");
    }
}
