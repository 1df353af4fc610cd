//! The lines a pane's watcher sends to its listeners ([`crate::fanout`]).
//!
//! One watcher owns a pane's `pipe-pane` (tmux allows one per pane); every
//! other reader of that pane's commands (a second `wta listen`, a listen
//! beside an agent pane) subscribes to the owner's listeners socket and
//! reads [`PaneNote`]s: compact JSON, one per line, tagged by `"type"`,
//! unknown fields refused. The first line of every connection is a
//! [`Hello`]. The connection ends after an [`Ended`] note, or without one
//! when the owner goes away (stopped, killed): the listener then looks at the
//! pane again and follows it itself or through its next owner.
//!
//! The peer is the same user (checked both ways), but the text inside comes
//! from the pane's output (command lines, rendered output), so the decoder is
//! strict and bounded: a line over [`MAX_NOTE_LINE`] bytes is an error,
//! never an allocation, and no input makes it panic. [`encode_line`] refuses
//! to write a line the reader would refuse.

use serde::{Deserialize, Serialize};
use wta_protocol::PaneId;

use crate::last_command::LastCommand;
use crate::tracker::Integration;

/// The version a [`Hello`] carries; a listener refuses any other.
pub const NOTE_VERSION: u32 = 1;

/// Longest line (JSON only, without its `\n`). A finished note holds at most
/// a 128 KiB command line and 16 Ki characters of output, escaped: well under.
pub const MAX_NOTE_LINE: usize = 2 << 20;

/// One line from a pane's watcher.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum PaneNote {
    Hello(Hello),
    Started(Started),
    Finished(FinishedNote),
    Integration(IntegrationNote),
    Ended(Ended),
}

/// The first line: which pane, what the watcher knows of its integration,
/// and whether it hands the pipe over to a watcher that needs it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Hello {
    pub version: u32,
    pub pane: PaneId,
    pub integration: NoteIntegration,
    /// True for a `wta listen` that owns the pipe: an agent pane's watcher
    /// (which types cards' commands, so it must own the tracker) takes the
    /// pipe over and the listen goes on as its listener.
    pub yields: bool,
}

/// A command started; its command line when the shell reported it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Started {
    pub cmdline: Option<String>,
}

/// A command finished: its record (what `capture-pane --last-command`
/// prints), the shell's cwd then, and whether WTA typed it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FinishedNote {
    pub record: LastCommand,
    pub cwd: Option<String>,
    pub dispatched: bool,
}

/// The watcher's integration verdict changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IntegrationNote {
    pub integration: NoteIntegration,
}

/// The watcher stopped following the pane, and why (`reason` for people).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ended {
    pub reason: String,
    pub fate: Fate,
}

/// What became of the pane when its watcher ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Fate {
    /// Its program exited (status when tmux or the gate wrapper knew it).
    Died { status: Option<i32> },
    /// It was closed (killed), or its server went.
    Gone,
    /// Another program's pipe replaced the watcher's: the pane lives on.
    TakenOver,
    /// The watcher failed (its socket, tmux): the pane may live on.
    Failed,
}

impl Fate {
    /// True when the pane is no more: nobody can follow it again.
    pub fn pane_ended(self) -> bool {
        matches!(self, Fate::Died { .. } | Fate::Gone)
    }

    /// The watcher's words for a pane that is no more (`None` while it
    /// lives on): what `wta listen` prints as its end.
    pub fn reason(self, pane: &PaneId) -> Option<String> {
        match self {
            Fate::Died { status } => {
                let shown = status.map_or_else(|| "unknown".to_owned(), |s| s.to_string());
                Some(format!("pane {pane} died (status {shown})"))
            }
            Fate::Gone => Some(format!("pane {pane} is gone")),
            Fate::TakenOver | Fate::Failed => None,
        }
    }
}

/// [`Integration`] on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NoteIntegration {
    Unknown,
    Present,
    Absent,
}

impl From<Integration> for NoteIntegration {
    fn from(i: Integration) -> Self {
        match i {
            Integration::Unknown => Self::Unknown,
            Integration::Present => Self::Present,
            Integration::Absent => Self::Absent,
        }
    }
}

impl From<NoteIntegration> for Integration {
    fn from(i: NoteIntegration) -> Self {
        match i {
            NoteIntegration::Unknown => Self::Unknown,
            NoteIntegration::Present => Self::Present,
            NoteIntegration::Absent => Self::Absent,
        }
    }
}

/// A line that is not a note from a WTA watcher.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the pane's watcher sent a malformed line ({0})")]
pub struct BadNote(pub String);

