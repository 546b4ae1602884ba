//! The byte sink every format writes into: a `Write` whose bytes the export takes out after each
//! chunk of rows and sends as one piece of the response body. The writers (parquet's, csv's)
//! own their sink, so the export keeps a second handle on the same buffer.

use std::io::Write;
use std::sync::{Arc, Mutex, PoisonError};

#[derive(Debug, Clone, Default)]
pub struct Sink(Arc<Mutex<Vec<u8>>>);

impl Sink {
    /// What has been written since the last take.
    pub fn take(&self) -> Vec<u8> {
        take_sized(&mut self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

/// What `out` holds, leaving in its place an empty buffer as large as that: the next piece,
/// about as large, is written without growing a buffer from nothing (and copying it each time
/// it doubles) again.
pub fn take_sized(out: &mut Vec<u8>) -> Vec<u8> {
    if out.is_empty() {
        return Vec::new();
    }
    let next = Vec::with_capacity(out.len() + out.len() / 4);
    std::mem::replace(out, next)
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
