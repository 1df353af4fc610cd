//! Bounded capture of a command's output bytes, and rendering them to text.
//!
//! [`CappedOutput`] keeps the first `head_cap` and the last `tail_cap` bytes
//! of everything pushed, counts the total and flags truncation. [`render`]
//! replays those bytes through a `vt100` terminal at the pane width so `\r`
//! progress lines, backspaces and line editors come out as the user saw them.
//! Rendering is bounded too: each part is cut to [`MAX_RENDER_ROWS`] rows.

use std::collections::VecDeque;

use serde::Serialize;

/// Upper bound on emulator rows per rendered part (memory: rows × width cells).
pub const MAX_RENDER_ROWS: usize = 4000;

/// Raw output with head and tail kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CappedOutput {
    head: Vec<u8>,
    tail: VecDeque<u8>,
    head_cap: usize,
    tail_cap: usize,
    total: u64,
    /// Bytes the pipe sink dropped inside this output (never seen at all).
    lost: u64,
}

impl CappedOutput {
    pub fn new(head_cap: usize, tail_cap: usize) -> Self {
        CappedOutput {
            head: Vec::new(),
            tail: VecDeque::new(),
            head_cap,
            tail_cap,
            total: 0,
            lost: 0,
        }
    }

    /// Records that `bytes` of output were dropped before reaching us, with a
    /// visible note at that point of the text.
    pub fn note_lost(&mut self, bytes: u64) {
        self.lost = self.lost.saturating_add(bytes);
        let note = format!(
            "\r\n[… {bytes} bytes of output lost here: WTA's pane reader fell behind …]\r\n"
        );
        self.push(note.as_bytes());
    }

    /// Bytes dropped before reaching us (see [`CappedOutput::note_lost`]).
    pub fn lost(&self) -> u64 {
        self.lost
    }

    pub fn push(&mut self, mut bytes: &[u8]) {
        self.total = self.total.saturating_add(bytes.len() as u64);
        let room = self.head_cap.saturating_sub(self.head.len());
        if room > 0 {
            let take = room.min(bytes.len());
            self.head.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
        }
        if bytes.is_empty() || self.tail_cap == 0 {
            return;
        }
        if bytes.len() >= self.tail_cap {
            self.tail.clear();
            self.tail.extend(&bytes[bytes.len() - self.tail_cap..]);
            return;
        }
        let excess = (self.tail.len() + bytes.len()).saturating_sub(self.tail_cap);
        self.tail.drain(..excess);
        self.tail.extend(bytes);
    }

    /// Every byte ever pushed.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// The output is incomplete: bytes between head and tail were cut, or
    /// bytes were lost before reaching us.
    pub fn truncated(&self) -> bool {
        self.cut() || self.lost > 0
    }

    /// Bytes between head and tail were cut to respect the caps.
    pub fn cut(&self) -> bool {
        self.total > (self.head.len() + self.tail.len()) as u64
    }

    /// Bytes currently held (≤ head_cap + tail_cap).
    pub fn held(&self) -> usize {
        self.head.len() + self.tail.len()
    }

    pub fn head(&self) -> &[u8] {
        &self.head
    }

    pub fn tail(&self) -> Vec<u8> {
        self.tail.iter().copied().collect()
    }

    /// All kept bytes; when truncated, head and tail are simply adjacent.
    pub fn kept_bytes(&self) -> Vec<u8> {
        let mut v = self.head.clone();
        v.extend(self.tail.iter());
        v
    }
}

/// Text rendered from a run's output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Rendered {
    pub text: String,
    /// Bytes or rows were left out (the text marks where).
    pub truncated: bool,
}

