//! `wta shell-integration`, `wta listen` and `wta capture-pane --last-command`
//! end to end: the real binary on a private tmux server with real bash.

mod support;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use support::integrated_bash_window;
use wta_testkit::{Sandbox, TmuxServer, wait_for_value};

const T: Duration = Duration::from_secs(15);

/// `wta` in `sandbox`'s scrubbed environment (a server's, for a run that
/// follows its panes: the same HOME and runtime dir as its panes).
fn wta(sandbox: &Sandbox) -> Command {
    sandbox.command(env!("CARGO_BIN_EXE_wta"))
}

#[test]
fn shell_integration_prints_scripts_and_help_gives_rc_lines() {
    let sandbox = Sandbox::new();
    let out = wta(&sandbox)
        .args(["shell-integration", "zsh"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("@wta_integration") && text.contains("add-zsh-hook"));
    let help = wta(&sandbox)
        .args(["shell-integration", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8(help.stdout).unwrap();
    assert!(
        help.contains(r#"eval "$(wta shell-integration bash)""#),
        "{help}"
    );
    assert!(
        help.contains("wta shell-integration fish | source"),
        "{help}"
    );
    let bad = wta(&sandbox)
        .args(["shell-integration", "tcsh"])
        .output()
        .unwrap();
    assert!(!bad.status.success());
}

#[test]
fn listen_reports_commands_and_records_the_last_one() {
    let server = TmuxServer::start();
    let dir = tempfile::tempdir().unwrap();
    let gate = "wta-listen-gate";
    let pane = integrated_bash_window(&server, dir.path(), gate);
    let socket = server.socket().to_string_lossy().into_owned();

    let none = wta(server.sandbox())
        .args(["-S", &socket, "capture-pane", "--last-command", "-t", &pane])
        .output()
        .unwrap();
    assert!(!none.status.success());
    assert!(
        String::from_utf8_lossy(&none.stderr).contains("no tracked command"),
        "{none:?}"
    );

    let mut child = wta(server.sandbox())
        .args(["-S", &socket, "listen", "-t", &pane, "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel::<serde_json::Value>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Ok(v) = serde_json::from_str(&line) {
                let _ = tx.send(v);
            }
        }
    });
    wta_testkit::wait_until("listen attached", T, || {
        server.display(&pane, "#{pane_pipe}") == "1"
    })
    .unwrap();
    server.tmux(&["wait-for", "-S", gate]);
    server.wait_for_text(&pane, "$", T);
    server.type_line(&pane, "ls /nope");

    let mut seen = Vec::new();
    let finished = wait_for_value("finished event", T, || {
        while let Ok(v) = rx.try_recv() {
            seen.push(v);
        }
        seen.iter().find(|v| v["event"] == "finished").cloned()
    })
    .unwrap();
    assert!(
        seen.iter()
            .any(|v| v["event"] == "started" && v["cmdline"] == "ls /nope"),
        "{seen:?}"
    );
    assert_eq!(finished["exit_code"], 2);
    assert_eq!(
        finished["output"],
        "ls: cannot access '/nope': No such file or directory"
    );

    let rec = wait_for_value("recorded", T, || {
        let out = wta(server.sandbox())
            .args([
                "-S",
                &socket,
                "--json",
                "capture-pane",
                "--last-command",
                "-t",
                &pane,
            ])
            .output()
            .ok()?;
        out.status
            .success()
            .then(|| serde_json::from_slice::<serde_json::Value>(&out.stdout).ok())
            .flatten()
    })
    .unwrap();
    assert_eq!(rec["exit_code"], 2);
    assert_eq!(rec["cmdline"], "ls /nope");
    let mut shape = rec.clone();
    shape["duration_ms"] = 0.into();
    shape["pane"] = "%N".into();
    support::assert_golden("capture-pane-last-command", &shape);
    // The text form shows what its help promises: command line, exit code, output.
    let text = wta(server.sandbox())
        .args(["-S", &socket, "capture-pane", "--last-command", "-t", &pane])
        .output()
        .unwrap();
    assert!(text.status.success(), "{text:?}");
    let text = String::from_utf8(text.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(
        lines[0].starts_with("■ ls /nope → exit 2 in ") && lines[0].ends_with(" ms"),
        "{text}"
    );
    assert_eq!(
        lines[1],
        "ls: cannot access '/nope': No such file or directory"
    );

    // Pane death ends listen, with 1 (the pane is no more).
    server.type_line(&pane, "exit 3");
    let ended = wait_for_value("ended event", T, || {
        while let Ok(v) = rx.try_recv() {
            seen.push(v);
        }
        seen.iter().find(|v| v["event"] == "ended").cloned()
    })
    .unwrap();
    assert!(
        ended["reason"]
            .as_str()
            .unwrap()
            .contains("died (status 3)"),
        "{ended}"
    );
    let status = wait_for_value("listen exits", T, || child.try_wait().ok().flatten()).unwrap();
    assert_eq!(status.code(), Some(1), "{status:?}");
}

#[test]
fn listen_refuses_a_runtime_dir_that_is_not_private() {
    let server = TmuxServer::start();
    let xdg = tempfile::tempdir().unwrap();
    let shared = xdg.path().join("wta");
    std::fs::create_dir(&shared).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o777)).unwrap();
    let socket = server.socket().to_string_lossy().into_owned();
    let out = wta(server.sandbox())
        .env("XDG_RUNTIME_DIR", xdg.path())
        .args(["-S", &socket, "listen", "-t", server.first_pane()])
        .output()
        .unwrap();
    // It cannot follow the pane: 3, not the 1 of a pane that died.
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("refusing to use") && err.contains("mode is 777"),
        "{err}"
    );
    // Nothing was attached to the pane and the directory was left as it was.
    assert_eq!(server.display(server.first_pane(), "#{pane_pipe}"), "0");
    let mode = std::fs::metadata(&shared).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o777);
}

