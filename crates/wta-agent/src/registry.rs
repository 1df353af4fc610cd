//! The agent registry: typed ids, the built-in table, `custom:<name>` entries from
//! the user's config, the allowlist, and PATH detection.
//!
//! Invariant: a command line is only ever built here, from the built-in table or
//! the user's own config file. Nothing that arrives over a socket can add argv.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::config::{CustomAgentTable, Problem, ProblemKind};
use crate::{AgentError, InstallHint};

/// A validated agent id: a built-in name, `demo`, or `custom:<name>`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AgentId(String);

/// Where an agent's argv came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AgentSource {
    /// The built-in table of this crate.
    BuiltIn,
    /// A `[custom_agents.<name>]` entry of the user's config file.
    UserConfig,
}

/// The pool key: one running agent process per distinct key.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AgentKey {
    pub id: AgentId,
    /// Absolute program path first, then its arguments.
    pub argv: Vec<String>,
    pub source: AgentSource,
}

/// What the master needs to start one agent: its key plus extra env from config.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchSpec {
    pub key: AgentKey,
    pub env: Vec<(OsString, OsString)>,
}

/// One row of [`Registry::list`].
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct AgentEntry {
    pub id: String,
    pub installed: bool,
    pub allowed: bool,
    pub source: AgentSource,
}

struct BuiltIn {
    id: &'static str,
    /// Tried in order; the first whose program is on PATH wins.
    candidates: &'static [&'static [&'static str]],
    /// The command that installs it.
    install: &'static str,
}

const BUILT_INS: &[BuiltIn] = &[
    BuiltIn {
        id: "copilot",
        candidates: &[&["copilot", "--acp", "--stdio"]],
        install: "npm install -g @github/copilot",
    },
    BuiltIn {
        id: "claude",
        candidates: &[&["claude-agent-acp"], &["claude-code-acp"]],
        install: "npm install -g @agentclientprotocol/claude-agent-acp",
    },
    BuiltIn {
        id: "codex",
        candidates: &[&["codex-acp"]],
        install: "npm install -g @zed-industries/codex-acp",
    },
    BuiltIn {
        id: "gemini",
        candidates: &[&["gemini", "--acp"]],
        install: "npm install -g @google/gemini-cli",
    },
    BuiltIn {
        id: "opencode",
        candidates: &[&["opencode", "acp"]],
        install: "npm install -g opencode-ai",
    },
];

/// The id of the built-in offline demo agent.
pub const DEMO_ID: &str = "demo";
/// The hidden role flag that makes the wta binary serve the demo agent on stdio.
pub const DEMO_FLAG: &str = "--demo-agent";

impl AgentId {
    /// Parses and validates an id; unknown custom names are accepted here and
    /// rejected by [`Registry::resolve`].
    pub fn parse(text: &str) -> Result<Self, AgentError> {
        let valid = if let Some(name) = text.strip_prefix("custom:") {
            valid_custom_name(name)
        } else {
            text == DEMO_ID || BUILT_INS.iter().any(|b| b.id == text)
        };
        if valid {
            Ok(Self(text.to_owned()))
        } else {
            Err(AgentError::InvalidId {
                given: text.chars().take(80).collect(),
            })
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// `Some(name)` for `custom:<name>`.
    pub fn custom_name(&self) -> Option<&str> {
        self.0.strip_prefix("custom:")
    }
}

/// The built-in agent ids (not the demo), in table order.
pub(crate) fn built_in_ids() -> impl Iterator<Item = &'static str> {
    BUILT_INS.iter().map(|b| b.id)
}

/// The command that installs the built-in agent `id`, if it is one.
pub fn install_command(id: &str) -> Option<&'static str> {
    BUILT_INS.iter().find(|b| b.id == id).map(|b| b.install)
}

/// Whether `name` may follow `custom:` (A-Z a-z 0-9 _ - ., at most 64).
pub(crate) fn valid_custom_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

impl fmt::Display for AgentId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Where the registry reads its inputs from; [`RegistryPaths::from_env`] for real use.
#[derive(Debug, Clone)]
pub struct RegistryPaths {
    pub config_file: PathBuf,
    pub policy_file: PathBuf,
    /// The running wta binary (its dir goes first on the agent's PATH).
    pub wta_exe: PathBuf,
    /// The PATH to search and to hand on (before the wta dir is prepended).
    pub path_var: Option<OsString>,
}

impl RegistryPaths {
    /// `$XDG_CONFIG_HOME/wta/config.toml` (else `~/.config/...`), `$WTA_POLICY_FILE`
    /// (else `/etc/wta/policy.toml`), `current_exe()`, `$PATH`.
    pub fn from_env() -> Result<Self, AgentError> {
        let config_dir = non_empty_env("XDG_CONFIG_HOME")
            .map(PathBuf::from)
            .or_else(|| non_empty_env("HOME").map(|h| PathBuf::from(h).join(".config")))
            .unwrap_or_else(|| PathBuf::from(".config"));
        let policy_file = non_empty_env("WTA_POLICY_FILE")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("/etc/wta/policy.toml"));
        Ok(Self {
            config_file: config_dir.join("wta").join("config.toml"),
            policy_file,
            wta_exe: std::env::current_exe().map_err(AgentError::CurrentExe)?,
            path_var: std::env::var_os("PATH"),
        })
    }
}

