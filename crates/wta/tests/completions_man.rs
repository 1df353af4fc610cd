//! `wta completions bash|zsh|fish` and `wta man` against real shells, groff
//! and a private tmux server: the scripts load without error, a completion
//! asked the way each shell asks returns the server's live ids, and the
//! manual is valid roff with a page for every command.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::path::{Path, PathBuf};
use std::process::Output;

use support::{commands, wta_bin};
use wta_testkit::TmuxServer;

/// A temp HOME and the completion script for `shell` written into it.
struct Shell {
    home: tempfile::TempDir,
    script: PathBuf,
}

impl Shell {
    fn new(shell: &str) -> Self {
        let home = tempfile::tempdir().unwrap();
        let out = wta_testkit::Sandbox::in_dir(home.path())
            .command(wta_bin())
            .args(["completions", shell])
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        assert!(out.stderr.is_empty(), "{out:?}");
        let script = home.path().join(format!("wta.{shell}"));
        std::fs::write(&script, &out.stdout).unwrap();
        Self { home, script }
    }

    /// `program args…` with this HOME, no user config, and the built `wta`
    /// first on PATH (the scripts call `wta` by name).
    fn run(&self, program: &str, args: &[&str]) -> Output {
        let bin_dir = Path::new(wta_bin()).parent().unwrap();
        wta_testkit::Sandbox::in_dir(self.home.path())
            .command(program)
            .args(args)
            .env("HOME", self.home.path())
            .env("XDG_CONFIG_HOME", self.home.path().join("config"))
            .env("XDG_DATA_HOME", self.home.path().join("data"))
            .env("PATH", format!("{}:/usr/bin:/bin", bin_dir.display()))
            .output()
            .unwrap()
    }

    fn script(&self) -> &str {
        self.script.to_str().unwrap()
    }
}

fn text(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_scripts_load_in_real_bash_zsh_and_fish() {
    let bash = Shell::new("bash");
    let out = bash.run(
        "bash",
        &[
            "--norc",
            "--noprofile",
            "-c",
            r#"set -e; source "$1"; complete -p wta"#,
            "bash",
            bash.script(),
        ],
    );
    let (stdout, stderr) = text(&out);
    assert!(out.status.success() && stderr.is_empty(), "{stderr}");
    assert!(stdout.contains("-F _clap_complete_wta wta"), "{stdout}");

    let zsh = Shell::new("zsh");
    let out = zsh.run(
        "zsh",
        &[
            "-f",
            "-c",
            r#"autoload -U compinit && compinit -u -D && source "$1" && print -r -- ${_comps[wta]}"#,
            "zsh",
            zsh.script(),
        ],
    );
    let (stdout, stderr) = text(&out);
    assert!(out.status.success() && stderr.is_empty(), "{stderr}");
    assert_eq!(stdout.trim(), "_clap_dynamic_completer_wta");

    let fish = Shell::new("fish");
    let out = fish.run(
        "fish",
        &[
            "--no-config",
            "-c",
            "source $argv[1]; and complete -c wta",
            fish.script(),
        ],
    );
    let (stdout, stderr) = text(&out);
    assert!(out.status.success() && stderr.is_empty(), "{stderr}");
    assert!(stdout.contains("WTA_COMPLETE=fish wta"), "{stdout}");
}

/// Lines of `out`'s stdout up to the first tab (fish and zsh add a description).
fn values(out: &Output) -> Vec<String> {
    let (stdout, stderr) = text(out);
    assert!(out.status.success(), "{stderr}");
    stdout
        .lines()
        .map(|l| l.split(['\t', ':']).next().unwrap_or_default().to_owned())
        .filter(|l| !l.is_empty())
        .collect()
}

#[test]
fn completion_queries_return_the_live_ids_of_the_named_server() {
    let server = TmuxServer::start();
    let second = server.new_window("sleep 600");
    let mut panes = vec![server.first_pane().to_owned(), second.clone()];
    panes.sort();
    let name = server.name();

    // bash: the registered function, called the way bash calls it.
    let bash = Shell::new("bash");
    let query = |words: &str, current: &str| {
        let body = format!(
            r#"source "$1"; COMP_WORDS=({words} "{current}"); COMP_CWORD=$(( ${{#COMP_WORDS[@]}} - 1 )); _clap_complete_wta wta "{current}" x; printf '%s\n' "${{COMPREPLY[@]}}""#
        );
        let out = bash.run(
            "bash",
            &["--norc", "--noprofile", "-c", &body, "bash", bash.script()],
        );
        let mut got = values(&out);
        got.sort();
        got
    };
    assert_eq!(query(&format!("wta -L {name} kill-pane -t"), ""), panes);
    assert_eq!(
        query(&format!("wta -L {name} capture-pane -t"), &second),
        vec![second.clone()]
    );
    let tabs = query(&format!("wta -L {name} list-panes -t"), "");
    for want in ["@0", "@1", "shell"] {
        assert!(tabs.iter().any(|t| t == want), "{want} not in {tabs:?}");
    }
    assert_eq!(query(&format!("wta -L {name} new-tab -w"), "ma"), ["main"]);
    assert_eq!(query(&format!("wta -L {name} pane toggle -t"), ""), panes);

    // fish: its own completion engine, through the loaded script.
    let fish = Shell::new("fish");
    let out = fish.run(
        "fish",
        &[
            "--no-config",
            "-c",
            &format!("source $argv[1]; and complete -C 'wta -L {name} wait-for -t '"),
            fish.script(),
        ],
    );
    let mut got = values(&out);
    got.sort();
    assert_eq!(got, panes, "{:?}", text(&out));

    // zsh: the request its script sends (index of the current word, words).
    let out = server
        .sandbox()
        .command(wta_bin())
        .env("WTA_COMPLETE", "zsh")
        .env("_CLAP_COMPLETE_INDEX", "5")
        .env("_CLAP_IFS", "\n")
        .args(["--", "wta", "-L", name, "listen", "-t", ""])
        .output()
        .unwrap();
    let mut got = values(&out);
    got.sort();
    assert_eq!(got, panes, "{:?}", text(&out));

    // No server: no candidates and no error on the prompt.
    let none = query("wta -L wta-test-no-such-server kill-pane -t", "");
    assert!(none.is_empty(), "{none:?}");
}

#[test]
fn the_manual_is_valid_roff_with_a_page_for_every_command() {
    let out = wta_testkit::Sandbox::new()
        .command(wta_bin())
        .arg("man")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let roff = String::from_utf8(out.stdout).unwrap();
    assert!(roff.is_ascii());
    let commands = commands();
    assert!(commands.len() >= 20, "{commands:?}");
    for cmd in &commands {
        assert!(
            roff.contains(&format!(".TH wta-{cmd} 1 ")),
            "no page for {cmd}"
        );
    }
    assert!(roff.contains(".TH wta-sessions-list 1 "));
    assert!(!roff.contains("connect-master") && !roff.contains("pipe-sink"));
    // groff: no warning of any kind, and it renders every page.
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("wta.1");
    std::fs::write(&page, &roff).unwrap();
    let lint = wta_testkit::env::clean("groff")
        .args(["-man", "-Tutf8", "-ww", "-z"])
        .arg(&page)
        .output()
        .expect("groff (apt-get install groff-base) validates the manual");
    assert!(
        lint.status.success() && lint.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&lint.stderr)
    );
    let shown = wta_testkit::env::clean("groff")
        .args(["-man", "-Tutf8"])
        .arg(&page)
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&shown.stdout);
    assert!(shown.contains("wta-list-panes - List panes"), "{shown}");
}
