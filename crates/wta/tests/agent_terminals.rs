//! Agent terminals (ACP `terminal/*`) end to end: the scripted agent asks a
//! real helper (headless, inside a private tmux server, or outside any tmux
//! for the local-child fallback) through a real master, and says every
//! answer back; the tests check the answers, the panes and the processes.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod acp_common;

use std::collections::BTreeMap;
use std::time::Duration;

use acp_common::{Env, Helper};
use serde_json::{Value, json};
use wta_testkit::{TmuxServer, wait_until};

const T: Duration = Duration::from_secs(20);

/// Runs `terminal-ops` with `spec`; returns each op's answer (`Err` text
/// for an error), by op name (a later op of the same name wins).
fn ops(h: &mut Helper, spec: Value) -> BTreeMap<String, Result<Value, String>> {
    let events = h.turn(&format!("terminal-ops {spec}"), T);
    let text = Helper::chunks(&events).join("");
    text.split(";\n")
        .filter(|l| !l.is_empty())
        .map(|line| {
            let (op, rest) = line.split_once(": ").unwrap_or((line, ""));
            let answer = match rest.strip_prefix("error ") {
                Some(message) => Err(message.to_owned()),
                None => Ok(serde_json::from_str(rest).unwrap_or(Value::Null)),
            };
            (op.to_owned(), answer)
        })
        .collect()
}

fn panes(tmux: &TmuxServer) -> Vec<String> {
    tmux.tmux(&["list-panes", "-a", "-F", "#{pane_id}"])
        .lines()
        .map(str::to_owned)
        .collect()
}

/// Processes whose command line contains `marker`.
fn processes_with(marker: &str) -> Vec<i32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| {
            let pid: i32 = e.ok()?.file_name().to_str()?.parse().ok()?;
            let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
            let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
            (cmd.contains(marker) && wta_testkit::procs::running(pid)).then_some(pid)
        })
        .collect()
}

#[test]
fn a_command_runs_in_a_visible_pane_and_reports_output_and_exit() {
    let env = Env::new();
    let _master = env.start_master();
    let tmux = TmuxServer::start();
    let shell = tmux.first_pane().to_owned();
    let mut h = env.helper_in_tmux("custom:test", &tmux, &shell);
    let before = panes(&tmux);
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path().canonicalize().unwrap();
    let answers = ops(
        &mut h,
        json!({"create": {"command": "printf 'out:%s\\n' \"$WTA_T\"; pwd; exit 3",
            "env": [{"name": "WTA_T", "value": "v a l"}], "cwd": cwd, "outputByteLimit": 4096},
            "ops": ["wait", "output", "release", "output"]}),
    );
    let created = answers["create"].as_ref().unwrap();
    assert!(created["terminalId"].is_string(), "{answers:?}");
    assert_eq!(answers["wait"], Ok(json!({"exitCode": 3})), "{answers:?}");
    // The second `output` (after release) is the unknown-id error.
    let after = answers["output"].as_ref().unwrap_err();
    assert!(after.contains("no terminal"), "{after}");
    assert_eq!(answers["release"], Ok(json!({})));
    // Released: the pane it ran in is closed again.
    wait_until("the terminal pane to close", T, || panes(&tmux) == before).unwrap();

    // Output while it runs, from the pane the user sees.
    let answers = ops(
        &mut h,
        json!({"create": {"command": "printf 'out:%s\\n' \"$WTA_T\"; pwd; exit 3",
            "env": [{"name": "WTA_T", "value": "v a l"}], "cwd": cwd},
            "ops": ["wait", "output"]}),
    );
    let output = answers["output"].as_ref().unwrap();
    let text = output["output"].as_str().unwrap();
    assert!(text.contains("out:v a l"), "{output}");
    assert!(
        text.contains(&cwd.to_string_lossy().into_owned()),
        "{output}"
    );
    assert_eq!(output["truncated"], false);
    assert_eq!(output["exitStatus"], json!({"exitCode": 3}));
    // Not released yet: its pane is there, below the shell, the command's
    // text on it.
    let now = panes(&tmux);
    assert_eq!(now.len(), before.len() + 1, "{now:?}");
    let pane = now.iter().find(|p| !before.contains(p)).unwrap();
    // With its history: tmux may have scrolled the first line off.
    let screen = tmux.tmux(&["capture-pane", "-p", "-J", "-S", "-100", "-t", pane]);
    assert!(screen.contains("out:v a l"), "{screen:?}");
    assert_eq!(
        tmux.display(pane, "#{window_id}"),
        tmux.display(&shell, "#{window_id}")
    );
}

#[test]
fn kill_ends_the_command_and_keeps_the_terminal() {
    let env = Env::new();
    let _master = env.start_master();
    let tmux = TmuxServer::start();
    let shell = tmux.first_pane().to_owned();
    let mut h = env.helper_in_tmux("custom:test", &tmux, &shell);
    let answers = ops(
        &mut h,
        json!({"create": {"command": "echo started; exec sleep 301.25"},
            "ops": ["output", "kill", "wait", "output"]}),
    );
    assert_eq!(answers["kill"], Ok(json!({})), "{answers:?}");
    assert_eq!(
        answers["wait"],
        Ok(json!({"signal": "SIGKILL"})),
        "{answers:?}"
    );
    let output = answers["output"].as_ref().unwrap();
    assert_eq!(output["exitStatus"], json!({"signal": "SIGKILL"}));
    assert!(processes_with("sleep 301.25").is_empty());
}