/// `note` as one line, `\n` included; refused when its reader would refuse it.
pub fn encode_line(note: &PaneNote) -> Result<Vec<u8>, BadNote> {
    let mut line = serde_json::to_vec(note).map_err(|e| BadNote(e.to_string()))?;
    if line.len() > MAX_NOTE_LINE {
        return Err(BadNote(format!("{} bytes in one line", line.len())));
    }
    line.push(b'\n');
    Ok(line)
}

/// One line (without its `\n`) as a note.
pub fn decode_line(line: &[u8]) -> Result<PaneNote, BadNote> {
    if line.len() > MAX_NOTE_LINE {
        return Err(BadNote(format!("{} bytes in one line", line.len())));
    }
    serde_json::from_slice(line).map_err(|e| BadNote(e.to_string()))
}

/// Incremental line decoder; holds at most one partial line.
#[derive(Debug, Default)]
pub struct NoteDecoder {
    buf: Vec<u8>,
}

impl NoteDecoder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Bytes held for a partial line.
    pub fn pending_len(&self) -> usize {
        self.buf.len()
    }

    /// Feeds bytes read from the socket; complete notes go to `out`. After
    /// an error the rest of the stream is not trusted: stop reading it.
    pub fn feed(&mut self, bytes: &[u8], out: &mut Vec<PaneNote>) -> Result<(), BadNote> {
        for chunk in bytes.split_inclusive(|b| *b == b'\n') {
            let (part, complete) = match chunk.split_last() {
                Some((b'\n', part)) => (part, true),
                _ => (chunk, false),
            };
            if self.buf.len() + part.len() > MAX_NOTE_LINE {
                self.buf.clear();
                return Err(BadNote(format!("a line over {MAX_NOTE_LINE} bytes")));
            }
            self.buf.extend_from_slice(part);
            if complete {
                let line = std::mem::take(&mut self.buf);
                out.push(decode_line(&line)?);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn record(output: &str) -> LastCommand {
        LastCommand {
            pane: "%3".into(),
            cmdline: Some("ls /nope".into()),
            exit_code: Some(2),
            end_reason: "mark".into(),
            duration_ms: Some(4),
            output: output.into(),
            truncated: false,
            interactive: false,
            output_bytes: output.len() as u64,
        }
    }

    fn samples() -> Vec<PaneNote> {
        vec![
            PaneNote::Hello(Hello {
                version: NOTE_VERSION,
                pane: PaneId::from_number(3),
                integration: NoteIntegration::Present,
                yields: true,
            }),
            PaneNote::Started(Started {
                cmdline: Some("ls /nope".into()),
            }),
            PaneNote::Finished(FinishedNote {
                record: record("ls: cannot access '/nope'"),
                cwd: Some("/tmp".into()),
                dispatched: false,
            }),
            PaneNote::Integration(IntegrationNote {
                integration: NoteIntegration::Absent,
            }),
            PaneNote::Ended(Ended {
                reason: "pane %3 died (status 3)".into(),
                fate: Fate::Died { status: Some(3) },
            }),
        ]
    }

    #[test]
    fn the_wire_shape_is_pinned() {
        let lines: Vec<String> = samples()
            .iter()
            .map(|n| String::from_utf8(encode_line(n).unwrap()).unwrap())
            .collect();
        assert_eq!(
            lines[0],
            "{\"type\":\"hello\",\"version\":1,\"pane\":\"%3\",\"integration\":\"present\",\"yields\":true}\n"
        );
        assert_eq!(
            lines[4],
            "{\"type\":\"ended\",\"reason\":\"pane %3 died (status 3)\",\"fate\":{\"kind\":\"died\",\"status\":3}}\n"
        );
    }

    #[test]
    fn unknown_fields_types_and_bad_ids_are_refused() {
        for bad in [
            r#"{"type":"started","cmdline":null,"extra":1}"#,
            r#"{"type":"hello","version":1,"pane":"@3","integration":"present","yields":false}"#,
            r#"{"type":"hello","version":1,"pane":"%3","integration":"maybe","yields":false}"#,
            r#"{"type":"ended","reason":"x","fate":{"kind":"died","status":1,"why":2}}"#,
            r#"{"type":"reboot"}"#,
            r#"{"cmdline":"x"}"#,
            "not json",
        ] {
            assert!(decode_line(bad.as_bytes()).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_line_over_the_limit_is_an_error_not_an_allocation() {
        let mut d = NoteDecoder::new();
        let mut out = Vec::new();
        let chunk = vec![b'x'; 64 * 1024];
        let mut failed = false;
        for _ in 0..(MAX_NOTE_LINE / chunk.len() + 2) {
            if d.feed(&chunk, &mut out).is_err() {
                failed = true;
                break;
            }
            assert!(d.pending_len() <= MAX_NOTE_LINE);
        }
        assert!(failed);
        assert_eq!(d.pending_len(), 0);
        let huge = PaneNote::Started(Started {
            cmdline: Some("y".repeat(MAX_NOTE_LINE)),
        });
        assert!(encode_line(&huge).is_err());
    }

    #[test]
    fn fates_that_end_the_pane_and_their_words() {
        let pane = PaneId::from_number(3);
        let died = Fate::Died { status: Some(3) };
        assert!(died.pane_ended());
        assert_eq!(died.reason(&pane).unwrap(), "pane %3 died (status 3)");
        let unknown = Fate::Died { status: None };
        assert_eq!(
            unknown.reason(&pane).unwrap(),
            "pane %3 died (status unknown)"
        );
        assert!(Fate::Gone.pane_ended());
        assert_eq!(Fate::Gone.reason(&pane).unwrap(), "pane %3 is gone");
        for lives in [Fate::TakenOver, Fate::Failed] {
            assert!(!lives.pane_ended());
            assert_eq!(lives.reason(&pane), None);
        }
    }

    fn integration() -> impl Strategy<Value = NoteIntegration> {
        prop_oneof![
            Just(NoteIntegration::Unknown),
            Just(NoteIntegration::Present),
            Just(NoteIntegration::Absent),
        ]
    }

    fn fate() -> impl Strategy<Value = Fate> {
        prop_oneof![
            proptest::option::of(any::<i32>()).prop_map(|status| Fate::Died { status }),
            Just(Fate::Gone),
            Just(Fate::TakenOver),
            Just(Fate::Failed),
        ]
    }

    fn note() -> impl Strategy<Value = PaneNote> {
        prop_oneof![
            (0u32..1000, integration(), any::<bool>()).prop_map(|(n, integration, yields)| {
                PaneNote::Hello(Hello {
                    version: NOTE_VERSION,
                    pane: PaneId::from_number(n),
                    integration,
                    yields,
                })
            }),
            proptest::option::of(any::<String>())
                .prop_map(|cmdline| PaneNote::Started(Started { cmdline })),
            (
                any::<String>(),
                proptest::option::of(any::<String>()),
                any::<bool>()
            )
                .prop_map(|(output, cwd, dispatched)| {
                    PaneNote::Finished(FinishedNote {
                        record: record(&output),
                        cwd,
                        dispatched,
                    })
                }),
            integration()
                .prop_map(|integration| { PaneNote::Integration(IntegrationNote { integration }) }),
            (any::<String>(), fate())
                .prop_map(|(reason, fate)| PaneNote::Ended(Ended { reason, fate })),
        ]
    }

    proptest! {
        /// Whatever the notes and however the stream is cut, the listener
        /// reads back exactly what the watcher sent.
        #[test]
        fn round_trip_in_any_chunking(
            notes in proptest::collection::vec(note(), 0..10),
            cuts in proptest::collection::vec(1usize..80, 0..40),
        ) {
            let wire: Vec<u8> = notes.iter().flat_map(|n| encode_line(n).unwrap()).collect();
            let mut d = NoteDecoder::new();
            let mut out = Vec::new();
            let mut rest = &wire[..];
            for cut in cuts {
                let n = cut.min(rest.len());
                d.feed(&rest[..n], &mut out).unwrap();
                rest = &rest[n..];
            }
            d.feed(rest, &mut out).unwrap();
            prop_assert_eq!(out, notes);
            prop_assert_eq!(d.pending_len(), 0);
        }

        /// Arbitrary bytes never panic the decoder and never grow it past
        /// one line.
        #[test]
        fn arbitrary_bytes_keep_the_decoder_bounded(
            chunks in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..64), 0..20)
        ) {
            let mut d = NoteDecoder::new();
            let mut out = Vec::new();
            for chunk in chunks {
                if d.feed(&chunk, &mut out).is_err() {
                    d = NoteDecoder::new();
                }
                prop_assert!(d.pending_len() <= MAX_NOTE_LINE);
            }
        }

        /// Lines that are JSON objects of the right tag but with fields
        /// shuffled in at random are either a note or an error, never a panic.
        #[test]
        fn near_miss_json_is_an_error_or_a_note(
            tag in prop_oneof![Just("hello"), Just("started"), Just("finished"), Just("integration"), Just("ended"), Just("x")],
            key in "[a-z_]{1,12}",
            value in prop_oneof![Just("1".to_owned()), Just("null".to_owned()), Just("\"%1\"".to_owned()), Just("{}".to_owned())],
        ) {
            let line = format!("{{\"type\":\"{tag}\",\"{key}\":{value}}}");
            let _ = decode_line(line.as_bytes());
        }
    }
}
