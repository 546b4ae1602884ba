//! Attachment bytes: content-addressed files under `<data_dir>/attachments`, written and synced
//! before the entry that references them commits, so nothing acknowledged with a 201 is lost.
//! A write that fails (a full disk) removes its temporary file; temporary files a crash left
//! behind are swept when the service starts.
pub mod media;
pub mod space;

use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Temporary files are `.<sha256>.<random>.tmp` beside their blob until renamed.
const TEMPORARY_SUFFIX: &str = ".tmp";

fn write_synced(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut file = std::fs::File::create(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

pub struct BlobStore {
    root: PathBuf,
}

pub struct StoredBlob {
    pub sha256: String,
    pub size_bytes: i64,
}

impl BlobStore {
    pub fn new(data_dir: &Path) -> BlobStore {
        BlobStore {
            root: data_dir.join("attachments"),
        }
    }

    fn path_of(&self, sha256: &str) -> PathBuf {
        self.root.join(&sha256[..2]).join(sha256)
    }

    /// Writes the bytes once (identical content is stored once) and syncs file and directory.
    pub fn put(&self, bytes: &[u8]) -> std::io::Result<StoredBlob> {
        let sha256: String = Sha256::digest(bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let target = self.path_of(&sha256);
        if !target.exists() {
            let dir = target.parent().expect("blob paths have a parent");
            std::fs::create_dir_all(dir)?;
            let temporary = dir.join(format!(
                ".{sha256}.{}{TEMPORARY_SUFFIX}",
                uuid::Uuid::new_v4().simple()
            ));
            let written =
                write_synced(&temporary, bytes).and_then(|()| std::fs::rename(&temporary, &target));
            if let Err(error) = written {
                // A full disk fails the write half-way: the partial file must not stay.
                let _ = std::fs::remove_file(&temporary);
                return Err(error);
            }
            std::fs::File::open(dir)?.sync_all()?;
        }
        Ok(StoredBlob {
            sha256,
            size_bytes: bytes.len() as i64,
        })
    }

    /// Removes the temporary files of writes that never finished (the process died between
    /// creating one and renaming it), older than `older_than`: younger ones may belong to a
    /// write in progress in another process sharing the directory. Returns how many went.
    pub fn sweep_temporaries(&self, older_than: Duration) -> usize {
        let Ok(shards) = std::fs::read_dir(&self.root) else {
            return 0;
        };
        let mut removed = 0;
        for shard in shards.flatten() {
            let Ok(files) = std::fs::read_dir(shard.path()) else {
                continue;
            };
            for file in files.flatten() {
                let name = file.file_name();
                let stale = name.to_string_lossy().ends_with(TEMPORARY_SUFFIX)
                    && file
                        .metadata()
                        .and_then(|m| m.modified())
                        .is_ok_and(|at| at.elapsed().is_ok_and(|age| age > older_than));
                if stale && std::fs::remove_file(file.path()).is_ok() {
                    removed += 1;
                }
            }
        }
        removed
    }

    /// Where a stored blob is, for streaming it; `None` for a malformed digest.
    pub fn location(&self, sha256: &str) -> Option<PathBuf> {
        let well_formed = sha256.len() == 64
            && sha256
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        well_formed.then(|| self.path_of(sha256))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stale_temporary_files_are_swept_and_fresh_ones_and_blobs_kept() {
        let dir = std::env::temp_dir().join(format!("strs-sweep-{}", uuid::Uuid::new_v4()));
        let store = BlobStore::new(&dir);
        let blob = store.put(b"kept").unwrap();
        let shard = dir.join("attachments").join(&blob.sha256[..2]);
        let stale = shard.join(".abc.123.tmp");
        let fresh = shard.join(".abc.456.tmp");
        std::fs::write(&stale, b"").unwrap();
        std::fs::write(&fresh, b"").unwrap();
        let an_hour_ago = std::time::SystemTime::now() - Duration::from_secs(3600);
        std::fs::File::options()
            .write(true)
            .open(&stale)
            .unwrap()
            .set_modified(an_hour_ago)
            .unwrap();
        assert_eq!(store.sweep_temporaries(Duration::from_secs(600)), 1);
        assert!(!stale.exists());
        assert!(fresh.exists());
        assert!(store.location(&blob.sha256).unwrap().exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
