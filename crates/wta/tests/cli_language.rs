//! The `wta` binary speaks the chosen language: `--language`, the config's
//! `language` and `LANG` pick it; what commands print for people and the
//! errors they give come from `locales/cli` (German text and the bracketed
//! pseudo-locale show up, so text that bypassed translation fails here),
//! while `--json` output is byte-identical in every language.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::path::PathBuf;
use std::process::{Command, Output};

use wta_testkit::TmuxServer;

/// An isolated user (see `support::User`): no tmux, no locale variables.
struct Env {
    user: support::User,
}

impl Env {
    fn new() -> Self {
        Self {
            user: support::User::new(&[]),
        }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.user.path(rel)
    }

    fn command(&self) -> Command {
        self.user.command()
    }

    fn wta(&self, args: &[&str]) -> Output {
        self.command().args(args).output().unwrap()
    }

    /// `wta --language TAG args…`.
    fn wta_in(&self, tag: &str, args: &[&str]) -> Output {
        self.command()
            .arg("--language")
            .arg(tag)
            .args(args)
            .output()
            .unwrap()
    }
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `key`'s German text with `args` filled in (from the shipped locale file).
fn de(key: &str, args: &[(&str, &str)]) -> String {
    fill(wta_i18n::tr_in("de", key), args)
}

/// `key`'s English text with `args` filled in.
fn en(key: &str, args: &[(&str, &str)]) -> String {
    fill(wta_i18n::tr_in("en", key), args)
}

/// `key`'s pseudo-locale text with `args` filled in, as the binary makes it.
fn pseudo_of(key: &str, args: &[(&str, &str)]) -> String {
    // Process-wide, but every other helper here names its locale.
    wta_i18n::set_language(wta_i18n::PSEUDO);
    let text = wta_i18n::tr(key, args);
    assert!(text.starts_with('['), "{text}");
    text
}

fn fill(mut text: String, args: &[(&str, &str)]) -> String {
    assert!(!text.is_empty());
    for (name, value) in args {
        text = text.replace(&format!("%{{{name}}}"), value);
    }
    text
}

#[test]
fn bare_wta_says_what_to_run_in_the_chosen_language() {
    let env = Env::new();
    let english = en("cli.no_command", &[]);
    let german = de("cli.no_command", &[]);
    assert_ne!(english, german);
    assert!(german.contains("`wta up`") && german.contains("`wta --help`"));

    let out = env.wta(&[]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stderr(&out), format!("wta: {english}\n"));

    let out = env.wta_in("de", &[]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stderr(&out), format!("wta: {german}\n"));

    let out = env.wta_in("pseudo", &[]);
    assert_eq!(
        stderr(&out),
        format!("wta: {}\n", pseudo_of("cli.no_command", &[]))
    );
}

#[test]
fn the_environment_and_the_config_choose_too_and_an_unknown_tag_is_english() {
    let env = Env::new();
    let german = format!("wta: {}\n", de("cli.no_command", &[]));
    let english = format!("wta: {}\n", en("cli.no_command", &[]));

    let out = env.command().env("LANG", "de_DE.UTF-8").output().unwrap();
    assert_eq!(stderr(&out), german, "LANG");
    let out = env
        .command()
        .env("LANG", "de_DE.UTF-8")
        .args(["--language", "tlh"])
        .output()
        .unwrap();
    assert_eq!(stderr(&out), english, "an unknown --language is English");

    std::fs::create_dir_all(env.path("config/wta")).unwrap();
    std::fs::write(env.path("config/wta/config.toml"), "language = \"de\"\n").unwrap();
    assert_eq!(stderr(&env.wta(&[])), german, "the config's language");
    assert_eq!(
        stderr(&env.wta_in("en", &[])),
        english,
        "--language wins over the config"
    );
}

#[test]
fn hooks_status_and_install_speak_german_while_json_stays_english() {
    let env = Env::new();

    let table = env.wta_in("de", &["hooks", "status"]);
    assert!(table.status.success(), "{}", stderr(&table));
    let text = stdout(&table);
    let header = text.lines().next().unwrap();
    for key in ["cli.col.found", "cli.col.installed", "cli.col.detail"] {
        assert!(header.contains(&de(key, &[])), "{key}: {text}");
    }
    assert!(!header.contains("FOUND"), "{text}");
    assert!(
        text.contains(&de("cli.hooks.not_on_path", &[("cli", "claude")])),
        "{text}"
    );
    assert!(text.contains(&de("cli.answer_no", &[])), "{text}");

    let pseudo = stdout(&env.wta_in("pseudo", &["hooks", "status"]));
    assert!(
        pseudo.contains(&pseudo_of("cli.hooks.not_on_path", &[("cli", "claude")])),
        "{pseudo}"
    );
    assert!(pseudo.contains(&wta_i18n::pseudo("FOUND")), "{pseudo}");

    // A CLI named but missing: exit 1 and the reason in German on stderr.
    let failed = env.wta_in("de", &["hooks", "install", "--cli", "gemini"]);
    assert_eq!(failed.status.code(), Some(1));
    let german = de("cli.hooks.install_not_on_path", &[("cli", "gemini")]);
    assert!(
        stderr(&failed).contains(&format!("wta: gemini: {german}")),
        "{}",
        stderr(&failed)
    );
    assert!(stdout(&failed).contains(&german), "{}", stdout(&failed));

    for args in [
        &["hooks", "status", "--json"][..],
        &["hooks", "install", "--cli", "gemini", "--json"],
        &["hooks", "uninstall", "--cli", "codex", "--json"],
    ] {
        let english = stdout(&env.wta(args));
        assert!(english.starts_with('{'), "{args:?}: {english}");
        for tag in ["de", "ja", "pseudo"] {
            assert_eq!(
                stdout(&env.wta_in(tag, args)),
                english,
                "{args:?} --json in {tag}"
            );
        }
    }
    let report = stdout(&env.wta_in("de", &["hooks", "install", "--cli", "gemini", "--json"]));
    assert!(
        report.contains(&en("cli.hooks.install_not_on_path", &[("cli", "gemini")])),
        "the JSON error stays English: {report}"
    );
}

#[test]
fn tmux_commands_print_tables_confirmations_and_errors_in_german() {
    let env = Env::new();
    let server = TmuxServer::start();
    let pane = server.first_pane().to_owned();
    let named = |tag: Option<&str>, args: &[&str]| -> Output {
        let mut c = env.command();
        c.env("PATH", std::env::var_os("PATH").unwrap_or_default());
        if let Some(tag) = tag {
            c.args(["--language", tag]);
        }
        c.arg("-S")
            .arg(server.socket())
            .args(args)
            .output()
            .unwrap()
    };

    let windows = named(Some("de"), &["list-windows"]);
    assert!(windows.status.success(), "{}", stderr(&windows));
    let header = stdout(&windows).lines().next().unwrap().to_owned();
    assert!(header.contains(&de("cli.col.attached", &[])), "{header}");
    assert!(header.contains(&de("cli.col.name", &[])), "{header}");

    let status = named(Some("de"), &["pane-status", "-t", &pane]);
    assert!(status.status.success(), "{}", stderr(&status));
    let said = stdout(&status);
    let running = de("cli.pane.running", &[("pane", &pane)]);
    let before_command = running.split("%{command}").next().unwrap();
    assert!(said.starts_with(before_command), "{said} / {running}");

    let missing = named(Some("de"), &["list-panes", "-t", "nope"]);
    assert_eq!(missing.status.code(), Some(1));
    let german = de("cli.list.no_tab_named", &[("given", "\"nope\"")]);
    assert_eq!(stderr(&missing), format!("wta: {german}\n"));

    let fix = named(Some("pseudo"), &["fix", "-t", &pane]);
    assert_eq!(fix.status.code(), Some(1));
    let pseudo = pseudo_of("cli.fix.no_agent_pane", &[("pane", &pane)]);
    assert_eq!(stderr(&fix), format!("wta: {pseudo}\n"));

    for args in [
        &["list-windows", "--json"][..],
        &["list-panes", "-a", "--json"],
        &["pane-status", "-t", &pane, "--json"],
        &["info", "--json"],
    ] {
        let english = stdout(&named(None, args));
        assert!(english.starts_with(['{', '[']), "{args:?}: {english}");
        for tag in ["de", "zh-TW", "pseudo"] {
            assert_eq!(
                stdout(&named(Some(tag), args)),
                english,
                "{args:?} --json in {tag}"
            );
        }
    }
}

/// Errors of the host, the agent registry and the master connection that
/// reach the command line are in the chosen language too.
#[test]
fn other_crates_errors_speak_the_language_too() {
    let env = Env::new();
    let out = env.wta_in("de", &["list-panes"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        format!("wta: {}\n", de("host.no_server_named", &[]))
    );
    let out = env.wta(&["list-panes"]);
    assert_eq!(
        stderr(&out),
        format!("wta: {}\n", en("host.no_server_named", &[]))
    );

    let server = TmuxServer::start();
    let out = env
        .command()
        .args(["--language", "de", "-S"])
        .arg(server.socket())
        .args([
            "pane",
            "open",
            "-t",
            server.first_pane(),
            "--agent",
            "nope!",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let german = de("agent.invalid_id", &[("given", "nope!")]);
    assert!(stderr(&out).contains(&german), "{}", stderr(&out));

    let pane = server.first_pane();
    let out = env
        .command()
        .args(["--language", "de", "-S"])
        .arg(server.socket())
        .args(["capture-pane", "--last-command", "-t", pane])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let german = de("shell.no_tracked_command", &[("pane", pane)]);
    assert!(stderr(&out).contains(&german), "{}", stderr(&out));
}

/// `key` (`help.…` or `clap.…`) of `locale`'s shipped `--help` texts.
fn help_text(locale: &str, key: &str) -> String {
    let domain = key.split('.').next().unwrap();
    let path = format!(
        "{}/locales/{domain}/{locale}.yml",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(path).unwrap();
    let mut value: serde_yaml_ng::Value = serde_yaml_ng::from_str(&text).unwrap();
    for part in key.split('.') {
        value = value[part].clone();
    }
    value.as_str().unwrap().to_owned()
}

/// `--help` is in the chosen language, clap's own headings and flags too,
/// English stays as clap writes it, and a usage error still exits 2.
#[test]
fn help_is_in_the_chosen_language() {
    let env = Env::new();
    let english = help_text("en", "help.up.about");
    let german = help_text("de", "help.up.about");
    assert_ne!(english, german);
    // clap wraps help to the terminal: compare with the whitespace folded.
    let flat = |text: &str| text.split_whitespace().collect::<Vec<_>>().join(" ");
    let shows = |out: &Output, text: &str| flat(&stdout(out)).contains(&flat(text));
    let out = env.wta(&["up", "--help"]);
    assert!(shows(&out, &english), "{}", stdout(&out));
    let out = env.wta_in("de", &["up", "--help"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(shows(&out, &german), "{}", stdout(&out));
    assert!(
        shows(&out, &help_text("de", "help.up.args.agent.help")),
        "{}",
        stdout(&out)
    );
    // clap's own words too: the usage heading, the sections, -h and -V.
    let words = |text: &str| -> Vec<String> {
        ["usage", "commands", "options", "help", "version"]
            .iter()
            .map(|w| help_text(text, &format!("clap.{w}")))
            .collect()
    };
    let de_words = words("de");
    let help = stdout(&out);
    assert!(help.contains(&format!("{} wta up", de_words[0])), "{help}");
    assert!(help.contains(&format!("{}:", de_words[2])), "{help}");
    assert!(help.contains(&de_words[3]), "{help}");
    let out = env.wta_in("de", &["-h"]);
    let help = stdout(&out);
    assert!(help.contains(&format!("{}:", de_words[1])), "{help}");
    assert!(help.contains(&de_words[4]), "{help}");
    let out = env.wta_in("de", &["--version"]);
    assert!(stdout(&out).starts_with("wta "), "{}", stdout(&out));
    let out = env.wta(&["up", "--help"]);
    assert!(stdout(&out).contains("Usage: wta up"), "{}", stdout(&out));
    assert!(stdout(&out).contains("Print help"), "{}", stdout(&out));
    let out = env.wta_in("de", &["--help"]);
    assert!(
        shows(&out, &help_text("de", "help.wta.about")),
        "{}",
        stdout(&out)
    );
    let out = env.wta_in("pseudo", &["up", "--help"]);
    assert!(shows(&out, &wta_i18n::pseudo(&english)), "{}", stdout(&out));
    let out = env.wta_in("de", &["up", "--no-such-flag"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}
