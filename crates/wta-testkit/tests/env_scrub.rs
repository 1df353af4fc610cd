//! The runner's environment never reaches a test pane or a command a test
//! starts (`wta_testkit::env`): this binary runs a copy of itself as the
//! probe, with `WTA_CLI_PATH` and friends, `TMUX`, a locale, a HOME and a
//! PATH holding a `wta` set, as a run from inside a WTA session would have
//! them. The probe starts a private tmux server, has a pane print its
//! environment, starts `env` through the scrub, and writes what each saw;
//! this side checks that none of it leaked. `harness = false`: the probe is
//! a role picked by its arguments, not a test.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use wta_testkit::{Sandbox, TmuxServer, wait_until};

/// The probe's first argument; the second is the dir it writes to.
const PROBE: &str = "--env-probe";
/// In every value the runner leaks, so a leak shows wherever it lands.
const LEAK: &str = "wta-leak-probe";

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let [_, flag, out] = args.as_slice()
        && flag == PROBE
    {
        return probe(Path::new(out));
    }
    wta_testkit::harness::run(&[(
        "the_runners_environment_never_reaches_a_pane_or_a_command",
        the_runners_environment_never_reaches_a_pane_or_a_command,
    )]);
}

/// Writes `runner` (its own environment), `pane` (a pane's), `socket` (the
/// server's) and `command` (a scrubbed command's) into `out`.
fn probe(out: &Path) {
    let runner: String = std::env::vars()
        .map(|(k, v)| format!("{k}={v}\n"))
        .collect();
    std::fs::write(out.join("runner"), runner).unwrap();
    let server = TmuxServer::start();
    let pane_env = out.join("pane");
    server.new_window(&format!(
        "env > '{0}.part' && mv '{0}.part' '{0}'",
        pane_env.display()
    ));
    wait_until("the pane's env", Duration::from_secs(20), || {
        pane_env.exists()
    })
    .unwrap();
    std::fs::write(
        out.join("socket"),
        server.socket().to_string_lossy().as_bytes(),
    )
    .unwrap();
    let direct = Sandbox::new().command("env").output().unwrap();
    std::fs::write(out.join("command"), direct.stdout).unwrap();
}

fn the_runners_environment_never_reaches_a_pane_or_a_command() {
    let out = tempfile::tempdir().unwrap();
    // A runner inside a WTA session has wta's own dir first in PATH.
    let wta_dir: PathBuf = out.path().join(format!("{LEAK}-bin"));
    std::fs::create_dir(&wta_dir).unwrap();
    std::fs::write(wta_dir.join("wta"), "").unwrap();
    let inherited = std::env::var_os("PATH").unwrap_or_default();
    let path =
        std::env::join_paths(std::iter::once(wta_dir).chain(std::env::split_paths(&inherited)))
            .unwrap();
    // unscrubbed: the probe must start in the leaky environment it proves
    // the scrub against (the variables set here over the runner's).
    let status = Command::new(std::env::current_exe().unwrap())
        .arg(PROBE)
        .arg(out.path())
        .env("PATH", path)
        .env("WTA_CLI_PATH", format!("/{LEAK}/wta"))
        .env("WTA_RUNTIME_DIR", format!("/{LEAK}/runtime"))
        .env("WTA_LOG", format!("{LEAK}=trace"))
        .env("TMUX", format!("/tmp/{LEAK}/default,1,0"))
        .env("TMUX_PANE", "%99")
        .env("TMUX_TMPDIR", format!("/tmp/{LEAK}"))
        .env("LC_ALL", "de_DE.UTF-8")
        .env("LANG", "de_DE.UTF-8")
        .env("HOME", format!("/{LEAK}/home"))
        .env("XDG_CONFIG_HOME", format!("/{LEAK}/config"))
        .env("XDG_RUNTIME_DIR", format!("/{LEAK}/run"))
        .status()
        .unwrap();
    assert!(status.success(), "the probe failed: {status}");
    let read = |name: &str| std::fs::read_to_string(out.path().join(name)).unwrap();
    // The probe really ran in the leaky environment.
    let runner = read("runner");
    assert!(
        runner.contains(&format!("WTA_CLI_PATH=/{LEAK}/wta")),
        "{runner}"
    );
    let socket = read("socket");
    for (what, seen) in [("a pane", read("pane")), ("a command", read("command"))] {
        let var = |name: &str| {
            seen.lines()
                .find_map(|l| l.strip_prefix(name)?.strip_prefix('='))
                .map(str::to_owned)
        };
        assert!(!seen.contains(LEAK), "{what} got the runner's env:\n{seen}");
        for line in seen.lines() {
            let name = line.split('=').next().unwrap_or_default();
            assert!(
                !name.starts_with("WTA_") && !name.starts_with("LC_"),
                "{what} got {line}"
            );
        }
        assert_eq!(
            var("LANG").as_deref(),
            Some(wta_testkit::env::LANG),
            "{what}"
        );
        assert_eq!(var("TMUX_TMPDIR"), None, "{what}");
        let home = var("HOME").unwrap_or_default();
        assert!(
            home.contains("wta-test-env-"),
            "{what}: a private HOME, not {home}"
        );
        if what == "a pane" {
            // tmux's own, for this server and this pane.
            let tmux = var("TMUX").unwrap_or_default();
            assert!(tmux.starts_with(&socket), "{what}: TMUX={tmux}");
            assert!(var("TMUX_PANE").is_some_and(|p| p != "%99"), "{seen}");
        } else {
            assert_eq!((var("TMUX"), var("TMUX_PANE")), (None, None), "{what}");
        }
    }
}
