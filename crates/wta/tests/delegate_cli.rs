//! Delegates (issue 17) in real tmux: `wta delegate` starts each delegate
//! agent CLI (fake ones on `PATH` that record their argv) in a new tab or
//! panel with the task, enriched with the source pane's last lines; a
//! missing CLI gets a tab saying how to install it; `?TASK` in the agent
//! pane does the same from its target; `--acp` opens a WTA agent pane whose
//! first prompt is the task.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod launch_common;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

use launch_common::Launch;
use serde_json::Value;
use wta_testkit::{squeezed, wait_for_value, wait_until};

const T: Duration = Duration::from_secs(20);
const CLIS: [&str; 5] = ["claude", "copilot", "codex", "gemini", "opencode"];

/// Fake delegate CLIs in `dir/bin`: each writes its argv, NUL-separated, to
/// `dir/<name>.argv`, says it started, and waits.
fn fake_clis(dir: &Path) -> PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    for name in CLIS {
        let script = format!(
            "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done > '{}/{name}.argv.tmp'\nmv '{}/{name}.argv.tmp' '{}/{name}.argv'\necho 'fake {name} started'\nexec sleep 600\n",
            dir.display(),
            dir.display(),
            dir.display()
        );
        let path = bin.join(name);
        std::fs::write(&path, script).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    bin
}

fn path_with(bin: &Path) -> OsString {
    let mut path = bin.as_os_str().to_owned();
    path.push(":/usr/local/bin:/usr/bin:/bin");
    path
}

/// `wta --json delegate ARGS` with `PATH`.
fn delegate(l: &Launch, path: &OsString, args: &[&str]) -> Output {
    l.env
        .command()
        .env("PATH", path)
        .arg("-L")
        .arg(l.tmux.name())
        .args(["--json", "delegate"])
        .args(args)
        .output()
        .unwrap()
}

fn recorded(dir: &Path, name: &str) -> Vec<String> {
    let file = dir.join(format!("{name}.argv"));
    let raw = wait_for_value(&format!("{name}'s argv"), T, || std::fs::read(&file).ok()).unwrap();
    raw.split(|b| *b == 0)
        .filter(|a| !a.is_empty())
        .map(|a| String::from_utf8(a.to_vec()).unwrap())
        .collect()
}

fn is_uuid_v4(s: &str) -> bool {
    s.len() == 36 && s.as_bytes()[14] == b'4' && s.split('-').count() == 5
}

#[test]
fn each_delegate_cli_gets_the_task_and_the_context_its_way() {
    let l = Launch::new();
    let dir = tempfile::tempdir().unwrap();
    let path = path_with(&fake_clis(dir.path()));
    let source = l.tmux.first_pane().to_owned();
    l.tmux.type_line(&source, "echo context-line-$((6*7))");
    l.tmux.wait_for_text(&source, "context-line-42", T);
    let task = "fix \"it\"; then\nrun #(touch /tmp/never) $(id) `x`";
    for name in CLIS {
        let out = delegate(&l, &path, &["--agent", name, "-t", &source, "--", task]);
        assert!(out.status.success(), "{name}: {out:?}");
        let done: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(done["agent"], name);
        assert_eq!(done["installed"], true);
        let pane = done["pane"].as_str().unwrap();
        assert_ne!(
            l.tmux.display(pane, "#{window_id}"),
            l.tmux.display(&source, "#{window_id}"),
            "a new tab"
        );
        l.tmux
            .wait_for_text(pane, &format!("fake {name} started"), T);
        let argv = recorded(dir.path(), name);
        let given = argv.last().unwrap();
        assert!(
            given.starts_with(task),
            "{name}: the task arrives as it is: {argv:?}"
        );
        assert!(
            given.contains(&format!("Terminal context (untrusted, from pane {source}")),
            "{given}"
        );
        assert!(given.contains("context-line-42"), "{given}");
        let pinned = done.get("session_id").and_then(Value::as_str);
        match name {
            "claude" | "gemini" => {
                assert_eq!(argv[0], "--session-id");
                assert_eq!(Some(argv[1].as_str()), pinned);
                assert!(is_uuid_v4(&argv[1]), "{argv:?}");
                assert_eq!(argv[2], "--", "the task after the end of options: {argv:?}");
                assert_eq!(argv.len(), 4, "{argv:?}");
            }
            "copilot" => {
                assert_eq!(&argv[..1], ["--session-id"]);
                assert_eq!(argv[2], "-i", "{argv:?}");
            }
            "codex" => assert_eq!((argv.len(), argv[0].as_str()), (2, "--"), "{argv:?}"),
            "opencode" => assert_eq!(argv[0], "--prompt", "{argv:?}"),
            _ => unreachable!(),
        }
    }
    assert!(!Path::new("/tmp/never").exists(), "nothing in the task ran");
}

