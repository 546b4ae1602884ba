//! Code shared by the benchmarks (`mod support;` in each bench target).

// Each bench target compiles this module on its own and uses only part of it, a different part
// in each: `expect(dead_code)` would be unfulfilled in a target that happens to use all of one.
#![expect(
    clippy::allow_attributes,
    reason = "dead code differs between the bench targets"
)]

#[allow(dead_code, reason = "each bench target uses a different part")]
pub mod bulk;
#[allow(dead_code, reason = "each bench target uses a different part")]
pub mod generator;
#[allow(dead_code, reason = "each bench target uses a different part")]
pub mod pgbench;
#[allow(dead_code, reason = "each bench target uses a different part")]
pub mod postgraphile;
#[allow(dead_code, reason = "each bench target uses a different part")]
pub mod process;
#[allow(dead_code, reason = "each bench target uses a different part")]
pub mod queries;
#[allow(dead_code, reason = "each bench target uses a different part")]
pub mod seeded;
#[allow(dead_code, reason = "each bench target uses a different part")]
pub mod size;
#[allow(dead_code, reason = "each bench target uses a different part")]
pub mod start;

/// The allocator the server binary uses (src/main.rs; `start::block_on` tunes it the same way),
/// so every bench's figures are the server's: under glibc malloc the export bench spent about 40 %
/// of its time in malloc and free (docs/bench-log/export.md).
#[global_allocator]
static GLOBAL: spacetime_records::alloc::MiMalloc = spacetime_records::alloc::MiMalloc;
