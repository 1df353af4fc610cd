//! Printing: aligned tables for people, pretty stable JSON for scripts (in
//! the vocabulary of [`crate::json`], each object versioned).
//!
//! Every write returns its `io::Error`; a reader that went away (`wta … |
//! head`) surfaces as [`std::io::ErrorKind::BrokenPipe`], which the caller
//! turns into a quiet exit with [`BROKEN_PIPE_STATUS`] (see [`is_broken_pipe`]),
//! as `ls | head` ends: no message.

use std::io::Write;

use serde::Serialize;
use unicode_width::UnicodeWidthStr;

use crate::json::Versioned;

/// The exit status when stdout closed before everything was written: what a
/// shell reports for a program ended by SIGPIPE (128 + 13), as for `ls | head`.
pub const BROKEN_PIPE_STATUS: u8 = 141;

/// True when `err` comes from writing to a stdout whose reader has gone.
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// Prints `value` (a struct or a map: see [`crate::json`]) as pretty JSON,
/// `schema_version` first, followed by a newline.
pub fn json<T: Serialize + ?Sized>(value: &T) -> anyhow::Result<()> {
    // Encoded first: a value that cannot carry its version prints nothing.
    let text = serde_json::to_vec_pretty(&Versioned::new(value))?;
    let mut out = std::io::stdout().lock();
    // A closed stdout fails as an io::Error, which `is_broken_pipe` knows.
    out.write_all(&text)?;
    writeln!(out)?;
    out.flush()?;
    Ok(())
}

/// Prints `value` as one compact JSON line, `schema_version` first (a
/// stream, unlike one-shot `--json`).
pub fn json_line<T: Serialize + ?Sized>(value: &T) -> anyhow::Result<()> {
    let mut text = serde_json::to_vec(&Versioned::new(value))?;
    text.push(b'\n');
    let mut out = std::io::stdout().lock();
    out.write_all(&text)?;
    out.flush()?;
    Ok(())
}

/// A table with a header row; columns padded to their widest cell.
#[derive(Debug, Default)]
pub struct Table {
    rows: Vec<Vec<String>>,
}

impl Table {
    /// A table whose header cells are `header` as they are (tests; the
    /// CLI's headers are [`Table::localized`]).
    #[cfg(test)]
    pub fn new(header: &[&str]) -> Self {
        Self {
            rows: vec![header.iter().map(|h| (*h).to_owned()).collect()],
        }
    }

    /// A table whose header cells are the texts of `keys` in the user's language.
    pub fn localized(keys: &[&str]) -> Self {
        Self {
            rows: vec![keys.iter().map(|k| wta_i18n::tr(k, &[])).collect()],
        }
    }

    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    /// The table as text, each line ending in a newline, no trailing spaces.
    pub fn render(&self) -> String {
        let cols = self.rows.iter().map(Vec::len).max().unwrap_or(0);
        let widths: Vec<usize> = (0..cols)
            .map(|c| {
                self.rows
                    .iter()
                    .filter_map(|r| r.get(c))
                    .map(|s| s.width())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let mut out = String::new();
        for row in &self.rows {
            let mut line = String::new();
            for (c, cell) in row.iter().enumerate() {
                if c + 1 < row.len() {
                    line.push_str(&pad(cell, widths[c] + 2));
                } else {
                    line.push_str(cell);
                }
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }

    pub fn print(&self) -> anyhow::Result<()> {
        let mut out = std::io::stdout().lock();
        out.write_all(self.render().as_bytes())?;
        out.flush()?;
        Ok(())
    }
}

/// `text` followed by spaces up to `width` terminal columns (display width:
/// a CJK character takes two, a combining mark none); as it is when wider.
/// Every column the CLI aligns goes through here: `format!("{:<N}")` pads by
/// characters, which misaligns CJK text.
pub fn pad(text: &str, width: usize) -> String {
    let mut out = String::with_capacity(text.len() + width);
    out.push_str(text);
    out.push_str(&" ".repeat(width.saturating_sub(text.width())));
    out
}

/// Key/value lines for a single object, keys aligned.
pub fn pairs(rows: &[(&str, String)]) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(render_pairs(rows).as_bytes())?;
    out.flush()?;
    Ok(())
}

/// [`pairs`]' text: each key padded to the widest (by display width), two
/// spaces, the value.
pub fn render_pairs(rows: &[(&str, String)]) -> String {
    let width = rows.iter().map(|(k, _)| k.width()).max().unwrap_or(0);
    rows.iter()
        .map(|(k, v)| format!("{}  {v}\n", pad(k, width)))
        .collect()
}

/// Prints one plain line.
pub fn line(text: &str) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{text}")?;
    out.flush()?;
    Ok(())
}

/// `"yes"`/`"no"` for tables, in the user's language.
pub fn yes(b: bool) -> String {
    wta_i18n::tr(if b { "cli.answer_yes" } else { "cli.answer_no" }, &[])
}

/// A message that `--json` carries in English (scripts read it) while
/// people read it in their language.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Said {
    english: String,
    shown: String,
}

impl Said {
    /// `key`'s text, `%{name}` placeholders filled from `args`.
    pub fn new(key: &str, args: &[(&str, &str)]) -> Self {
        let mut english = wta_i18n::tr_in("en", key);
        for (name, value) in args {
            english = english.replace(&format!("%{{{name}}}"), value);
        }
        Self {
            english,
            shown: wta_i18n::tr(key, args),
        }
    }

