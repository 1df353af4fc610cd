//! The framing between the pipe-pane sink and its watcher.
//!
//! The sink drops pane output on its own side when the watcher falls behind
//! (tmux would otherwise buffer without limit), and the watcher must learn
//! where: a silent drop could cut a run's output unnoticed or swallow its `D`
//! mark. So the socket carries frames, not raw bytes:
//!
//! - `0x00`, u32 big-endian length, that many output bytes;
//! - `0x01`, u64 big-endian count of bytes dropped at this point.
//!
//! [`FrameDecoder`] is incremental, bounded (a length over
//! [`MAX_DATA_FRAME`] is an error, never an allocation) and never panics.

/// Largest data frame the decoder accepts (the sink sends ≤ 64 KiB chunks).
pub const MAX_DATA_FRAME: usize = 1 << 20;

const DATA: u8 = 0;
const GAP: u8 = 1;

/// One frame from the sink.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    /// Pane output, in order.
    Data(Vec<u8>),
    /// This many bytes of pane output were dropped here.
    Gap(u64),
}

/// The header of a data frame of `len` bytes (≤ [`MAX_DATA_FRAME`]).
pub fn encode_data_header(len: usize) -> [u8; 5] {
    let n = u32::try_from(len).unwrap_or(u32::MAX).to_be_bytes();
    [DATA, n[0], n[1], n[2], n[3]]
}

/// The encoding of a gap frame.
pub fn encode_gap(bytes: u64) -> [u8; 9] {
    let mut out = [GAP; 9];
    out[1..].copy_from_slice(&bytes.to_be_bytes());
    out
}

/// Encodes a whole frame (tests and small writers).
pub fn encode(frame: &Frame) -> Vec<u8> {
    match frame {
        Frame::Data(bytes) => {
            let mut v = encode_data_header(bytes.len()).to_vec();
            v.extend_from_slice(bytes);
            v
        }
        Frame::Gap(n) => encode_gap(*n).to_vec(),
    }
}

/// The stream was not produced by a WTA sink.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the pipe sink sent a malformed frame ({0})")]
pub struct BadFrame(pub String);

/// Incremental decoder; holds at most one partial frame.
#[derive(Debug, Default)]
pub struct FrameDecoder {
    buf: Vec<u8>,
}

impl FrameDecoder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Bytes held for a partial frame.
    pub fn pending_len(&self) -> usize {
        self.buf.len()
    }

    /// Feeds bytes read from the socket; complete frames go to `out`.
    pub fn feed(&mut self, bytes: &[u8], out: &mut Vec<Frame>) -> Result<(), BadFrame> {
        self.buf.extend_from_slice(bytes);
        let mut pos = 0;
        let result = loop {
            let rest = &self.buf[pos..];
            let Some(&kind) = rest.first() else {
                break Ok(());
            };
            match kind {
                DATA => {
                    let Some(len) = rest.get(1..5) else {
                        break Ok(());
                    };
                    let len = u32::from_be_bytes([len[0], len[1], len[2], len[3]]) as usize;
                    if len > MAX_DATA_FRAME {
                        break Err(BadFrame(format!("{len} bytes in one frame")));
                    }
                    let Some(data) = rest.get(5..5 + len) else {
                        break Ok(());
                    };
                    out.push(Frame::Data(data.to_vec()));
                    pos += 5 + len;
                }
                GAP => {
                    let Some(n) = rest.get(1..9) else {
                        break Ok(());
                    };
                    let mut count = [0u8; 8];
                    count.copy_from_slice(n);
                    out.push(Frame::Gap(u64::from_be_bytes(count)));
                    pos += 9;
                }
                other => break Err(BadFrame(format!("unknown kind {other}"))),
            }
        };
        self.buf.drain(..pos);
        if result.is_err() {
            self.buf.clear();
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn frames_split_anywhere_decode_the_same() {
        let frames = vec![
            Frame::Data(b"hello".to_vec()),
            Frame::Gap(65536),
            Frame::Data(Vec::new()),
            Frame::Data(b"\x1b]133;D;0\x07".to_vec()),
        ];
        let wire: Vec<u8> = frames.iter().flat_map(encode).collect();
        for split in 0..wire.len() {
            let mut d = FrameDecoder::new();
            let mut out = Vec::new();
            d.feed(&wire[..split], &mut out).unwrap();
            d.feed(&wire[split..], &mut out).unwrap();
            assert_eq!(out, frames, "split at {split}");
            assert_eq!(d.pending_len(), 0);
        }
    }

    #[test]
    fn oversized_or_unknown_frames_are_errors() {
        let mut d = FrameDecoder::new();
        let mut out = Vec::new();
        let huge = encode_data_header(MAX_DATA_FRAME + 1);
        assert!(d.feed(&huge, &mut out).is_err());
        assert_eq!(d.pending_len(), 0);
        assert!(d.feed(&[7, 0, 0], &mut out).is_err());
        assert!(out.is_empty());
    }

    fn frame() -> impl Strategy<Value = Frame> {
        prop_oneof![
            proptest::collection::vec(any::<u8>(), 0..200).prop_map(Frame::Data),
            any::<u64>().prop_map(Frame::Gap),
        ]
    }

    proptest! {
        #[test]
        fn round_trip_in_any_chunking(
            frames in proptest::collection::vec(frame(), 0..12),
            cuts in proptest::collection::vec(1usize..64, 0..40),
        ) {
            let wire: Vec<u8> = frames.iter().flat_map(encode).collect();
            let mut d = FrameDecoder::new();
            let mut out = Vec::new();
            let mut rest = &wire[..];
            for cut in cuts {
                let n = cut.min(rest.len());
                d.feed(&rest[..n], &mut out).unwrap();
                rest = &rest[n..];
            }
            d.feed(rest, &mut out).unwrap();
            prop_assert_eq!(out, frames);
        }

        #[test]
        fn arbitrary_bytes_keep_the_decoder_bounded(
            chunks in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..64), 0..20)
        ) {
            let mut d = FrameDecoder::new();
            let mut out = Vec::new();
            for chunk in chunks {
                let _ = d.feed(&chunk, &mut out);
                prop_assert!(d.pending_len() <= MAX_DATA_FRAME + 5 + 64);
            }
        }
    }
}