#[test]
fn a_task_that_looks_like_an_option_never_becomes_one() {
    let dir = tempfile::tempdir().unwrap();
    let bin = fake_clis(dir.path());
    let path = path_with(&bin);
    let fake = bin.join("claude");
    let injected = "--permission-mode=bypassPermissions";
    // A [delegate] table: its argv, then `--` (the default), then the task.
    let l = Launch::with_config(&format!(
        "[delegate]\nname = \"fakedel\"\nargv = [\"{}\", \"--print\"]\n",
        fake.display()
    ));
    let source = l.tmux.first_pane().to_owned();
    let out = delegate(&l, &path, &["-t", &source, "--", injected]);
    assert!(out.status.success(), "{out:?}");
    let argv = recorded(dir.path(), "claude");
    assert_eq!(argv[..2], ["--print", "--"], "{argv:?}");
    assert!(argv[2].starts_with(injected), "{argv:?}");
    assert_eq!(argv.len(), 3, "{argv:?}");
    // A CLI configured with no end of options: such a task is refused, nothing starts.
    std::fs::remove_file(dir.path().join("claude.argv")).unwrap();
    let l = Launch::with_config(&format!(
        "[delegate]\nname = \"fakedel\"\nargv = [\"{}\"]\nend_of_options = \"\"\n",
        fake.display()
    ));
    let source = l.tmux.first_pane().to_owned();
    let out = delegate(&l, &path, &["-t", &source, "--", injected]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("starts with `-`") && err.contains("end_of_options"),
        "{err}"
    );
    assert_eq!(
        l.tmux.tmux(&["list-windows", "-a"]).lines().count(),
        1,
        "no tab opened"
    );
}

#[test]
fn a_panel_opens_beside_the_source_and_a_missing_cli_says_how_to_install_it() {
    let l = Launch::new();
    let dir = tempfile::tempdir().unwrap();
    let path = path_with(&fake_clis(dir.path()));
    let source = l.tmux.first_pane().to_owned();
    let out = delegate(
        &l,
        &path,
        &["--agent", "codex", "--panel", "-t", &source, "explain"],
    );
    assert!(out.status.success(), "{out:?}");
    let done: Value = serde_json::from_slice(&out.stdout).unwrap();
    let pane = done["pane"].as_str().unwrap();
    assert_eq!(
        l.tmux.display(pane, "#{window_id}"),
        l.tmux.display(&source, "#{window_id}"),
        "a panel of the same tab"
    );

    let bare = path_with(&dir.path().join("nothing-here"));
    let out = delegate(&l, &bare, &["--agent", "gemini", "-t", &source, "explain"]);
    assert!(out.status.success(), "{out:?}");
    let done: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(done["installed"], false);
    let pane = done["pane"].as_str().unwrap();
    let screen = l.tmux.wait_for_text(pane, "not installed", T);
    assert!(
        squeezed(&screen).contains(&squeezed("npm install -g @google/gemini-cli")),
        "{screen}"
    );

    let out = delegate(&l, &path, &["--agent", "claud", "-t", &source, "x"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("claude, copilot, codex, gemini, opencode"),
        "{err}"
    );
    let out = delegate(&l, &path, &["-t", &source, "  "]);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("the task is empty"),
        "{out:?}"
    );
}

#[test]
fn a_question_mark_in_the_agent_pane_delegates_from_its_target() {
    let mut l = Launch::new();
    let dir = tempfile::tempdir().unwrap();
    let bin = fake_clis(dir.path());
    // The helper runs `wta delegate` with its own environment, which tmux
    // took from `wta up`'s: the fake CLIs first on its PATH.
    let path = path_with(&bin);
    let up = l.up_with_env(&[("PATH", path.as_os_str())], &["--agent", "custom:test"]);
    let agent = up["agent_pane"].as_str().unwrap().to_owned();
    l.tmux.wait_for_text(&agent, "Ready", T);
    l.say(&agent, "?review the diff");
    wait_until("the delegate's note", T, || {
        squeezed(&l.tmux.capture(&agent)).contains(&squeezed("Delegated to claude in tab"))
    })
    .unwrap_or_else(|e| {
        let pid = l.pane_pid(&agent);
        let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
        let path: Vec<String> = environ
            .split(|b| *b == 0)
            .map(|v| String::from_utf8_lossy(v).into_owned())
            .filter(|v| v.starts_with("PATH="))
            .collect();
        panic!("{e}:\n{}\nhelper {path:?}", l.tmux.capture(&agent))
    });
    let argv = recorded(dir.path(), "claude");
    assert!(
        argv.last().unwrap().starts_with("review the diff"),
        "{argv:?}"
    );
}

