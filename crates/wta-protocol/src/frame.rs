//! A bounded, incremental newline-frame reader: bytes in, complete lines
//! out, no I/O. Both the helper (reading the request) and the CLI (reading
//! responses) feed it whatever `read` returned.
//!
//! The limit counts a line's content only: the `\n` terminator and one
//! optional `\r` before it are not part of the limit. That fixes the
//! original's off-by-one, which counted the newline on one side and not on
//! the other, so a maximal line was refused. Memory stays bounded: the reader
//! never buffers more than `max + 1` bytes (the `+ 1` holds a possible `\r`),
//! and reports a too-long line as soon as it is certain, without waiting for
//! the newline.

use crate::error::ProtocolError;

/// Splits a byte stream into lines of at most `max` bytes.
#[derive(Debug)]
pub struct FrameReader {
    max: usize,
    partial: Vec<u8>,
    failed: bool,
}

impl FrameReader {
    pub fn new(max_line_bytes: usize) -> Self {
        Self {
            max: max_line_bytes,
            partial: Vec::new(),
            failed: false,
        }
    }

    /// Bytes of an unfinished line held so far.
    pub fn pending(&self) -> usize {
        self.partial.len()
    }

    /// Feeds the next chunk; returns the lines it completed, in order, with
    /// their `\n` (and a `\r` just before it) removed. After an error the
    /// reader stays failed: the connection is not trustworthy any more.
    pub fn push(&mut self, mut chunk: &[u8]) -> Result<Vec<Vec<u8>>, ProtocolError> {
        if self.failed {
            return Err(ProtocolError::LineTooLong { max: self.max });
        }
        let mut lines = Vec::new();
        while let Some(newline) = chunk.iter().position(|&b| b == b'\n') {
            let (head, rest) = chunk.split_at(newline);
            chunk = &rest[1..];
            let content_len = self.partial.len() + head.len();
            let ends_with_cr = head.last().or(self.partial.last()) == Some(&b'\r');
            let content_len = content_len - usize::from(ends_with_cr);
            if content_len > self.max {
                return Err(self.fail());
            }
            let mut line = std::mem::take(&mut self.partial);
            line.extend_from_slice(head);
            line.truncate(content_len);
            lines.push(line);
        }
        // What remains has no newline yet: keep it only while it can still be valid.
        let held = self.partial.len() + chunk.len();
        let certain_too_long = held > self.max + 1
            || (held == self.max + 1 && chunk.last().or(self.partial.last()) != Some(&b'\r'));
        if certain_too_long {
            return Err(self.fail());
        }
        self.partial.extend_from_slice(chunk);
        Ok(lines)
    }

    /// End of stream: an unfinished line is an error (a request must end
    /// with a newline), nothing left over is fine.
    pub fn finish(&self) -> Result<(), ProtocolError> {
        if self.failed {
            return Err(ProtocolError::LineTooLong { max: self.max });
        }
        match self.partial.len() {
            0 => Ok(()),
            len => Err(ProtocolError::UnterminatedLine { len }),
        }
    }

    fn fail(&mut self) -> ProtocolError {
        self.failed = true;
        self.partial = Vec::new();
        ProtocolError::LineTooLong { max: self.max }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_of_exactly_max_bytes_passes_with_lf_and_crlf() {
        let mut r = FrameReader::new(4);
        assert_eq!(r.push(b"abcd\n").unwrap(), vec![b"abcd".to_vec()]);
        assert_eq!(r.push(b"abcd\r\n").unwrap(), vec![b"abcd".to_vec()]);
        // Split right between \r and \n.
        assert!(r.push(b"abcd\r").unwrap().is_empty());
        assert_eq!(r.pending(), 5);
        assert_eq!(r.push(b"\n").unwrap(), vec![b"abcd".to_vec()]);
        r.finish().unwrap();
    }

    #[test]
    fn one_byte_over_fails_early_and_stays_failed() {
        let mut r = FrameReader::new(4);
        assert!(r.push(b"abcde\n").is_err());
        assert!(r.push(b"a\n").is_err());
        assert!(r.finish().is_err());
        // Without waiting for the newline:
        let mut r = FrameReader::new(4);
        assert!(r.push(b"abcd").unwrap().is_empty());
        assert!(r.push(b"e").is_err());
        let mut r = FrameReader::new(4);
        assert!(r.push(b"abcd\r").unwrap().is_empty());
        assert!(r.push(b"x").is_err());
    }

    #[test]
    fn several_lines_per_chunk_and_lines_across_chunks() {
        let mut r = FrameReader::new(10);
        let lines = r.push(b"a\nbb\r\nccc").unwrap();
        assert_eq!(lines, vec![b"a".to_vec(), b"bb".to_vec()]);
        assert_eq!(
            r.push(b"c\n\n").unwrap(),
            vec![b"cccc".to_vec(), Vec::new()]
        );
        r.finish().unwrap();
    }

    #[test]
    fn unterminated_line_at_eof_is_reported() {
        let mut r = FrameReader::new(10);
        r.push(b"{}").unwrap();
        assert_eq!(r.finish(), Err(ProtocolError::UnterminatedLine { len: 2 }));
    }

    #[test]
    fn only_a_final_cr_is_stripped() {
        let mut r = FrameReader::new(10);
        assert_eq!(r.push(b"a\rb\n").unwrap(), vec![b"a\rb".to_vec()]);
        assert_eq!(r.push(b"\r\n").unwrap(), vec![Vec::<u8>::new()]);
    }
}
