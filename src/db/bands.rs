//! Bands of latitude: the leading key of the canonical tables' covering index (migration 0033),
//! so that an area is read as one range of longitudes in each band it crosses instead of every
//! record of its longitudes from pole to pole.

/// The bands' size: 2^-8 degree (1/256, about 430 m of latitude).
pub const BAND_LEVEL: i16 = 8;
const SCALE: i32 = 1 << BAND_LEVEL;

/// A record's band, exactly as the index computes it.
pub const BAND: &str = const_format::concatcp!("(floor(location_lat * ", SCALE, ")::int)");

/// The SQL array of the bands from latitude `south` to `north` (SQL expressions), for
/// `{BAND} = ANY (...)`: one index range each.
pub fn between(south: &str, north: &str) -> String {
    format!(
        "ARRAY(SELECT generate_series(floor({south} * {SCALE})::int, floor({north} * {SCALE})::int))"
    )
}

#[cfg(test)]
mod tests {
    /// The expression the band indexes of migration 0033 were built on, character for character:
    /// a statement only uses an expression index whose expression it repeats.
    #[test]
    fn the_band_is_the_indexed_expression() {
        assert_eq!(super::BAND, "(floor(location_lat * 256)::int)");
    }
}
