//! The agent checks of `wta doctor`: which agent `wta up` starts, and for
//! every agent of the registry whether it is allowed and installed, the
//! version its program prints for `--version` (run with no input, stopped
//! with its process group after a timeout), and whether a sign-in can be
//! seen without the network: the environment variables and credential
//! files each CLI reads are looked for by name. Their values are never
//! read into the output, only that they are set or exist.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::json;
use wta_agent::{AgentEntry, AgentId, Registry};
use wta_i18n::tr;

use super::doctor::{Check, Status};
use super::doctor_checks::label;
use crate::config::UserConfig;

/// Where a CLI keeps what lets it sign in: variables, then files
/// (`~` is `$HOME`; `$VAR/…` is that variable's directory when set).
struct SignIn {
    env: &'static [&'static str],
    files: &'static [&'static str],
    /// What to run to sign in.
    login: &'static str,
}

fn sign_in(id: &str) -> Option<SignIn> {
    Some(match id {
        "copilot" => SignIn {
            env: &["COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN"],
            files: &[
                "~/.copilot/config.json",
                "$XDG_CONFIG_HOME/gh/hosts.yml|~/.config/gh/hosts.yml",
            ],
            login: "copilot  # then /login",
        },
        "claude" => SignIn {
            env: &[
                "ANTHROPIC_API_KEY",
                "CLAUDE_CODE_OAUTH_TOKEN",
                "ANTHROPIC_AUTH_TOKEN",
            ],
            files: &["$CLAUDE_CONFIG_DIR/.credentials.json|~/.claude/.credentials.json"],
            login: "claude  # then /login",
        },
        "codex" => SignIn {
            env: &["OPENAI_API_KEY", "CODEX_API_KEY"],
            files: &["$CODEX_HOME/auth.json|~/.codex/auth.json"],
            login: "codex login",
        },
        "gemini" => SignIn {
            env: &[
                "GEMINI_API_KEY",
                "GOOGLE_API_KEY",
                "GOOGLE_APPLICATION_CREDENTIALS",
            ],
            files: &["~/.gemini/oauth_creds.json"],
            login: "gemini  # then choose how to sign in",
        },
        "opencode" => SignIn {
            env: &["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENROUTER_API_KEY"],
            files: &["$XDG_DATA_HOME/opencode/auth.json|~/.local/share/opencode/auth.json"],
            login: "opencode auth login",
        },
        _ => return None,
    })
}

/// The file a `files` entry names: `$VAR/rest` when VAR is set, else the
/// `~/rest` after the `|`.
fn credential_file(spec: &str, env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let (with_var, fallback) = match spec.split_once('|') {
        Some((with_var, fallback)) => (Some(with_var), fallback),
        None => (None, spec),
    };
    if let Some((var, rest)) = with_var.and_then(|s| s.strip_prefix('$')?.split_once('/'))
        && let Some(dir) = env(var).filter(|d| d.starts_with('/'))
    {
        return Some(Path::new(&dir).join(rest));
    }
    let home = env("HOME").filter(|h| h.starts_with('/'))?;
    Some(Path::new(&home).join(fallback.strip_prefix("~/")?))
}

/// What shows a sign-in for `how`: the variables set (names only) and the
/// files that exist; and every place looked at.
fn signs(
    how: &SignIn,
    env: &dyn Fn(&str) -> Option<String>,
    exists: &dyn Fn(&Path) -> bool,
) -> (Vec<String>, Vec<String>) {
    let mut found = Vec::new();
    let mut looked = Vec::new();
    for name in how.env {
        looked.push(format!("${name}"));
        if env(name).is_some_and(|v| !v.is_empty()) {
            found.push(format!("${name}"));
        }
    }
    for spec in how.files {
        if let Some(path) = credential_file(spec, env) {
            let shown = path.display().to_string();
            if exists(&path) {
                found.push(shown.clone());
            }
            looked.push(shown);
        }
    }
    (found, looked)
}

/// The first line `program --version` prints (stdout, else stderr) when it
/// succeeds within `timeout`: control characters dropped, at most 80
/// characters. The process group is killed when it takes longer.
fn version_of(program: &str, env: &[(OsString, OsString)], timeout: Duration) -> Option<String> {
    use std::os::unix::process::CommandExt;
    let child = Command::new(program)
        .arg("--version")
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .ok()?;
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(timeout) {
        Ok(Ok(out)) if out.status.success() => {
            let line = |bytes: &[u8]| {
                String::from_utf8_lossy(bytes)
                    .lines()
                    .map(str::trim)
                    .find(|l| !l.is_empty())
                    .map(|l| plain(l).chars().take(80).collect())
            };
            line(&out.stdout).or_else(|| line(&out.stderr))
        }
        Ok(_) => None,
        Err(_) => {
            if let Ok(pid) = i32::try_from(pid) {
                let _ = nix::sys::signal::killpg(
                    nix::unistd::Pid::from_raw(pid),
                    nix::sys::signal::Signal::SIGKILL,
                );
            }
            None
        }
    }
}

