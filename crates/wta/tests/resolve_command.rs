//! `wta resolve-command` against real bash, zsh and fish: aliases and
//! functions from rc files in a temp HOME, typos and their near matches,
//! scripts in the directory, a shell that hangs in its rc file, the JSON
//! shape and the exit statuses. Every run starts from the testkit's
//! scrubbed environment with an explicit HOME, PATH and SHELL (no SHELL at
//! all where a test says so).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use serde_json::Value;
use support::*;
use wta_testkit::{TmuxServer, wait_until};

/// A real shell, found on the test's own PATH.
fn program(name: &str) -> PathBuf {
    std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("{name} is not installed; these tests need bash, zsh and fish"))
}

fn make_executable(path: &Path) {
    std::fs::write(path, "#!/bin/sh\nexit 0\n").unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A temp HOME, a PATH holding only a few fake commands, a work directory.
struct Fixture {
    root: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Fixture {
        let root = tempfile::tempdir().unwrap();
        for dir in ["home", "bin", "work", "home/.config/fish"] {
            std::fs::create_dir_all(root.path().join(dir)).unwrap();
        }
        let f = Fixture { root };
        for name in ["git", "gitk", "python3", "ls"] {
            make_executable(&f.bin().join(name));
        }
        f
    }

    fn home(&self) -> PathBuf {
        self.root.path().join("home")
    }
    fn bin(&self) -> PathBuf {
        self.root.path().join("bin")
    }
    fn work(&self) -> PathBuf {
        self.root.path().join("work")
    }

    /// Puts the real `name` on the fixture's PATH.
    fn add_tool(&self, name: &str) {
        std::os::unix::fs::symlink(program(name), self.bin().join(name)).unwrap();
    }

    /// The rc file `shell` reads when interactive, under the temp HOME.
    fn rc(&self, shell: &str) -> PathBuf {
        match shell {
            "bash" => self.home().join(".bashrc"),
            "zsh" => self.home().join(".zshrc"),
            "fish" => self.home().join(".config/fish/config.fish"),
            other => panic!("{other}"),
        }
    }

    fn write_rc(&self, shell: &str, text: &str) {
        std::fs::write(self.rc(shell), text).unwrap();
    }

    /// The usual rc file: an alias `gs` and a function `greet`.
    fn write_usual_rc(&self, shell: &str) {
        let text = match shell {
            "fish" => "alias gs='git status'\nfunction greet\n  echo hi\nend\n",
            _ => "alias gs='git status'\ngreet() { echo hi; }\n",
        };
        self.write_rc(shell, text);
    }

    fn command(&self, shell: Option<&Path>, args: &[&str]) -> Command {
        let mut cmd = wta_testkit::env::clean(wta_bin());
        cmd.env("HOME", self.home())
            .env("PATH", self.bin())
            .current_dir(self.work())
            .args(["resolve-command"])
            .args(args);
        match shell {
            Some(shell) => cmd.env("SHELL", shell),
            None => cmd.env_remove("SHELL"),
        };
        cmd
    }

    fn run(&self, shell: &str, args: &[&str]) -> Output {
        self.command(Some(&program(shell)), args).output().unwrap()
    }

    fn json(&self, shell: &str, name: &str) -> (Option<i32>, Value) {
        let out = self.run(shell, &["--json", name]);
        let text = String::from_utf8(out.stdout).unwrap();
        let value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {text}\n{}", stderr(&out.stderr)));
        (out.status.code(), value)
    }
}

fn stderr(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn source<'a>(value: &'a Value, which: &str) -> &'a Value {
    value["sources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["source"] == which)
        .unwrap_or_else(|| panic!("no {which} source: {value:#}"))
}

fn near(value: &Value) -> Vec<String> {
    value["near_matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap().to_owned())
        .collect()
}

const SHELLS: [&str; 3] = ["bash", "zsh", "fish"];

#[test]
fn an_alias_and_a_function_from_the_rc_file_exist() {
    for shell in SHELLS {
        let f = Fixture::new();
        f.write_usual_rc(shell);
        let (code, alias) = f.json(shell, "gs");
        assert_eq!(code, Some(0), "{shell}: {alias:#}");
        assert_eq!(alias["verdict"], "exists", "{shell}");
        let sh = source(&alias, "shell");
        assert_eq!(sh["status"], "checked", "{shell}: {sh:#}");
        assert_eq!(sh["shell"], shell);
        assert_eq!(
            sh["found"][0],
            serde_json::json!({"kind": "alias", "value": "git status"}),
            "{shell}"
        );
        assert_eq!(source(&alias, "path")["found"], serde_json::json!([]));

        let (code, function) = f.json(shell, "greet");
        assert_eq!(code, Some(0), "{shell}: {function:#}");
        let found = &source(&function, "shell")["found"][0];
        assert_eq!(found["kind"], "function", "{shell}: {function:#}");
        assert_eq!(
            found["defined_in"],
            f.rc(shell).to_string_lossy().as_ref(),
            "{shell}"
        );

        let text = String::from_utf8(f.run(shell, &["gs"]).stdout).unwrap();
        assert!(text.starts_with("gs: exists\n"), "{shell}: {text}");
        assert!(text.contains("alias for `git status`"), "{shell}: {text}");
    }
}

#[test]
fn builtins_and_files_as_the_shell_resolves_them() {
    for shell in SHELLS {
        let f = Fixture::new();
        f.write_usual_rc(shell);
        let (code, cd) = f.json(shell, "cd");
        assert_eq!(code, Some(0));
        let kinds: Vec<&str> = source(&cd, "shell")["found"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k["kind"].as_str().unwrap())
            .collect();
        assert!(kinds.contains(&"builtin"), "{shell}: {cd:#}");
        let (code, git) = f.json(shell, "git");
        assert_eq!(code, Some(0));
        let git_path = f.bin().join("git").to_string_lossy().into_owned();
        let file = serde_json::json!({"kind": "file", "path": git_path});
        assert_eq!(
            source(&git, "shell")["found"],
            serde_json::json!([file]),
            "{shell}"
        );
        assert_eq!(
            source(&git, "path")["found"],
            serde_json::json!([file]),
            "{shell}"
        );
    }
}

#[test]
fn a_typo_is_not_found_with_the_near_match() {
    for shell in SHELLS {
        let f = Fixture::new();
        f.write_usual_rc(shell);
        let (code, gti) = f.json(shell, "gti");
        assert_eq!(code, Some(1), "{shell}: {gti:#}");
        assert_eq!(gti["verdict"], "not_found");
        assert_eq!(source(&gti, "shell")["status"], "checked");
        assert_eq!(
            near(&gti).first().map(String::as_str),
            Some("git"),
            "{shell}: {gti:#}"
        );
        let (code, py) = f.json(shell, "pyhton3");
        assert_eq!(code, Some(1));
        assert_eq!(
            near(&py).first().map(String::as_str),
            Some("python3"),
            "{shell}"
        );
        let (_, sl) = f.json(shell, "sl");
        assert_eq!(
            near(&sl).first().map(String::as_str),
            Some("ls"),
            "{shell}: {sl:#}"
        );
        // A typo of an rc-file alias is offered the alias.
        let (_, gss) = f.json(shell, "gss");
        assert!(near(&gss).contains(&"gs".to_owned()), "{shell}: {gss:#}");

        let out = f.run(shell, &["gti"]);
        assert_eq!(out.status.code(), Some(1));
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.starts_with("gti: not found\n"), "{shell}: {text}");
        assert!(text.trim_end().ends_with("?"), "{text}");
        assert!(text.contains("did you mean: git"), "{shell}: {text}");
    }
}

#[test]
fn a_script_in_the_directory_is_found() {
    let f = Fixture::new();
    f.write_usual_rc("bash");
    make_executable(&f.work().join("build.sh"));
    std::fs::create_dir(f.work().join("tools")).unwrap();
    make_executable(&f.work().join("tools/lint"));
    let script = f.work().join("build.sh").to_string_lossy().into_owned();

    let (code, bare) = f.json("bash", "build.sh");
    assert_eq!(code, Some(0), "{bare:#}");
    assert_eq!(
        source(&bare, "cwd")["found"],
        serde_json::json!([{"kind": "file", "path": script}])
    );
    assert_eq!(source(&bare, "shell")["found"], serde_json::json!([]));
    let text = String::from_utf8(f.run("bash", &["build.sh"]).stdout).unwrap();
    assert!(
        text.starts_with("build.sh: exists in the directory only: run it as ./build.sh\n"),
        "{text}"
    );

    let (code, dotted) = f.json("bash", "./build.sh");
    assert_eq!(code, Some(0));
    assert_eq!(source(&dotted, "cwd")["found"].as_array().unwrap().len(), 1);
    assert_eq!(source(&dotted, "path")["status"], "skipped");
    let (code, nested) = f.json("bash", "tools/lint");
    assert_eq!(code, Some(0), "{nested:#}");

    let (code, missing) = f.json("bash", "./nope.sh");
    assert_eq!(code, Some(1), "{missing:#}");
    assert_eq!(missing["verdict"], "not_found");

    // --cwd names another directory: the script is not there.
    let (code, elsewhere) = {
        let out = f
            .command(
                Some(&program("bash")),
                &["--json", "--cwd", &f.home().to_string_lossy(), "build.sh"],
            )
            .output()
            .unwrap();
        (
            out.status.code(),
            serde_json::from_slice::<Value>(&out.stdout).unwrap(),
        )
    };
    assert_eq!(code, Some(1), "{elsewhere:#}");
    assert_eq!(
        source(&elsewhere, "cwd")["dir"],
        f.home().to_string_lossy().as_ref()
    );
}

#[test]
fn a_shell_that_hangs_in_its_rc_file_is_stopped_within_the_timeout() {
    for shell in SHELLS {
        let f = Fixture::new();
        let pid_file = f.root.path().join("sleep.pid");
        let pid_file = pid_file.to_string_lossy();
        let rc = match shell {
            "fish" => format!("sleep 100 &\necho $last_pid > '{pid_file}'\nwait\n"),
            _ => format!("sleep 100 &\necho $! > '{pid_file}'\nwait\n"),
        };
        f.write_rc(shell, &rc);
        f.add_tool("sleep");
        let started = Instant::now();
        let (code, gti) = f.json(shell, "gti");
        let took = started.elapsed();
        assert_eq!(code, Some(3), "{shell}: {gti:#}");
        assert_eq!(gti["verdict"], "indeterminate");
        let sh = source(&gti, "shell");
        assert_eq!(sh["status"], "unavailable", "{shell}");
        assert!(
            sh["reason"]
                .as_str()
                .unwrap()
                .contains("did not answer within 3 s"),
            "{shell}: {sh:#}"
        );
        assert_eq!(near(&gti).first().map(String::as_str), Some("git"));
        // Stopped at the 3 s answer deadline, long before the rc file's
        // `sleep 100`: loose enough for any load, not a performance claim.
        assert!(
            took >= Duration::from_secs(3) && took < Duration::from_secs(60),
            "{shell} took {took:?}"
        );

        // What the rc file left running was stopped with it.
        let pid: i32 = std::fs::read_to_string(&*pid_file)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        wait_until(
            "the rc file's sleep to end",
            Duration::from_secs(10),
            || !wta_testkit::procs::running(pid),
        )
        .unwrap();

        // PATH still answers, with a shorter limit.
        let out = f.run(shell, &["--json", "--shell-timeout", "0.5", "git"]);
        assert_eq!(out.status.code(), Some(0), "{shell}");
        let git: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(git["verdict"], "exists");
        assert!(
            source(&git, "shell")["reason"]
                .as_str()
                .unwrap()
                .contains("within 0.5 s")
        );
    }
}

#[test]
fn a_shell_that_exits_in_its_rc_file_or_cannot_be_asked_is_indeterminate() {
    let f = Fixture::new();
    f.write_rc("bash", "echo 'rc is broken' >&2\nexit 4\n");
    let (code, exited) = f.json("bash", "gti");
    assert_eq!(code, Some(3), "{exited:#}");
    let reason = source(&exited, "shell")["reason"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(reason.contains("exit status 4"), "{reason}");

    let sh = f
        .command(Some(Path::new("/bin/sh")), &["--json", "gti"])
        .output()
        .unwrap();
    assert_eq!(sh.status.code(), Some(3));
    let sh: Value = serde_json::from_slice(&sh.stdout).unwrap();
    assert_eq!(source(&sh, "shell")["status"], "unavailable");
    assert_eq!(source(&sh, "shell")["shell"], Value::Null);

    let none = f.command(None, &["--json", "gti"]).output().unwrap();
    assert_eq!(none.status.code(), Some(3));
    let none: Value = serde_json::from_slice(&none.stdout).unwrap();
    assert_eq!(source(&none, "shell")["program"], Value::Null);
    // Found on PATH, the verdict needs no shell.
    let git = f.command(None, &["git"]).output().unwrap();
    assert_eq!(git.status.code(), Some(0));

    // --shell names the shell to ask instead of $SHELL.
    f.write_usual_rc("zsh");
    let zsh = program("zsh");
    let asked = f
        .command(None, &["--json", "--shell", &zsh.to_string_lossy(), "gs"])
        .output()
        .unwrap();
    assert_eq!(asked.status.code(), Some(0), "{}", stderr(&asked.stderr));
}

/// The JSON shape, with the temp paths replaced.
#[test]
fn json_shape_is_stable() {
    let f = Fixture::new();
    f.write_usual_rc("bash");
    let bash = program("bash");
    let golden = |name: &str| {
        let out = f.run("bash", &["--json", name]);
        let text = String::from_utf8(out.stdout)
            .unwrap()
            .replace(&*f.root.path().to_string_lossy(), "<root>")
            .replace(&*bash.to_string_lossy(), "<bash>");
        serde_json::from_str::<Value>(&text).unwrap()
    };
    assert_golden("resolve-command-not-found", &golden("gti"));
    assert_golden("resolve-command-alias", &golden("gs"));
}

#[test]
fn bad_names_are_usage_errors_and_help_teaches_the_verdicts() {
    let f = Fixture::new();
    for bad in ["", "a\nb"] {
        let out = f.run("bash", &[bad]);
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
        assert!(out.stdout.is_empty());
        assert!(
            stderr(&out.stderr).contains("is not a command name"),
            "{}",
            stderr(&out.stderr)
        );
    }
    let missing_dir = f.run("bash", &["--cwd", "/no/such/dir", "ls"]);
    assert_eq!(missing_dir.status.code(), Some(2));
    assert!(stderr(&missing_dir.stderr).contains("/no/such/dir is not a directory"));
    for bad in ["0", "-1", "NaN", "x"] {
        let out = f.run("bash", &["--shell-timeout", bad, "ls"]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
    }

    let help = f.run("bash", &["--help"]);
    assert!(help.status.success());
    let help = String::from_utf8(help.stdout).unwrap();
    for needle in [
        "exists         0",
        "not_found      1",
        "indeterminate  3",
        "did you mean: git?",
        "--shell-timeout",
        "--cwd",
    ] {
        assert!(help.contains(needle), "{needle:?} missing:\n{help}");
    }
    let top = wta_testkit::Sandbox::new()
        .command(wta_bin())
        .arg("--help")
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&top.stdout).contains("resolve-command"));
}

/// In a real terminal (a tmux pane): the shell is asked without taking the
/// terminal, and an integration script in its rc file does not mark the pane.
#[test]
fn inside_a_tmux_pane_the_shell_leaves_the_terminal_and_the_pane_alone() {
    let f = Fixture::new();
    let script = wta_testkit::Sandbox::new()
        .command(wta_bin())
        .args(["shell-integration", "bash"])
        .output()
        .unwrap()
        .stdout;
    let mut rc = b"alias gs='git status'\n".to_vec();
    rc.extend_from_slice(&script);
    std::fs::write(f.rc("bash"), rc).unwrap();
    // The integration script marks the pane through tmux when it can.
    let tmux_dir = f.root.path().join("tmux-bin");
    std::fs::create_dir(&tmux_dir).unwrap();
    std::os::unix::fs::symlink(program("tmux"), tmux_dir.join("tmux")).unwrap();

    let server = TmuxServer::start();
    let out = f.root.path().join("out.json");
    let quote = |p: &Path| format!("'{}'", p.display());
    let command = format!(
        "exec env HOME={} PATH={}:{} SHELL={} {} resolve-command --json gs > {}",
        quote(&f.home()),
        f.bin().display(),
        tmux_dir.display(),
        quote(&program("bash")),
        quote(Path::new(wta_bin())),
        quote(&out),
    );
    let pane = server.new_window_in(&f.work(), &command);
    let status = server.wait_dead(&pane, Duration::from_secs(20));
    assert_eq!(status, "0", "screen:\n{}", server.capture(&pane));
    let value: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(source(&value, "shell")["status"], "checked", "{value:#}");
    assert_eq!(source(&value, "shell")["found"][0]["kind"], "alias");
    assert_eq!(server.display(&pane, "#{@wta_integration}"), "");
}

/// A pane whose followed shell is remote (a `wta ssh` session: its watcher
/// names the host in `@wta_remote_shell`) gets `indeterminate` with the
/// reason, exit 3, whether it is named with `-t` or is the caller's pane;
/// the same pane with its local shell again gets this machine's answer; a
/// pane named with `-t` that is not there is an error.
#[test]
fn a_pane_whose_shell_is_remote_is_indeterminate_with_the_reason() {
    let f = Fixture::new();
    let server = TmuxServer::start();
    let pane = server.first_pane().to_owned();
    let place = r#"{"host":"me@lab","cwd":"/srv"}"#;
    server.tmux(&["set-option", "-p", "-t", &pane, "@wta_remote_shell", place]);
    let socket = server.socket().to_string_lossy().into_owned();
    let ask = |target: &str| {
        let out = wta_testkit::env::clean(wta_bin())
            .env("HOME", f.home())
            .env("PATH", f.bin())
            .env("SHELL", program("bash"))
            .current_dir(f.work())
            .args([
                "-S",
                &socket,
                "resolve-command",
                "--json",
                "-t",
                target,
                "ls",
            ])
            .output()
            .unwrap();
        let value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
        (out.status.code(), value)
    };
    let check_remote = |code: Option<i32>, value: &Value| {
        assert_eq!(code, Some(3), "{value:#}");
        assert_eq!(value["verdict"], "indeterminate", "{value:#}");
        let shell = source(value, "shell");
        assert_eq!(shell["status"], "skipped", "{value:#}");
        let reason = shell["reason"].as_str().unwrap();
        assert!(
            reason.contains("me@lab") && reason.contains("wta ssh"),
            "{value:#}"
        );
        assert_eq!(value["sources"].as_array().unwrap().len(), 1, "{value:#}");
    };
    let (code, value) = ask(&pane);
    check_remote(code, &value);

    // The caller's pane: a command run in a pane whose shell is remote.
    let out = f.root.path().join("caller.json");
    let command = format!(
        "'{}' wait-for wta-go; exec env HOME='{}' PATH={} SHELL='{}' '{}' resolve-command --json ls > '{}'",
        program("tmux").display(),
        f.home().display(),
        f.bin().display(),
        program("bash").display(),
        wta_bin(),
        out.display(),
    );
    let caller = server.new_window_in(&f.work(), &command);
    server.tmux(&[
        "set-option",
        "-p",
        "-t",
        &caller,
        "@wta_remote_shell",
        place,
    ]);
    server.tmux(&["wait-for", "-S", "wta-go"]);
    let status = server.wait_dead(&caller, Duration::from_secs(20));
    let value: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    check_remote(status.parse().ok(), &value);

    // Back to the local shell: this machine's answer.
    server.tmux(&["set-option", "-p", "-u", "-t", &pane, "@wta_remote_shell"]);
    let (code, value) = ask(&pane);
    assert_eq!(
        (code, &value["verdict"]),
        (Some(0), &Value::from("exists")),
        "{value:#}"
    );
    // A pane that is not there is an error, not a local answer.
    let (code, value) = ask("%999");
    assert!(code != Some(0) && code != Some(3), "{code:?} {value:#}");
}
