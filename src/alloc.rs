//! The memory allocator of the server binary and the benches: mimalloc.
//!
//! Profiling a nested GraphQL query (docs/bench-log/api.md) showed glibc malloc's arena locks and
//! chunk bookkeeping at about a third of the process's time: tokio moves tasks between worker
//! threads, so memory is often freed on another thread than the one that allocated it.
//! mimalloc's thread-free lists avoid that lock. Tuned to give freed memory back at once, so
//! the resident size stays below glibc's (the RSS budget of issue 14).

use libmimalloc_sys::{mi_option_set, mi_option_t};

pub use mimalloc::MiMalloc;

/// `mi_option_arena_eager_commit` and `mi_option_purge_delay` in the bundled mimalloc 3
/// `mimalloc.h` (`enum mi_option_e`); the crate does not name them.
const ARENA_EAGER_COMMIT: mi_option_t = 4;
const PURGE_DELAY: mi_option_t = 15;

/// Commit arena memory when it is used, and purge freed memory without delay. An option the
/// operator set in the environment (`MIMALLOC_ARENA_EAGER_COMMIT`, `MIMALLOC_PURGE_DELAY`, read
/// by mimalloc itself at start-up) is left as given.
#[expect(unsafe_code, reason = "mimalloc's options are set through its C API")]
pub fn tune() {
    for (option, variable, value) in [
        (ARENA_EAGER_COMMIT, "MIMALLOC_ARENA_EAGER_COMMIT", 0),
        (PURGE_DELAY, "MIMALLOC_PURGE_DELAY", 0),
    ] {
        if std::env::var_os(variable).is_none() {
            // SAFETY: mi_option_set only stores a value in mimalloc's option table.
            unsafe { mi_option_set(option, value) };
        }
    }
}