#[test]
fn output_is_cut_to_the_limit_from_the_start() {
    let env = Env::new();
    let _master = env.start_master();
    let mut h = env.helper("custom:test");
    // No tmux here: the fallback child (its output as written).
    let answers = ops(
        &mut h,
        json!({"create": {"command": "sh", "args": ["-c", "printf 'a%.0s' $(seq 1 500); printf 'END'"],
            "outputByteLimit": 100}, "ops": ["wait", "output", "release"]}),
    );
    let output = answers["output"].as_ref().unwrap();
    let text = output["output"].as_str().unwrap();
    assert_eq!(output["truncated"], true, "{output}");
    assert_eq!(text.len(), 100, "{text}");
    assert!(text.ends_with("END"), "{text}");
    assert_eq!(answers["wait"], Ok(json!({"exitCode": 0})));
}

#[test]
fn without_tmux_a_local_child_runs_it_and_dies_with_the_helper() {
    let env = Env::new();
    let _master = env.start_master();
    let mut h = env.helper("custom:test");
    let answers = ops(
        &mut h,
        json!({"create": {"command": "printf", "args": ["%s|", "a b", "$HOME"]},
            "ops": ["wait", "output"]}),
    );
    assert_eq!(
        answers["output"].as_ref().unwrap()["output"],
        "a b|$HOME|",
        "{answers:?}"
    );
    // A command still running when the helper goes is killed with it.
    let answers = ops(
        &mut h,
        json!({"create": {"command": "exec sleep 302.5"}, "ops": ["output"]}),
    );
    assert!(answers["output"].is_ok(), "{answers:?}");
    wait_until("the command to start", T, || {
        !processes_with("sleep 302.5").is_empty()
    })
    .unwrap();
    h.close_stdin();
    h.proc.wait_exit(T);
    wait_until("the command to end with the helper", T, || {
        processes_with("sleep 302.5").is_empty()
    })
    .unwrap();
}

#[test]
fn the_helpers_exit_ends_its_terminals_and_closes_their_panes() {
    let env = Env::new();
    let _master = env.start_master();
    let tmux = TmuxServer::start();
    let shell = tmux.first_pane().to_owned();
    let mut h = env.helper_in_tmux("custom:test", &tmux, &shell);
    let before = panes(&tmux);
    let answers = ops(
        &mut h,
        json!({"create": {"command": "exec sleep 303.75"}, "ops": ["output"]}),
    );
    assert!(answers["output"].is_ok(), "{answers:?}");
    wait_until("the command to start", T, || {
        !processes_with("sleep 303.75").is_empty()
    })
    .unwrap();
    assert_eq!(panes(&tmux).len(), before.len() + 1);
    h.close_stdin();
    h.proc.wait_exit(T);
    wait_until("the command to end", T, || {
        processes_with("sleep 303.75").is_empty()
    })
    .unwrap();
    wait_until("its pane to close", T, || panes(&tmux) == before).unwrap();
}

#[test]
fn an_id_this_pane_did_not_make_is_an_error() {
    let env = Env::new();
    let _master = env.start_master();
    let mut h = env.helper("custom:test");
    let answers = ops(
        &mut h,
        json!({"create": {"command": "true"}, "ops": ["release", "release", "kill", "wait"]}),
    );
    for op in ["kill", "wait"] {
        let err = answers[op].as_ref().unwrap_err();
        assert!(err.contains("no terminal"), "{op}: {err}");
    }
}

/// `terminal/output` keeps the newest output (ACP: truncated from the
/// start), not the first lines the emulator had room for.
#[test]
fn output_keeps_the_newest_of_what_the_pane_showed() {
    let env = Env::new();
    let _master = env.start_master();
    let tmux = TmuxServer::start();
    let shell = tmux.first_pane().to_owned();
    let mut h = env.helper_in_tmux("custom:test", &tmux, &shell);
    let answers = ops(
        &mut h,
        json!({"create": {"command": "seq 1 5000; echo END"}, "ops": ["wait", "output", "release"]}),
    );
    let output = answers["output"].as_ref().unwrap();
    let text = output["output"].as_str().unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines.len(),
        5001,
        "{:?}",
        &lines[lines.len().saturating_sub(3)..]
    );
    assert_eq!((lines[0], lines[4999], lines[5000]), ("1", "5000", "END"));
    assert_eq!(output["truncated"], false, "{}", &text[text.len() - 40..]);

    let answers = ops(
        &mut h,
        json!({"create": {"command": "seq 1 5000; echo END", "outputByteLimit": 1000},
            "ops": ["wait", "output", "release"]}),
    );
    let output = answers["output"].as_ref().unwrap();
    let text = output["output"].as_str().unwrap();
    assert_eq!(output["truncated"], true, "{output}");
    assert!(
        text.len() <= 1000 && text.len() > 900,
        "{} bytes",
        text.len()
    );
    assert!(text.trim_end().ends_with("4999\n5000\nEND"), "{text}");
}

