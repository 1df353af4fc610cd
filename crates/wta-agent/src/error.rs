//! The one error enum of this crate; messages are written for the user,
//! [`AgentError::localized`] in the user's language (`locales/agent`).

use std::path::PathBuf;

/// Everything that can go wrong choosing or starting an agent.
/// What to do about an agent that is not installed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InstallHint {
    /// A built-in agent: the command that installs it.
    #[error("Install it with `{0}`.")]
    Install(String),
    /// A custom agent whose program is missing: its entry in the config.
    #[error("Fix custom_agents.{name}.argv in {}.", config.display())]
    FixArgv { name: String, config: PathBuf },
}

impl InstallHint {
    /// The hint in the user's language.
    pub fn localized(&self) -> String {
        use wta_i18n::tr;
        match self {
            Self::Install(command) => tr("agent.install_hint", &[("command", command)]),
            Self::FixArgv { name, config } => tr(
                "agent.fix_argv_hint",
                &[("name", name), ("config", &config.display().to_string())],
            ),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error(
        "`{given}` is not a valid agent id (use one of copilot, claude, codex, gemini, opencode, demo, or custom:<name>)"
    )]
    InvalidId { given: String },
    #[error("`{given}` is not a delegate agent CLI (use one of {valid})")]
    UnknownDelegate { given: String, valid: String },
    #[error("unknown agent `{id}`: it is not built in and no [custom_agents.{name}] entry exists in {config}", name = id.strip_prefix("custom:").unwrap_or(id), config = config.display())]
    UnknownAgent { id: String, config: PathBuf },
    #[error("agent `{id}` is not allowed here (allowed: {allowed})")]
    NotAllowed { id: String, allowed: String },
    #[error("agent `{id}` is not installed: none of {tried} was found on PATH. {hint}")]
    NotInstalled {
        id: String,
        tried: String,
        hint: InstallHint,
    },
    #[error("cannot read {path}: {source}")]
    ReadConfig {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not valid: {message}")]
    BadConfig { path: PathBuf, message: String },
    #[error("cannot start agent `{id}` ({program}): {source}")]
    Spawn {
        id: String,
        program: String,
        source: std::io::Error,
    },
    #[error("cannot find the wta binary itself: {0}")]
    CurrentExe(std::io::Error),
    #[error(
        "the task for {agent} starts with `-`, and {agent} has no end-of-options marker to keep it from being read as an option (set `end_of_options` in the [delegate] table, or start the task with a word)"
    )]
    TaskLooksLikeOption { agent: String },
}

impl AgentError {
    /// The message in the user's language (`Display` stays English, for
    /// logs and anything a program reads).
    pub fn localized(&self) -> String {
        use wta_i18n::tr;
        match self {
            Self::InvalidId { given } => tr("agent.invalid_id", &[("given", given)]),
            Self::TaskLooksLikeOption { agent } => {
                tr("agent.task_looks_like_option", &[("agent", agent)])
            }
            Self::UnknownDelegate { given, valid } => tr(
                "agent.unknown_delegate",
                &[("given", given), ("valid", valid)],
            ),
            Self::UnknownAgent { id, config } => tr(
                "agent.unknown_agent",
                &[
                    ("id", id),
                    ("name", id.strip_prefix("custom:").unwrap_or(id)),
                    ("config", &config.display().to_string()),
                ],
            ),
            Self::NotAllowed { id, allowed } => {
                tr("agent.not_allowed", &[("id", id), ("allowed", allowed)])
            }
            Self::NotInstalled { id, tried, hint } => tr(
                "agent.not_installed",
                &[("id", id), ("tried", tried), ("hint", &hint.localized())],
            ),
            Self::ReadConfig { path, source } => tr(
                "agent.read_config",
                &[
                    ("path", &path.display().to_string()),
                    ("err", &source.to_string()),
                ],
            ),
            Self::BadConfig { path, message } => tr(
                "agent.bad_config",
                &[("path", &path.display().to_string()), ("message", message)],
            ),
            Self::Spawn {
                id,
                program,
                source,
            } => tr(
                "agent.spawn",
                &[
                    ("id", id),
                    ("program", program),
                    ("err", &source.to_string()),
                ],
            ),
            Self::CurrentExe(err) => tr("agent.current_exe", &[("err", &err.to_string())]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// In English the localized text is the `Display` text, for every variant.
    #[test]
    fn english_localized_is_display() {
        let io = || std::io::Error::new(std::io::ErrorKind::NotFound, "gone");
        for err in [
            AgentError::InvalidId {
                given: "x y".into(),
            },
            AgentError::UnknownDelegate {
                given: "vim".into(),
                valid: "claude, codex".into(),
            },
            AgentError::UnknownAgent {
                id: "custom:x".into(),
                config: "/c.toml".into(),
            },
            AgentError::NotAllowed {
                id: "codex".into(),
                allowed: "claude".into(),
            },
            AgentError::NotInstalled {
                id: "claude".into(),
                tried: "claude-code-acp".into(),
                hint: InstallHint::Install("npm i".into()),
            },
            AgentError::ReadConfig {
                path: "/c.toml".into(),
                source: io(),
            },
            AgentError::BadConfig {
                path: "/c.toml".into(),
                message: "bad".into(),
            },
            AgentError::Spawn {
                id: "claude".into(),
                program: "claude".into(),
                source: io(),
            },
            AgentError::CurrentExe(io()),
            AgentError::NotInstalled {
                id: "custom:x".into(),
                tried: "`x`".into(),
                hint: InstallHint::FixArgv {
                    name: "x".into(),
                    config: "/c.toml".into(),
                },
            },
        ] {
            assert_eq!(err.localized(), err.to_string());
        }
    }

    #[test]
    fn the_install_hint_has_words_in_every_locale() {
        for locale in wta_i18n::LOCALES {
            for key in ["agent.install_hint", "agent.fix_argv_hint"] {
                let text = wta_i18n::tr_in(locale, key);
                assert!(text.contains("%{"), "{locale} {key}: {text}");
                if locale != "en" {
                    assert_ne!(text, wta_i18n::tr_in("en", key), "{locale} {key}");
                }
            }
        }
    }
}
