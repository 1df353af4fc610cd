//! Following one append-only log file by byte offset.
//!
//! Invariants:
//! - [`LogTail::poll`] returns complete lines only (`\n`-terminated, the `\n`
//!   and a trailing `\r` removed, empty lines dropped); a partial last line is
//!   kept for the next poll.
//! - One poll reads at most [`MAX_READ_BYTES`]; what is left is read by the
//!   next poll ([`LogTail::is_behind`] says so).
//! - No line longer than [`MAX_LINE_BYTES`] is held: once the pending bytes
//!   pass it, they are dropped and the rest of that line is skipped up to its
//!   `\n`. Memory per tail is bounded by `MAX_LINE_BYTES + MAX_READ_BYTES`.
//! - A file shorter than the offset (truncated) or, on unix, a different file
//!   at the path (rotated, replaced by rename) is read again from byte 0.
//! - A missing file is not an error: a poll returns nothing, and a file that
//!   appears later is read from its start.
//! - Seeding to the end ([`LogTail::at_end`]) does not replay existing lines;
//!   when the file ends mid-line, the rest of that line is skipped too, so the
//!   first line returned is a whole one.

use std::fs::{File, Metadata};
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// The most one poll reads.
pub const MAX_READ_BYTES: u64 = 1024 * 1024;
/// The longest line kept; longer ones are skipped whole.
pub const MAX_LINE_BYTES: usize = 256 * 1024;

/// A follower of one file.
#[derive(Debug)]
pub struct LogTail {
    path: PathBuf,
    offset: u64,
    /// Bytes of a line whose `\n` has not been read yet.
    pending: Vec<u8>,
    /// The current line passed [`MAX_LINE_BYTES`] (or began before the seed
    /// point): drop bytes up to the next `\n`.
    skipping: bool,
    /// The file's identity when last read (device, inode), to see a rotation.
    identity: Option<(u64, u64)>,
    behind: bool,
}

impl LogTail {
    /// Follows `path` from its current end: nothing already written is returned.
    pub fn at_end(path: impl Into<PathBuf>) -> Self {
        let mut tail = Self::from_start(path);
        if let Ok(mut file) = File::open(&tail.path)
            && let Ok(meta) = file.metadata()
        {
            tail.offset = meta.len();
            tail.identity = identity(&meta);
            tail.skipping = meta.len() > 0 && !ends_with_newline(&mut file, meta.len());
        }
        tail
    }

    /// Follows `path` from byte 0: existing lines are returned by the first poll(s).
    pub fn from_start(path: impl Into<PathBuf>) -> Self {
        Self {
            path: path.into(),
            offset: 0,
            pending: Vec::new(),
            skipping: false,
            identity: None,
            behind: false,
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The byte offset read up to (including a pending partial line).
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Whether the last poll stopped at [`MAX_READ_BYTES`] with more to read.
    pub fn is_behind(&self) -> bool {
        self.behind
    }

    /// The complete lines appended since the last poll (at most
    /// [`MAX_READ_BYTES`] read). Errors are I/O errors other than a missing
    /// file; the tail's position is unchanged by them.
    pub fn poll(&mut self) -> io::Result<Vec<String>> {
        self.behind = false;
        let mut file = match File::open(&self.path) {
            Ok(file) => file,
            Err(err) if err.kind() == io::ErrorKind::NotFound => {
                self.restart(None);
                return Ok(Vec::new());
            }
            Err(err) => return Err(err),
        };
        let meta = file.metadata()?;
        let now = identity(&meta);
        if meta.len() < self.offset || (self.identity.is_some() && now != self.identity) {
            self.restart(now);
        }
        self.identity = now;
        if meta.len() == self.offset {
            return Ok(Vec::new());
        }
        file.seek(SeekFrom::Start(self.offset))?;
        let mut chunk = Vec::new();
        file.take(MAX_READ_BYTES).read_to_end(&mut chunk)?;
        self.offset += chunk.len() as u64;
        self.behind = meta.len() > self.offset;
        Ok(self.split(&chunk))
    }

    fn restart(&mut self, identity: Option<(u64, u64)>) {
        self.offset = 0;
        self.pending.clear();
        self.skipping = false;
        self.identity = identity;
    }

    /// Cuts `chunk` into lines, carrying the partial tail in `pending`.
    fn split(&mut self, chunk: &[u8]) -> Vec<String> {
        let mut lines = Vec::new();
        let mut rest = chunk;
        while !rest.is_empty() {
            let (piece, ended) = match rest.iter().position(|&b| b == b'\n') {
                Some(at) => (&rest[..at], true),
                None => (rest, false),
            };
            rest = if ended { &rest[piece.len() + 1..] } else { &[] };
            if !self.skipping {
                if self.pending.len() + piece.len() > MAX_LINE_BYTES {
                    self.pending.clear();
                    self.skipping = true;
                } else {
                    self.pending.extend_from_slice(piece);
                }
            }
            if ended {
                if !self.skipping {
                    let mut line = String::from_utf8_lossy(&self.pending).into_owned();
                    if line.ends_with('\r') {
                        line.pop();
                    }
                    if !line.trim().is_empty() {
                        lines.push(line);
                    }
                }
                self.pending.clear();
                self.skipping = false;
            }
        }
        lines
    }
}

fn ends_with_newline(file: &mut File, len: u64) -> bool {
    let mut last = [0u8; 1];
    file.seek(SeekFrom::Start(len - 1)).is_ok()
        && file.read_exact(&mut last).is_ok()
        && last[0] == b'\n'
}

#[cfg(unix)]
fn identity(meta: &Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn identity(_meta: &Metadata) -> Option<(u64, u64)> {
    None
}
