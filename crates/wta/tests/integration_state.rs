//! Integration detection end to end (issue 3 item 5): a watcher that sees a
//! pane's first prompt without marks records `absent` on the pane, one that
//! sees marks records `present`, and `wta active-pane`/`list-panes` report it.
//! Real tmux (private server), real bash, the real `wta` binary as pipe sink.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::time::Duration;

use serde_json::Value;
use support::*;
use wta_shell::{Host, PaneWatcher, TrackerConfig, WatchOptions, gated_command};
use wta_testkit::{TmuxServer, wait_for_value};

const T: Duration = Duration::from_secs(15);

struct Watched {
    server: TmuxServer,
    pane: String,
    rt: tokio::runtime::Runtime,
    watcher: Option<PaneWatcher>,
    _dir: tempfile::TempDir,
}

/// A gated bash pane (`rc` is its rcfile, `None` = `--norc`) with a watcher attached
/// before its gate is released.
fn watched_bash(rc: Option<&str>) -> Watched {
    let server = TmuxServer::start();
    let dir = tempfile::tempdir().unwrap();
    let rcfile = dir.path().join("bashrc");
    let mut argv = vec!["bash", "--noprofile"];
    let rc_path = rcfile.to_string_lossy().into_owned();
    match rc {
        Some(text) => {
            std::fs::write(&rcfile, text).unwrap();
            argv.extend(["--rcfile", &rc_path]);
        }
        None => argv.push("--norc"),
    }
    argv.push("-i");
    let gate = "wta-state-gate";
    let pane = server
        .tmux(&[
            "new-window",
            "-P",
            "-F",
            "#{pane_id}",
            &gated_command(gate, &argv),
        ])
        .trim()
        .to_owned();
    let rt = runtime();
    let (tmux, opts) = watch_setup(&server, dir.path());
    let watcher = rt.block_on(async {
        let id = wta_protocol::PaneId::parse(&pane).unwrap();
        let w = PaneWatcher::attach(tmux, &id, opts).await.unwrap();
        w.release_gate(gate).await.unwrap();
        w
    });
    Watched {
        server,
        pane,
        rt,
        watcher: Some(watcher),
        _dir: dir,
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// Where `server` is, and how to watch one of its panes with the real
/// `wta pipe-sink` and a runtime dir under `dir`.
fn watch_setup(server: &TmuxServer, dir: &std::path::Path) -> (Host, WatchOptions) {
    let tmux: Host = std::sync::Arc::new(wta_host::TmuxHost::new(
        wta_host::ServerLocation::Socket(server.socket().to_path_buf()),
        None,
    ));
    let opts = WatchOptions {
        sink_argv: vec![wta_bin().to_owned(), "pipe-sink".into()],
        runtime_dir: dir.join("run"),
        config: TrackerConfig::default(),
    };
    (tmux, opts)
}

impl Drop for Watched {
    fn drop(&mut self) {
        if let Some(w) = self.watcher.take() {
            self.rt.block_on(w.stop());
        }
    }
}

fn active_integration(w: &Watched) -> Value {
    ok_json(wta_in_pane(&w.server, &w.pane, &["active-pane", "--json"]))["integration"].clone()
}

fn listed_state(w: &Watched) -> Value {
    let panes = ok_json(wta_named(&w.server, &["list-panes", "--json"]));
    panes["panes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["pane"] == w.pane.as_str())
        .map(|p| p["integration"]["state"].clone())
        .unwrap()
}

#[test]
fn a_pane_without_integration_is_reported_absent() {
    let w = watched_bash(None);
    // The first prompt appears with no A/B mark: after the quiet period the
    // watcher decides Absent and records it on the pane.
    let integration = wait_for_value("absent reported", T, || {
        let i = active_integration(&w);
        (i["state"] != "unknown").then_some(i)
    })
    .unwrap();
    assert_eq!(integration["state"], "absent", "{integration}");
    assert_eq!(integration["shell"], Value::Null);
    assert_eq!(listed_state(&w), "absent");
    assert_eq!(
        w.server.display(&w.pane, "#{@wta_integration_state}"),
        "absent"
    );
}

#[test]
fn a_gated_integrated_shell_is_present_from_its_marks_and_its_announcement() {
    let script = wta_testkit::Sandbox::new()
        .command(wta_bin())
        .args(["shell-integration", "bash"])
        .output()
        .unwrap()
        .stdout;
    let rc = format!("PS1='$ '\n{}", String::from_utf8(script).unwrap());
    let w = watched_bash(Some(&rc));
    wait_for_value("present recorded by the watcher", T, || {
        (w.server.display(&w.pane, "#{@wta_integration_state}") == "present").then_some(())
    })
    .unwrap();
    let integration = active_integration(&w);
    assert_eq!(integration["state"], "present", "{integration}");
    // The shell runs as the gated wrapper's child and its announcement counts.
    assert_eq!(integration["shell"], "bash");
    let pane_pid: u32 = w.server.display(&w.pane, "#{pane_pid}").parse().unwrap();
    let shell_pid = integration["pid"].as_u64().unwrap() as u32;
    assert_eq!(wta_host::parent_pid(shell_pid), Some(pane_pid));
    // Without the watcher's verdict the announcement alone still says present.
    w.server.tmux(&[
        "set",
        "-p",
        "-u",
        "-t",
        w.pane.as_str(),
        "@wta_integration_state",
    ]);
    assert_eq!(active_integration(&w)["state"], "present");
    assert_eq!(listed_state(&w), "present");
}

/// Issue 3 item 5 through the card executor: a plain bash opened outside WTA
/// (its prompt drawn before anyone watched, no marks ever) gets a confirmed
/// command typed without a verified prompt; no `C` follows while the screen
/// changes, so the pane is reported absent instead of unknown forever.
#[test]
fn a_command_sent_to_a_plain_pre_existing_pane_makes_it_absent() {
    use std::sync::Arc;
    use wta_helper::executor::{ActionOutcome, Executor, ExecutorConfig, Launch};
    use wta_helper::proposals::ConfirmMode;
    use wta_host::{ServerLocation, TmuxHost};
    use wta_protocol::{Action, Choice, PaneId};

    let server = TmuxServer::start();
    let dir = tempfile::tempdir().unwrap();
    let pane = server.new_window("env PS1='plain$ ' bash --norc --noprofile");
    server.wait_for_text(&pane, "plain$", T);
    let before = ok_json(wta_in_pane(&server, &pane, &["active-pane", "--json"]));
    assert_eq!(before["integration"]["state"], "unknown");

    let rt = runtime();
    let (_, watch) = watch_setup(&server, dir.path());
    let config = ExecutorConfig::new(watch, Launch::default());
    let target = PaneId::parse(&pane).unwrap();
    let host = TmuxHost::new(
        ServerLocation::Socket(server.socket().to_path_buf()),
        Some(target.clone()),
    );
    let exec = Executor::new(Arc::new(host), config);
    let choice = Choice {
        choice: 1,
        title: "t".into(),
        rationale: String::new(),
        actions: vec![Action::Send {
            input: "echo plain-$((6*7))".into(),
        }],
    };
    let results = rt.block_on(exec.execute(&target, &choice, ConfirmMode::Run, |_| {}));
    assert_eq!(
        results[0].outcome,
        ActionOutcome::CompletionUnavailable { pane: pane.clone() }
    );
    server.wait_for_text(&pane, "plain-42", T);
    let integration = wait_for_value("absent reported", T, || {
        let out = wta_in_pane(&server, &pane, &["active-pane", "--json"]);
        let i = ok_json(out)["integration"].clone();
        (i["state"] != "unknown").then_some(i)
    })
    .unwrap();
    assert_eq!(integration["state"], "absent", "{integration}");
    drop(exec);
}
