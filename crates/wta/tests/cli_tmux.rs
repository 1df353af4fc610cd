//! End-to-end tests of the tmux-like CLI against a real private tmux server
//! per test. JSON shapes are pinned by golden files in `tests/golden/`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::time::Duration;

use serde_json::Value;
use support::*;
use wta_testkit::{TmuxServer, wait_until};

const LONG: Duration = Duration::from_secs(10);

fn ids(panes: &Value) -> Vec<String> {
    panes["panes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["pane"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn list_commands_have_stable_json() {
    let server = TmuxServer::start();
    let pane = server.first_pane();
    assert_golden(
        "list-windows",
        &normalize(ok_json(wta_named(&server, &["list-windows", "--json"]))),
    );
    assert_golden(
        "list-tabs",
        &normalize(ok_json(wta_in_pane(&server, pane, &["lst", "--json"]))),
    );
    assert_golden(
        "list-panes",
        &normalize(ok_json(wta_in_pane(&server, pane, &["lsp", "--json"]))),
    );
    assert_golden(
        "active-pane",
        &normalize(ok_json(wta_in_pane(
            &server,
            pane,
            &["active-pane", "--json"],
        ))),
    );
    assert_golden(
        "info",
        &normalize(ok_json(wta_in_pane(&server, pane, &["info", "--json"]))),
    );
}

#[test]
fn list_panes_defaults_to_the_callers_window_not_the_first() {
    let server = TmuxServer::start();
    let second = server.new_window("bash --norc");
    let third = server
        .tmux(&[
            "split-window",
            "-d",
            "-t",
            &second,
            "-P",
            "-F",
            "#{pane_id}",
            "bash --norc",
        ])
        .trim()
        .to_owned();

    let mine = ok_json(wta_in_pane(&server, &third, &["list-panes", "--json"]));
    assert_eq!(ids(&mine), [second.clone(), third.clone()]);

    let first_window = ok_json(wta_in_pane(&server, &third, &["lsp", "-t", "@0", "--json"]));
    assert_eq!(ids(&first_window), [server.first_pane().to_owned()]);

    let all = ok_json(wta_named(&server, &["lsp", "-a", "--json"]));
    assert_eq!(ids(&all).len(), 3);

    let table = ok(wta_in_pane(&server, &third, &["lsp"]));
    assert!(table.starts_with("ID  "), "{table}");
    assert_eq!(table.lines().count(), 3, "{table}");
}

#[test]
fn linked_windows_list_each_pane_once() {
    let server = TmuxServer::start();
    server.tmux(&["new-session", "-d", "-s", "other", "bash --norc"]);
    server.tmux(&["link-window", "-s", "main:0", "-t", "other:5"]);
    let all = ok_json(wta_named(&server, &["lsp", "-a", "--json"]));
    let mut got = ids(&all);
    got.sort();
    got.dedup();
    assert_eq!(got.len(), ids(&all).len(), "duplicate pane ids in {all}");
    assert_eq!(got.len(), 2);
    let tabs = ok_json(wta_named(&server, &["lst", "-w", "other", "--json"]));
    assert_eq!(tabs["tabs"].as_array().unwrap().len(), 2, "{tabs}");
}

#[test]
fn new_tab_runs_its_command_in_its_directory_with_a_title() {
    let server = TmuxServer::start();
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("dir with space ü");
    std::fs::create_dir(&work).unwrap();
    let opened = ok_json(wta_in_pane(
        &server,
        server.first_pane(),
        &[
            "new-tab",
            "-c",
            "printf %s 'x;' > semi.txt; pwd > where.txt;",
            "-d",
            work.to_str().unwrap(),
            "-n",
            "build;",
            "--json",
        ],
    ));
    let pane = opened["pane"].as_str().unwrap().to_owned();
    assert!(pane.starts_with('%'));
    assert_golden("new-tab", &opened);
    let out = work.join("where.txt");
    wait_until("the command to write its cwd", LONG, || {
        std::fs::read_to_string(&out).is_ok_and(|s| s.ends_with('\n'))
    })
    .unwrap();
    assert_eq!(
        std::fs::read_to_string(&out).unwrap().trim_end(),
        work.to_str().unwrap()
    );
    assert_eq!(
        std::fs::read_to_string(work.join("semi.txt")).unwrap(),
        "x;",
        "a trailing ; must reach the shell"
    );
    assert_eq!(server.display(&pane, "#{window_name}"), "build;");
    // The caller's tab stays current.
    assert_eq!(server.display(server.first_pane(), "#{window_active}"), "1");
}

#[test]
fn new_tab_without_command_prints_the_pane_id() {
    let server = TmuxServer::start();
    let text = ok(wta_named(&server, &["neww"]));
    let pane = text.trim();
    assert!(pane.starts_with('%') && !pane.contains(' '), "{text:?}");
    assert!(
        server
            .try_tmux(&["display", "-p", "-t", pane, "#{pane_id}"])
            .is_some()
    );
}

#[test]
fn split_pane_directions_size_and_command_directory() {
    let server = TmuxServer::start();
    let first = server.first_pane();
    let dir = tempfile::tempdir().unwrap();
    let right = ok(wta_in_pane(
        &server,
        first,
        &[
            "split-pane",
            "-H",
            "-p",
            "30",
            "-d",
            dir.path().to_str().unwrap(),
            "-c",
            "pwd > split.txt",
        ],
    ));
    let right = right.trim();
    assert_eq!(
        server.display(right, "#{pane_left}>0 #{pane_top}"),
        format!("{}>0 0", server.display(right, "#{pane_left}"))
    );
    let width: u32 = server.display(right, "#{pane_width}").parse().unwrap();
    assert!(
        (44..=52).contains(&width),
        "30% of 160 columns, got {width}"
    );
    let out = dir.path().join("split.txt");
    wait_until("split command output", LONG, || {
        std::fs::read_to_string(&out).is_ok_and(|s| s.ends_with('\n'))
    })
    .unwrap();
    assert_eq!(
        std::fs::read_to_string(&out).unwrap().trim(),
        dir.path().to_str().unwrap()
    );

    let below_json = ok_json(wta_in_pane(&server, first, &["splitw", "-V", "--json"]));
    assert_golden("split-pane", &below_json);
    let below = below_json["pane"].as_str().unwrap().to_owned();
    let below = below.as_str();
    assert_eq!(server.display(below, "#{pane_left}"), "0");
    assert_ne!(server.display(below, "#{pane_top}"), "0");

    let left = ok(wta_named(&server, &["splitw", "-H", "-b", "-t", below]));
    assert_eq!(server.display(left.trim(), "#{pane_left}"), "0");
    assert_ne!(server.display(below, "#{pane_left}"), "0");
}

#[test]
fn kill_status_and_wait_for_a_pane_that_exits_7() {
    let server = TmuxServer::start();
    let caller = server.first_pane();
    let pane = ok(wta_in_pane(
        &server,
        caller,
        &["new-tab", "-c", "sleep 0.3; exit 7"],
    ))
    .trim()
    .to_owned();

    let waited = ok_json(wta_in_pane(
        &server,
        caller,
        &["wait-for", "-t", &pane, "--json"],
    ));
    assert_eq!(waited["exit_status"], 7, "{waited}");
    assert_eq!(waited["timed_out"], false);
    assert_golden("wait-for", &normalize(waited));

    let status = ok_json(wta_named(&server, &["pane-status", "-t", &pane, "--json"]));
    assert_golden("pane-status-dead", &status);
    assert_eq!(
        ok(wta_named(&server, &["pane-status", "-t", &pane])).trim(),
        format!("{pane} dead, exit status 7")
    );

    let running = ok_json(wta_named(&server, &["pane-status", "-t", caller, "--json"]));
    assert_eq!(running["state"], "running");
    assert_eq!(running["command"], "bash");

    let killed = ok_json(wta_named(&server, &["kill-pane", "-t", &pane, "--json"]));
    assert_golden("kill-pane", &killed);
    let gone = wta_named(&server, &["pane-status", "-t", &pane]);
    assert_eq!(gone.status.code(), Some(1));
    let err = String::from_utf8_lossy(&gone.stderr);
    assert!(
        err.contains(&format!("pane {pane} does not exist")),
        "{err}"
    );
}

#[test]
fn wait_for_times_out_with_124_and_leaves_the_program_running() {
    let server = TmuxServer::start();
    let pane = ok(wta_named(&server, &["neww", "-c", "sleep 600"]))
        .trim()
        .to_owned();
    let out = wta_named(
        &server,
        &["wait-for", "-t", &pane, "--timeout", "0.3", "--json"],
    );
    assert_eq!(out.status.code(), Some(124));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (v["state"].as_str(), v["timed_out"].as_bool()),
        (Some("running"), Some(true))
    );
    assert_eq!(server.display(&pane, "#{pane_dead}"), "0");
    // Refuses to wait for itself.
    let own = wta_in_pane(&server, &pane, &["wait-for"]);
    assert_eq!(own.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&own.stderr).contains("refusing to wait"));
}

