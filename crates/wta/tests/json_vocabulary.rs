//! One JSON vocabulary over every `--json` command (README, "JSON output"):
//! each runs against a private tmux server (and, for the agent commands, a
//! real master with the scripted test agent), and every document it prints
//! (each line of a stream) is held to the same rules:
//!
//! - the top-level value is an object whose first key is `schema_version: 2`;
//! - no old key appears anywhere (`window`, `windows`, `agent_id`,
//!   `owner_tab`, `target_pane`, …), and `status` only as a check's verdict
//!   (the `checks` of `doctor`, the `sources` of `resolve-command`);
//! - `session`, `tab`, `pane` (and `…_tab`, `…_pane`) hold `$N`, `@N`, `%N`
//!   ids (or null), and every such id sits under one of those keys.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod launch_common;
mod support;

use std::ffi::OsString;
use std::process::Output;
use std::time::Duration;

use launch_common::Launch;
use serde_json::Value;
use support::*;
use wta_testkit::{TmuxServer, wait_for_value};

const T: Duration = Duration::from_secs(20);

/// Keys of the old vocabulary: a tab was `window`, its count `windows`.
const FORBIDDEN: &[&str] = &[
    "window",
    "windows",
    "window_id",
    "window_name",
    "window_index",
    "window_active",
    "agent_id",
    "owner_tab",
    "target_pane",
];

/// The lists whose objects are checks, where `status` is a verdict.
const CHECK_LISTS: &[&str] = &["checks", "sources"];

/// The id sigil a key holds: `$` sessions, `@` tabs, `%` panes.
fn sigil_of(key: &str) -> Option<char> {
    match key {
        "session" => Some('$'),
        "tab" => Some('@'),
        "pane" => Some('%'),
        k if k.ends_with("_tab") => Some('@'),
        k if k.ends_with("_pane") => Some('%'),
        _ => None,
    }
}

/// `$N`, `@N`, `%N`: the sigil of a tmux id, else `None`.
fn id_sigil(text: &str) -> Option<char> {
    let mut chars = text.chars();
    let sigil = chars.next().filter(|c| matches!(c, '$' | '@' | '%'))?;
    let digits = chars.as_str();
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())).then_some(sigil)
}

/// Every rule broken in `value` (at `path`, under `key`, in the list `list`).
fn walk(path: &str, key: &str, list: &str, value: &Value, bad: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                let at = format!("{path}.{k}");
                if FORBIDDEN.contains(&k.as_str()) {
                    bad.push(format!("{at}: old key `{k}`"));
                }
                if k == "status" && !CHECK_LISTS.contains(&list) {
                    bad.push(format!("{at}: `status` where `state` is meant"));
                }
                walk(&at, k, list, v, bad);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                walk(&format!("{path}[{i}]"), key, key, v, bad);
            }
        }
        Value::String(text) => match (sigil_of(key), id_sigil(text)) {
            (Some(want), Some(have)) if want == have => {}
            (Some(want), _) => bad.push(format!("{path}: {text:?} is not a {want}N id")),
            (None, Some(have)) => bad.push(format!(
                "{path}: the id {text:?} is under `{key}`, not `{}`",
                match have {
                    '$' => "session",
                    '@' => "tab",
                    _ => "pane",
                }
            )),
            (None, None) => {}
        },
        Value::Null => {}
        _ if sigil_of(key).is_some() => bad.push(format!("{path}: {value} is not an id")),
        _ => {}
    }
}

