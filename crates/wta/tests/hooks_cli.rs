//! `wta hooks install | status | uninstall` against fake agent CLIs on PATH
//! (shell scripts that record their argv and answer `plugin list` /
//! `extensions list` as a real one would, from what was installed), in temp
//! HOME/XDG dirs; and `wta hook`, which must exit 0 at once and print nothing
//! with or without a master (with one, the registry then lists the session).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod acp_common;
mod support;

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// A fake CLI: records `name args…` in $FAKE_LOG (one append per line: `status`
/// runs the CLIs at once), keeps "installed" in $FAKE_STATE.
/// Not a performance claim: the upper bounds below only catch a command
/// that hangs (what ended it is asserted from its message or log), and are
/// loose so a loaded 2-core machine, slow to start processes, cannot
/// break them.
const NO_HANG: Duration = Duration::from_secs(15);

const FAKE: &str = r#"#!/bin/sh
n=${0##*/}
l="$n"; for a in "$@"; do l="$l $a"; done
printf '%s\n' "$l" >> "$FAKE_LOG"
s="$FAKE_STATE/$n"
case "$1 $2" in
  "plugin install"|"extensions install") : > "$s" ;;
  "plugin uninstall"|"extensions uninstall") /bin/rm -f "$s" ;;
  "plugin list"|"extensions list")
    if [ -e "$s" ]; then printf 'Installed plugins:\n  > wta-agent-hooks@wta-local\n    Version: 1\n'
    else echo "No plugins installed."; fi ;;
esac
exit 0
"#;

struct H {
    user: support::User,
}

impl H {
    fn new() -> Self {
        Self {
            user: support::User::new(&["fake"]),
        }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.user.path(rel)
    }

