//! `wta doctor` against a private tmux server, as a user whose PATH holds
//! tmux and nothing else (no agent CLI): every check in the JSON with its
//! status, a bad config file listed line by line with the fix, a default
//! agent that is not installed, and the shell check from inside a pane
//! with and without WTA's shell integration. A failing check exits 1.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use serde_json::Value;
use wta_testkit::TmuxServer;

/// A directory holding only a link to the tmux the tests use.
fn tmux_only_path(dir: &Path) -> PathBuf {
    let runner = std::env::var_os("PATH").unwrap();
    let tmux = std::env::split_paths(&runner)
        .map(|d| d.join("tmux"))
        .find(|p| p.is_file())
        .expect("tmux on PATH");
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(tmux, bin.join("tmux")).unwrap();
    bin
}

struct Doctor {
    server: TmuxServer,
    bin: PathBuf,
    _dir: tempfile::TempDir,
}

impl Doctor {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        Self {
            server: TmuxServer::start(),
            bin: tmux_only_path(dir.path()),
            _dir: dir,
        }
    }

    fn config(&self, text: &str) -> PathBuf {
        let file = self.server.sandbox().path("config/wta/config.toml");
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, text).unwrap();
        file
    }

    /// `wta -L <server> doctor ARGS` with the server's HOME and XDG dirs.
    fn command(&self, args: &[&str]) -> Command {
        let mut cmd = self.server.sandbox().command(support::wta_bin());
        cmd.env("PATH", &self.bin)
            .arg("-L")
            .arg(self.server.name())
            .arg("doctor")
            .args(["--version-timeout", "2"])
            .args(args);
        cmd
    }

    fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }

    /// `wta doctor --json` run inside `pane`.
    fn json_in(&self, pane: &str) -> (Option<i32>, Value) {
        let out = self
            .command(&["--json"])
            .env("TMUX", self.server.tmux_env())
            .env("TMUX_PANE", pane)
            .output()
            .unwrap();
        (
            out.status.code(),
            serde_json::from_slice(&out.stdout).unwrap(),
        )
    }

    fn json(&self) -> (Option<i32>, Value) {
        let out = self.run(&["--json"]);
        let value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
        (out.status.code(), value)
    }
}

/// The check `id` of a report.
fn check<'a>(report: &'a Value, id: &str) -> &'a Value {
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("no check {id}: {report:#}"))
}

#[test]
fn every_check_reports_and_nothing_failing_exits_0() {
    let d = Doctor::new();
    let (code, report) = d.json();
    assert_eq!(code, Some(0), "{report:#}");
    assert_eq!(report["schema_version"], 2);
    assert_eq!(report["ok"], true);
    let ids: Vec<&str> = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        &ids[..7],
        [
            "tmux",
            "tmux_server",
            "shell",
            "master",
            "config",
            "language",
            "default_agent"
        ]
    );
    for agent in ["copilot", "claude", "codex", "gemini", "opencode", "demo"] {
        assert!(ids.contains(&format!("agent:{agent}").as_str()), "{ids:?}");
    }
    assert_eq!(check(&report, "tmux")["status"], "ok");
    let server = check(&report, "tmux_server");
    assert_eq!(server["status"], "ok");
    assert_eq!(server["data"]["running"], true);
    assert_eq!(
        server["data"]["socket"].as_str().unwrap(),
        d.server.socket().to_str().unwrap()
    );
    // Outside tmux there is no pane to check.
    assert_eq!(check(&report, "shell")["status"], "info");
    let master = check(&report, "master");
    assert_eq!(master["status"], "info");
    assert_eq!(master["data"]["running"], false);
    let config = check(&report, "config");
    assert_eq!(config["status"], "ok");
    assert_eq!(config["data"]["exists"], false);
    // The scrubbed environment's locale.
    let language = check(&report, "language");
    assert_eq!(language["data"]["source"], "LANG");
    assert_eq!(language["data"]["locale"], "en");
    // No agent CLI on PATH: the demo, said as a warning with the install line.
    let default = check(&report, "default_agent");
    assert_eq!(
        (&default["status"], &default["data"]["chosen"]),
        (&Value::from("warn"), &Value::from("demo"))
    );
    let claude = check(&report, "agent:claude");
    assert_eq!(claude["status"], "info");
    assert_eq!(claude["data"]["installed"], false);
    assert_eq!(
        claude["fix"],
        "npm install -g @agentclientprotocol/claude-agent-acp"
    );
    assert_eq!(check(&report, "agent:demo")["status"], "ok");

    // The same for people, in the language asked for.
    let out = d.run(&[]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("✓ tmux "), "{text}");
    assert!(text.trim_end().ends_with("No check failed."), "{text}");
    let german = d.command(&["--language", "de"]).output().unwrap();
    let text = String::from_utf8(german.stdout).unwrap();
    assert!(text.contains("Keine Prüfung ist fehlgeschlagen."), "{text}");
    // --json stays English whatever the language.
    let out = d.command(&["--language", "de", "--json"]).output().unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        check(&report, "agent:demo")["summary"]
            .as_str()
            .unwrap()
            .contains("works offline"),
        "{report:#}"
    );
}