#[test]
fn capture_pane_joins_wrapped_lines_and_limits_lines() {
    let server = TmuxServer::start();
    let pane = server.first_pane();
    server.type_line(
        pane,
        "for i in $(seq 1 30); do echo line$i; done; printf 'W%.0s' $(seq 1 300); echo",
    );
    server.wait_for_text(pane, "WWWW", LONG);
    wait_until("prompt after output", LONG, || {
        server.capture(pane).ends_with('#') || server.capture(pane).ends_with('$')
    })
    .unwrap();
    let text = ok(wta_in_pane(&server, pane, &["capture-pane", "-l", "3"]));
    let lines: Vec<&str> = text.trim_end().lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert_eq!(
        lines[1],
        "W".repeat(300),
        "the 300-column line comes back joined"
    );
    assert_eq!(lines[0], "line30");
    let fixed = ok(wta_named(
        &server,
        &["neww", "-c", "printf 'golden text\\n'; sleep 600"],
    ))
    .trim()
    .to_owned();
    server.wait_for_text(&fixed, "golden text", LONG);
    let json = ok_json(wta_named(
        &server,
        &["capturep", "-t", &fixed, "-l", "1", "--json"],
    ));
    assert_golden("capture-pane", &json);
    let json = ok_json(wta_named(&server, &["capturep", "-t", pane, "--json"]));
    assert_eq!(json["pane"], pane);
    assert!(json["text"].as_str().unwrap().contains("line30"));
}