    fn fake(&self, name: &str, script: &str) {
        let p = self.path("bin").join(name);
        std::fs::write(&p, script).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    fn command(&self) -> Command {
        let mut c = self.user.command();
        c.env("FAKE_LOG", self.path("argv.log"))
            .env("FAKE_STATE", self.path("fake"));
        c
    }

    fn wta(&self, args: &[&str]) -> Output {
        self.command().args(args).output().unwrap()
    }

    fn json(&self, args: &[&str]) -> Value {
        let out = self.wta(args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    }

    /// The argv log, and emptied.
    fn take_log(&self) -> Vec<String> {
        let p = self.path("argv.log");
        let text = std::fs::read_to_string(&p).unwrap_or_default();
        let _ = std::fs::remove_file(&p);
        text.lines().map(str::to_owned).collect()
    }

    fn bundle(&self, cli: &str) -> PathBuf {
        self.path("data/wta/agent-hooks").join(cli)
    }

    /// `value` with this test's temp dir replaced by `<tmp>`.
    fn normalized(&self, value: &Value) -> Value {
        let text = value
            .to_string()
            .replace(&self.user.root().to_string_lossy().into_owned(), "<tmp>");
        let mut v: Value = serde_json::from_str(&text).unwrap();
        if v["bundle_version"].is_string() {
            v["bundle_version"] = "<version>".into();
        }
        for c in v["clis"].as_array_mut().unwrap() {
            if c["bundle_version"].is_string() {
                c["bundle_version"] = "<version>".into();
            }
        }
        v
    }
}

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

#[test]
fn install_status_uninstall_for_every_cli() {
    let h = H::new();
    for cli in ["claude", "copilot", "codex", "gemini", "opencode"] {
        h.fake(cli, FAKE);
    }
    let plugins = h.path("config/opencode/plugins");
    std::fs::create_dir_all(&plugins).unwrap();
    std::fs::write(plugins.join("wta-agent-hooks.js"), "// the user's own\n").unwrap();
    std::fs::write(plugins.join("other.js"), "// another plugin\n").unwrap();

    let report = h.json(&["hooks", "install", "--json"]);
    support::assert_golden("hooks-install", &h.normalized(&report));
    let b = |cli: &str| h.bundle(cli).to_string_lossy().into_owned();
    assert_eq!(
        h.take_log(),
        vec![
            format!("claude plugin marketplace add {}", b("claude")),
            "claude plugin install wta-agent-hooks@wta-local".to_owned(),
            format!("copilot plugin marketplace add {}", b("copilot")),
            "copilot plugin install wta-agent-hooks@wta-local".to_owned(),
            format!("codex plugin marketplace add {}", b("codex")),
            "codex plugin install wta-agent-hooks@wta-local".to_owned(),
            format!(
                "gemini extensions install {}/wta-agent-hooks --consent",
                b("gemini")
            ),
        ]
    );
    // The bundle files, their events and the guarded command.
    let hooks: Value = serde_json::from_str(
        &std::fs::read_to_string(h.bundle("claude").join("wta-agent-hooks/hooks/hooks.json"))
            .unwrap(),
    )
    .unwrap();
    for (native, event) in [
        ("SessionStart", "session_start"),
        ("SessionEnd", "session_end"),
        ("UserPromptSubmit", "prompt_submit"),
        ("Notification", "notification"),
        ("Stop", "stop"),
        ("StopFailure", "error"),
    ] {
        let cmd = hooks["hooks"][native][0]["hooks"][0]["command"]
            .as_str()
            .unwrap();
        assert!(
            cmd.contains("command -v \"$w\" >/dev/null 2>&1 || exit 0"),
            "{cmd}"
        );
        assert!(cmd.contains("${WTA_CLI_PATH:-wta}"), "{cmd}");
        assert!(
            cmd.ends_with(&format!(
                "hook --cli-source claude --event {event} >/dev/null 2>&1 || true"
            )),
            "{cmd}"
        );
    }
    let gemini: Value = serde_json::from_str(
        &std::fs::read_to_string(h.bundle("gemini").join("wta-agent-hooks/hooks/hooks.json"))
            .unwrap(),
    )
    .unwrap();
    assert!(
        gemini["hooks"]["BeforeTool"][0]["hooks"][0]["command"]
            .as_str()
            .unwrap()
            .contains("--cli-source gemini --event tool_starting")
    );
    for f in [
        ".claude-plugin/marketplace.json",
        "wta-agent-hooks/.claude-plugin/plugin.json",
        "wta-agent-hooks/hooks/hooks.json",
    ] {
        assert_eq!(mode(&h.bundle("claude").join(f)), 0o644, "{f}");
    }
    assert_eq!(mode(&h.path("data/wta/agent-hooks")), 0o700);
    assert_eq!(mode(&h.bundle("claude")), 0o700);
    assert_eq!(
        mode(&h.bundle("claude").join("wta-agent-hooks/hooks")),
        0o700
    );
    // OpenCode: only WTA's file changed, the user's moved aside.
    let ours = std::fs::read_to_string(plugins.join("wta-agent-hooks.js")).unwrap();
    assert!(
        ours.starts_with("// wta-agent-hooks: generated by WTA"),
        "{ours}"
    );
    assert_eq!(
        std::fs::read_to_string(plugins.join("wta-agent-hooks.js.wta-backup")).unwrap(),
        "// the user's own\n"
    );
    assert_eq!(
        std::fs::read_to_string(plugins.join("other.js")).unwrap(),
        "// another plugin\n"
    );

    let status = h.json(&["hooks", "status", "--json"]);
    support::assert_golden("hooks-status", &h.normalized(&status));
    let mut asked = h.take_log();
    asked.sort();
    assert_eq!(
        asked,
        vec![
            "claude plugin list",
            "codex plugin list",
            "copilot plugin list",
            "gemini extensions list"
        ]
    );
    let table = String::from_utf8(h.wta(&["hooks", "status"]).stdout).unwrap();
    assert!(table.starts_with("CLI"), "{table}");
    assert!(
        table
            .lines()
            .any(|l| l.starts_with("opencode") && l.contains("yes")),
        "{table}"
    );
    h.take_log();

    let report = h.json(&["hooks", "uninstall", "--json"]);
    assert!(
        report["clis"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["outcome"] == "uninstalled"),
        "{report}"
    );
    assert_eq!(
        h.take_log(),
        vec![
            "claude plugin uninstall wta-agent-hooks@wta-local",
            "claude plugin marketplace remove wta-local",
            "copilot plugin uninstall wta-agent-hooks@wta-local",
            "copilot plugin marketplace remove wta-local",
            "codex plugin uninstall wta-agent-hooks@wta-local",
            "codex plugin marketplace remove wta-local",
            "gemini extensions uninstall wta-agent-hooks",
        ]
    );
    assert!(!h.path("data/wta/agent-hooks/claude").exists());
    assert_eq!(
        std::fs::read_to_string(plugins.join("wta-agent-hooks.js")).unwrap(),
        "// the user's own\n"
    );
    assert!(!plugins.join("wta-agent-hooks.js.wta-backup").exists());
    assert_eq!(
        std::fs::read_to_string(plugins.join("other.js")).unwrap(),
        "// another plugin\n"
    );
    let after = h.json(&["hooks", "status", "--json"]);
    for c in after["clis"].as_array().unwrap() {
        assert_eq!(c["installed"], "no", "{c}");
        assert_eq!(c["bundle_present"], false, "{c}");
    }
    assert!(
        after["clis"][4]["detail"]
            .as_str()
            .unwrap()
            .contains("is not WTA's"),
        "{after}"
    );
}

#[test]
fn missing_clis_are_skipped_unless_named() {
    let h = H::new();
    h.fake("claude", FAKE);
    let report = h.json(&["hooks", "install", "--json"]);
    let outcomes: Vec<_> = report["clis"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            format!(
                "{}={}",
                c["cli"].as_str().unwrap(),
                c["outcome"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        outcomes,
        [
            "claude=installed",
            "copilot=not_found",
            "codex=not_found",
            "gemini=not_found",
            "opencode=not_found"
        ]
    );
    assert!(!h.bundle("gemini").exists());
    let out = h.wta(&["hooks", "install", "--cli", "gemini"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("gemini is not on PATH"), "{err}");
    let status = h.json(&["hooks", "status", "--cli", "copilot", "--json"]);
    assert_eq!(status["clis"].as_array().unwrap().len(), 1);
    assert_eq!(status["clis"][0]["found"], false);
    assert_eq!(status["clis"][0]["installed"], "no");
    let out = h.wta(&["hooks", "install", "--cli", "nope"]);
    assert_eq!(out.status.code(), Some(2), "clap refuses an unknown CLI");
}

#[test]
fn failures_report_the_clis_stderr_and_repeats_are_tolerated() {
    let h = H::new();
    h.fake(
        "codex",
        "#!/bin/sh\necho \"error: unrecognized subcommand 'plugin'\" >&2\nexit 2\n",
    );
    // A marketplace added before: the CLI says so, and that is fine.
    h.fake(
        "claude",
        "#!/bin/sh\ncase \"$2\" in marketplace) echo \"Marketplace 'wta-local' is already installed\" >&2; exit 1;; esac\nexit 0\n",
    );
    let out = h.wta(&["hooks", "install", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("error: unrecognized subcommand 'plugin'"),
        "{err}"
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["clis"][0]["outcome"], "installed", "{report}");
    assert!(
        report["clis"][0]["notes"][0]
            .as_str()
            .unwrap()
            .contains("already done"),
        "{report}"
    );
    assert_eq!(report["clis"][2]["outcome"], "failed", "{report}");
    let status = h.json(&["hooks", "status", "--cli", "codex", "--json"]);
    assert_eq!(status["clis"][0]["installed"], "unknown", "{status}");
    assert!(
        status["clis"][0]["detail"]
            .as_str()
            .unwrap()
            .contains("unrecognized subcommand")
    );
}

#[test]
fn a_hanging_cli_is_stopped_after_its_timeout() {
    let h = H::new();
    h.fake("gemini", "#!/bin/sh\nexec /bin/sleep 60\n");
    let start = Instant::now();
    let out = h.wta(&["hooks", "install", "--cli", "gemini"]);
    let took = start.elapsed();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("did not finish within 5 s"), "{err}");
    // Stopped at the timeout: not before, and long before its `sleep 60`.
    assert!(
        took >= Duration::from_secs(5) && took < Duration::from_secs(40),
        "{took:?}"
    );
}

#[test]
fn help_teaches_what_where_and_undo() {
    let h = H::new();
    let out = String::from_utf8(h.wta(&["hooks", "--help"]).stdout).unwrap();
    for needle in [
        "hook --cli-source",
        "agent-hooks",
        "opencode/plugins",
        "wta hooks uninstall",
        "never prompts",
    ] {
        assert!(out.contains(needle), "{needle}: {out}");
    }
    let top = String::from_utf8(h.wta(&["--help"]).stdout).unwrap();
    assert!(top.contains("hooks") && !top.contains("  hook "), "{top}");
}

fn hook(h: &H, extra: &[&str], stdin: &[u8]) -> (Output, Duration) {
    let mut c = h.command();
    c.args(["hook", "--cli-source", "claude", "--event", "prompt_submit"])
        .args(extra)
        .env("TMUX_PANE", "%3")
        .env("WTA_LOG", "debug")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let start = Instant::now();
    let mut child = c.spawn().unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let out = child.wait_with_output().unwrap();
    (out, start.elapsed())
}

const PAYLOAD: &[u8] =
    br#"{"session_id":"s-1","cwd":"/w","prompt":"the user's secret","tool_input":{"command":"rm"}}"#;

fn hook_log(h: &H) -> String {
    std::fs::read_to_string(h.path("state/wta/hook.log")).unwrap_or_default()
}

#[test]
fn hook_without_a_master_exits_0_at_once_and_quietly() {
    let h = H::new();
    for extra in [
        &[][..],
        &["--master-socket", "/nonexistent/master.sock"][..],
    ] {
        let (out, took) = hook(&h, extra, PAYLOAD);
        assert_eq!(out.status.code(), Some(0));
        assert!(out.stdout.is_empty() && out.stderr.is_empty(), "{out:?}");
        assert!(took < NO_HANG, "{took:?}");
    }
    let log = hook_log(&h);
    assert!(log.contains("not sent"), "{log}");
    // At once: for want of a master, not at the send deadline.
    assert!(!log.contains("did not answer within"), "{log}");
    assert!(!log.contains("secret"), "{log}");
    // Unknown names: still 0, still quiet, and logged.
    let out = h
        .command()
        .args(["hook", "--cli-source", "vim", "--event", "nope"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty() && out.stderr.is_empty(), "{out:?}");
    assert!(hook_log(&h).contains("unknown --cli-source \"vim\""));
}

#[test]
fn hook_with_a_stdin_that_never_ends_gives_up() {
    let h = H::new();
    let mut child = h
        .command()
        .args(["hook", "--cli-source", "gemini", "--event", "stop"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdin = child.stdin.take().unwrap(); // kept open
    let start = Instant::now();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty() && out.stderr.is_empty());
    // Given up at the stdin deadline (2 s): not before, and not never.
    let took = start.elapsed();
    assert!(took >= Duration::from_secs(2) && took < NO_HANG, "{took:?}");
    assert!(
        hook_log(&h).contains("stdin did not end within"),
        "{}",
        hook_log(&h)
    );
    drop(stdin);
}

#[test]
fn hook_reaches_a_real_master() {
    let env = acp_common::Env::new();
    let _master = env.start_master();
    let h = H::new();
    let socket = env.socket.to_string_lossy().into_owned();
    let (out, took) = hook(&h, &["--master-socket", &socket], PAYLOAD);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty() && out.stderr.is_empty(), "{out:?}");
    assert!(took < NO_HANG, "{took:?}");
    let log = hook_log(&h);
    assert!(log.contains("hook event sent"), "{log}");
    assert!(!log.contains("secret"), "{log}");
    // The registry holds the CLI's session, and nothing of its prompt.
    let out = env
        .command()
        .args(["sessions", "all", "--json", "--master-socket", &socket])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("\"s-1\"") && text.contains("claude"),
        "{text}"
    );
    assert!(
        !text.contains("secret") && !text.contains("\"rm\""),
        "{text}"
    );
}

/// A bundle that cannot be written says what WTA was doing, where, and the
/// OS's words, in the user's language (English in `--json`).
#[test]
fn a_file_that_cannot_be_written_is_named_in_the_users_language() {
    let h = H::new();
    h.fake("claude", FAKE);
    // The bundle's dir is taken by a file: nothing can be made below it.
    let data = h.path("data/wta");
    std::fs::create_dir_all(&data).unwrap();
    std::fs::write(data.join("agent-hooks"), "not a dir").unwrap();
    let out = h.wta(&["--language", "de", "hooks", "install", "--cli", "claude"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let shown = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        shown.contains("kann ") && shown.contains("nicht anlegen") && shown.contains("agent-hooks"),
        "{shown}"
    );
    let out = h.wta(&["hooks", "install", "--cli", "claude", "--json"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let error = report["clis"][0]["error"].as_str().unwrap_or_default();
    assert!(
        error.starts_with("cannot create ") && error.contains("agent-hooks"),
        "{report}"
    );
}