/// `line` without terminal escapes (`ESC [ … final`, `ESC x`) or other
/// control characters: a program's output is not ours to send to the
/// terminal.
fn plain(line: &str) -> String {
    let mut out = String::new();
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            if chars.next() == Some('[') {
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
        } else if !c.is_control() {
            out.push(c);
        }
    }
    out
}

/// The default agent, then one check per agent of the registry.
pub(super) fn agents(config: &UserConfig, timeout: Duration) -> Vec<Check> {
    let registry = match config.registry() {
        Ok(registry) => registry,
        Err(e) => {
            return vec![Check::new(
                "default_agent",
                label("default_agent"),
                Status::Fail,
                e.localized(),
            )];
        }
    };
    let mut checks = vec![default_agent(registry)];
    let entries = registry.list();
    // The probes run at once, so the slowest one bounds the wait.
    let probes: Vec<_> = entries
        .iter()
        .map(|entry| {
            let spec =
                (entry.installed && entry.allowed && entry.id != wta_agent::registry::DEMO_ID)
                    .then(|| AgentId::parse(&entry.id).ok())
                    .flatten()
                    .and_then(|id| registry.resolve(&id).ok());
            spec.map(|spec| {
                std::thread::spawn(move || {
                    version_of(&spec.key.argv[0], &spec.env, timeout)
                        .map(|v| (spec.key.argv[0].clone(), v))
                })
            })
        })
        .collect();
    let env = |name: &str| std::env::var(name).ok();
    for (entry, probe) in entries.iter().zip(probes) {
        let probed = probe.and_then(|p| p.join().ok()).flatten();
        checks.push(agent(registry, entry, probed, &env, &|p: &Path| p.exists()));
    }
    checks
}

/// Which agent `wta up` starts, and whether the configured one can.
fn default_agent(registry: &Registry) -> Check {
    let chosen = registry.default_agent();
    let check = |status, summary: String| {
        Check::new("default_agent", label("default_agent"), status, summary).data(
            json!({"configured": registry.configured_default_agent(), "chosen": chosen.as_str()}),
        )
    };
    match registry.configured_default_agent() {
        Some(configured) => {
            let usable = AgentId::parse(configured).and_then(|id| registry.resolve(&id));
            match usable {
                Ok(_) => check(
                    Status::Ok,
                    tr!("doctor.default.configured", id = configured),
                ),
                Err(e) => {
                    let fix = wta_agent::registry::install_command(configured).map_or_else(
                        || {
                            format!(
                                "${{EDITOR:-vi}} {}",
                                wta_shell::sh_quote(
                                    &registry.paths().config_file.display().to_string()
                                )
                            )
                        },
                        str::to_owned,
                    );
                    check(
                        Status::Fail,
                        tr!(
                            "doctor.default.unusable",
                            id = configured,
                            chosen = chosen,
                            err = e.localized()
                        ),
                    )
                    .fix(fix)
                }
            }
        }
        None if chosen.as_str() == wta_agent::registry::DEMO_ID => {
            check(Status::Warn, tr!("doctor.default.demo"))
                .fix(wta_agent::registry::install_command("claude").unwrap_or_default())
        }
        None => check(
            Status::Ok,
            tr!("doctor.default.first_installed", id = chosen),
        ),
    }
}

