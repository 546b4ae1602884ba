//! Code shared by the benchmarks (`mod support;` in each bench target).

// Each bench target compiles this module on its own and uses only part of it.
#[allow(dead_code)]
pub mod generator;
#[allow(dead_code)]
pub mod pgbench;
#[allow(dead_code)]
pub mod postgraphile;
#[allow(dead_code)]
pub mod process;
#[allow(dead_code)]
pub mod seeded;
