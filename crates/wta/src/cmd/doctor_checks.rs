//! The environment checks of `wta doctor`: the tmux program and the server
//! wta would use, the master of that server, the config file (the config
//! validator's problems with their lines) and the language (the shell
//! integration of the caller's pane is `doctor_shell.rs`'s). Each asks
//! what it needs once and turns the answer into a [`Check`]; none changes
//! anything.

use std::ffi::OsString;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};

use serde_json::json;
use wta_host::tmux::{TmuxVersion, socket_dir};
use wta_host::{HostError, ServerLocation, TerminalHost, TmuxHost};
use wta_i18n::tr;

use super::Ctx;
use super::doctor::{Check, Status};
use crate::config::UserConfig;

/// The label of check `id` in the user's language.
pub(super) fn label(id: &str) -> String {
    wta_i18n::tr(&format!("doctor.label.{id}"), &[])
}

/// `program` is on `$PATH`.
pub(super) fn on_path(program: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path).any(|dir| {
            use std::os::unix::fs::PermissionsExt;
            std::fs::metadata(dir.join(program))
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
    })
}

/// How to install `package` here: the package manager found on PATH.
fn install_command(package: &str) -> String {
    if cfg!(target_os = "macos") {
        return format!("brew install {package}");
    }
    [
        ("apt-get", "sudo apt-get install"),
        ("dnf", "sudo dnf install"),
        ("pacman", "sudo pacman -S"),
        ("zypper", "sudo zypper install"),
        ("apk", "sudo apk add"),
        ("brew", "brew install"),
    ]
    .into_iter()
    .find(|(tool, _)| on_path(tool))
    .map_or_else(
        || tr!("doctor.tmux.install_any", package = package),
        |(_, command)| format!("{command} {package}"),
    )
}

/// What the tmux checks found, for the checks that need the server.
pub(super) struct Tmux {
    pub program: Check,
    pub server: Check,
    /// The server, when it runs.
    pub host: Option<TmuxHost>,
    /// Its socket (where it would be, when it does not run).
    pub socket: Option<PathBuf>,
}

pub(super) fn tmux(ctx: &Ctx) -> Tmux {
    let probe = TmuxHost::new(ServerLocation::Socket(socket_dir().join("default")), None);
    let client = probe.version();
    let program = program_check(&client);
    let (server, host, socket) =
        match TmuxHost::discover(ctx.server.socket.clone(), ctx.server.name.clone()) {
            Err(e) if e.is_no_server() => {
                let socket = socket_dir().join("default");
                let summary = tr!("doctor.server.none", socket = socket.display());
                (
                    server_check(Status::Info, summary, Some(&socket), false),
                    None,
                    Some(socket),
                )
            }
            Err(e) => (
                server_check(Status::Fail, e.localized(), None, false),
                None,
                None,
            ),
            Ok(host) => found_server(host, &client),
        };
    Tmux {
        program,
        server,
        host,
        socket,
    }
}

/// The tmux program: installed, and new enough.
fn program_check(client: &Result<TmuxVersion, HostError>) -> Check {
    let check = |status, summary: String| Check::new("tmux", label("tmux"), status, summary);
    let program = match client {
        Ok(v) if v.is_supported() => check(Status::Ok, tr!("doctor.tmux.ok", version = v)),
        Ok(v) => check(Status::Fail, tr!("doctor.tmux.too_old", version = v))
            .fix(install_command("tmux")),
        Err(HostError::TmuxMissing) => {
            check(Status::Fail, tr!("doctor.tmux.missing")).fix(install_command("tmux"))
        }
        Err(e) => check(Status::Fail, e.localized()),
    };
    program.data(json!({
        "version": client.as_ref().ok().map(ToString::to_string),
    }))
}

/// The `tmux_server` check with its facts.
fn server_check(status: Status, summary: String, socket: Option<&Path>, running: bool) -> Check {
    Check::new("tmux_server", label("tmux_server"), status, summary).data(json!({
        "socket": socket,
        "running": running,
    }))
}

