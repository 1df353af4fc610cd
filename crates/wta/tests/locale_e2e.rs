//! WTA from a terminal whose locale is not the usual UTF-8 one (issue 26
//! item 1): `LANG=C`, `LANG=POSIX`, no locale variable at all (ssh
//! sessions, containers, cron) and `ja_JP.UTF-8`. `wta up` starts the tmux
//! server itself, as on a machine where none runs, so the server, the
//! shell and the agent pane all live in that locale; then a card round
//! trip (the scripted test agent proposes, the card is confirmed, the
//! command runs in the shell and its result goes back), `new-tab` and
//! `pane open` from outside tmux, and `list-panes --json`.
//!
//! `ja_JP.UTF-8` is not installed on the test machine (`locale -a` lists
//! C, C.utf8 and POSIX only); it is set anyway, as a user's would be: tmux
//! falls back to C.UTF-8 for its own character handling, and wta speaks
//! Japanese (its language comes from `LANG`), so the card is found by its
//! Japanese texts.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod launch_common;

use std::path::PathBuf;
use std::process::Output;
use std::time::Duration;

use launch_common::{Env, stop_master, user_env};
use serde_json::Value;
use wta_testkit::{squeezed, wait_for_value, wait_until};

const T: Duration = Duration::from_secs(30);
const SERVER: &str = "wta-locale";
const LOCALE_VARS: [&str; 5] = ["LANG", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "LANGUAGE"];

/// The server `wta up` starts in a private `TMUX_TMPDIR`, with its master:
/// ended on drop (the server by its socket, the master by its lock's pid).
struct Started {
    env: Env,
    tmpdir: tempfile::TempDir,
    /// `LANG` for every wta command; `None`: no locale variable at all.
    lang: Option<&'static str>,
    /// The directory `wta up` runs in (the shell's start directory).
    cwd: PathBuf,
}

impl Started {
    fn new(lang: Option<&'static str>) -> Self {
        let env = Env::new();
        let cwd = env.path("wörk dir\tü");
        std::fs::create_dir_all(&cwd).unwrap();
        Self {
            env,
            tmpdir: tempfile::tempdir().unwrap(),
            lang,
            cwd,
        }
    }

    /// tmux's own client, from the test's usual environment.
    fn tmux(&self, args: &[&str]) -> String {
        let out = wta_testkit::env::clean("tmux")
            .env("TMUX_TMPDIR", self.tmpdir.path())
            .args(["-L", SERVER])
            .args(args)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn capture(&self, pane: &str) -> String {
        self.tmux(&["capture-pane", "-p", "-J", "-t", pane])
    }

    /// `wta -L SERVER ARGS` from a plain terminal in this locale.
    fn wta(&self, args: &[&str]) -> Output {
        let mut command = self.env.command();
        command
            .envs(user_env(&self.env))
            .env("TMUX_TMPDIR", self.tmpdir.path())
            .current_dir(&self.cwd);
        for var in LOCALE_VARS {
            command.env_remove(var);
        }
        if let Some(lang) = self.lang {
            command.env("LANG", lang);
        }
        command.arg("-L").arg(SERVER).args(args).output().unwrap()
    }

    fn json(&self, args: &[&str]) -> Value {
        let out = self.wta(args);
        assert!(
            out.status.success(),
            "LANG={:?}: wta {args:?} failed: {}",
            self.lang,
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    }

    /// The language wta speaks here (from `LANG`).
    fn language(&self) -> &'static str {
        if self.lang == Some("ja_JP.UTF-8") {
            "ja"
        } else {
            "en"
        }
    }

    fn text(&self, key: &str) -> String {
        wta_i18n::tr_in(self.language(), key)
    }

    /// Waits until `pane`'s status line says Ready, in its language.
    fn wait_ready(&self, pane: &str) {
        let ready = self.text("status.ready");
        wait_until("the agent pane to be ready", T, || {
            self.capture(pane).lines().any(|l| l.contains(&ready))
        })
        .unwrap_or_else(|e| panic!("{e}:\n{}", self.capture(pane)));
    }

    /// Waits until `pane` shows `text`, blanks and borders aside.
    fn wait_squeezed(&self, pane: &str, text: &str) -> String {
        wait_for_value(&format!("{text:?} in {pane}"), T, || {
            let screen = self.capture(pane);
            squeezed(&screen)
                .contains(&squeezed(text))
                .then_some(screen)
        })
        .unwrap_or_else(|e| panic!("{e}:\n{}", self.capture(pane)))
    }

    /// Waits until the proposal card with the Run button is up and takes
    /// keys: its bottom border shows its keys rather than "read the card
    /// first" (`pane_tui_common/card.rs` reads the English texts; these
    /// are the pane's language's), in two captures in a row.
    fn wait_armed_run_card(&self, pane: &str) {
        let button = format!("[ {} ]", self.text("chat.proposal.run"));
        let hint = self.text("card.read_first");
        let mut last: Option<String> = None;
        wait_for_value("the Run card, armed", T, || {
            let screen = self.capture(pane);
            let card = armed_card(&screen, &button, &hint);
            let steady = card.is_some() && card == last;
            last = card;
            steady.then_some(())
        })
        .unwrap_or_else(|e| panic!("{e}:\n{}", self.capture(pane)));
    }

    fn type_line(&self, pane: &str, text: &str) {
        self.tmux(&["send-keys", "-t", pane, "-l", "--", text]);
        self.tmux(&["send-keys", "-t", pane, "Enter"]);
    }
}

impl Drop for Started {
    fn drop(&mut self) {
        let locks = std::fs::read_dir(self.env.path("runtime/wta"))
            .into_iter()
            .flatten()
            .flatten();
        for lock in locks
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "lock"))
        {
            stop_master(&lock);
        }
        self.tmux(&["kill-server"]);
    }
}