/// One agent: allowed, installed, its version, a sign-in.
fn agent(
    registry: &Registry,
    entry: &AgentEntry,
    probed: Option<(String, String)>,
    env: &dyn Fn(&str) -> Option<String>,
    exists: &dyn Fn(&Path) -> bool,
) -> Check {
    let id = entry.id.as_str();
    let name = tr!("doctor.label.agent", id = id);
    let (program, version) = probed.map_or((None, None), |(p, v)| (Some(p), Some(v)));
    let mut data = json!({
        "agent": id, "installed": entry.installed, "allowed": entry.allowed,
        "program": program, "version": version, "sign_in": null,
    });
    let check = |status, summary: String, data: &serde_json::Value| {
        Check::new(format!("agent:{id}"), name.clone(), status, summary).data(data.clone())
    };
    if id == wta_agent::registry::DEMO_ID {
        data["version"] = json!(env!("CARGO_PKG_VERSION"));
        return check(Status::Ok, tr!("doctor.agent.demo"), &data);
    }
    if !entry.allowed {
        return check(Status::Info, tr!("doctor.agent.not_allowed"), &data);
    }
    if !entry.installed {
        let install = wta_agent::registry::install_command(id);
        let (status, summary) = match install {
            Some(_) => (Status::Info, tr!("doctor.agent.not_installed")),
            // A custom agent the config names but whose program is missing.
            None => {
                let err = AgentId::parse(id)
                    .and_then(|id| registry.resolve(&id))
                    .err()
                    .map(|e| e.localized())
                    .unwrap_or_default();
                (Status::Warn, err)
            }
        };
        let mut c = check(status, summary, &data);
        if let Some(install) = install {
            c = c.fix(install);
        }
        return c;
    }
    let version_text = version
        .clone()
        .unwrap_or_else(|| tr!("doctor.agent.no_version"));
    let summary = tr!("doctor.agent.installed", version = version_text);
    let Some(how) = sign_in(id) else {
        data["sign_in"] = json!("unknown");
        return check(Status::Ok, summary, &data)
            .details(vec![tr!("doctor.agent.sign_in_unknown")]);
    };
    let (found, looked) = signs(&how, env, exists);
    data["sign_in"] = json!(if found.is_empty() {
        "not_found"
    } else {
        "found"
    });
    data["sign_in_found"] = json!(found);
    if found.is_empty() {
        check(Status::Warn, summary, &data)
            .details(vec![tr!(
                "doctor.agent.no_sign_in",
                looked = looked.join(", ")
            )])
            .fix(how.login)
    } else {
        check(Status::Ok, summary, &data)
            .details(vec![tr!("doctor.agent.sign_in", found = found.join(", "))])
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn env_of(vars: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| (*v).to_owned())
        }
    }

    #[test]
    fn credential_files_follow_their_variables_else_home() {
        let env = env_of(&[("HOME", "/h"), ("CODEX_HOME", "/c")]);
        assert_eq!(
            credential_file("$CODEX_HOME/auth.json|~/.codex/auth.json", &env),
            Some(PathBuf::from("/c/auth.json"))
        );
        assert_eq!(
            credential_file(
                "$CLAUDE_CONFIG_DIR/.credentials.json|~/.claude/.credentials.json",
                &env
            ),
            Some(PathBuf::from("/h/.claude/.credentials.json"))
        );
        assert_eq!(
            credential_file("~/.gemini/oauth_creds.json", &env),
            Some(PathBuf::from("/h/.gemini/oauth_creds.json"))
        );
        assert_eq!(credential_file("~/.x", &env_of(&[])), None);
    }

    #[test]
    fn a_sign_in_is_named_never_shown() {
        let how = sign_in("claude").unwrap();
        let env = env_of(&[("HOME", "/h"), ("ANTHROPIC_API_KEY", "sk-secret-value")]);
        let (found, looked) = signs(&how, &env, &|_| false);
        assert_eq!(found, ["$ANTHROPIC_API_KEY"]);
        assert!(looked.contains(&"/h/.claude/.credentials.json".to_owned()));
        assert!(!format!("{found:?}{looked:?}").contains("sk-secret"));
        let (found, _) = signs(
            &how,
            &env_of(&[("HOME", "/h"), ("ANTHROPIC_API_KEY", "")]),
            &|p| p == Path::new("/h/.claude/.credentials.json"),
        );
        assert_eq!(found, ["/h/.claude/.credentials.json"]);
        for id in ["copilot", "claude", "codex", "gemini", "opencode"] {
            assert!(sign_in(id).is_some(), "{id}");
        }
        assert!(sign_in("custom:x").is_none());
    }

    /// A script in a temp dir that prints `body` (sh).
    fn script(dir: &Path, name: &str, body: &str) -> String {
        use std::os::unix::fs::PermissionsExt;
        let path = dir.join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path.to_string_lossy().into_owned()
    }

    #[test]
    fn a_version_is_the_first_line_printed_and_a_hang_is_stopped() {
        let dir = tempfile::tempdir().unwrap();
        let env = [(OsString::from("PATH"), OsString::from("/usr/bin:/bin"))];
        let prints = script(
            dir.path(),
            "prints",
            r"printf '\n  tool \033[1m1.2.3\033[0m\nmore\n'",
        );
        assert_eq!(
            version_of(&prints, &env, Duration::from_secs(10)).as_deref(),
            Some("tool 1.2.3")
        );
        let fails = script(
            dir.path(),
            "fails",
            "echo 'unknown option --version' >&2; exit 2",
        );
        assert_eq!(version_of(&fails, &env, Duration::from_secs(10)), None);
        assert_eq!(
            version_of("/nonexistent/agent", &env, Duration::from_secs(1)),
            None
        );
        // A program that ignores --version and waits: stopped at the timeout.
        let hangs = script(dir.path(), "hangs", "exec sleep 600");
        let start = std::time::Instant::now();
        assert_eq!(version_of(&hangs, &env, Duration::from_millis(300)), None);
        assert!(start.elapsed() < Duration::from_secs(5));
    }
}
