//! One session log followed and classified: a [`LogTail`] plus the state a
//! single record cannot carry.
//!
//! - A Codex subagent fork says so only in its first record (`session_meta`);
//!   once seen (or found in the file's head when seeding to the end), every
//!   later record of the file is dropped.
//! - A record that names no session gets the id the file name gives (Claude
//!   `<id>.jsonl`, Copilot `<id>/events.jsonl` or `<id>.jsonl`, Codex
//!   `rollout-<time>-<uuid>.jsonl`); Gemini's file name holds only an 8-char
//!   prefix, so its id comes from the header record alone.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use wta_protocol::agent_sessions::HookCli;

use super::LogSignal;
use super::classify::{classify, is_codex_subagent_fork};
use super::tail::{LogTail, MAX_LINE_BYTES};

/// A followed session log of one CLI.
#[derive(Debug)]
pub struct SessionLog {
    cli: HookCli,
    tail: LogTail,
    fork: bool,
    file_session_id: Option<String>,
}

impl SessionLog {
    /// Follows `path` from its end (existing records are not replayed). The
    /// file's first line is read (at most [`MAX_LINE_BYTES`]) to see a fork.
    pub fn at_end(cli: HookCli, path: impl Into<PathBuf>) -> Self {
        let path = path.into();
        let fork = cli == HookCli::Codex
            && first_line(&path).is_some_and(|line| is_codex_subagent_fork(&line));
        Self::new(cli, LogTail::at_end(path), fork)
    }

    /// Follows `path` from its start.
    pub fn from_start(cli: HookCli, path: impl Into<PathBuf>) -> Self {
        Self::new(cli, LogTail::from_start(path), false)
    }

    fn new(cli: HookCli, tail: LogTail, fork: bool) -> Self {
        let file_session_id = session_id_from_path(cli, tail.path());
        Self {
            cli,
            tail,
            fork,
            file_session_id,
        }
    }

    pub fn cli(&self) -> HookCli {
        self.cli
    }

    pub fn path(&self) -> &Path {
        self.tail.path()
    }

    /// Whether the file is a Codex subagent fork (its records are dropped).
    pub fn is_fork(&self) -> bool {
        self.fork
    }

    /// Whether the last poll left bytes to read (see [`LogTail::is_behind`]).
    pub fn is_behind(&self) -> bool {
        self.tail.is_behind()
    }

    /// The signals of the records appended since the last poll, in order.
    pub fn poll(&mut self) -> io::Result<Vec<LogSignal>> {
        let lines = self.tail.poll()?;
        let mut signals = Vec::new();
        for line in lines {
            if self.cli == HookCli::Codex && !self.fork && is_codex_subagent_fork(&line) {
                self.fork = true;
            }
            if self.fork {
                continue;
            }
            if let Some(mut signal) = classify(self.cli, &line) {
                if signal.session_id.is_none() {
                    signal.session_id.clone_from(&self.file_session_id);
                }
                signals.push(signal);
            }
        }
        Ok(signals)
    }
}

/// The first line of `path`, if it has one within [`MAX_LINE_BYTES`].
fn first_line(path: &Path) -> Option<String> {
    let file = File::open(path).ok()?;
    let mut reader = BufReader::new(file.take(MAX_LINE_BYTES as u64 + 1));
    let mut line = Vec::new();
    reader.read_until(b'\n', &mut line).ok()?;
    if line.last() != Some(&b'\n') {
        return None;
    }
    String::from_utf8(line).ok()
}

/// The session id a CLI puts in its log file's name.
fn session_id_from_path(cli: HookCli, path: &Path) -> Option<String> {
    let stem = path.file_stem()?.to_str()?;
    let id = match cli {
        HookCli::Claude => stem,
        HookCli::Copilot if stem == "events" => path.parent()?.file_name()?.to_str()?,
        HookCli::Copilot => stem,
        HookCli::Codex => {
            // `rollout-2025-01-02T03-04-05-<uuid>`: the uuid is the last 36 chars.
            let start = stem.len().checked_sub(36)?;
            let id = stem.get(start..)?;
            let uuid_shaped = id.len() == 36
                && id.char_indices().all(|(i, c)| match i {
                    8 | 13 | 18 | 23 => c == '-',
                    _ => c.is_ascii_hexdigit(),
                });
            if !uuid_shaped {
                return None;
            }
            id
        }
        HookCli::Gemini | HookCli::Opencode => return None,
    };
    (!id.is_empty()).then(|| id.to_owned())
}
