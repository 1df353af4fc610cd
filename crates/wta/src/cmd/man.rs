//! `wta man [--dir DIR]`: the manual as roff, generated from the same clap
//! definitions as `--help` (clap_mangen's section renderers), so it cannot
//! drift from the binary it describes. One page per visible command and
//! subcommand: `wta(1)`, `wta-up(1)`, `wta-sessions-list(1)`, … With `--dir`
//! each page is a file of its own (`wta-up.1`), which `man` finds by name;
//! without, they are printed one after another (for `man -l -` or a pager).
//!
//! What this file adds to clap_mangen's sections: a SYNOPSIS that names
//! every option's value (clap_mangen's shows `[-L ]`), the FILES,
//! ENVIRONMENT and KEYS sections (`man/sections.rs`) and a SEE ALSO whose
//! every page is one this manual has. The output is ASCII: other
//! characters are written as groff's `\[uXXXX]` escapes, so no input
//! encoding is assumed.

mod sections;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::{Arg, ArgAction, Command};
use clap_mangen::roff::{Inline, Roff, bold, italic, roman};
use unicode_width::UnicodeWidthChar;

use super::Ctx;

/// `wta man`'s arguments.
#[derive(Debug, clap::Args)]
pub struct ManArgs {
    /// Write one page per command (`wta.1`, `wta-up.1`, `wta-sessions-list.1`, …) into DIR, created if missing, instead of printing them all
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

/// One manual page: its name (`wta-sessions-list`) and its roff.
#[derive(Debug)]
pub struct Page {
    pub name: String,
    pub roff: String,
}

impl Page {
    /// The page's file name in a `man1` directory.
    pub fn file_name(&self) -> String {
        format!("{}.1", self.name)
    }
}

/// Every page, `wta(1)` first, then each visible subcommand's, depth first.
pub fn pages() -> std::io::Result<Vec<Page>> {
    let mut cmd = crate::cli_help::command();
    cmd.build();
    let mut out = Vec::new();
    collect(&cmd, None, &mut out)?;
    Ok(out)
}

/// The whole manual as one roff stream (what `wta man` prints).
pub fn roff() -> std::io::Result<String> {
    Ok(pages()?.into_iter().map(|p| p.roff).collect())
}

fn collect(cmd: &Command, parent: Option<&str>, out: &mut Vec<Page>) -> std::io::Result<()> {
    let page = page(cmd, parent)?;
    let name = page.name.clone();
    out.push(page);
    for sub in shown_subcommands(cmd) {
        collect(sub, Some(&name), out)?;
    }
    Ok(())
}

fn shown_subcommands(cmd: &Command) -> impl Iterator<Item = &Command> {
    cmd.get_subcommands().filter(|s| !s.is_hide_set())
}

/// `wta-sessions-list`: the name clap gives a built subcommand's page.
fn page_name(cmd: &Command) -> String {
    cmd.get_display_name()
        .unwrap_or_else(|| cmd.get_name())
        .to_owned()
}

/// Sections rendered one at a time into one document: roff's preamble
/// (the `Aq` string every renderer defines first) is kept once.
#[derive(Default)]
struct Doc {
    text: String,
}

impl Doc {
    fn add(
        &mut self,
        render: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let mut buf = Vec::new();
        render(&mut buf)?;
        let part = String::from_utf8_lossy(&buf);
        let preamble = Roff::new().render();
        let part = if self.text.is_empty() {
            &part[..]
        } else {
            part.strip_prefix(preamble.as_str()).unwrap_or(&part)
        };
        self.text.push_str(part);
        Ok(())
    }
}

fn page(cmd: &Command, parent: Option<&str>) -> std::io::Result<Page> {
    let name = page_name(cmd);
    let man = clap_mangen::Man::new(cmd.clone())
        .source(format!("wta {}", env!("CARGO_PKG_VERSION")))
        .manual("WTA Manual");
    let mut doc = Doc::default();
    doc.add(|w| man.render_title(w))?;
    let after_title = doc.text.len();
    doc.add(|w| man.render_name_section(w))?;
    doc.add(|w| synopsis(cmd).to_writer(w))?;
    doc.add(|w| man.render_description_section(w))?;
    if cmd.get_arguments().any(|a| !a.is_hide_set()) {
        doc.add(|w| man.render_options_section(w))?;
    }
    if shown_subcommands(cmd).next().is_some() {
        doc.add(|w| man.render_subcommands_section(w))?;
    }
    if cmd.get_after_help().is_some() || cmd.get_after_long_help().is_some() {
        doc.add(|w| man.render_extra_section(w))?;
    }
    for section in sections::of(&name) {
        doc.add(|w| section.roff().to_writer(w))?;
    }
    if let Some(see) = see_also(&name, parent) {
        doc.add(|w| see.to_writer(w))?;
    }
    if cmd.get_version().is_some() || cmd.get_long_version().is_some() {
        doc.add(|w| man.render_version_section(w))?;
    }
    let mut text = doc.text;
    if text.chars().any(|c| c.width() == Some(2)) {
        // Lines of CJK text have no spaces to stretch: filled ragged-right
        // (groff warns "cannot adjust line" on each otherwise).
        text.insert_str(after_title, ".ad l\n");
    }
    Ok(Page {
        name,
        roff: ascii(&text),
    })
}

/// The order clap_mangen lists options in (OPTIONS), so SYNOPSIS agrees.
fn option_order(arg: &Arg) -> (usize, String) {
    let key = match (arg.get_short(), arg.get_long()) {
        (Some(s), _) => format!(
            "{}{}",
            s.to_ascii_lowercase(),
            if s.is_ascii_lowercase() { '0' } else { '1' }
        ),
        (None, Some(long)) => long.to_owned(),
        (None, None) => format!("{{{}", arg.get_id()),
    };
    (arg.get_display_order(), key)
}

/// An argument's value as people read it: its value names, else its id in
/// capitals; never empty.
fn value_name(arg: &Arg) -> String {
    let named: Vec<&str> = arg
        .get_value_names()
        .unwrap_or_default()
        .iter()
        .map(|n| n.as_str())
        .filter(|n| !n.is_empty())
        .collect();
    if named.is_empty() {
        arg.get_id().as_str().to_uppercase()
    } else {
        named.join(" ")
    }
}

/// Whether `arg` takes several values (`NAME...`).
fn repeats(arg: &Arg) -> bool {
    matches!(arg.get_action(), ArgAction::Append)
        || arg.get_num_args().is_some_and(|r| r.max_values() > 1)
}

fn option(arg: &Arg) -> Vec<Inline> {
    let mut parts = vec![];
    let required = arg.is_required_set();
    if !required {
        parts.push(roman("["));
    }
    match (arg.get_short(), arg.get_long()) {
        (Some(s), Some(l)) => {
            parts.push(bold(format!("-{s}")));
            parts.push(roman("|"));
            parts.push(bold(format!("--{l}")));
        }
        (Some(s), None) => parts.push(bold(format!("-{s}"))),
        (None, Some(l)) => parts.push(bold(format!("--{l}"))),
        (None, None) => return vec![],
    }
    let range = arg.get_num_args();
    if range.map_or(arg.get_action().takes_values(), |r| r.takes_values()) {
        let optional = range.is_some_and(|r| r.min_values() == 0);
        parts.push(roman(if optional { " [" } else { " " }));
        parts.push(italic(value_name(arg)));
        if repeats(arg) {
            parts.push(roman("..."));
        }
        if optional {
            parts.push(roman("]"));
        }
    } else if matches!(arg.get_action(), ArgAction::Count) {
        parts.push(roman("..."));
    }
    if !required {
        parts.push(roman("]"));
    }
    parts
}

fn positional(arg: &Arg) -> Vec<Inline> {
    let mut parts = vec![];
    if arg.is_last_set() {
        parts.push(bold("--"));
        parts.push(roman(" "));
    }
    let required = arg.is_required_set();
    if !required {
        parts.push(roman("["));
    }
    parts.push(italic(value_name(arg)));
    if repeats(arg) {
        parts.push(roman("..."));
    }
    if !required {
        parts.push(roman("]"));
    }
    parts
}

/// `wta up [-S|--socket PATH] [-L NAME] … [--size PCT]`: every shown
/// option with its value's name, the positionals, the subcommand.
fn synopsis(cmd: &Command) -> Roff {
    let name = cmd.get_bin_name().unwrap_or_else(|| cmd.get_name());
    let mut line = vec![bold(name)];
    let mut options: Vec<&Arg> = cmd
        .get_arguments()
        .filter(|a| !a.is_hide_set() && !a.is_positional())
        .collect();
    options.sort_by_key(|a| option_order(a));
    for arg in options {
        line.push(roman(" "));
        line.extend(option(arg));
    }
    for arg in cmd.get_positionals().filter(|a| !a.is_hide_set()) {
        line.push(roman(" "));
        line.extend(positional(arg));
    }
    if shown_subcommands(cmd).next().is_some() {
        let value = cmd.get_subcommand_value_name().unwrap_or("COMMAND");
        let (open, close) = if cmd.is_subcommand_required_set() {
            ("", "")
        } else {
            ("[", "]")
        };
        line.push(roman(format!(" {open}")));
        line.push(italic(value));
        line.push(roman(close));
    }
    let mut roff = Roff::new();
    roff.control("SH", ["SYNOPSIS"]);
    roff.text(line);
    roff
}

/// The pages a reader of `name` goes on to: its parent and `wta(1)`, and
/// the related ones `sections::related` names (its subcommands are in
/// SUBCOMMANDS already). Every one is a page of this manual.
fn see_also(name: &str, parent: Option<&str>) -> Option<Roff> {
    let mut pages: Vec<String> = Vec::new();
    let mut add = |page: &str| {
        if page != name && !pages.iter().any(|p| p == page) {
            pages.push(page.to_owned());
        }
    };
    if let Some(parent) = parent {
        add("wta");
        add(parent);
    }
    sections::related(name).iter().for_each(|r| add(r));
    if pages.is_empty() {
        return None;
    }
    let mut line = Vec::new();
    for (i, page) in pages.iter().enumerate() {
        if i > 0 {
            line.push(roman(", "));
        }
        line.push(bold(page.as_str()));
        line.push(roman("(1)"));
    }
    let mut roff = Roff::new();
    roff.control("SH", ["SEE ALSO"]);
    roff.text(line);
    Some(roff)
}

/// `text` with every non-ASCII character as a groff escape (`…` → `\[u2026]`).
/// After a wide (CJK) character comes `\:`, a place the line may break:
/// Japanese and Chinese have no spaces, and without it groff cannot fill
/// or break their lines.
fn ascii(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            out.push_str(&format!("\\[u{:04X}]", u32::from(c)));
            if c.width() == Some(2) {
                out.push_str("\\:");
            }
        }
    }
    out
}