/// Renders `out` at `width` columns: head, an omission line if truncated, tail.
pub fn render(out: &CappedOutput, width: u16) -> Rendered {
    let width = width.clamp(10, 1000);
    if !out.cut() {
        let (text, cut) = render_part(out.head(), width, Keep::Head);
        return Rendered {
            text,
            truncated: cut || out.lost() > 0,
        };
    }
    let (head, _) = render_part(out.head(), width, Keep::Head);
    let tail_bytes = out.tail();
    // The tail starts mid-stream: begin at its first line start.
    let start = tail_bytes
        .iter()
        .position(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    let (tail, _) = render_part(&tail_bytes[start..], width, Keep::Tail);
    let omitted = out.total() - out.held() as u64 + start as u64;
    let mut text = head;
    if !text.is_empty() {
        text.push('\n');
    }
    text.push_str(&format!("[… {omitted} bytes of output omitted …]"));
    if !tail.is_empty() {
        text.push('\n');
        text.push_str(&tail);
    }
    Rendered {
        text,
        truncated: true,
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Keep {
    Head,
    Tail,
}

/// Renders one contiguous byte run; returns the text and whether rows were cut.
fn render_part(bytes: &[u8], width: u16, keep: Keep) -> (String, bool) {
    if bytes.is_empty() {
        return (String::new(), false);
    }
    let w = usize::from(width);
    // Upper bound of rows per line: every byte printable, wrapped at width.
    let line_rows: Vec<(usize, usize)> = {
        let mut v = Vec::new();
        let mut start = 0;
        for (i, &b) in bytes.iter().enumerate() {
            if b == b'\n' {
                v.push((start, i + 1));
                start = i + 1;
            }
        }
        if start < bytes.len() {
            v.push((start, bytes.len()));
        }
        v
    };
    let rows_of = |(s, e): (usize, usize)| (e - s) / w + 1;
    let total_rows: usize = line_rows.iter().map(|&l| rows_of(l)).sum();
    let (slice, cut) = if total_rows <= MAX_RENDER_ROWS {
        (bytes, false)
    } else {
        let mut rows = 0;
        match keep {
            Keep::Head => {
                let mut end = 0;
                for &l in &line_rows {
                    rows += rows_of(l);
                    if rows > MAX_RENDER_ROWS {
                        break;
                    }
                    end = l.1;
                }
                (&bytes[..end], true)
            }
            Keep::Tail => {
                let mut start = bytes.len();
                for &l in line_rows.iter().rev() {
                    rows += rows_of(l);
                    if rows > MAX_RENDER_ROWS {
                        break;
                    }
                    start = l.0;
                }
                (&bytes[start..], true)
            }
        }
    };
    let rows = total_rows.min(MAX_RENDER_ROWS) + 1;
    let nz = |n: u16| std::num::NonZeroU16::new(n).unwrap_or(std::num::NonZeroU16::MIN);
    let rows = nz(u16::try_from(rows).unwrap_or(u16::MAX));
    let mut parser = vt100::Parser::new(rows, nz(width), 0);
    let soft = process_noting_wide_wraps(&mut parser, slice, width);
    let mut text = screen_text(parser.screen(), width, &soft);
    let trimmed_len = text.trim_end().len();
    text.truncate(trimmed_len);
    (text, cut)
}

/// Feeds `bytes` to `parser` and returns the rows a wide character left
/// early: one that reached the last column with only that column free goes
/// to the next row, as in tmux, but the emulator does not mark the row as
/// wrapped (its `contents` would end the line there). Only a character that
/// was printed moves the cursor like that, so one inside an escape sequence
/// is never taken for it.
fn process_noting_wide_wraps(parser: &mut vt100::Parser, bytes: &[u8], width: u16) -> Vec<u16> {
    let mut soft = Vec::new();
    let mut fed = 0;
    let mut i = 0;
    while i < bytes.len() {
        let Some((wide, len)) = wide_char_at(&bytes[i..]) else {
            i += 1;
            continue;
        };
        if !wide {
            i += len;
            continue;
        }
        parser.process(&bytes[fed..i]);
        let (row, col) = parser.screen().cursor_position();
        parser.process(&bytes[i..i + len]);
        if col + 1 == width && parser.screen().cursor_position() == (row + 1, 2) {
            soft.push(row);
        }
        i += len;
        fed = i;
    }
    parser.process(&bytes[fed..]);
    soft
}

/// The UTF-8 character `bytes` starts with, if any: whether it is two
/// columns wide, and its length in bytes.
fn wide_char_at(bytes: &[u8]) -> Option<(bool, usize)> {
    let len = match bytes.first()? {
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        _ => return None,
    };
    let c = std::str::from_utf8(bytes.get(..len)?)
        .ok()?
        .chars()
        .next()?;
    Some((unicode_width::UnicodeWidthChar::width(c) == Some(2), len))
}

/// The screen's text, a line per row except where a row wrapped (the
/// emulator's flag, or a wide character's early wrap in `soft`).
fn screen_text(screen: &vt100::Screen, width: u16, soft: &[u16]) -> String {
    let mut text = String::new();
    let mut wrapping = false;
    for (i, row) in screen.rows(0, width).enumerate() {
        let i = u16::try_from(i).unwrap_or(u16::MAX);
        // As the emulator's own text: an empty row after a wrapped one is
        // still a line.
        if row.is_empty() && wrapping {
            text.push('\n');
        }
        text.push_str(&row);
        wrapping = screen.row_wrapped(i) || soft.contains(&i);
        if !wrapping {
            text.push('\n');
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn capped(bytes: &[u8], head: usize, tail: usize) -> CappedOutput {
        let mut c = CappedOutput::new(head, tail);
        for chunk in bytes.chunks(7) {
            c.push(chunk);
        }
        c
    }

    #[test]
    fn keeps_head_and_tail_and_counts() {
        let data: Vec<u8> = (0..100u8).collect();
        let c = capped(&data, 10, 20);
        assert_eq!(c.head(), &data[..10]);
        assert_eq!(c.tail(), data[80..].to_vec());
        assert_eq!(c.total(), 100);
        assert!(c.truncated());
        let small = capped(&data[..25], 10, 20);
        assert!(!small.truncated());
        assert_eq!(small.kept_bytes(), data[..25].to_vec());
    }

    #[test]
    fn renders_carriage_returns_backspaces_and_wraps() {
        let c = capped(
            b"\x1b[31mred\x1b[0m\r\nprogress 10%\rprogress 100%\r\nabc\x08\x08X\r\n\r\n",
            1000,
            1000,
        );
        assert_eq!(render(&c, 40).text, "red\nprogress 100%\naXc");
        let long = "x".repeat(100);
        let c = capped(long.as_bytes(), 1000, 1000);
        assert_eq!(render(&c, 40).text, long);
    }

    proptest::proptest! {
        /// Printable text of narrow and wide characters, one line per
        /// `\n`, renders as itself at any width (whatever wraps where).
        #[test]
        fn printable_lines_render_as_themselves(
            lines in proptest::collection::vec("[a-z0-9 日本語한글]{0,120}", 1..6),
            width in 10u16..100,
        ) {
            let lines: Vec<String> = lines.iter().map(|l| l.trim_end().to_owned()).collect();
            let bytes = lines.join("\r\n");
            let c = capped(bytes.as_bytes(), 100_000, 100_000);
            let want = lines.join("\n");
            proptest::prop_assert_eq!(render(&c, width).text, want.trim_end());
        }

        /// Any bytes render without a panic.
        #[test]
        fn any_bytes_render(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..600), width in 0u16..200) {
            let c = capped(&bytes, 300, 300);
            let _ = render(&c, width);
        }
    }

    #[test]
    fn a_wide_character_wrapped_early_does_not_end_the_line() {
        // 79 columns, then a two-column character with one column left.
        let line = format!("{}日本x", "a".repeat(79));
        let c = capped(line.as_bytes(), 1000, 1000);
        assert_eq!(render(&c, 80).text, line);
        // A line ended there is still two lines.
        let two = format!("{}\r\n日本x", "a".repeat(79));
        let c = capped(two.as_bytes(), 1000, 1000);
        assert_eq!(render(&c, 80).text, two.replace("\r\n", "\n"));
        // In an escape sequence (a title) it prints nothing and wraps nothing.
        let titled = format!("{}\x1b]2;日本\x07\r\nb", "a".repeat(79));
        let c = capped(titled.as_bytes(), 1000, 1000);
        assert_eq!(render(&c, 80).text, format!("{}\nb", "a".repeat(79)));
        // A full row wraps as any other.
        let full = format!("{}日本", "a".repeat(80));
        let c = capped(full.as_bytes(), 1000, 1000);
        assert_eq!(render(&c, 80).text, full);
    }

    #[test]
    fn truncated_render_shows_head_gap_and_tail() {
        let text: String = (1..=200).map(|i| format!("line{i}\r\n")).collect();
        let c = capped(text.as_bytes(), 64, 64);
        let r = render(&c, 80);
        assert!(r.truncated);
        assert!(r.text.starts_with("line1\nline2\n"), "{}", r.text);
        assert!(r.text.contains("bytes of output omitted"));
        assert!(r.text.ends_with("line199\nline200"), "{}", r.text);
    }

    #[test]
    fn lost_output_is_flagged_and_noted_where_it_happened() {
        let mut c = CappedOutput::new(1000, 1000);
        c.push(b"before\r\n");
        c.note_lost(65536);
        c.push(b"after\r\n");
        assert!(c.truncated() && !c.cut());
        assert_eq!(c.lost(), 65536);
        let r = render(&c, 80);
        assert!(r.truncated);
        assert_eq!(
            r.text,
            "before\n\n[… 65536 bytes of output lost here: WTA's pane reader fell behind …]\nafter"
        );
    }

    #[test]
    fn huge_line_count_is_bounded() {
        let text: String = (0..20_000).map(|i| format!("{i}\r\n")).collect();
        let c = capped(text.as_bytes(), 1 << 20, 1 << 20);
        let r = render(&c, 80);
        assert!(r.truncated);
        assert!(r.text.lines().count() <= MAX_RENDER_ROWS + 1);
    }
}