fn non_empty_env(name: &str) -> Option<OsString> {
    std::env::var_os(name).filter(|v| !v.is_empty())
}

/// The configured delegate agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delegate {
    pub name: String,
    pub argv: Vec<String>,
    /// Put before the task (default `--`); `None`: the CLI has none.
    pub end_of_options: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
struct PolicyFile {
    allowed_agents: Option<Vec<String>>,
    /// `false` blocks yolo mode in every form; user config cannot loosen it.
    allow_yolo_mode: Option<bool>,
}

/// What every process an agent runs needs to reach the proposal CLI: `PATH`
/// with the directory of `wta_exe` first (once), `WTA_CLI_PATH` =
/// `wta_exe`, and the runtime dir of this WTA (`WTA_RUNTIME_DIR`), where the
/// agent pane's proposal socket is. The agent gets it, and so do the
/// terminals it runs through the client (ACP `terminal/*`), where its shell
/// tool's commands run.
pub fn cli_env(wta_exe: &Path, path_var: Option<&std::ffi::OsStr>) -> Vec<(OsString, OsString)> {
    vec![
        ("PATH".into(), cli_path(wta_exe, path_var)),
        ("WTA_CLI_PATH".into(), wta_exe.as_os_str().to_owned()),
        (
            wta_env::private_dir::RUNTIME_DIR_ENV.into(),
            wta_env::private_dir::runtime_dir().into_os_string(),
        ),
    ]
}

fn cli_path(wta_exe: &Path, path_var: Option<&std::ffi::OsStr>) -> OsString {
    let mut dirs: Vec<PathBuf> = Vec::new();
    if let Some(dir) = wta_exe.parent() {
        dirs.push(dir.to_path_buf());
    }
    if let Some(path) = path_var {
        dirs.extend(std::env::split_paths(path).filter(|d| Some(d.as_path()) != wta_exe.parent()));
    }
    std::env::join_paths(dirs).unwrap_or_default()
}

/// The loaded registry. Cheap to clone; reload to pick up config edits.
#[derive(Debug, Clone)]
pub struct Registry {
    paths: RegistryPaths,
    custom: BTreeMap<String, CustomAgentTable>,
    /// What was wrong with the config file (those parts are at their defaults).
    problems: Vec<Problem>,
    default_agent: Option<String>,
    config_allow: Option<BTreeSet<String>>,
    policy_allow: Option<BTreeSet<String>>,
    auto_approve_tools: bool,
    yolo_blocked_by_policy: bool,
    delegate: Option<Delegate>,
}

impl Registry {
    /// Reads the config and policy files; a missing file means "no
    /// settings". The config's problems leave those parts at their defaults
    /// ([`Registry::config_problems`]); a config that cannot be read or is
    /// not TOML at all is an error, as is a bad policy file.
    pub fn load(paths: RegistryPaths) -> Result<Self, AgentError> {
        let loaded = crate::config::load(&paths.config_file);
        Self::from_loaded(paths, &loaded)
    }

