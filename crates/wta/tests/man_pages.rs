//! `wta man --dir DIR` against groff (and man, where it is installed): one
//! page per command, each valid roff that renders without a warning, every
//! page a page refers to (`wta-up(1)`) is in DIR, every option's value is
//! named in SYNOPSIS, and `wta.1` has FILES, ENVIRONMENT (every `WTA_*`
//! variable the sources read) and KEYS. Pages in Japanese and Chinese
//! render without a warning too.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Output;

use support::commands;

fn wta(args: &[&str]) -> Output {
    let home = tempfile::tempdir().unwrap();
    support::wta_clean(home.path()).args(args).output().unwrap()
}

/// Roff source as text: font changes dropped, `\-` a hyphen.
fn plain(roff: &str) -> String {
    roff.replace("\\fB", "")
        .replace("\\fI", "")
        .replace("\\fR", "")
        .replace("\\fP", "")
        .replace("\\-", "-")
        .replace("\\*(Aq", "'")
}

/// The lines of section `name` (`.SH name` up to the next `.SH`).
fn section<'a>(roff: &'a str, name: &str) -> Vec<&'a str> {
    let heading = if name.contains(' ') {
        format!(".SH \"{name}\"")
    } else {
        format!(".SH {name}")
    };
    roff.lines()
        .skip_while(|l| *l != heading)
        .skip(1)
        .take_while(|l| !l.starts_with(".SH "))
        .collect()
}

/// Every `name(1)` the text refers to.
fn references(text: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for (at, _) in text.match_indices("(1)") {
        let name: String = text[..at]
            .chars()
            .rev()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        if !name.is_empty() {
            found.insert(name);
        }
    }
    found
}

/// grotty's output as text: its bold and underline (`X\x08X`, `_\x08X`)
/// as the plain character.
fn overstruck(out: &[u8]) -> String {
    let text = String::from_utf8_lossy(out);
    let mut plain = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if chars.peek() == Some(&'\x08') {
            chars.next();
        } else {
            plain.push(c);
        }
    }
    plain
}

fn groff(args: &[&str], page: &Path) -> Output {
    wta_testkit::env::clean("groff")
        .args(args)
        .arg(page)
        .output()
        .expect("groff (apt-get install groff-base) validates the manual")
}

struct Manual {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
}

impl Manual {
    /// `wta man --dir` into a directory that does not exist yet (nor its parent).
    fn write() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("share/man/man1");
        let out = wta(&["man", "--dir", dir.to_str().unwrap()]);
        assert!(out.status.success(), "{out:?}");
        let listed: Vec<String> = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect();
        let manual = Self { _tmp: tmp, dir };
        let mut want: Vec<String> = manual
            .names()
            .iter()
            .map(|n| manual.dir.join(format!("{n}.1")).display().to_string())
            .collect();
        want.sort();
        let mut listed_sorted = listed.clone();
        listed_sorted.sort();
        assert_eq!(listed_sorted, want, "it prints each page it wrote");
        assert_eq!(listed[0], manual.dir.join("wta.1").display().to_string());
        manual
    }

    /// The page names in the directory, sorted.
    fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&self.dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .map(|f| {
                f.strip_suffix(".1")
                    .unwrap_or_else(|| panic!("{f} is not a man1 page"))
                    .to_owned()
            })
            .collect();
        names.sort();
        names
    }

    fn page(&self, name: &str) -> String {
        std::fs::read_to_string(self.dir.join(format!("{name}.1"))).unwrap()
    }
}

