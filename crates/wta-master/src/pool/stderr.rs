//! An agent's stderr: every line logged at debug (target
//! `wta_agent::stderr`), and the newest ones kept, so a start that fails can
//! say what the agent said last.
//!
//! [`Tail`] is the pure part: bytes in, clean lines out. Escape sequences
//! (CSI, OSC and other strings, two-byte escapes) and control characters
//! are removed, a `\r` that is not part of `\r\n` starts its line over (as
//! a terminal shows a progress line), blank lines are skipped. At most
//! [`MAX_STDERR_LINES`] lines and [`MAX_STDERR_BYTES`] bytes are kept (the
//! oldest go first), each line cut at [`MAX_LINE_BYTES`], so an agent that
//! writes without end costs a bounded amount of memory. [`Stderr`] reads the
//! pipe into a `Tail` until EOF.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::process::ChildStderr;
use tokio::sync::watch;
use wta_protocol::agent_start::{MAX_STDERR_BYTES, MAX_STDERR_LINES};

/// Bytes of one line kept (the rest of it is dropped, marked `…`).
pub(crate) const MAX_LINE_BYTES: usize = 1024;

/// Where the escape-sequence parser is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Parse {
    #[default]
    Text,
    /// After ESC.
    Escape,
    /// In a CSI sequence, until its final byte.
    Csi,
    /// In an OSC, DCS, SOS, PM or APC string, until BEL or ST.
    Str,
    /// ESC inside such a string (ST is ESC `\`).
    StrEscape,
}

/// The newest clean lines of a byte stream.
#[derive(Debug, Clone, Default)]
pub(crate) struct Tail {
    lines: VecDeque<String>,
    bytes: usize,
    /// The line being read (raw bytes, at most [`MAX_LINE_BYTES`]).
    line: Vec<u8>,
    /// The line had more bytes than it keeps.
    cut: bool,
    /// A `\r` came last: the line starts over unless `\n` follows.
    cr: bool,
    esc: Parse,
}

impl Tail {
    /// Feeds bytes; each finished line is also given to `on_line`.
    pub fn feed(&mut self, bytes: &[u8], on_line: &mut impl FnMut(&str)) {
        for &b in bytes {
            match self.esc {
                Parse::Text => self.text(b, on_line),
                Parse::Escape => {
                    self.esc = match b {
                        b'[' => Parse::Csi,
                        b']' | b'P' | b'X' | b'^' | b'_' => Parse::Str,
                        _ => Parse::Text,
                    }
                }
                Parse::Csi => match b {
                    0x40..=0x7e => self.esc = Parse::Text,
                    0x1b => self.esc = Parse::Escape,
                    b'\n' => {
                        self.esc = Parse::Text;
                        self.text(b, on_line);
                    }
                    _ => {}
                },
                Parse::Str => match b {
                    0x07 => self.esc = Parse::Text,
                    0x1b => self.esc = Parse::StrEscape,
                    // An unterminated string ends with its line, so one stray
                    // ESC ] cannot swallow everything after it.
                    b'\n' => {
                        self.esc = Parse::Text;
                        self.text(b, on_line);
                    }
                    _ => {}
                },
                Parse::StrEscape => self.esc = Parse::Text,
            }
        }
    }

    fn text(&mut self, b: u8, on_line: &mut impl FnMut(&str)) {
        match b {
            b'\n' => {
                self.cr = false;
                self.finish(on_line);
            }
            b'\r' => self.cr = true,
            0x1b => self.esc = Parse::Escape,
            b'\t' => self.byte(b' '),
            b if b < 0x20 || b == 0x7f => {}
            b => self.byte(b),
        }
    }

    fn byte(&mut self, b: u8) {
        if self.cr {
            // A terminal would have drawn this over the line.
            self.cr = false;
            self.line.clear();
            self.cut = false;
        }
        if self.line.len() < MAX_LINE_BYTES {
            self.line.push(b);
        } else {
            self.cut = true;
        }
    }

    /// The line read so far, cleaned (`None` when blank).
    fn current(&self) -> Option<String> {
        let text: String = String::from_utf8_lossy(&self.line)
            .chars()
            .filter(|&c| !c.is_control() && !invisible(c))
            .collect();
        let mut text = text.trim_end().to_owned();
        if text.trim().is_empty() {
            return None;
        }
        if self.cut {
            text.push('…');
        }
        Some(text)
    }

    fn finish(&mut self, on_line: &mut impl FnMut(&str)) {
        let line = self.current();
        self.line.clear();
        self.cut = false;
        if let Some(line) = line {
            on_line(&line);
            self.bytes += line.len();
            self.lines.push_back(line);
            self.trim(0);
        }
    }

    /// Drops the oldest lines until they fit beside `extra` more bytes.
    fn trim(&mut self, extra: usize) {
        while self.lines.len() + usize::from(extra > 0) > MAX_STDERR_LINES
            || self.bytes + extra > MAX_STDERR_BYTES
        {
            match self.lines.pop_front() {
                Some(old) => self.bytes -= old.len(),
                None => break,
            }
        }
    }

    /// The newest lines, oldest first, with an unfinished last line (an agent
    /// that died mid-line), within the bounds.
    pub fn lines(&self) -> Vec<String> {
        let mut tail = self.clone();
        if let Some(partial) = self.current() {
            tail.trim(partial.len());
            tail.lines.push_back(partial);
        }
        tail.lines.into()
    }
}

/// Unicode format characters that change how text around them shows (bidi
/// overrides and isolates, zero-width ones, the BOM, line separators).
fn invisible(c: char) -> bool {
    matches!(c,
        '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2060}'..='\u{206f}' | '\u{feff}')
}

