//! Attachment bytes: content-addressed files under `<data_dir>/attachments`, written and synced
//! before the entry that references them commits, so nothing acknowledged with a 201 is lost.
pub mod media;

use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::{Path, PathBuf};

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
            let temporary = dir.join(format!(".{sha256}.{}.tmp", uuid::Uuid::new_v4().simple()));
            let mut file = std::fs::File::create(&temporary)?;
            file.write_all(bytes)?;
            file.sync_all()?;
            std::fs::rename(&temporary, &target)?;
            std::fs::File::open(dir)?.sync_all()?;
        }
        Ok(StoredBlob {
            sha256,
            size_bytes: bytes.len() as i64,
        })
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