/// The server the flags or the environment name: running (with the
/// `client`'s version or another), or not; the host only when it runs.
fn found_server(
    host: TmuxHost,
    client: &Result<TmuxVersion, HostError>,
) -> (Check, Option<TmuxHost>, Option<PathBuf>) {
    let socket = host.location().socket_path();
    match host.server_info() {
        Ok(info) => {
            let (status, summary) = match client {
                Ok(v) if v.to_string() != info.tmux_version => (
                    Status::Warn,
                    tr!(
                        "doctor.server.other_version",
                        socket = socket.display(),
                        server = info.tmux_version,
                        client = v
                    ),
                ),
                _ => (
                    Status::Ok,
                    tr!(
                        "doctor.server.running",
                        socket = socket.display(),
                        version = info.tmux_version
                    ),
                ),
            };
            let mut check = server_check(status, summary, Some(&socket), true);
            check.data["version"] = json!(info.tmux_version);
            (check, Some(host), Some(socket))
        }
        Err(e) if e.is_no_server() => (
            server_check(
                Status::Info,
                tr!("doctor.server.not_running", socket = socket.display()),
                Some(&socket),
                false,
            ),
            None,
            Some(socket),
        ),
        Err(e) => (
            server_check(Status::Fail, e.localized(), Some(&socket), false),
            None,
            Some(socket),
        ),
    }
}

