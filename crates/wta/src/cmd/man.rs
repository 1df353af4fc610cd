//! `wta man`: the manual page as roff, generated from the same clap
//! definitions as `--help` (clap_mangen), so it cannot drift from the
//! binary it describes. One document: the `wta(1)` page, then one page per
//! visible subcommand (`wta-list-panes(1)`, `wta-sessions-list(1)`, …), which
//! `man` shows one after another. The output is ASCII: other characters are
//! written as groff's `\[uXXXX]` escapes, so no input encoding is assumed.

use std::io::Write;
use std::process::ExitCode;

/// The whole manual as roff.
pub fn roff() -> std::io::Result<String> {
    let mut cmd = crate::cli_help::command();
    cmd.build();
    let source = format!("wta {}", env!("CARGO_PKG_VERSION"));
    let mut buf = Vec::new();
    render(&cmd, &source, &mut buf)?;
    Ok(ascii(&String::from_utf8_lossy(&buf)))
}

/// `cmd`'s page, then its visible subcommands' pages, depth first.
fn render(cmd: &clap::Command, source: &str, buf: &mut Vec<u8>) -> std::io::Result<()> {
    clap_mangen::Man::new(cmd.clone())
        .source(source)
        .manual("WTA Manual")
        .render(buf)?;
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        render(sub, source, buf)?;
    }
    Ok(())
}

/// `text` with every non-ASCII character as a groff escape (`…` → `\[u2026]`).
fn ascii(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            out.push_str(&format!("\\[u{:04X}]", u32::from(c)));
        }
    }
    out
}

pub fn run() -> anyhow::Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    out.write_all(roff()?.as_bytes())?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_ascii_becomes_groff_escapes() {
        assert_eq!(ascii("a…b – ü"), "a\\[u2026]b \\[u2013] \\[u00FC]");
        assert_eq!(ascii("\u{1F680}"), "\\[u1F680]");
    }
}