/// Holds one JSON document (`text`, printed by `what`) to the rules.
fn check_document(what: &str, text: &str) -> Value {
    let value: Value =
        serde_json::from_str(text).unwrap_or_else(|e| panic!("{what}: not JSON ({e}): {text}"));
    assert!(
        value.is_object(),
        "{what}: the top level is not an object: {text}"
    );
    let first = text.trim_start().trim_start_matches('{').trim_start();
    assert!(
        first.starts_with(r#""schema_version": 2,"#) || first.starts_with(r#""schema_version":2,"#),
        "{what}: `schema_version: 2` is not the first key: {text}"
    );
    let mut bad = Vec::new();
    walk("", "", "", &value, &mut bad);
    assert!(bad.is_empty(), "{what}:\n  {}\n{text}", bad.join("\n  "));
    value
}

/// The JSON `out` printed (whatever its exit status), held to the rules.
fn check(what: &str, out: &Output) -> Value {
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        !text.trim().is_empty(),
        "{what}: no JSON ({:?}): {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    check_document(what, &text)
}

/// [`check`], and the command succeeded.
fn check_ok(what: &str, out: &Output) -> Value {
    assert!(
        out.status.success(),
        "{what} failed ({:?}): {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    check(what, out)
}

#[test]
fn the_rules_catch_the_old_shapes() {
    let mut bad = Vec::new();
    let old = serde_json::json!({"id": "%0", "window": "@0", "session": "main",
        "sessions": [{"agent_id": "x", "status": "idle", "owner_tab": "@1"}]});
    walk("", "", "", &old, &mut bad);
    assert_eq!(bad.len(), 7, "{bad:#?}");
    let doctor = serde_json::json!({"checks": [{"id": "tmux", "status": "ok"}]});
    let mut none = Vec::new();
    walk("", "", "", &doctor, &mut none);
    assert!(none.is_empty(), "{none:?}");
    assert!(
        std::panic::catch_unwind(|| check_document("a list", "[]")).is_err(),
        "a list has no version"
    );
    assert!(
        std::panic::catch_unwind(|| check_document(
            "late",
            r#"{"pane": "%1", "schema_version": 2}"#
        ))
        .is_err(),
        "the version comes first"
    );
}

#[test]
fn every_tmux_command_speaks_the_vocabulary() {
    let server = TmuxServer::start();
    let first = server.first_pane().to_owned();
    let inside = |args: &[&str]| wta_in_pane(&server, &first, args);
    let named = |args: &[&str]| wta_named(&server, args);

    let sessions = check_ok("list-windows", &inside(&["list-windows", "--json"]));
    assert_eq!(sessions["sessions"][0]["tabs"], 1, "{sessions}");
    check_ok("list-tabs", &inside(&["list-tabs", "--json"]));
    check_ok("list-tabs -a", &named(&["list-tabs", "-a", "--json"]));
    check_ok("list-panes", &inside(&["list-panes", "--json"]));
    let all = check_ok("list-panes -a", &named(&["list-panes", "-a", "--json"]));
    assert_eq!(all["panes"][0]["pane"], first.as_str(), "{all}");
    let active = check_ok("active-pane", &inside(&["active-pane", "--json"]));
    assert_eq!(active["pane"], first.as_str(), "{active}");
    check_ok("info", &inside(&["info", "--json"]));
    check_ok("info outside tmux", &named(&["info", "--json"]));

    let tab = check_ok(
        "new-tab",
        &named(&["new-tab", "-c", "sleep 0.2; exit 7", "--json"]),
    );
    let dead = tab["pane"].as_str().unwrap().to_owned();
    check_ok("wait-for", &named(&["wait-for", "-t", &dead, "--json"]));
    check_ok(
        "pane-status",
        &named(&["pane-status", "-t", &dead, "--json"]),
    );
    check_ok("kill-pane", &named(&["kill-pane", "-t", &dead, "--json"]));
    let split = check_ok(
        "split-pane",
        &named(&["split-pane", "-t", &first, "-c", "sleep 60", "--json"]),
    );
    let split = split["pane"].as_str().unwrap().to_owned();
    check_ok(
        "capture-pane",
        &named(&["capture-pane", "-t", &split, "--json"]),
    );
    check_ok(
        "pane close",
        &named(&["pane", "close", "-t", &first, "--json"]),
    );

    // A pane whose shell a watcher saw run a command without marks: `listen`
    // ends at once, with one line.
    server.tmux(&[
        "set-option",
        "-p",
        "-t",
        &split,
        "@wta_integration_state",
        "absent",
    ]);
    let out = named(&["listen", "-t", &split, "--json"]);
    assert!(!out.status.success(), "{out:?}");
    let lines = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(!lines.trim().is_empty(), "{out:?}");
    for line in lines.lines() {
        check_document("listen", line);
    }

    // No tmux needed; a user whose PATH has no agent CLI at all.
    let user = User::new(&[]);
    let run = |args: &[&str]| user.command().args(args).output().unwrap();
    check(
        "resolve-command",
        &run(&["resolve-command", "ls", "--json"]),
    );
    check_ok("tmux-config", &run(&["tmux-config", "--json"]));
    let pages = user.path("man1");
    check_ok(
        "man --dir",
        &run(&["man", "--dir", pages.to_str().unwrap(), "--json"]),
    );
    check_ok("hooks status", &run(&["hooks", "status", "--json"]));
    check_ok("hooks install", &run(&["hooks", "install", "--json"]));
    check_ok("hooks uninstall", &run(&["hooks", "uninstall", "--json"]));
    let doctor = check(
        "doctor",
        &run(&["doctor", "--json", "--version-timeout", "1"]),
    );
    assert!(doctor["checks"][0]["status"].is_string(), "{doctor}");
}

#[test]
fn every_agent_command_speaks_the_vocabulary() {
    let mut l = Launch::new();
    let up_args = ["up", "--detach", "--json", "--agent", "custom:test"];
    let out = l
        .env
        .command()
        .env("SHELL", "/bin/bash")
        .arg("-L")
        .arg(l.tmux.name())
        .args(up_args)
        .output()
        .unwrap();
    let up = check_ok("up", &out);
    l.master_lock = Some(
        std::path::PathBuf::from(up["master_socket"].as_str().unwrap()).with_extension("lock"),
    );
    let shell = up["shell_pane"].as_str().unwrap().to_owned();
    let agent = up["agent_pane"].as_str().unwrap().to_owned();
    assert_eq!(up["session_name"], "wta", "{up}");
    assert_eq!(
        up["session"],
        l.tmux.display(&shell, "#{session_id}"),
        "{up}"
    );
    assert_eq!(up["tab"], l.tmux.display(&shell, "#{window_id}"), "{up}");
    l.tmux.wait_for_text(&agent, "Ready", T);
    let json = |what: &str, args: &[&str]| {
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        check_ok(what, &l.wta(&all))
    };

    let live = wait_for_value("the live session", T, || {
        let v = json("sessions list", &["sessions", "list"]);
        (!v["sessions"][0]["yolo"].is_null()).then_some(v)
    })
    .unwrap();
    assert_eq!(live["sessions"][0]["pane"], shell.as_str(), "{live}");
    let rows = json("sessions all", &["sessions", "all"]);
    let row = rows["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["source"] == "agent_pane")
        .unwrap_or_else(|| panic!("{rows}"))
        .clone();
    assert_eq!(row["state"], "idle", "{row}");
    let key = row["key"].as_str().unwrap().to_owned();
    json("sessions focus", &["sessions", "focus", &key]);

    json("pane toggle (hide)", &["pane", "toggle", "-t", &shell]);
    json("pane toggle (show)", &["pane", "toggle", "-t", &shell]);
    json("pane open (focus)", &["pane", "open", "-t", &shell]);
    let prewarmed = json("pane prewarm", &["pane", "prewarm", "-t", &shell]);
    assert_eq!(prewarmed["tabs"][0]["action"], "present", "{prewarmed}");

    // A failure in the shell: its record, and a fix turn for it.
    l.tmux.type_line(&shell, "false");
    let out = wait_for_value("the failure to be recorded", T, || {
        let out = l.wta(&["--json", "capture-pane", "--last-command", "-t", &shell]);
        out.status.success().then_some(out)
    })
    .unwrap();
    check_ok("capture-pane --last-command", &out);
    let out = wait_for_value("the agent pane to take the fix", T, || {
        let out = l.wta(&["--json", "fix", "-t", &shell]);
        out.status.success().then_some(out)
    })
    .unwrap();
    check_ok("fix", &out);

    // A delegate CLI that is not installed: a tab that says how to install it.
    let bare: OsString = l.env.path("bin").into_os_string();
    std::fs::create_dir_all(&bare).unwrap();
    let out = l
        .env
        .command()
        .env("PATH", &bare)
        .args([
            "-L",
            l.tmux.name(),
            "--json",
            "delegate",
            "--agent",
            "claude",
        ])
        .args(["-t", &shell, "explain"])
        .output()
        .unwrap();
    let delegated = check_ok("delegate", &out);
    assert_eq!(delegated["installed"], false, "{delegated}");

    json("sessions close", &["sessions", "close", &key]);
}
