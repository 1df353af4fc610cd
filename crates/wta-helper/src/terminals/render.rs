//! A pane terminal's output as `terminal/output` gives it: the bytes the
//! pane received, rendered the way the pane showed them (`\r` progress
//! lines overwritten, colours and cursor moves gone), then the newest
//! `limit` bytes of that text, cut from the start on a character boundary.
//! Pure.
//!
//! Output with no escape or control character but `\n`, `\t` and `\r\n`
//! reads the same rendered or not and is passed through as written. Other
//! output goes through `wta_shell::render` in pieces of whole lines, each
//! within the emulator's row bound (`wta_shell::output::MAX_RENDER_ROWS`),
//! so no line is lost to that bound however long the output is (a cursor
//! move that crosses a piece's edge is taken within its piece; a line
//! longer than a piece is rendered in parts, joined again).

use wta_shell::output::MAX_RENDER_ROWS;

/// Columns the output is rendered at; longer lines wrap and are joined again.
pub const WIDTH: u16 = 200;

/// `raw` as the pane showed it, cut to its newest `limit` bytes; true when
/// the cut dropped anything.
pub fn newest(raw: &str, limit: usize) -> (String, bool) {
    let text = if is_plain(raw.as_bytes()) {
        raw.replace("\r\n", "\n")
    } else {
        rendered(raw)
    };
    cut_start(text, limit)
}

/// Nothing a terminal would draw differently from the text itself.
fn is_plain(bytes: &[u8]) -> bool {
    bytes.iter().enumerate().all(|(i, &b)| match b {
        b'\n' | b'\t' => true,
        b'\r' => bytes.get(i + 1) == Some(&b'\n'),
        0x7f => false,
        b => b >= 0x20,
    })
}

/// Rows the emulator may need for `line` (with its newline): every byte
/// printable, wrapped at [`WIDTH`] (the bound `wta_shell::render` uses).
fn rows_of(line: &str) -> usize {
    line.len() / usize::from(WIDTH) + 1
}

/// Renders `raw` piece by piece, each piece whole lines within the row bound.
fn rendered(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut piece_start = 0;
    let mut rows = 0;
    let mut pos = 0;
    for line in raw.split_inclusive('\n') {
        let line_rows = rows_of(line);
        if rows + line_rows > MAX_RENDER_ROWS && pos > piece_start {
            render_piece(&raw[piece_start..pos], &mut out);
            piece_start = pos;
            rows = 0;
        }
        if line_rows > MAX_RENDER_ROWS {
            // One line longer than a piece: in parts of it, joined again.
            let mut rest = line;
            while !rest.is_empty() {
                let mut end = rest.len().min((MAX_RENDER_ROWS - 1) * usize::from(WIDTH));
                while !rest.is_char_boundary(end) {
                    end -= 1;
                }
                render_piece(&rest[..end], &mut out);
                rest = &rest[end..];
            }
            pos += line.len();
            piece_start = pos;
            continue;
        }
        rows += line_rows;
        pos += line.len();
    }
    if pos > piece_start {
        render_piece(&raw[piece_start..pos], &mut out);
    }
    out
}

/// Appends `piece` rendered; a piece that ended a line ends one here too
/// (rendering trims the trailing newline).
fn render_piece(piece: &str, out: &mut String) {
    let mut capped = wta_shell::CappedOutput::new(piece.len(), 0);
    capped.push(piece.as_bytes());
    out.push_str(&wta_shell::render(&capped, WIDTH).text);
    if piece.ends_with('\n') {
        out.push('\n');
    }
}

/// The newest `limit` bytes of `text`, starting on a character boundary.
fn cut_start(text: String, limit: usize) -> (String, bool) {
    if text.len() <= limit {
        return (text, false);
    }
    let mut start = text.len() - limit;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    (text[start..].to_owned(), true)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use proptest::prelude::*;

    fn numbered(n: usize) -> String {
        (1..=n).map(|i| format!("{i}\r\n")).collect()
    }

    #[test]
    fn plain_output_past_the_emulators_rows_is_whole_and_newest_first_to_go() {
        let raw = format!("{}END\r\n", numbered(5000));
        let (text, cut) = newest(&raw, 1024 * 1024);
        assert!(!cut);
        assert!(
            text.starts_with("1\n2\n") && text.ends_with("5000\nEND\n"),
            "{text:.40}"
        );
        assert_eq!(text.lines().count(), 5001);
        let (text, cut) = newest(&raw, 100);
        assert!(cut);
        assert_eq!(text.len(), 100);
        assert!(text.ends_with("4999\n5000\nEND\n"), "{text}");
    }

    #[test]
    fn coloured_output_past_the_emulators_rows_keeps_every_line() {
        let raw: String = (1..=9000)
            .map(|i| format!("\x1b[32m{i}\x1b[0m\r\n"))
            .chain(["done 10%\rdone 100%\r\n".to_owned()])
            .collect();
        let (text, cut) = newest(&raw, usize::MAX);
        assert!(!cut);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 9001, "{:?}", &lines[lines.len() - 3..]);
        assert_eq!(lines[0], "1");
        assert_eq!(lines[8999], "9000");
        assert_eq!(lines[9000], "done 100%");
        assert!(!text.contains('\x1b'));
    }

    #[test]
    fn one_line_longer_than_the_emulators_rows_comes_out_whole() {
        let long = "x".repeat(MAX_RENDER_ROWS * usize::from(WIDTH) + 77);
        let raw = format!("\x1b[1mstart\x1b[0m\r\n{long}\r\nend\r\n");
        let (text, _) = newest(&raw, usize::MAX);
        assert_eq!(text, format!("start\n{long}\nend\n"));
    }

    #[test]
    fn the_cut_starts_on_a_character_boundary() {
        let (text, cut) = newest("ééé", 3);
        assert!(cut);
        assert_eq!(text, "é");
        assert_eq!(newest("ab", 2), ("ab".to_owned(), false));
    }

    proptest! {
        /// Plain text comes back as written (bar `\r\n` → `\n`), cut to
        /// its newest bytes; `truncated` is exactly whether it was cut.
        #[test]
        fn plain_text_is_a_suffix_within_the_limit(
            lines in proptest::collection::vec("[a-zé ]{0,30}", 0..50),
            limit in 0usize..400,
        ) {
            let raw: String = lines.iter().map(|l| format!("{l}\r\n")).collect();
            let whole = raw.replace("\r\n", "\n");
            let (text, cut) = newest(&raw, limit);
            prop_assert!(whole.ends_with(&text));
            prop_assert!(text.len() <= limit);
            prop_assert_eq!(cut, whole.len() > limit);
            prop_assert!(whole.len() <= limit || text.len() + 1 >= limit);
        }

        /// Whatever the bytes, the answer keeps within the limit and holds
        /// no escape character.
        #[test]
        fn any_output_is_bounded_and_has_no_escapes(
            raw in "[a-z\x1b\\[;0-9m\r\n\x07\\]]{0,300}",
            limit in 0usize..200,
        ) {
            let (text, _) = newest(&raw, limit);
            prop_assert!(text.len() <= limit);
            prop_assert!(!text.contains('\x1b'));
        }
    }
}