/// Every terminal is a pane the user can see: below the shell while it
/// keeps room, then windows named for the agent; never a hidden child.
#[test]
fn with_no_room_left_terminals_open_as_windows_named_for_the_agent() {
    let env = Env::new();
    let _master = env.start_master();
    let tmux = TmuxServer::start();
    let shell = tmux.first_pane().to_owned();
    let mut h = env.helper_in_tmux("custom:test", &tmux, &shell);
    let before = panes(&tmux);
    let creates = 7;
    for i in 0..creates {
        let answers = ops(
            &mut h,
            json!({"create": {"command": format!("exec sleep 308.{i}")}, "ops": ["output"]}),
        );
        assert!(answers["output"].is_ok(), "{answers:?}");
    }
    // One pane per terminal, each running its command.
    let now = panes(&tmux);
    assert_eq!(now.len(), before.len() + creates, "{now:?}");
    for i in 0..creates {
        wait_until("each command to run", T, || {
            !processes_with(&format!("sleep 308.{i}")).is_empty()
        })
        .unwrap();
    }
    let rows: u16 = tmux.display(&shell, "#{pane_height}").parse().unwrap();
    assert!(rows >= 10, "the shell shrank to {rows} rows");
    let window = tmux.display(&shell, "#{window_id}");
    let names = tmux.tmux(&["list-windows", "-a", "-F", "#{window_id} #{window_name}"]);
    let own: Vec<&str> = names
        .lines()
        .filter(|l| l.starts_with("@") && !l.starts_with(&format!("{window} ")))
        .collect();
    assert!(!own.is_empty(), "{names}");
    assert_eq!(
        own.len() + tmux.tmux(&["list-panes", "-t", &window]).lines().count() - 1,
        creates,
        "{names}"
    );
    for line in &own {
        assert!(line.contains(" custom:test: exec sleep 308."), "{names}");
    }
    // They are the helper's: its exit ends them all.
    h.close_stdin();
    h.proc.wait_exit(T);
    wait_until("every pane to close", T, || panes(&tmux) == before).unwrap();
    assert!(processes_with("sleep 308.").is_empty());
}

/// An agent that exits takes its terminals with it: the running command is
/// killed, and its pane and the dead pane of a finished one close.
#[test]
fn an_agents_exit_ends_its_terminals_and_closes_their_panes() {
    let env = Env::new();
    let _master = env.start_master();
    let tmux = TmuxServer::start();
    let shell = tmux.first_pane().to_owned();
    let mut h = env.helper_in_tmux("custom:test", &tmux, &shell);
    let before = panes(&tmux);
    let answers = ops(
        &mut h,
        json!({"create": {"command": "exec sleep 309.25"}, "ops": ["output"]}),
    );
    assert!(answers["output"].is_ok(), "{answers:?}");
    let answers = ops(
        &mut h,
        json!({"create": {"command": "echo finished"}, "ops": ["wait"]}),
    );
    assert_eq!(answers["wait"], Ok(json!({"exitCode": 0})), "{answers:?}");
    wait_until("the command to run", T, || {
        !processes_with("sleep 309.25").is_empty()
    })
    .unwrap();
    assert_eq!(panes(&tmux).len(), before.len() + 2);
    h.send("prompt exit");
    h.expect(T, |e| e["event"] == "agent_exited");
    wait_until("the command to end with its agent", T, || {
        processes_with("sleep 309.25").is_empty()
    })
    .unwrap();
    wait_until("both panes to close", T, || panes(&tmux) == before).unwrap();
}

/// A session the pane leaves (`/new`) ends its terminals; the helper and
/// its new session go on.
#[test]
fn a_new_session_ends_the_old_sessions_terminals() {
    let env = Env::new();
    let _master = env.start_master();
    let tmux = TmuxServer::start();
    let shell = tmux.first_pane().to_owned();
    let mut h = env.helper_in_tmux("custom:test", &tmux, &shell);
    let before = panes(&tmux);
    let answers = ops(
        &mut h,
        json!({"create": {"command": "exec sleep 310.5"}, "ops": ["output"]}),
    );
    assert!(answers["output"].is_ok(), "{answers:?}");
    wait_until("the command to run", T, || {
        !processes_with("sleep 310.5").is_empty()
    })
    .unwrap();
    let old = h.session.clone();
    h.send("new");
    let ready = h.expect(T, |e| {
        e["event"] == "ready" && e["sessionId"] != old.as_str()
    });
    wait_until("the old session's command to end", T, || {
        processes_with("sleep 310.5").is_empty()
    })
    .unwrap();
    wait_until("its pane to close", T, || panes(&tmux) == before).unwrap();
    // The new session makes terminals as before.
    h.session = ready["sessionId"].as_str().unwrap().to_owned();
    let answers = ops(
        &mut h,
        json!({"create": {"command": "echo again"}, "ops": ["wait", "output", "release"]}),
    );
    let text = answers["output"].as_ref().unwrap()["output"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(text.contains("again"), "{answers:?}");
}