/// The text of the bordered box on `screen` whose last row holds `button`,
/// when its bottom border shows text (its keys) other than `hint`.
fn armed_card(screen: &str, button: &str, hint: &str) -> Option<String> {
    let rows: Vec<&str> = screen.lines().map(str::trim_end).collect();
    let mut top = None;
    for (i, row) in rows.iter().enumerate() {
        if row.starts_with('╭') && row.ends_with('╮') {
            top = Some(i);
        } else if row.starts_with('╰') && row.ends_with('╯') {
            let start = top.take()?;
            let body = &rows[start + 1..i];
            let is_run = body.last().is_some_and(|r| r.contains(button));
            let keys = row.chars().any(|c| !"╰╯─ ".contains(c));
            let armed = keys && !row.contains(hint);
            if is_run && armed {
                return Some(rows[start..=i].join("\n"));
            }
        } else if !(row.starts_with('│') && row.ends_with('│')) {
            top = None;
        }
    }
    None
}

fn ids(panes: &Value) -> Vec<&str> {
    panes["panes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["pane"].as_str().unwrap())
        .collect()
}

fn everything_works_in(lang: Option<&'static str>) {
    let s = Started::new(lang);
    // No server runs: `up` starts it, in this locale.
    assert!(s.tmux(&["list-sessions"]).is_empty(), "no server yet");
    let up = s.json(&["up", "--detach", "--json", "--agent", "custom:test"]);
    assert_eq!(up["created"], true, "{up}");
    let shell = up["shell_pane"].as_str().unwrap().to_owned();
    let agent = up["agent_pane"].as_str().unwrap().to_owned();
    let lang_in_pane = s.tmux(&["show-environment", "-g", "LANG"]);
    match lang {
        Some(l) => assert_eq!(lang_in_pane.trim(), format!("LANG={l}")),
        None => assert!(!lang_in_pane.contains("LANG="), "{lang_in_pane}"),
    }

    // A card round trip: proposed, confirmed, run in the shell, reported.
    s.wait_ready(&agent);
    s.type_line(&agent, "propose-run echo wta-locale-$((40+2))");
    s.wait_armed_run_card(&agent);
    s.tmux(&["send-keys", "-t", &agent, "Enter"]);
    s.wait_squeezed(&shell, "\nwta-locale-42");
    s.wait_squeezed(&agent, "action 1: the command succeeded");

    // From outside tmux: a tab in the only session, an agent pane beside it.
    let tab = s.json(&["--json", "new-tab"]);
    let tab_pane = tab["pane"].as_str().unwrap().to_owned();
    assert_eq!(
        tab["session"],
        s.tmux(&["display", "-p", "-t", &shell, "#{session_id}"])
            .trim()
    );
    let opened = s.json(&[
        "pane",
        "open",
        "-t",
        &tab_pane,
        "--agent",
        "custom:test",
        "--json",
    ]);
    assert_eq!(opened["action"], "opened", "{opened}");
    let tab_agent = opened["pane"].as_str().unwrap().to_owned();
    s.wait_ready(&tab_agent);

    let panes = s.json(&["list-panes", "-a", "--json"]);
    let listed = ids(&panes);
    for pane in [&shell, &agent, &tab_pane, &tab_agent] {
        assert!(listed.contains(&pane.as_str()), "{pane} in {listed:?}");
    }
    for p in panes["panes"].as_array().unwrap() {
        assert_eq!(p["session_name"], "wta", "{p}");
    }
    let shell_info = panes["panes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["pane"] == shell.as_str())
        .unwrap();
    assert_eq!(shell_info["cwd"], s.cwd.to_str().unwrap(), "{shell_info}");
}

#[test]
fn everything_works_with_lang_c() {
    everything_works_in(Some("C"));
}

#[test]
fn everything_works_with_lang_posix() {
    everything_works_in(Some("POSIX"));
}

#[test]
fn everything_works_with_no_locale_variable() {
    everything_works_in(None);
}

#[test]
fn everything_works_with_lang_ja_jp_utf8() {
    everything_works_in(Some("ja_JP.UTF-8"));
}
