//! The free-space floor of the data volume: writes are refused (507) while the volume holding the
//! data directory (the embedded cluster, attachments) has less free space than the floor, so that
//! PostgreSQL never meets ENOSPC itself. A PostgreSQL that cannot write its WAL PANICs, and its
//! crash recovery needs free space too: without a reserve it may not come back at all.
//!
//! The free space is measured with one statvfs call, at most once per `CACHE_FOR`, so the check
//! costs a write request two atomic loads almost always.

use crate::error::{AppError, AppResult};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// How long a measurement is trusted: a full disk is noticed within this time, and so is space
/// that came back.
pub const CACHE_FOR: Duration = Duration::from_secs(1);

/// The state of the data volume, as one write sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Room {
    Enough,
    BelowFloor { free_bytes: u64 },
}

/// The rule itself: `free_bytes` against `floor_bytes` (a floor of 0 turns the check off).
pub fn decide(free_bytes: u64, floor_bytes: u64) -> Room {
    if free_bytes < floor_bytes {
        Room::BelowFloor { free_bytes }
    } else {
        Room::Enough
    }
}

/// The floor of one data directory; cheap to clone (one reference count).
#[derive(Clone)]
pub struct DiskFloor(Arc<Inner>);

struct Inner {
    path: PathBuf,
    floor_bytes: u64,
    /// Milliseconds since `epoch` of the last measurement plus one (0: never measured).
    measured_at: AtomicU64,
    free_bytes: AtomicU64,
    /// Whether the last measurement was below the floor: a change is logged once.
    below: AtomicBool,
    epoch: Instant,
}

impl DiskFloor {
    /// The floor of the volume holding `path` (the directory need not exist yet: its nearest
    /// existing ancestor is measured).
    pub fn new(path: &Path, floor_bytes: u64) -> DiskFloor {
        DiskFloor(Arc::new(Inner {
            path: path.to_path_buf(),
            floor_bytes,
            measured_at: AtomicU64::new(0),
            free_bytes: AtomicU64::new(u64::MAX),
            below: AtomicBool::new(false),
            epoch: Instant::now(),
        }))
    }

    pub fn floor_bytes(&self) -> u64 {
        self.0.floor_bytes
    }

    /// Free bytes on the volume, measured at most once per `CACHE_FOR`. A volume that cannot be
    /// measured counts as having room: the floor is a reserve, not a gate on anything else.
    pub fn free_bytes(&self) -> u64 {
        let inner = &self.0;
        let now = inner.epoch.elapsed().as_millis() as u64 + 1;
        let measured = inner.measured_at.load(Ordering::Relaxed);
        if measured != 0 && now.saturating_sub(measured) < CACHE_FOR.as_millis() as u64 {
            return inner.free_bytes.load(Ordering::Relaxed);
        }
        // Concurrent writers may both measure once; one statvfs more is harmless.
        inner.measured_at.store(now, Ordering::Relaxed);
        let free = measure(&inner.path).unwrap_or(u64::MAX);
        inner.free_bytes.store(free, Ordering::Relaxed);
        free
    }

    /// The room left now (see `decide`); a change of state is logged once.
    pub fn room(&self) -> Room {
        if self.0.floor_bytes == 0 {
            return Room::Enough;
        }
        let room = decide(self.free_bytes(), self.0.floor_bytes);
        let below = matches!(room, Room::BelowFloor { .. });
        if self.0.below.swap(below, Ordering::Relaxed) != below {
            let free_mib = self.0.free_bytes.load(Ordering::Relaxed) / (1024 * 1024);
            let floor_mib = self.0.floor_bytes / (1024 * 1024);
            if below {
                tracing::error!(
                    path = %self.0.path.display(),
                    free_mib,
                    floor_mib,
                    "free space on the data volume is below the floor: writes are refused (507) until space is freed"
                );
            } else {
                tracing::info!(
                    path = %self.0.path.display(),
                    free_mib,
                    floor_mib,
                    "free space on the data volume is back above the floor: writes are accepted again"
                );
            }
        }
        room
    }