#[test]
fn info_and_active_pane_inside_tmux_name_the_caller() {
    let server = TmuxServer::start();
    let other = server.new_window("bash --norc");
    let info = ok_json(wta_in_pane(&server, &other, &["info", "--json"]));
    assert_eq!(info["pane"], other.as_str());
    assert_eq!(info["tab"], "@1");
    assert_eq!(info["session"], "$0");
    assert_eq!(info["socket"], server.socket().to_str().unwrap());
    let active = ok_json(wta_in_pane(&server, &other, &["active-pane", "--json"]));
    assert_eq!(active["pane"], other.as_str());
    let outside = ok_json(wta_named(&server, &["info", "--json"]));
    assert_eq!(outside["pane"], Value::Null);
}

#[test]
fn active_pane_reports_announced_integration_and_its_own_cwd_not_osc7() {
    let server = TmuxServer::start();
    let pane = server.first_pane();
    let pid = server.display(pane, "#{pane_pid}");
    server.tmux(&[
        "set",
        "-p",
        "-t",
        pane,
        "@wta_integration",
        &format!("bash {pid}"),
    ]);
    server.type_line(pane, r"printf '\033]7;file://host/tmp/osc%%20seven\033\\'");
    wait_until("OSC 7 path", LONG, || {
        server.display(pane, "#{pane_path}").contains("osc")
    })
    .unwrap();
    let active = ok_json(wta_in_pane(&server, pane, &["active-pane", "--json"]));
    assert_eq!(active["integration"]["state"], "present");
    assert_eq!(active["integration"]["shell"], "bash");
    // The cwd is the pane process's own: an OSC 7 printed in the pane
    // (which tmux takes as pane_path) names nothing.
    let own = server.display(pane, "#{pane_current_path}");
    assert_eq!(active["cwd"], own.as_str());
    assert_ne!(active["cwd"], "/tmp/osc seven");
}

#[test]
fn a_cwd_holding_record_separators_does_not_break_the_listing() {
    let server = TmuxServer::start();
    let dir = tempfile::tempdir().unwrap();
    let hostile = dir.path().join("rs\x1e\nnl\x1ftab\t");
    std::fs::create_dir(&hostile).unwrap();
    let pane = server
        .tmux(&[
            "new-window",
            "-d",
            "-c",
            hostile.to_str().unwrap(),
            "-P",
            "-F",
            "#{pane_id}",
            "sleep 60",
        ])
        .trim()
        .to_owned();
    let all = ok_json(wta_named(&server, &["lsp", "-a", "--json"]));
    assert_eq!(ids(&all), [server.first_pane().to_owned(), pane.clone()]);
    assert_eq!(all["panes"][1]["cwd"], hostile.to_str().unwrap());
}