/// The pid the master wrote into its lock file next to `socket`.
fn master_pid(socket: &Path) -> Option<u32> {
    std::fs::read_to_string(socket.with_extension("lock"))
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// The master of the server the tmux checks found.
pub(super) fn master(ctx: &Ctx, tmux: &Tmux) -> Check {
    let check = |status, summary: String| Check::new("master", label("master"), status, summary);
    let Some(tmux_socket) = &tmux.socket else {
        return check(Status::Info, tr!("doctor.master.no_server"));
    };
    let socket = wta_env::dirs::socket_for_tmux(tmux_socket);
    let pid = master_pid(&socket);
    let data = |running: bool, version: Option<&str>| json!({"socket": socket, "running": running, "pid": pid, "version": version});
    if !socket.exists() {
        return check(
            Status::Info,
            tr!("doctor.master.not_running", socket = socket.display()),
        )
        .data(data(false, None));
    }
    if UnixStream::connect(&socket).is_err() {
        return check(
            Status::Warn,
            tr!("doctor.master.stale", socket = socket.display()),
        )
        .data(data(false, None));
    }
    let asked = super::sessions::ask_master(
        ctx,
        Some(&socket),
        super::sessions::ANSWER_WITHIN,
        |conn| async move { Ok(conn.init.agent_info.map(|i| i.version)) },
    );
    let ours = env!("CARGO_PKG_VERSION");
    let pid_text = pid.map_or_else(|| "?".to_owned(), |p| p.to_string());
    match asked {
        Ok(Some(version)) if version == ours => check(
            Status::Ok,
            tr!(
                "doctor.master.ok",
                socket = socket.display(),
                pid = pid_text,
                version = version
            ),
        )
        .data(data(true, Some(&version))),
        Ok(version) => {
            let theirs = version.clone().unwrap_or_else(|| "?".to_owned());
            let mut c = check(
                Status::Warn,
                tr!(
                    "doctor.master.other_version",
                    pid = pid_text,
                    theirs = theirs,
                    ours = ours
                ),
            )
            .data(data(true, version.as_deref()));
            if let Some(pid) = pid {
                c = c.fix(format!("kill {pid}"));
            }
            c
        }
        Err(err) => {
            let mut c =
                check(Status::Fail, crate::output::user_message(&err)).data(data(true, None));
            if let Some(pid) = pid {
                c = c.fix(format!("kill -CONT {pid} || kill {pid}"));
            }
            c
        }
    }
}

/// The config file, through the config validator.
pub(super) fn config(config: &UserConfig) -> Check {
    let check = |status, summary: String| Check::new("config", label("config"), status, summary);
    let loaded = match config.loaded() {
        Ok(loaded) => loaded,
        Err(e) => return check(Status::Fail, e.localized()),
    };
    let path = loaded.path.display().to_string();
    let problems: Vec<serde_json::Value> = loaded
        .problems
        .iter()
        .map(|p| {
            let mut value = serde_json::to_value(p).unwrap_or_default();
            value["message"] = json!(p.english());
            value
        })
        .collect();
    let data = json!({"path": path, "exists": loaded.exists, "problems": problems});
    let first = loaded.problems.first();
    match first {
        None if !loaded.exists => check(Status::Ok, tr!("doctor.config.none", path = path)),
        None => check(Status::Ok, tr!("doctor.config.ok", path = path)),
        Some(first) => check(
            Status::Fail,
            tr!(
                "doctor.config.problems",
                path = path,
                count = loaded.problems.len()
            ),
        )
        .details(
            loaded
                .problems
                .iter()
                .map(|p| p.located(&loaded.path))
                .collect(),
        )
        .fix(format!(
            "${{EDITOR:-vi}} +{} {}",
            first.line,
            wta_shell::sh_quote(&path)
        )),
    }
    .data(data)
}

/// Where the language came from.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Source {
    Flag(String),
    Config(String),
    Env(&'static str, String),
    Default,
}

/// The language in use and why, read before `--json` switches to English.
pub(super) struct Language {
    locale: String,
    source: Source,
}

pub(super) fn language(config: &UserConfig) -> Language {
    let args: Vec<OsString> = std::env::args_os().collect();
    let flag = crate::cli_help::language_flag(&args);
    let config = || config.language().map(str::to_owned);
    let env = || {
        ["LC_ALL", "LC_MESSAGES", "LANG"]
            .into_iter()
            .find_map(|name| {
                std::env::var(name)
                    .ok()
                    .filter(|v| !v.trim().is_empty())
                    .map(|v| (name, v))
            })
    };
    let source = match flag {
        Some(tag) => Source::Flag(tag),
        None => match config() {
            Some(tag) => Source::Config(tag),
            None => env().map_or(Source::Default, |(name, v)| Source::Env(name, v)),
        },
    };
    Language {
        locale: wta_i18n::language(),
        source,
    }
}

impl Language {
    pub(super) fn check(&self) -> Check {
        let (given, from, source) = match &self.source {
            Source::Flag(tag) => (Some(tag), format!("--language {tag}"), "flag".to_owned()),
            Source::Config(tag) => (
                Some(tag),
                tr!("doctor.language.from_config"),
                "config".into(),
            ),
            Source::Env(name, value) => (Some(value), format!("{name}={value}"), (*name).into()),
            Source::Default => (None, tr!("doctor.language.from_nothing"), "default".into()),
        };
        let data = json!({"locale": self.locale, "source": source, "given": given});
        let known = given.is_none_or(|tag| wta_agent::config::known_language(tag));
        let (status, summary) = if known {
            (
                Status::Ok,
                tr!("doctor.language.ok", locale = self.locale, from = from),
            )
        } else {
            (
                Status::Warn,
                tr!(
                    "doctor.language.unknown",
                    from = from,
                    locale = self.locale,
                    languages = wta_i18n::LOCALES.join(", ")
                ),
            )
        };
        Check::new("language", label("language"), status, summary).data(data)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_language_from_the_environment_that_wta_does_not_speak_is_a_warning() {
        let lang = |source| Language {
            locale: "en".into(),
            source,
        };
        let ok = lang(Source::Env("LANG", "de_DE.UTF-8".into())).check();
        assert_eq!(ok.status, Status::Ok);
        assert_eq!(ok.data["source"], "LANG");
        let odd = lang(Source::Env("LC_ALL", "tlh_XX.UTF-8".into())).check();
        assert_eq!(odd.status, Status::Warn);
        assert!(
            odd.summary.contains("LC_ALL=tlh_XX.UTF-8"),
            "{}",
            odd.summary
        );
        assert_eq!(lang(Source::Default).check().status, Status::Ok);
        assert_eq!(
            lang(Source::Flag("pseudo".into())).check().status,
            Status::Ok
        );
    }
}