/// A pipe another tool opened is not WTA's to share or replace: listen says
/// so, exits 3 and leaves that pipe open.
#[test]
fn listen_refuses_a_pipe_another_tool_opened() {
    let server = TmuxServer::start();
    let pane = server.first_pane().to_owned();
    server.tmux(&["pipe-pane", "-O", "-t", &pane, "exec cat > /dev/null"]);
    let socket = server.socket().to_string_lossy().into_owned();
    let out = wta(server.sandbox())
        .args(["-S", &socket, "--json", "listen", "-t", &pane])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            "pane {pane} already has a pipe-pane that WTA did not open"
        )) && err.contains("refusing to replace it"),
        "{err}"
    );
    let line: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(line["event"], "ended", "{line}");
    assert!(
        line["reason"]
            .as_str()
            .unwrap()
            .contains("refusing to replace")
    );
    assert_eq!(server.display(&pane, "#{pane_pipe}"), "1");
}

#[test]
fn listen_on_a_dead_pane_says_it_is_dead_with_its_status() {
    let server = TmuxServer::start();
    let pane = server.new_window("exit 3");
    assert_eq!(server.wait_dead(&pane, T), "3");
    let socket = server.socket().to_string_lossy().into_owned();
    let out = wta(server.sandbox())
        .args(["-S", &socket, "listen", "-t", &pane])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("pane {pane} is dead (exit status 3)")),
        "{err}"
    );
    assert!(!err.contains("tmux set failed"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

/// A plain shell (no integration) followed by `wta listen`: once a command
/// ran without marks, listen says so, points at `wta shell-integration
/// --help`, records the verdict on the pane and exits 3 (it cannot follow
/// the pane), pipe detached.
#[test]
fn listen_on_a_shell_without_integration_says_so_once_a_command_ran() {
    let server = TmuxServer::start();
    let pane = server.new_window("PS1='$ ' bash --norc --noprofile");
    server.wait_for_text(&pane, "$", T);
    let socket = server.socket().to_string_lossy().into_owned();
    let mut child = wta(server.sandbox())
        .args(["-S", &socket, "listen", "-t", &pane])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut first = String::new();
    stderr.read_line(&mut first).unwrap();
    assert!(first.contains("listening to pane"), "{first}");
    // Longer than listen's look interval: the foreground program changes
    // under its eyes whenever it took its first look.
    server.type_line(&pane, "sleep 1; echo done");
    let status = wait_for_value("listen gives up", T, || child.try_wait().ok().flatten()).unwrap();
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut rest).unwrap();
    assert_eq!(status.code(), Some(3), "{rest}");
    assert!(
        rest.contains(&format!(
            "pane {pane}: the pane's shell shows no WTA shell integration"
        )) && rest.contains("wta shell-integration --help"),
        "{rest}"
    );
    assert_eq!(server.display(&pane, "#{pane_pipe}"), "0");
    assert_eq!(server.display(&pane, "#{@wta_integration_state}"), "absent");
    // A second listen knows at once, from the recorded verdict.
    let again = wta(server.sandbox())
        .args(["-S", &socket, "--json", "listen", "-t", &pane])
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(3));
    let line: serde_json::Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(
        (line["event"].as_str(), line["integration"].as_str()),
        (Some("ended"), Some("absent"))
    );
    assert!(String::from_utf8_lossy(&again.stderr).contains("wta shell-integration --help"));
}

/// Commands typed ahead in bash finish back to back: `listen` reports every
/// one of them (it used to look only at the tracker's last run, so a run
/// that a later one had already followed was never reported finished).
#[test]
fn listen_reports_every_command_typed_ahead() {
    let server = TmuxServer::start();
    let dir = tempfile::tempdir().unwrap();
    let gate = "wta-listen-ahead-gate";
    let pane = integrated_bash_window(&server, dir.path(), gate);
    let socket = server.socket().to_string_lossy().into_owned();
    let mut child = wta(server.sandbox())
        .args(["-S", &socket, "listen", "-t", &pane, "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel::<serde_json::Value>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Ok(v) = serde_json::from_str(&line) {
                let _ = tx.send(v);
            }
        }
    });
    wta_testkit::wait_until("listen attached", T, || {
        server.display(&pane, "#{pane_pipe}") == "1"
    })
    .unwrap();
    server.tmux(&["wait-for", "-S", gate]);
    server.wait_for_text(&pane, "$", T);
    // Ten commands in one burst of keys, each ready before the last ends.
    let mut keys: Vec<String> = Vec::new();
    for i in 0..10 {
        keys.extend(
            [
                "send-keys",
                "-t",
                &pane,
                "-l",
                &format!("echo ahead-{i}"),
                ";",
            ]
            .map(str::to_owned),
        );
        keys.extend(["send-keys", "-t", &pane, "Enter", ";"].map(str::to_owned));
    }
    keys.pop();
    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
    server.tmux(&keys);
    let mut seen = Vec::new();
    let finished = wait_for_value("ten finished events", T, || {
        while let Ok(v) = rx.try_recv() {
            seen.push(v);
        }
        let done: Vec<String> = seen
            .iter()
            .filter(|v| v["event"] == "finished")
            .filter_map(|v| v["cmdline"].as_str().map(str::to_owned))
            .collect();
        (done.len() >= 10).then_some(done)
    })
    .unwrap_or_else(|e| panic!("{e}: {seen:?}"));
    let want: Vec<String> = (0..10).map(|i| format!("echo ahead-{i}")).collect();
    assert_eq!(finished, want);
    let _ = child.kill();
    let _ = child.wait();
}