/// `wta new-tab` / `wta split-pane` without `-c` open the user's shell with
/// WTA shell integration behind a readiness gate, and follow it to its first
/// prompt: when the command returns, that prompt's marks have been seen and
/// recorded on the pane (`@wta_integration_state`), with no key pressed.
fn new_panes_start_integrated_behind_the_gate(shell: &str) {
    let home = tempfile::tempdir().unwrap();
    let runtime = tempfile::tempdir().unwrap();
    let env = [("HOME", home.path().as_os_str())];
    let server = TmuxServer::start_with_env("bash --norc --noprofile", &env);
    let first = server.first_pane().to_owned();
    let run = |args: &[&str]| {
        let out = server
            .sandbox()
            .command(wta_bin())
            .env("TMUX", server.tmux_env())
            .env("TMUX_PANE", &first)
            .env("SHELL", shell)
            .env("HOME", home.path())
            .env("XDG_RUNTIME_DIR", runtime.path())
            .args(args)
            .output()
            .unwrap();
        ok_json(out)["pane"].as_str().unwrap().to_owned()
    };
    let tab = run(&["new-tab", "--json"]);
    let split = run(&["split-pane", "-V", "--json"]);
    let name = std::path::Path::new(shell)
        .file_name()
        .unwrap()
        .to_str()
        .unwrap();
    for pane in [&tab, &split] {
        // Checked at once: the command returned only after the first prompt.
        assert_eq!(
            server.display(pane, "#{@wta_integration_state}"),
            "present",
            "{pane}:\n{}",
            server.capture(pane)
        );
        // The gate exec'd the shell: it is the pane's own process.
        let pid = server.display(pane, "#{pane_pid}");
        assert_eq!(
            server.display(pane, "#{@wta_integration}"),
            format!("{name} {pid}")
        );
        assert_eq!(server.display(pane, "#{pane_current_command}"), name);
        // The listing watcher detached again.
        assert_eq!(server.display(pane, "#{pane_pipe}"), "0");
    }
}

#[test]
fn new_tab_and_split_pane_bash_first_prompt_is_seen() {
    new_panes_start_integrated_behind_the_gate("/bin/bash");
}

#[test]
fn new_tab_and_split_pane_zsh_first_prompt_is_seen() {
    new_panes_start_integrated_behind_the_gate("/usr/bin/zsh");
}

#[test]
fn new_tab_and_split_pane_fish_first_prompt_is_seen() {
    new_panes_start_integrated_behind_the_gate("/usr/bin/fish");
}

/// `wta … | head`: a reader that went away ends the command quietly with
/// the status a shell shows for `ls | head` (141), never "Broken pipe".
#[test]
fn a_closed_stdout_ends_quietly_like_ls_into_head() {
    let server = TmuxServer::start();
    let pane = server.first_pane();
    for args in [
        &["list-windows", "--json"][..],
        &["list-windows"],
        &["lsp", "-a", "--json"],
        &["lsp", "-a"],
        &["lst", "-a", "--json"],
        &["info"],
        &["capture-pane", "-t", pane],
        &["pane-status", "-t", pane, "--json"],
    ] {
        // The read end is closed before wta starts: its first write fails.
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = server
            .sandbox()
            .command(wta_bin())
            .arg("-L")
            .arg(server.name())
            .args(args)
            .stdout(writer)
            .stderr(std::process::Stdio::piped())
            .output()
            .unwrap();
        assert_eq!(
            (
                out.status.code(),
                String::from_utf8_lossy(&out.stderr).as_ref()
            ),
            (Some(141), ""),
            "{args:?}"
        );
    }
}

/// A pane killed while `wait-for` waits is not a success: exit 1 and a
/// message naming the pane (the JSON still says `gone`).
#[test]
fn wait_for_a_pane_killed_mid_wait_fails_naming_it() {
    let server = TmuxServer::start();
    let pane = ok(wta_named(&server, &["neww", "-c", "sleep 600"]))
        .trim()
        .to_owned();
    let child = server
        .sandbox()
        .command(wta_bin())
        .args(["-L", server.name(), "wait-for", "-t", &pane, "--json"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Mid-wait: wait-for sleeps between polls only after its first query
    // found the pane running.
    let wchan = format!("/proc/{}/wchan", child.id());
    wait_until("wait-for to be polling", LONG, || {
        std::fs::read_to_string(&wchan).is_ok_and(|w| w.contains("nanosleep"))
    })
    .unwrap();
    server.tmux(&["kill-pane", "-t", &pane]);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["state"], "gone", "{v}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("pane {pane} was closed")) && err.contains("exit status is unknown"),
        "{err}"
    );
}