#[test]
fn a_bad_config_fails_with_each_problem_at_its_line() {
    let d = Doctor::new();
    let file =
        d.config("language = \"xx\"\n[autofix]\nmode = \"always\"\n[execution]\ntimout_secs = 5\n");
    let (code, report) = d.json();
    assert_eq!(code, Some(1));
    assert_eq!(report["ok"], false);
    let config = check(&report, "config");
    assert_eq!(config["status"], "fail");
    let problems = config["data"]["problems"].as_array().unwrap();
    let at: Vec<(u64, &str, &str)> = problems
        .iter()
        .map(|p| {
            (
                p["line"].as_u64().unwrap(),
                p["key"].as_str().unwrap(),
                p["problem"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        at,
        [
            (1, "language", "unknown_language"),
            (3, "autofix.mode", "not_one_of"),
            (5, "execution.timout_secs", "unknown_key"),
        ]
    );
    assert!(
        problems[2]["message"]
            .as_str()
            .unwrap()
            .contains("did you mean `timeout_secs`?"),
        "{config:#}"
    );
    let path = file.to_str().unwrap();
    assert_eq!(config["fix"], format!("${{EDITOR:-vi}} +1 {path}"));
    // A language the file names but WTA does not speak is not used.
    assert_eq!(check(&report, "language")["data"]["source"], "LANG");

    let out = d.run(&[]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("✗ config"), "{text}");
    assert!(
        text.contains(&format!(
            "{path}:3: `mode` must be one of off, suggest, auto, not `always`"
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!("{path}:5: unknown key `timout_secs`")),
        "{text}"
    );
    assert!(text.contains("fix: ${EDITOR:-vi} +1"), "{text}");
    assert!(text.trim_end().ends_with("checks failed."), "{text}");

    // Not TOML at all: where, with line and column.
    d.config("[autofix\nmode = 1\n");
    let (code, report) = d.json();
    assert_eq!(code, Some(1));
    let problem = &check(&report, "config")["data"]["problems"][0];
    assert_eq!(
        (&problem["problem"], &problem["line"], &problem["column"]),
        (&Value::from("syntax"), &Value::from(1), &Value::from(9))
    );
}

#[test]
fn a_default_agent_that_cannot_start_fails_with_its_install_line() {
    let d = Doctor::new();
    d.config("default_agent = \"codex\"\n");
    let (code, report) = d.json();
    assert_eq!(code, Some(1));
    let default = check(&report, "default_agent");
    assert_eq!(default["status"], "fail");
    assert_eq!(default["fix"], "npm install -g @zed-industries/codex-acp");
    assert_eq!(default["data"]["chosen"], "demo");
    assert!(
        default["summary"]
            .as_str()
            .unwrap()
            .contains("not installed"),
        "{default:#}"
    );
}

#[test]
fn the_shell_check_reads_the_pane_it_runs_in() {
    let d = Doctor::new();
    // A plain bash: no integration. The fix is the rc line for bash.
    let plain = d.server.first_pane().to_owned();
    let (code, report) = d.json_in(&plain);
    assert_eq!(code, Some(1), "{report:#}");
    let shell = check(&report, "shell");
    assert_eq!(shell["status"], "fail");
    assert_eq!(shell["data"]["pane"], plain);
    assert_eq!(
        shell["fix"],
        "echo 'eval \"$(wta shell-integration bash)\"' >> ~/.bashrc"
    );

    // WTA's integration: present, a nonce (never shown), an inbox.
    let dir = tempfile::tempdir().unwrap();
    let gate = "wta-doctor-gate";
    let pane = support::integrated_bash_window(&d.server, dir.path(), gate);
    d.server.tmux(&["wait-for", "-S", gate]);
    wta_testkit::wait_until(
        "the shell announced itself",
        Duration::from_secs(10),
        || !d.server.display(&pane, "#{@wta_integration}").is_empty(),
    )
    .unwrap();
    let pid: u32 = d
        .server
        .display(&pane, "#{@wta_integration}")
        .split_whitespace()
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let nonce = d
        .server
        .tmux(&["show", "-pv", "-t", &pane, &format!("@wta_nonce_{pid}")]);
    let nonce = nonce.trim();
    assert_eq!(nonce.len(), 32);
    let out = d
        .command(&["--json"])
        .env("TMUX", d.server.tmux_env())
        .env("TMUX_PANE", &pane)
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(!stdout.contains(nonce), "the nonce is never printed");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    let shell = check(&report, "shell");
    assert_eq!(shell["status"], "ok", "{shell:#}");
    assert_eq!(
        (
            &shell["data"]["nonce"],
            &shell["data"]["inbox"],
            &shell["data"]["pid"]
        ),
        (&Value::from(true), &Value::from("ready"), &Value::from(pid))
    );
    assert_eq!(out.status.code(), Some(0), "{report:#}");
}