    /// The text for people.
    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// The text for scripts (`--json`): English.
    pub fn english(&self) -> &str {
        &self.english
    }
}

impl Serialize for Said {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.english)
    }
}

/// `err` as `{err:#}` prints it (every cause, joined by `: `), each error
/// of ours that knows the user's language saying it there.
pub fn user_message(err: &anyhow::Error) -> String {
    err.chain()
        .map(|cause| {
            if let Some(e) = cause.downcast_ref::<wta_host::HostError>() {
                e.localized()
            } else if let Some(e) = cause.downcast_ref::<wta_shell::ShellError>() {
                e.localized()
            } else if let Some(e) = cause.downcast_ref::<wta_agent::AgentError>() {
                e.localized()
            } else if let Some(e) = cause.downcast_ref::<wta_helper::connection::ConnectionError>()
            {
                e.localized()
            } else {
                cause.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(": ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_closed_reader_is_told_apart_from_other_errors() {
        let pipe = anyhow::Error::from(std::io::Error::from(std::io::ErrorKind::BrokenPipe));
        assert!(is_broken_pipe(&pipe));
        assert!(is_broken_pipe(&pipe.context("printing the table")));
        struct Closed;
        impl Write for Closed {
            fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
                Err(std::io::ErrorKind::BrokenPipe.into())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let json = serde_json::to_writer(Closed, &[1, 2]).unwrap_err();
        assert!(is_broken_pipe(&std::io::Error::from(json).into()));
        let other = anyhow::Error::from(std::io::Error::from(std::io::ErrorKind::NotFound));
        assert!(!is_broken_pipe(&other));
        assert!(!is_broken_pipe(&anyhow::anyhow!("Broken pipe")));
    }

    #[test]
    fn aligns_wide_characters() {
        let mut t = Table::new(&["ID", "NAME", "X"]);
        t.row(vec!["%1".into(), "ünï🚀".into(), "a".into()]);
        t.row(vec!["%10".into(), "b".into(), "".into()]);
        assert_eq!(t.render(), "ID   NAME   X\n%1   ünï🚀  a\n%10  b\n");
    }

    #[test]
    fn pads_by_display_width() {
        assert_eq!(pad("ab", 4), "ab  ");
        assert_eq!(pad("セッション", 12), "セッション  ");
        assert_eq!(pad("toolong", 3), "toolong");
        assert_eq!(
            pad("e\u{301}", 2),
            "e\u{301} ",
            "a combining mark takes no column"
        );
        let text = render_pairs(&[("セッション", "wta".into()), ("tmux", "3.3".into())]);
        let columns: Vec<usize> = text
            .lines()
            .map(|l| l.find(['w', '3']).map(|i| l[..i].width()).unwrap())
            .collect();
        assert_eq!(columns, [12, 12], "{text}");
    }
}