    /// `Ok` when a write may go ahead, else the 507 every transport answers.
    pub fn ensure_room(&self) -> AppResult<()> {
        match self.room() {
            Room::Enough => Ok(()),
            Room::BelowFloor { free_bytes } => {
                crate::telemetry::record_storage_refusal();
                Err(AppError::InsufficientStorage(format!(
                    "the server's disk is nearly full ({} MiB free, {} MiB kept in reserve): \
                     writes are refused until an operator frees space; reads still work",
                    free_bytes / (1024 * 1024),
                    self.0.floor_bytes / (1024 * 1024)
                )))
            }
        }
    }
}

/// Bytes an unprivileged writer may still use on the volume holding `path` (or its nearest
/// existing ancestor).
fn measure(path: &Path) -> Option<u64> {
    let existing = path.ancestors().find(|p| p.exists())?;
    let stats = nix::sys::statvfs::statvfs(existing).ok()?;
    Some((stats.blocks_available() as u64).saturating_mul(stats.fragment_size() as u64))
}

/// Whether an I/O error means the disk (or the writer's quota) is full.
pub fn is_out_of_space(error: &std::io::Error) -> bool {
    use nix::errno::Errno;
    matches!(error.raw_os_error(), Some(code) if code == Errno::ENOSPC as i32 || code == Errno::EDQUOT as i32)
}

/// An attachment-store error as the service answers it: a full disk is 507, anything else 500.
pub fn io_error(error: std::io::Error) -> AppError {
    if is_out_of_space(&error) {
        crate::telemetry::record_storage_refusal();
        tracing::warn!(error = %error, "an attachment could not be stored: the disk is full");
        AppError::InsufficientStorage(
            "the server's disk is full: the attachment could not be stored; retry later".into(),
        )
    } else {
        AppError::internal(error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_are_refused_only_below_the_floor() {
        const MIB: u64 = 1024 * 1024;
        assert_eq!(decide(300 * MIB, 256 * MIB), Room::Enough);
        assert_eq!(decide(256 * MIB, 256 * MIB), Room::Enough);
        assert_eq!(
            decide(255 * MIB, 256 * MIB),
            Room::BelowFloor {
                free_bytes: 255 * MIB
            }
        );
        assert_eq!(
            decide(0, 0),
            Room::Enough,
            "a floor of 0 turns the check off"
        );
    }

    #[test]
    fn the_floor_of_a_volume_with_room_lets_writes_through_and_a_huge_floor_refuses_them() {
        let dir = std::env::temp_dir();
        assert!(DiskFloor::new(&dir, 1).ensure_room().is_ok());
        let refused = DiskFloor::new(&dir.join("not/yet/created"), u64::MAX)
            .ensure_room()
            .unwrap_err();
        assert_eq!(refused.status(), 507);
        assert_eq!(refused.code(), "INSUFFICIENT_STORAGE");
        assert!(DiskFloor::new(&dir, 0).ensure_room().is_ok());
    }

    #[test]
    fn a_measurement_is_reused_within_the_cache_window() {
        let floor = DiskFloor::new(&std::env::temp_dir(), 1);
        let first = floor.free_bytes();
        floor.0.free_bytes.store(42, Ordering::Relaxed);
        assert_eq!(
            floor.free_bytes(),
            42,
            "measured again within {CACHE_FOR:?}"
        );
        std::thread::sleep(CACHE_FOR + Duration::from_millis(50));
        assert_ne!(floor.free_bytes(), 42);
        assert!(first > 0);
    }

    #[test]
    fn enospc_and_quota_errors_are_507_and_others_500() {
        let full = std::io::Error::from_raw_os_error(nix::errno::Errno::ENOSPC as i32);
        assert_eq!(io_error(full).status(), 507);
        let quota = std::io::Error::from_raw_os_error(nix::errno::Errno::EDQUOT as i32);
        assert_eq!(io_error(quota).status(), 507);
        let denied = std::io::Error::from_raw_os_error(nix::errno::Errno::EACCES as i32);
        assert_eq!(io_error(denied).status(), 500);
    }
}