#[test]
fn man_dir_writes_one_valid_page_per_command_and_every_reference_resolves() {
    let manual = Manual::write();
    let names = manual.names();
    let commands = commands();
    assert!(commands.len() >= 20, "{commands:?}");
    for cmd in &commands {
        assert!(names.contains(&format!("wta-{cmd}")), "no page for {cmd}");
    }
    for nested in [
        "wta",
        "wta-sessions-list",
        "wta-pane-toggle",
        "wta-hooks-status",
    ] {
        assert!(names.iter().any(|n| n == nested), "{nested}: {names:?}");
    }
    assert!(
        !names
            .iter()
            .any(|n| n.contains("pipe-sink") || n == "wta-hook")
    );
    // The same pages as `wta man` prints in one stream.
    let stream = String::from_utf8(wta(&["man"]).stdout).unwrap();
    for name in &names {
        assert!(
            stream.contains(&manual.page(name)),
            "{name}.1 is not what `wta man` prints for it"
        );
    }

    for name in &names {
        let path = manual.dir.join(format!("{name}.1"));
        let roff = manual.page(name);
        assert!(roff.is_ascii(), "{name}");
        assert!(roff.contains(&format!(".TH {name} 1 ")), "{name}");
        // groff: no warning of any kind.
        let lint = groff(&["-man", "-Tutf8", "-ww", "-z"], &path);
        assert!(
            lint.status.success() && lint.stderr.is_empty(),
            "{name}: {}",
            String::from_utf8_lossy(&lint.stderr)
        );
        let shown = groff(&["-man", "-Tutf8"], &path);
        assert!(shown.status.success(), "{name}");
        assert!(overstruck(&shown.stdout).contains("SYNOPSIS"), "{name}");

        // Every page it names is a page of the directory.
        let text = plain(&roff);
        for target in references(&text) {
            assert!(
                names.contains(&target),
                "{name}.1 refers to {target}(1), which is not in the directory"
            );
        }
        if name != "wta" {
            let see = plain(&section(&roff, "SEE ALSO").join("\n"));
            assert!(see.contains("wta(1)"), "{name}: SEE ALSO {see:?}");
        }
    }
    let see = plain(&section(&manual.page("wta-sessions-list"), "SEE ALSO").join("\n"));
    assert!(see.contains("wta-sessions(1)"), "the parent: {see}");
    let subcommands = plain(&section(&manual.page("wta-sessions"), "SUBCOMMANDS").join("\n"));
    assert!(
        subcommands.contains("wta-sessions-pick(1)"),
        "the children: {subcommands}"
    );
    let see = plain(&section(&manual.page("wta-tmux-config"), "SEE ALSO").join("\n"));
    assert!(see.contains("wta-fix(1)"), "a related page: {see}");
}

#[test]
fn every_synopsis_names_the_value_of_every_option() {
    let manual = Manual::write();
    let mut checked = 0;
    for name in manual.names() {
        let roff = manual.page(&name);
        let synopsis = plain(&section(&roff, "SYNOPSIS").join(" "));
        assert!(
            !synopsis.contains(" ]") && !synopsis.contains("[]"),
            "{name}: an empty value in {synopsis:?}"
        );
        // OPTIONS: `.TP` then `-S, --socket <PATH>`: the same value in SYNOPSIS.
        let options = section(&roff, "OPTIONS");
        for pair in options.windows(2).filter(|w| w[0] == ".TP") {
            let header = plain(pair[1]);
            let Some((flags, value)) = header.split_once(" <") else {
                continue;
            };
            let value = value.split('>').next().unwrap();
            let flag = flags.rsplit(", ").next().unwrap();
            assert!(
                synopsis.contains(&format!("{flag} {value}")),
                "{name}: SYNOPSIS lacks `{flag} {value}`: {synopsis}"
            );
            checked += 1;
        }
    }
    assert!(checked > 50, "{checked} options with values checked");
    let top = plain(&section(&manual.page("wta"), "SYNOPSIS").join(" "));
    for want in [
        "[-L NAME]",
        "[-S|--socket PATH]",
        "[--language TAG]",
        "[COMMAND]",
    ] {
        assert!(top.contains(want), "{want} in {top}");
    }
    let delegate = plain(&section(&manual.page("wta-delegate"), "SYNOPSIS").join(" "));
    assert!(delegate.contains("[TASK]"), "{delegate}");
}

/// The `WTA_*` names quoted in the workspace's library and binary sources.
fn wta_variables() -> BTreeSet<String> {
    fn walk(dir: &Path, out: &mut BTreeSet<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                // A variable's name is a string (`var("WTA_LOG")`, a const's
                // value); a Rust constant that happens to start so is not one.
                for (at, _) in text.match_indices("\"WTA_") {
                    let at = at + 1;
                    let name: String = text[at..]
                        .chars()
                        .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
                        .collect();
                    if name.len() > "WTA_".len() && !name.ends_with('_') {
                        out.insert(name);
                    }
                }
            }
        }
    }
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let mut names = BTreeSet::new();
    for krate in std::fs::read_dir(crates).unwrap() {
        let krate = krate.unwrap().path();
        if krate.ends_with("wta-testkit") {
            continue;
        }
        if krate.join("src").is_dir() {
            walk(&krate.join("src"), &mut names);
        }
    }
    names
}

/// Names the sources hold that are not variables a user sets or meets:
/// each with the reason it is not in ENVIRONMENT.
const NOT_FOR_USERS: &[(&str, &str)] = &[
    ("WTA_BLESS", "rewrites test fixtures"),
    ("WTA_BENCH_QUICK", "the benches' quick mode"),
    ("WTA_SCRIPTED_TEST", "a unit test's variable"),
    ("WTA_MASTER_RESPAWNED", "the master marks its own re-exec"),
    (
        "WTA_USER_ZDOTDIR",
        "WTA's zsh launch hands the user's ZDOTDIR to itself",
    ),
    (
        "WTA_RUNTIME_CONTEXT",
        "a marker in the agent's prompt, not a variable",
    ),
];