#[test]
fn acp_delegates_open_an_agent_pane_whose_first_prompt_is_the_task() {
    let mut l = Launch::new();
    let (_, shell, _) = l.up_ready("custom:test");
    let out = l.wta(&[
        "--json",
        "delegate",
        "--acp",
        "--agent",
        "custom:test",
        "-t",
        &shell,
        "echo from-the-delegate",
    ]);
    assert!(out.status.success(), "{out:?}");
    let done: Value = serde_json::from_slice(&out.stdout).unwrap();
    let pane = done["pane"].as_str().unwrap();
    let tab_shell = done["shell_pane"].as_str().unwrap();
    assert_eq!(
        l.tmux.display(pane, "#{window_id}"),
        l.tmux.display(tab_shell, "#{window_id}")
    );
    assert_ne!(
        l.tmux.display(pane, "#{window_id}"),
        l.tmux.display(&shell, "#{window_id}")
    );
    // The task was its first prompt, answered by the agent.
    let screen = l.tmux.wait_for_text(pane, "from-the-delegate", T);
    assert!(screen.contains("› echo from-the-delegate"), "{screen}");
    // And the delegate works on the new tab's shell.
    assert_eq!(l.tmux.display(pane, "#{@wta_target}"), tab_shell);
}

/// `prefix T` from `wta tmux-config`, pressed in a real client: the prompt
/// asks for the task, which reaches the delegate as typed (through a tmux
/// buffer, never a shell).
#[test]
fn the_prompt_binding_delegates_what_was_typed() {
    let l = Launch::new();
    let dir = tempfile::tempdir().unwrap();
    let path = path_with(&fake_clis(dir.path()));
    l.tmux
        .tmux(&["set-environment", "-g", "PATH", path.to_str().unwrap()]);
    let bindings = l.wta(&["tmux-config"]);
    assert!(bindings.status.success(), "{bindings:?}");
    let conf = dir.path().join("bindings.conf");
    std::fs::write(&conf, &bindings.stdout).unwrap();
    l.tmux.tmux(&["source-file", conf.to_str().unwrap()]);
    let viewer = wta_testkit::TmuxServer::start_with(&format!(
        "env -u TMUX tmux -S '{}' attach -t main",
        l.tmux.socket().display()
    ));
    let client = viewer.first_pane().to_owned();
    wait_until("the client to attach", T, || {
        l.tmux
            .try_tmux(&["list-clients", "-F", "#{client_name}"])
            .is_some_and(|c| !c.trim().is_empty())
    })
    .unwrap();
    viewer.tmux(&["send-keys", "-t", &client, "C-b", "T"]);
    wait_until("the prompt", T, || {
        viewer.capture(&client).contains("delegate:")
    })
    .unwrap();
    let task = r#"say "hi"; $HOME #(id) it's"#;
    viewer.tmux(&["send-keys", "-t", &client, "-l", task]);
    viewer.tmux(&["send-keys", "-t", &client, "Enter"]);
    let file = dir.path().join("claude.argv");
    if wait_until("the delegate", T, || file.exists()).is_err() {
        panic!(
            "no delegate; client:\n{}\nbuffers: {:?}",
            viewer.capture(&client),
            l.tmux.try_tmux(&["list-buffers"])
        );
    }
    let argv = recorded(dir.path(), "claude");
    assert!(argv.last().unwrap().starts_with(task), "{argv:?}");
    assert!(
        l.tmux
            .try_tmux(&["show-buffer", "-b", "wta-delegate"])
            .is_none(),
        "the buffer is gone"
    );
}

/// A delegate CLI that ends leaves its tab: its output, and a footer with
/// its exit status, stay until the user presses Enter there (it used to
/// vanish with everything the delegate said).
#[test]
fn an_ended_delegate_keeps_its_output_and_exit_status() {
    let l = Launch::new();
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let codex = bin.join("codex");
    // Exits right after printing: what it printed must still be there.
    std::fs::write(&codex, "#!/bin/sh\necho \"answer-$((40+2))\"\nexit 3\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&codex, std::fs::Permissions::from_mode(0o755)).unwrap();
    let source = l.tmux.first_pane().to_owned();
    let out = delegate(
        &l,
        &path_with(&bin),
        &["--agent", "codex", "-t", &source, "it's $(id) done?"],
    );
    assert!(out.status.success(), "{out:?}");
    let done: Value = serde_json::from_slice(&out.stdout).unwrap();
    let pane = done["pane"].as_str().unwrap().to_owned();
    let screen = l.tmux.wait_for_text(&pane, "exit status 3", T);
    assert!(screen.contains("answer-42"), "{screen}");
    assert!(
        squeezed(&screen).contains(&squeezed(
            "codex ended with exit status 3; its output stays here. Press Enter to close this pane"
        )),
        "{screen}"
    );
    assert_eq!(l.tmux.display(&pane, "#{@wta_exit_status}"), "3");
    // It waits for the user, however long.
    assert_eq!(l.tmux.display(&pane, "#{pane_dead}"), "0");
    l.tmux.tmux(&["send-keys", "-t", &pane, "Enter"]);
    wait_until("Enter closes the pane", T, || {
        !l.tmux
            .tmux(&["list-panes", "-a", "-F", "#{pane_id}"])
            .lines()
            .any(|p| p == pane)
    })
    .unwrap();
}