    /// [`Registry::load`] with the config file already read
    /// (`config::load(&paths.config_file)`), so a process that needs the
    /// file's other settings too reads it once; only the policy file is
    /// read here.
    pub fn from_loaded(
        paths: RegistryPaths,
        loaded: &crate::config::Loaded,
    ) -> Result<Self, AgentError> {
        if let Some(problem) = loaded.unusable() {
            return Err(match &problem.kind {
                ProblemKind::Unreadable { error } => AgentError::ReadConfig {
                    path: paths.config_file.clone(),
                    source: std::io::Error::other(error.clone()),
                },
                _ => AgentError::BadConfig {
                    path: paths.config_file.clone(),
                    message: format!(
                        "line {}, column {}: {}",
                        problem.line,
                        problem.column,
                        problem.english_what()
                    ),
                },
            });
        }
        let policy: PolicyFile = read_toml(&paths.policy_file)?.unwrap_or_default();
        let config = loaded.config.clone();
        let delegate = config.delegate.map(|d| {
            let program = d.argv.first().cloned().unwrap_or_default();
            Delegate {
                name: d.name.unwrap_or_else(|| {
                    Path::new(&program)
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_else(|| program.clone())
                }),
                argv: d.argv,
                end_of_options: match d.end_of_options {
                    None => Some(crate::delegate::END_OF_OPTIONS.to_owned()),
                    Some(marker) if marker.is_empty() => None,
                    Some(marker) => Some(marker),
                },
            }
        });
        Ok(Self {
            delegate,
            custom: config.custom_agents,
            problems: loaded.problems.clone(),
            default_agent: config.default_agent,
            config_allow: config.allowed_agents.map(|v| v.into_iter().collect()),
            policy_allow: policy.allowed_agents.map(|v| v.into_iter().collect()),
            auto_approve_tools: config.auto_approve_tools,
            yolo_blocked_by_policy: policy.allow_yolo_mode == Some(false),
            paths,
        })
    }

    /// What was wrong with the config file when it was loaded.
    pub fn config_problems(&self) -> &[Problem] {
        &self.problems
    }

    /// The `[delegate]` agent CLI, if configured.
    pub fn delegate(&self) -> Option<&Delegate> {
        self.delegate.as_ref()
    }

    /// The user's global yolo default (`auto_approve_tools` in the config file).
    pub fn auto_approve_tools(&self) -> bool {
        self.auto_approve_tools
    }

    /// The yolo policy: the system policy file's `allow_yolo_mode`.
    pub fn yolo_policy(&self) -> crate::yolo::YoloPolicy {
        if self.yolo_blocked_by_policy {
            crate::yolo::YoloPolicy::Blocked
        } else {
            crate::yolo::YoloPolicy::Allowed
        }
    }

    pub fn paths(&self) -> &RegistryPaths {
        &self.paths
    }

    /// True when both the policy and the user's allowlist (where set) admit `id`.
    /// The user's config can narrow the policy, never widen it.
    pub fn is_allowed(&self, id: &AgentId) -> bool {
        let admits = |set: &Option<BTreeSet<String>>| match set {
            None => true,
            Some(set) => {
                set.contains(id.as_str())
                    || (id.custom_name().is_some() && set.contains("custom:*"))
            }
        };
        admits(&self.policy_allow) && admits(&self.config_allow)
    }

    /// Builds the launch spec for `id`: allowlist, then config/built-in table, then PATH.
    pub fn resolve(&self, id: &AgentId) -> Result<LaunchSpec, AgentError> {
        if !self.is_allowed(id) {
            return Err(AgentError::NotAllowed {
                id: id.to_string(),
                allowed: self.allowed_description(),
            });
        }
        if id.as_str() == DEMO_ID {
            let argv = vec![
                self.paths.wta_exe.to_string_lossy().into_owned(),
                DEMO_FLAG.to_owned(),
            ];
            return Ok(self.spec(id, argv, AgentSource::BuiltIn, Vec::new()));
        }
        if let Some(name) = id.custom_name() {
            let Some(custom) = self.custom.get(name) else {
                let table = format!("custom_agents.{name}");
                let broken: Vec<String> = self
                    .problems
                    .iter()
                    .filter(|p| p.key == table || p.key.starts_with(&format!("{table}.")))
                    .map(|p| p.located_english(&self.paths.config_file))
                    .collect();
                if !broken.is_empty() {
                    return Err(AgentError::BadConfig {
                        path: self.paths.config_file.clone(),
                        message: broken.join("; "),
                    });
                }
                return Err(AgentError::UnknownAgent {
                    id: id.to_string(),
                    config: self.paths.config_file.clone(),
                });
            };
            let Some(program) = self.find_program(&custom.argv[0]) else {
                return Err(AgentError::NotInstalled {
                    id: id.to_string(),
                    tried: format!("`{}`", custom.argv[0]),
                    hint: InstallHint::FixArgv {
                        name: name.to_owned(),
                        config: self.paths.config_file.clone(),
                    },
                });
            };
            let mut argv = custom.argv.clone();
            argv[0] = program.to_string_lossy().into_owned();
            let env = custom
                .env
                .iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect();
            return Ok(self.spec(id, argv, AgentSource::UserConfig, env));
        }
        let Some(built_in) = BUILT_INS.iter().find(|b| b.id == id.as_str()) else {
            return Err(AgentError::InvalidId {
                given: id.to_string(),
            });
        };
        for candidate in built_in.candidates {
            if let Some(program) = self.find_program(candidate[0]) {
                let mut argv: Vec<String> = candidate.iter().map(|s| (*s).to_owned()).collect();
                argv[0] = program.to_string_lossy().into_owned();
                return Ok(self.spec(id, argv, AgentSource::BuiltIn, Vec::new()));
            }
        }
        Err(AgentError::NotInstalled {
            id: id.to_string(),
            tried: built_in
                .candidates
                .iter()
                .map(|c| format!("`{}`", c[0]))
                .collect::<Vec<_>>()
                .join(", "),
            hint: InstallHint::Install(built_in.install.to_owned()),
        })
    }

