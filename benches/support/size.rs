//! The one size variable of the data-dependent benches: `BENCH_RECORDS` (`100k`, `1M`, `10M` or a
//! plain number) sets how many generated records every such bench runs over, so one command line
//! measures every workload at one size (issue 34's growth table). A bench's own older variable
//! (`BENCH_SEARCH_ENTITIES`, `BENCH_EXPORT_RECORDS`...) still works and wins when set.
//!
//! Each size is seeded once into a database of its own, named by [`database`]: the bench's
//! default size keeps the name it always had (the databases already seeded stay in use), any other
//! size gets its label as a suffix (`strs_bench_search_10m`), so a run at one size never re-seeds
//! another's.

use anyhow::{Context, bail};

/// The shared size variable.
pub const VAR: &str = "BENCH_RECORDS";

/// How many records a bench runs over: `own` (the bench's own variable) when set, else
/// [`VAR`], else `default`. A value that does not parse stops the run rather than falling back
/// to the default, which would silently measure (or seed) the wrong size.
pub fn records(own: &str, default: usize) -> anyhow::Result<usize> {
    for name in [own, VAR] {
        if let Ok(raw) = std::env::var(name) {
            return parse(&raw).with_context(|| format!("{name}={raw:?}"));
        }
    }
    Ok(default)
}

/// `100k`, `1M`, `10m`, `2.5M`, `250000`, `1_000_000` as a count.
pub fn parse(raw: &str) -> anyhow::Result<usize> {
    let text: String = raw.chars().filter(|c| !matches!(c, '_' | ',')).collect();
    let text = text.trim();
    let (number, unit) = match text.char_indices().last() {
        Some((at, 'k' | 'K')) => (&text[..at], 1e3),
        Some((at, 'm' | 'M')) => (&text[..at], 1e6),
        _ => (text, 1.0),
    };
    if let Ok(whole) = number.parse::<usize>() {
        return whole.checked_mul(unit as usize).context("too many records");
    }
    let value: f64 = number
        .parse()
        .context("not a number of records: use e.g. 100k, 1M, 10M or 250000")?;
    let count = (value * unit).round();
    if !(0.0..1e15).contains(&count) {
        bail!("not a number of records");
    }
    Ok(count as usize)
}

/// The short name of a size for table rows and database names: `100k`, `1M`, `10M`, `250k`,
/// `2.5M`; a count that is none of these prints as itself.
pub fn label(records: usize) -> String {
    if records >= 1_000_000 && records.is_multiple_of(100_000) {
        let tenths = records / 100_000;
        if tenths.is_multiple_of(10) {
            format!("{}M", tenths / 10)
        } else {
            format!("{}.{}M", tenths / 10, tenths % 10)
        }
    } else if records >= 1_000 && records.is_multiple_of(1_000) {
        format!("{}k", records / 1_000)
    } else {
        records.to_string()
    }
}

/// The database holding `records` for a bench whose default size is `default`: `base` itself at
/// the default size, `base_<label>` otherwise (lower case, `.` as `_`: `strs_bench_search_2_5m`).
pub fn database(base: &str, records: usize, default: usize) -> String {
    if records == default {
        base.to_string()
    } else {
        format!("{base}_{}", label(records).to_lowercase().replace('.', "_"))
    }
}
