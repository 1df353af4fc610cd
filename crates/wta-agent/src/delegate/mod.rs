//! Delegation: which interactive agent CLI a delegated task starts in (a new tab), the argv
//! that starts it with the task, the session id it is pinned to, and the task enriched with
//! the screen of the pane it came from.
//!
//! Pure apart from reading the registry (config) and looking programs up on the registry's
//! PATH; it never starts anything. The caller runs [`DelegatePlan::argv`] as one argv (no
//! shell), so the task reaches the CLI as one argument, unchanged, whatever it contains.
//!
//! - `clis.rs`: the table [`CLIS`] of [`DelegateCli`]s, [`cli`], [`PromptArg`] (and which
//!   rows were checked against a real `--help`: only `claude`; the rest are from the
//!   reference implementation's table).
//! - `enrich.rs`: [`enrich()`], the task plus the pane's screen tail.

mod clis;
mod enrich;

use std::path::PathBuf;

pub use clis::{CLIS, DelegateCli, PromptArg, cli};
pub use enrich::{CONTEXT_LINES, CONTEXT_MARKER, CONTEXT_MAX_BYTES, enrich};

use crate::{AgentError, Registry};

/// Which delegate to start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DelegateChoice {
    /// A built-in CLI found on PATH.
    Cli {
        cli: &'static DelegateCli,
        /// Where it was found on the registry's PATH.
        program: PathBuf,
    },
    /// The config's `[delegate]` table: its argv as written, then its end
    /// of options (when it has one), then the task.
    Configured {
        name: String,
        argv: Vec<String>,
        end_of_options: Option<String>,
    },
    /// A built-in CLI that is not on PATH: the tab shows [`missing_notice`].
    Missing { cli: &'static DelegateCli },
}

impl DelegateChoice {
    /// The agent's name for cards and tab titles: the CLI id or the configured name.
    pub fn name(&self) -> &str {
        match self {
            Self::Cli { cli, .. } | Self::Missing { cli } => cli.id,
            Self::Configured { name, .. } => name,
        }
    }
}

/// Picks the delegate, first match wins:
/// 1. `agent` (from `--agent`): a built-in id of [`CLIS`]; [`DelegateChoice::Missing`] when
///    its program is not on PATH; an unknown id is an error listing the valid ids.
/// 2. The config's `[delegate]` table.
/// 3. The config's `default_agent` when it is one of [`CLIS`] and its program is on PATH
///    (when it is not, the next steps apply: that setting names the ACP agent, whose adapter
///    may not need the CLI, so an installed CLI beats an install notice).
/// 4. The first of [`CLIS`] whose program is on PATH.
/// 5. [`DelegateChoice::Missing`] for `claude`.
pub fn choose(registry: &Registry, agent: Option<&str>) -> Result<DelegateChoice, AgentError> {
    if let Some(id) = agent {
        let Some(cli) = cli(id) else {
            return Err(AgentError::UnknownDelegate {
                given: id.chars().take(80).collect(),
                valid: clis::valid_ids(),
            });
        };
        if !allowed(registry, cli) {
            return Err(AgentError::NotAllowed {
                id: cli.id.to_owned(),
                allowed: registry.allowed_description(),
            });
        }
        return Ok(find(registry, cli).unwrap_or(DelegateChoice::Missing { cli }));
    }
    if let Some(d) = registry.delegate() {
        return Ok(DelegateChoice::Configured {
            name: d.name.clone(),
            argv: d.argv.clone(),
            end_of_options: d.end_of_options.clone(),
        });
    }
    let configured = registry
        .configured_default_agent()
        .and_then(cli)
        .and_then(|cli| find(registry, cli));
    if let Some(choice) = configured {
        return Ok(choice);
    }
    if let Some(choice) = CLIS.iter().find_map(|cli| find(registry, cli)) {
        return Ok(choice);
    }
    let claude = &CLIS[0];
    Ok(DelegateChoice::Missing { cli: claude })
}

/// Whether the allowlists (policy, then config) admit the CLI's agent id.
fn allowed(registry: &Registry, cli: &DelegateCli) -> bool {
    crate::AgentId::parse(cli.id).is_ok_and(|id| registry.is_allowed(&id))
}