/// Writes every page into `dir` (created if missing); the paths written.
fn write_pages(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)
        .with_context(|| wta_i18n::tr!("cli.cannot_create", path = dir.display()))?;
    let mut written = Vec::new();
    for page in pages()? {
        let path = dir.join(page.file_name());
        std::fs::write(&path, page.roff.as_bytes())
            .with_context(|| wta_i18n::tr!("cli.cannot_create", path = path.display()))?;
        written.push(path);
    }
    Ok(written)
}

pub fn run(ctx: &Ctx, args: &ManArgs) -> anyhow::Result<ExitCode> {
    let Some(dir) = &args.dir else {
        let mut out = std::io::stdout().lock();
        out.write_all(roff()?.as_bytes())?;
        out.flush()?;
        return Ok(ExitCode::SUCCESS);
    };
    let written = write_pages(dir)?;
    if ctx.json {
        crate::output::json(&serde_json::json!({
            "dir": dir,
            "pages": written,
        }))?;
    } else {
        for path in &written {
            crate::output::line(&path.display().to_string())?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_ascii_becomes_groff_escapes() {
        assert_eq!(ascii("a…b – ü"), "a\\[u2026]b \\[u2013] \\[u00FC]");
        assert_eq!(ascii("\u{1F680}"), "\\[u1F680]\\:");
        assert_eq!(ascii("表示a"), "\\[u8868]\\:\\[u793A]\\:a");
    }

    #[test]
    fn every_option_in_a_synopsis_names_its_value() {
        let mut cmd = Command::new("x")
            .arg(Arg::new("name").short('L').value_name("NAME"))
            .arg(Arg::new("socket").short('S').long("socket"))
            .arg(Arg::new("json").long("json").action(ArgAction::SetTrue))
            .arg(Arg::new("task").required(true))
            .arg(Arg::new("argv").num_args(1..).last(true).value_name("ARGV"));
        cmd.build();
        let text = synopsis(&cmd).to_roff();
        assert!(text.contains(r"[\fB\-L\fR \fINAME\fR]"), "{text}");
        assert!(
            text.contains(r"[\fB\-S\fR|\fB\-\-socket\fR \fISOCKET\fR]"),
            "no value name: the id in capitals: {text}"
        );
        assert!(text.contains(r"[\fB\-\-json\fR]"), "{text}");
        assert!(text.contains(r" \fITASK\fR"), "{text}");
        assert!(text.contains(r"\fB\-\-\fR [\fIARGV\fR...]"), "{text}");
    }
}