    fn spec(
        &self,
        id: &AgentId,
        argv: Vec<String>,
        source: AgentSource,
        extra_env: Vec<(OsString, OsString)>,
    ) -> LaunchSpec {
        let mut env = self.agent_env();
        env.extend(extra_env);
        LaunchSpec {
            key: AgentKey {
                id: id.clone(),
                argv,
                source,
            },
            env,
        }
    }

    /// The agent's PATH (wta's dir first) and `WTA_CLI_PATH`.
    pub fn agent_env(&self) -> Vec<(OsString, OsString)> {
        cli_env(&self.paths.wta_exe, self.paths.path_var.as_deref())
    }

    fn agent_path(&self) -> OsString {
        cli_path(&self.paths.wta_exe, self.paths.path_var.as_deref())
    }

    /// `program` itself when it contains a `/`, else the first match on the agent's PATH.
    pub(crate) fn find_program(&self, program: &str) -> Option<PathBuf> {
        if program.contains('/') {
            let path = PathBuf::from(program);
            return is_executable(&path).then_some(path);
        }
        std::env::split_paths(&self.agent_path())
            .map(|dir| dir.join(program))
            .find(|p| is_executable(p))
    }

    /// The config file's `default_agent` as written (not validated or resolved).
    pub fn configured_default_agent(&self) -> Option<&str> {
        self.default_agent.as_deref()
    }

    /// The configured default if usable, else the first installed allowed built-in,
    /// else the demo agent.
    pub fn default_agent(&self) -> AgentId {
        let configured = self
            .default_agent
            .as_deref()
            .and_then(|id| AgentId::parse(id).ok())
            .filter(|id| self.resolve(id).is_ok());
        if let Some(id) = configured {
            return id;
        }
        BUILT_INS
            .iter()
            .filter_map(|b| AgentId::parse(b.id).ok())
            .find(|id| self.resolve(id).is_ok())
            .unwrap_or_else(|| AgentId(DEMO_ID.to_owned()))
    }

    /// Every known id with whether it is installed and allowed.
    pub fn list(&self) -> Vec<AgentEntry> {
        self.list_ids()
            .into_iter()
            .map(|id| {
                let source = if id.custom_name().is_some() {
                    AgentSource::UserConfig
                } else {
                    AgentSource::BuiltIn
                };
                (id, source)
            })
            .map(|(id, source)| AgentEntry {
                installed: self.installed_ignoring_allow(&id),
                allowed: self.is_allowed(&id),
                id: id.0,
                source,
            })
            .collect()
    }

    fn installed_ignoring_allow(&self, id: &AgentId) -> bool {
        let open = Self {
            config_allow: None,
            policy_allow: None,
            ..self.clone()
        };
        open.resolve(id).is_ok()
    }

    pub(crate) fn allowed_description(&self) -> String {
        let mut ids: Vec<String> = self
            .list_ids()
            .into_iter()
            .filter(|id| self.is_allowed(id))
            .map(|id| id.0)
            .collect();
        ids.dedup();
        if ids.is_empty() {
            "none".to_owned()
        } else {
            ids.join(", ")
        }
    }

    fn list_ids(&self) -> Vec<AgentId> {
        let mut ids: Vec<AgentId> = BUILT_INS.iter().map(|b| AgentId(b.id.to_owned())).collect();
        ids.push(AgentId(DEMO_ID.to_owned()));
        ids.extend(self.custom.keys().map(|n| AgentId(format!("custom:{n}"))));
        ids
    }
}

fn read_toml<T: serde::de::DeserializeOwned>(path: &Path) -> Result<Option<T>, AgentError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(AgentError::ReadConfig {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    toml::from_str(&text)
        .map(Some)
        .map_err(|err| AgentError::BadConfig {
            path: path.to_path_buf(),
            message: err.message().to_owned(),
        })
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

#[cfg(test)]
#[path = "registry_tests.rs"]
mod tests;
