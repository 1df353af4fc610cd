//! The mark `wta terminal-exec` prints once its command has ended, before it
//! records the end in the pane option: the pane's output pipe (pipe-pane,
//! `wta pipe-sink`, this helper's socket) passes it after everything the
//! command wrote, so the end is told only once the output has all arrived
//! and `wait_for_exit` followed by `output` never misses a tail still in
//! flight. The reader cuts it out of the output as it passes. Pure.
//!
//! A command that prints the mark itself only makes the end be told
//! without waiting for the rest of its output: nothing else follows from it.

use wta_shell::bytes::{find, partial_suffix};

/// The end mark: an OSC no terminal knows (tmux draws nothing for it).
pub const END_MARK: &[u8] = b"\x1b]7767;wta-terminal-end\x07";

/// Cuts [`END_MARK`] out of a pane's output stream.
#[derive(Debug, Default)]
pub struct EndMarkFilter {
    held: Vec<u8>,
    seen: bool,
}

impl EndMarkFilter {
    /// Appends to `out` what of `input` is output: every mark cut out, a
    /// possible start of one held back for the next bytes. True once a mark
    /// has passed.
    pub fn feed(&mut self, input: &[u8], out: &mut Vec<u8>) -> bool {
        self.held.extend_from_slice(input);
        while let Some(at) = find(&self.held, END_MARK) {
            out.extend_from_slice(&self.held[..at]);
            self.held.drain(..at + END_MARK.len());
            self.seen = true;
        }
        let keep = partial_suffix(&self.held, END_MARK);
        let pass = self.held.len() - keep;
        out.extend(self.held.drain(..pass));
        self.seen
    }

    /// What was held back (the stream ended).
    pub fn finish(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.held)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn through(chunks: &[&[u8]]) -> (Vec<u8>, bool) {
        let mut filter = EndMarkFilter::default();
        let mut out = Vec::new();
        let mut seen = false;
        for chunk in chunks {
            seen = filter.feed(chunk, &mut out);
        }
        out.extend(filter.finish());
        (out, seen)
    }

    #[test]
    fn the_mark_is_cut_out_and_seen_wherever_the_chunks_split_it() {
        let mut stream = b"line 1\nline 2\x1b]7".to_vec();
        stream.extend_from_slice(END_MARK);
        stream.extend_from_slice(b"[press Enter]");
        for at in 0..stream.len() {
            let (a, b) = stream.split_at(at);
            let (out, seen) = through(&[a, b]);
            assert!(seen, "split at {at}");
            assert_eq!(out, b"line 1\nline 2\x1b]7[press Enter]", "split at {at}");
        }
        let (out, seen) = through(&[b"no mark \x1b]7767;wta-term"]);
        assert!(!seen);
        assert_eq!(
            out, b"no mark \x1b]7767;wta-term",
            "a partial mark at the end is output"
        );
    }

    proptest! {
        /// Output without the mark passes whole, in any chunks, and the
        /// mark after it is always seen.
        #[test]
        fn output_passes_whole_and_the_mark_is_seen(
            data in proptest::collection::vec(any::<u8>(), 0..300),
            cuts in proptest::collection::vec(0usize..330, 0..6),
        ) {
            prop_assume!(find(&data, END_MARK).is_none());
            let mut stream = data.clone();
            stream.extend_from_slice(END_MARK);
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(stream.len())).collect();
            cuts.sort_unstable();
            let mut chunks = Vec::new();
            let mut from = 0;
            for cut in cuts {
                chunks.push(&stream[from..cut]);
                from = cut;
            }
            chunks.push(&stream[from..]);
            let (out, seen) = through(&chunks);
            prop_assert!(seen);
            prop_assert_eq!(out, data);
        }
    }
}