/// The CLI, when it is allowed and its program is on PATH.
fn find(registry: &Registry, cli: &'static DelegateCli) -> Option<DelegateChoice> {
    if !allowed(registry, cli) {
        return None;
    }
    registry
        .find_program(cli.program)
        .map(|program| DelegateChoice::Cli { cli, program })
}

/// The argv that starts a delegate with its task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DelegatePlan {
    /// [`DelegateChoice::name`].
    pub agent: String,
    /// Program first; the task is one element of it, unchanged.
    pub argv: Vec<String>,
    /// The UUID v4 the session is pinned to (CLIs with a pin flag).
    pub session_id: Option<String>,
}

/// The end-of-options marker a configured delegate gets unless its
/// `[delegate]` table says otherwise.
pub const END_OF_OPTIONS: &str = "--";

/// Appends `task` to `argv` so that it can never be read as an option:
/// after `end_of_options`, or, for a CLI that has none, only when it does
/// not start with `-` (else the refusal). An empty task adds nothing.
pub fn append_task(
    argv: &mut Vec<String>,
    agent: &str,
    end_of_options: Option<&str>,
    task: &str,
) -> Result<(), AgentError> {
    if task.is_empty() {
        return Ok(());
    }
    match end_of_options {
        Some(marker) => argv.push(marker.to_owned()),
        None if task.starts_with('-') => {
            return Err(AgentError::TaskLooksLikeOption {
                agent: agent.to_owned(),
            });
        }
        None => {}
    }
    argv.push(task.to_owned());
    Ok(())
}

/// The argv that starts the delegate with `task`; `Ok(None)` for
/// [`DelegateChoice::Missing`] (show [`missing_notice`] instead).
///
/// A built-in CLI gets `<program> [<pin> <uuid>] <task args>`: `<flag> <task>` for
/// [`PromptArg::Flag`] (the flag binds the next word as its value, whatever it starts
/// with), `-- <task>` for [`PromptArg::Positional`], so the task is never read as an
/// option. An empty task adds no task args (the CLI opens an empty session). A
/// configured argv gets its end of options (default `--`) and the task appended
/// ([`append_task`]); one configured without any refuses a task starting with `-`.
/// Should the OS random source fail, the session is started unpinned (logged).
pub fn plan(choice: &DelegateChoice, task: &str) -> Result<Option<DelegatePlan>, AgentError> {
    match choice {
        DelegateChoice::Missing { .. } => Ok(None),
        DelegateChoice::Configured {
            name,
            argv,
            end_of_options,
        } => {
            let mut argv = argv.clone();
            append_task(&mut argv, name, end_of_options.as_deref(), task)?;
            Ok(Some(DelegatePlan {
                agent: name.clone(),
                argv,
                session_id: None,
            }))
        }
        DelegateChoice::Cli { cli, program } => {
            let mut argv = vec![program.to_string_lossy().into_owned()];
            let session_id = cli.pin.and_then(|pin| match uuid_v4() {
                Ok(id) => {
                    argv.push(pin.to_owned());
                    argv.push(id.clone());
                    Some(id)
                }
                Err(err) => {
                    tracing::warn!(agent = cli.id, %err, "no random session id; delegate unpinned");
                    None
                }
            });
            if !task.is_empty() {
                argv.push(match cli.prompt {
                    PromptArg::Flag(flag) => flag.to_owned(),
                    PromptArg::Positional => END_OF_OPTIONS.to_owned(),
                });
                argv.push(task.to_owned());
            }
            Ok(Some(DelegatePlan {
                agent: cli.id.to_owned(),
                argv,
                session_id,
            }))
        }
    }
}

/// What a tab shows when the agent CLI is missing, in the user's language.
pub fn missing_notice(cli: &DelegateCli) -> String {
    let text = wta_i18n::tr(
        "agent.delegate_missing",
        &[("program", cli.program), ("install", cli.install)],
    );
    format!("wta: {text}")
}

/// A random UUID v4 (RFC 9562: version nibble 4, variant bits 10), lower-case hyphenated.
fn uuid_v4() -> Result<String, getrandom::Error> {
    let mut b = [0u8; 16];
    getrandom::fill(&mut b)?;
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    Ok(format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    ))
}

#[cfg(test)]
mod tests;