#[test]
fn the_top_page_has_files_environment_and_keys() {
    let manual = Manual::write();
    let top = manual.page("wta");
    for heading in ["FILES", "ENVIRONMENT", "KEYS"] {
        assert!(!section(&top, heading).is_empty(), "no {heading} in wta.1");
    }
    let files = plain(&section(&top, "FILES").join("\n"));
    for want in [
        "$XDG_CONFIG_HOME/wta/config.toml",
        "/etc/wta/policy.toml",
        "$XDG_STATE_HOME/wta/",
        "master.log",
        "helper-<pid>.log",
        "$XDG_RUNTIME_DIR/wta/",
        "master-<tmux server>-<hash>.sock",
        "/tmp/wta-<uid>/",
    ] {
        assert!(files.contains(want), "{want} in FILES: {files}");
    }

    let environment = plain(&section(&top, "ENVIRONMENT").join("\n"));
    let variables = wta_variables();
    assert!(variables.contains("WTA_LOG"), "{variables:?}");
    let undocumented: Vec<&String> = variables
        .iter()
        .filter(|v| !NOT_FOR_USERS.iter().any(|(n, _)| n == v))
        .filter(|v| !environment.contains(v.as_str()))
        .collect();
    assert!(
        undocumented.is_empty(),
        "read by WTA, not in ENVIRONMENT: {undocumented:?}"
    );
    for want in [
        "XDG_CONFIG_HOME",
        "XDG_STATE_HOME",
        "XDG_RUNTIME_DIR",
        "XDG_DATA_HOME",
        "HOME",
        "TMUX, TMUX_PANE",
        "TMUX_TMPDIR",
        "LC_ALL, LC_MESSAGES, LANG",
        "SHELL",
        "PATH",
    ] {
        assert!(environment.contains(want), "{want} in ENVIRONMENT");
    }

    // KEYS: the agent pane's, the cards', and every tmux key tmux-config binds.
    let keys = plain(&section(&top, "KEYS").join("\n"));
    for want in [
        "F12",
        "PgUp",
        "Ctrl+F",
        "Esc",
        "Ctrl+D",
        "Alt+V",
        "v selects",
        "V whole lines",
        "y (or",
        "/ searches",
        "? up",
        "n goes",
        "N back",
        "Esc or q",
        "Ctrl+O",
    ] {
        assert!(keys.contains(want), "{want} in KEYS: {keys}");
    }
    let config = String::from_utf8(wta(&["tmux-config"]).stdout).unwrap();
    let bound: Vec<&str> = config
        .lines()
        .filter_map(|l| l.strip_prefix("bind-key "))
        .filter_map(|l| l.split(' ').next())
        .collect();
    assert_eq!(bound.len(), 7, "{config}");
    for key in bound {
        assert!(
            keys.contains(&format!("prefix {key}\n")),
            "prefix {key} in KEYS: {keys}"
        );
    }
    assert!(!section(&manual.page("wta-tmux-config"), "KEYS").is_empty());
}

#[test]
fn man_finds_a_page_by_name_in_the_directory() {
    let manual = Manual::write();
    let Ok(version) = wta_testkit::env::clean("man").arg("--version").output() else {
        eprintln!("man is not installed: groff alone checked the pages");
        return;
    };
    assert!(version.status.success());
    let manpath = manual.dir.parent().unwrap();
    let out = wta_testkit::env::clean("man")
        .arg("-M")
        .arg(manpath)
        .args(["-P", "cat", "wta-up"])
        .env("MANWIDTH", "100")
        .env("LANG", "C.UTF-8")
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && shown.contains("wta-up") && shown.contains("SYNOPSIS"),
        "{shown}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_dir_that_cannot_be_made_is_an_error_naming_it() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("a-file");
    std::fs::write(&file, "").unwrap();
    let dir = file.join("man1");
    let out = wta(&["man", "--dir", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("cannot create {}", dir.display())),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
}

/// Japanese and Chinese have no spaces: the pages mark where their lines
/// may break and fill them ragged-right, so groff warns of nothing there
/// either.
#[test]
fn the_pages_in_cjk_languages_render_without_a_warning() {
    for language in ["ja", "zh-CN", "zh-TW"] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("man1");
        let out = wta(&[
            "--language",
            language,
            "man",
            "--dir",
            dir.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{out:?}");
        let top = std::fs::read_to_string(dir.join("wta.1")).unwrap();
        assert!(top.contains("\\:"), "{language}: no break points");
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let lint = groff(&["-man", "-Tutf8", "-ww", "-z"], &path);
            assert!(
                lint.status.success() && lint.stderr.is_empty(),
                "{language} {}: {}",
                path.display(),
                String::from_utf8_lossy(&lint.stderr)
            );
        }
    }
}
