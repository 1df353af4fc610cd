//! No English left in translated CLI output (issue 27, item 9) and columns
//! aligned by display width (item 10).
//!
//! In the pseudo-locale every translated text is bracketed and its vowels
//! accented (`[Séssíón~~~]`), so a word outside brackets bypassed wta-i18n.
//! `sessions list`, `sessions all` (with a live session, so its values show),
//! `hooks status`, `up` (reused) and the delegate texts (started, not
//! installed, and the not-installed tab's notice) are rendered in it and
//! every bare token is checked by [`bare_english`]. In Japanese, the
//! key/value output of `up` and the `sessions list` table line up by
//! display width (a CJK character takes two columns).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod launch_common;

use std::ffi::OsString;
use std::path::Path;
use std::process::Output;
use std::time::Duration;

use launch_common::Launch;
use serde_json::Value;
use unicode_width::UnicodeWidthStr;

const T: Duration = Duration::from_secs(20);

/// Program names WTA prints as values (never translated): itself, tmux and
/// its `attach` subcommand in the attach line, the shells, the agent CLIs.
const NAMES: [&str; 11] = [
    "wta", "tmux", "attach", "bash", "sh", "claude", "copilot", "codex", "gemini", "opencode",
    "demo",
];

/// The English words of `text` outside every bracketed pseudo-locale text
/// (brackets nest: a translation may hold `[delegate]`).
///
/// Outside brackets, and outside a `command in backquotes` (a command line
/// is never translated), a whitespace-separated token, stripped of the
/// punctuation `()[],;.!?'"` around it, is allowed when it is:
/// - empty or without an ASCII letter (`-` for an empty cell, `·`);
/// - a flag (`-L`, `--json`);
/// - a token with a digit or one of `/ : = % @ $ ~` (ids `%3` `@1` `$0`,
///   numbers, sizes `80x24`, paths, agent ids `custom:test`, session keys
///   `pane:1:…`, session ids, socket names, `=wta`);
/// - one of [`NAMES`].
///
/// Every other token is an English word that bypassed translation.
fn bare_english(text: &str) -> Vec<String> {
    let mut outside = String::new();
    let mut depth = 0usize;
    let mut in_code = false;
    for c in text.chars() {
        match c {
            '`' if depth == 0 => {
                in_code = !in_code;
                outside.push(' ');
            }
            _ if in_code => {}
            '[' => {
                depth += 1;
                outside.push(' ');
            }
            ']' if depth > 0 => {
                depth -= 1;
                outside.push(' ');
            }
            c if depth == 0 => outside.push(c),
            _ => {}
        }
    }
    outside
        .split_whitespace()
        .map(|t| t.trim_matches(|c: char| "()[],;.!?'\"".contains(c)))
        .filter(|t| t.chars().any(|c| c.is_ascii_alphabetic()))
        .filter(|t| !t.starts_with('-'))
        .filter(|t| {
            !t.chars()
                .any(|c| c.is_ascii_digit() || "/:=%@$~".contains(c))
        })
        .filter(|t| !NAMES.contains(t))
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_checker_finds_bare_words_and_lets_ids_paths_and_names_through() {
    assert_eq!(
        bare_english("[ÁGÉNT~~]  [SÉSSIÓN~~~]\ncustom:test  s-1  %1 @2 $0  [óff~]  idle"),
        ["idle"]
    );
    assert_eq!(
        bare_english("wta: [[délégáté] táblé (árgv = [...])~~~] pane for %0, no"),
        ["pane", "for", "no"]
    );
    assert!(
        bare_english("tmux -L wta-test-1 attach -t =wta\n/work/x  80x24  -  claude (`npm i -g x`)")
            .is_empty()
    );
    assert_eq!(bare_english("AGENT  SESSION\n"), ["AGENT", "SESSION"]);
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// `wta --language LANG ARGS` with `PATH`.
fn wta_in(l: &Launch, lang: &str, path: &OsString, args: &[&str]) -> Output {
    l.env
        .command()
        .env("PATH", path)
        .env("SHELL", "/bin/bash")
        .args(["-L", l.tmux.name(), "--language", lang])
        .args(args)
        .output()
        .unwrap()
}

/// A `bin` dir in `dir` with a fake `claude` delegate CLI that waits.
fn fake_claude(dir: &Path) -> std::path::PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let path = bin.join("claude");
    std::fs::write(
        &path,
        "#!/bin/sh\necho 'fake claude started'\nexec sleep 600\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    bin
}

fn path_with(bin: &Path) -> OsString {
    let mut path = bin.as_os_str().to_owned();
    path.push(":/usr/local/bin:/usr/bin:/bin");
    path
}

#[test]
fn sessions_hooks_up_and_delegate_texts_have_no_bare_english_in_the_pseudo_locale() {
    let mut l = Launch::new();
    let (_, shell, _) = l.up_ready("custom:test");
    let dir = tempfile::tempdir().unwrap();
    // No agent CLI but the fake claude; gemini is missing.
    let path = path_with(&fake_claude(dir.path()));
    let mut rendered = Vec::new();
    let mut run = |name: &str, args: &[&str]| {
        let out = wta_in(&l, "pseudo", &path, args);
        assert!(out.status.success(), "{name}: {out:?}");
        rendered.push((name.to_owned(), text(&out)));
    };
    run("sessions list", &["sessions", "list"]);
    run("sessions all", &["sessions", "all"]);
    run("hooks status", &["hooks", "status"]);
    run("up (reused)", &["up", "--detach"]);
    run(
        "delegate (started)",
        &["delegate", "--agent", "claude", "-t", &shell, "x"],
    );
    run(
        "delegate (not installed)",
        &["delegate", "--agent", "gemini", "-t", &shell, "x"],
    );
    // As a pane's shell runs it (inside tmux): the integration's state too.
    let out = l
        .env
        .command()
        .env("PATH", &path)
        .env("TMUX", l.tmux.tmux_env())
        .env("TMUX_PANE", &shell)
        .args(["--language", "pseudo", "active-pane"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    rendered.push(("active-pane".into(), text(&out)));
    // The tab a missing delegate CLI gets.
    let out = wta_in(
        &l,
        "pseudo",
        &path,
        &["--json", "delegate", "--agent", "gemini", "-t", &shell, "x"],
    );
    assert!(out.status.success(), "{out:?}");
    let done: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(done["installed"], false, "{done}");
    let pane = done["pane"].as_str().unwrap();
    let screen = l.tmux.wait_for_text(pane, "wta: ", T);
    rendered.push(("the missing delegate's tab".into(), screen));

    // What they show: the values are there, and bracketed.
    let all = &rendered[1].1;
    assert!(all.contains("custom:test"), "{all}");
    let list = &rendered[0].1;
    assert!(
        list.contains("custom:test") && list.contains(&shell),
        "{list}"
    );
    for (name, text) in &rendered {
        let bare = bare_english(text);
        assert!(
            bare.is_empty(),
            "{name}: English outside the pseudo-locale's brackets: {bare:?}\n{text}"
        );
        assert!(text.contains('['), "{name}: nothing translated?\n{text}");
    }
}

/// The display column where each line's value starts: after the first run
/// of two spaces (keys and table cells hold none).
fn value_columns(line: &str) -> Vec<usize> {
    let mut columns = Vec::new();
    let mut rest = line;
    let mut offset = 0;
    while let Some(gap) = rest.find("  ") {
        let after = rest[gap..].len() - rest[gap..].trim_start_matches(' ').len();
        offset += rest[..gap + after].width();
        columns.push(offset);
        rest = &rest[gap + after..];
    }
    columns
}

#[test]
fn japanese_key_value_lines_and_tables_line_up_by_display_width() {
    let mut l = Launch::new();
    l.up_ready("custom:test");
    let path = std::env::var_os("PATH").unwrap_or_default();
    let up = wta_in(&l, "ja", &path, &["up", "--detach"]);
    assert!(up.status.success(), "{up:?}");
    let stdout = String::from_utf8_lossy(&up.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{stdout}");
    assert!(lines[0].starts_with("セッション"), "{stdout}");
    let starts: Vec<usize> = lines.iter().map(|l| value_columns(l)[0]).collect();
    assert!(
        starts.iter().all(|s| *s == starts[0]),
        "values start at display columns {starts:?}:\n{stdout}"
    );
    // The widest key, two spaces, then the value.
    let widest = lines
        .iter()
        .map(|l| l.split("  ").next().unwrap().width())
        .max()
        .unwrap();
    assert_eq!(starts[0], widest + 2, "{stdout}");

    let list = wta_in(&l, "ja", &path, &["sessions", "list"]);
    assert!(list.status.success(), "{list:?}");
    let table = String::from_utf8_lossy(&list.stdout);
    let rows: Vec<&str> = table.lines().collect();
    assert_eq!(rows.len(), 2, "{table}");
    assert!(rows[0].starts_with("エージェント"), "{table}");
    assert_eq!(
        value_columns(rows[0]),
        value_columns(rows[1]),
        "every column starts at the header's display column:\n{table}"
    );
}
