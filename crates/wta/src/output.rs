//! Printing: aligned tables for people, pretty stable JSON for scripts.

use std::io::Write;

use serde::Serialize;
use unicode_width::UnicodeWidthStr;

/// Prints `value` as pretty JSON followed by a newline.
pub fn json<T: Serialize + ?Sized>(value: &T) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, value)?;
    writeln!(out)?;
    out.flush()?;
    Ok(())
}

/// A table with a header row; columns padded to their widest cell.
#[derive(Debug, Default)]
pub struct Table {
    rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new(header: &[&str]) -> Self {
        Self {
            rows: vec![header.iter().map(|h| (*h).to_owned()).collect()],
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
                line.push_str(cell);
                if c + 1 < row.len() {
                    line.push_str(&" ".repeat(widths[c] - cell.width() + 2));
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

/// Key/value lines for a single object, keys aligned.
pub fn pairs(rows: &[(&str, String)]) -> anyhow::Result<()> {
    let width = rows.iter().map(|(k, _)| k.width()).max().unwrap_or(0);
    let mut out = std::io::stdout().lock();
    for (k, v) in rows {
        writeln!(out, "{k:width$}  {v}")?;
    }
    out.flush()?;
    Ok(())
}

/// Prints one plain line.
pub fn line(text: &str) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{text}")?;
    out.flush()?;
    Ok(())
}

/// `"yes"`/`"no"` for tables.
pub fn yes(b: bool) -> String {
    if b { "yes".into() } else { "no".into() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligns_wide_characters() {
        let mut t = Table::new(&["ID", "NAME", "X"]);
        t.row(vec!["%1".into(), "ünï🚀".into(), "a".into()]);
        t.row(vec!["%10".into(), "b".into(), "".into()]);
        assert_eq!(t.render(), "ID   NAME   X\n%1   ünï🚀  a\n%10  b\n");
    }
}
