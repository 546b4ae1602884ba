//! Bands of latitude: the leading key of the canonical tables' covering index (migration 0033),
//! so that an area is read as one range of longitudes in each band it crosses instead of every
//! record of its longitudes from pole to pole.

/// A record's band, exactly as the index computes it (1/256 degree, about 430 m).
pub const BAND: &str = "(floor(location_lat * 256)::int)";

/// The SQL array of the bands from latitude `south` to `north` (SQL expressions), for
/// `{BAND} = ANY (...)`: one index range each.
pub fn between(south: &str, north: &str) -> String {
    format!("ARRAY(SELECT generate_series(floor({south} * 256)::int, floor({north} * 256)::int))")
}