/// An agent's stderr, read until EOF.
#[derive(Debug)]
pub(crate) struct Stderr {
    tail: Arc<Mutex<Tail>>,
    closed: watch::Receiver<bool>,
}

impl Stderr {
    /// Reads `stderr` in the background, logging each line for `agent`.
    pub fn follow(mut stderr: ChildStderr, agent: String, pid: i32) -> Self {
        let tail = Arc::new(Mutex::new(Tail::default()));
        let (closed_tx, closed) = watch::channel(false);
        let reader = tail.clone();
        tokio::spawn(async move {
            let mut buf = vec![0u8; 4096];
            let mut log = |line: &str| {
                tracing::debug!(target: "wta_agent::stderr", agent = %agent, pid, "{line}");
            };
            loop {
                match stderr.read(&mut buf).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => reader
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .feed(&buf[..n], &mut log),
                }
            }
            let _ = closed_tx.send(true);
        });
        Self { tail, closed }
    }

    /// Waits until the agent's stderr is closed, at most `within` (a child of
    /// the agent may hold it open).
    pub async fn settle(&self, within: Duration) {
        let mut closed = self.closed.clone();
        let _ = tokio::time::timeout(within, closed.wait_for(|c| *c)).await;
    }

    /// The newest lines so far.
    pub fn lines(&self) -> Vec<String> {
        self.tail.lock().unwrap_or_else(|p| p.into_inner()).lines()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn tail_of(chunks: &[&[u8]]) -> (Vec<String>, Vec<String>) {
        let mut tail = Tail::default();
        let mut logged = Vec::new();
        for chunk in chunks {
            tail.feed(chunk, &mut |l: &str| logged.push(l.to_owned()));
        }
        (tail.lines(), logged)
    }

    #[test]
    fn colours_titles_and_progress_go_and_the_words_stay() {
        let (lines, logged) = tail_of(&[
            b"\x1b[1;31mboom\x1b[0m: missing API key\r\n",
            b"\x1b]0;title\x07\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ text\n",
            b"\n   \n",
            b"10%\r50%\r100%\n",
            b"tab\there\x08\x00\x7f!\n",
            b"\xc2\x9bC1 and \xe2\x80\xae bidi \xff\n",
        ]);
        assert_eq!(
            lines,
            [
                "boom: missing API key",
                "link text",
                "100%",
                "tab here!",
                "C1 and  bidi \u{fffd}",
            ]
        );
        assert_eq!(logged, lines);
    }

    #[test]
    fn sequences_split_across_reads_are_still_removed() {
        let (lines, _) = tail_of(&[b"a\x1b", b"[3", b"1mb\x1b]0;x", b"y\x1b", b"\\c\n"]);
        assert_eq!(lines, ["abc"]);
        // An unterminated OSC ends with its line.
        let (lines, _) = tail_of(&[b"x\x1b]0;never ends\nnext\n"]);
        assert_eq!(lines, ["x", "next"]);
    }

    #[test]
    fn an_unfinished_last_line_counts() {
        let (lines, logged) = tail_of(&[b"first\nmid-line, then exit 3"]);
        assert_eq!(lines, ["first", "mid-line, then exit 3"]);
        assert_eq!(logged, ["first"]);
    }

    #[test]
    fn only_the_newest_lines_within_the_bounds_are_kept() {
        let many: String = (1..=100).map(|i| format!("line {i}\n")).collect();
        let (lines, logged) = tail_of(&[many.as_bytes()]);
        assert_eq!(logged.len(), 100);
        assert_eq!(lines.len(), MAX_STDERR_LINES);
        assert_eq!(lines.first().map(String::as_str), Some("line 81"));
        assert_eq!(lines.last().map(String::as_str), Some("line 100"));
        let long = format!("{}\n{}", "x".repeat(10_000), "y".repeat(10_000));
        let (lines, _) = tail_of(&[long.as_bytes()]);
        assert_eq!(lines.len(), 2);
        assert!(lines.iter().all(|l| l.ends_with('…')), "{lines:?}");
        assert_eq!(lines[0].len(), MAX_LINE_BYTES + '…'.len_utf8());
    }

    proptest! {
        /// Whatever the agent writes, however it is split into reads: the
        /// lines are within the bounds, hold no control character (so no
        /// escape sequence), and plain text lines come through as written.
        #[test]
        fn any_stderr_is_bounded_and_clean(
            bytes in proptest::collection::vec(any::<u8>(), 0..6000),
            split in 0usize..6000,
        ) {
            let split = split.min(bytes.len());
            let (lines, _) = tail_of(&[&bytes[..split], &bytes[split..]]);
            let total: usize = lines.iter().map(String::len).sum();
            prop_assert!(lines.len() <= MAX_STDERR_LINES);
            prop_assert!(total <= MAX_STDERR_BYTES);
            for line in &lines {
                prop_assert!(!line.chars().any(|c| c.is_control() || invisible(c)), "{line:?}");
                prop_assert!(!line.trim().is_empty());
            }
        }

        #[test]
        fn plain_lines_come_through(lines in proptest::collection::vec("[a-zA-Z0-9 :!.]{1,60}", 1..30)) {
            let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
            let (kept, _) = tail_of(&[text.as_bytes()]);
            let want: Vec<String> = lines
                .iter()
                .map(|l| l.trim_end().to_owned())
                .filter(|l| !l.trim().is_empty())
                .collect();
            prop_assert!(want.ends_with(&kept), "{kept:?} not the end of {want:?}");
            prop_assert_eq!(kept.last(), want.last());
        }
    }
}
