//! Starting a delegate agent with a task (`wta delegate`, `?TASK` in the
//! agent pane): the task enriched with the context of the pane it came
//! from, then either the delegate agent CLI in a new tab or panel (the task
//! in its argv: it is ready when it starts), or, with `acp`, a WTA agent
//! pane in a new tab whose first prompt is the task (sent once its session
//! is open) and whose target is that tab's shell, so the delegate's
//! terminal actions come as cards. Which CLI and how it takes the task is
//! `wta_agent::delegate`'s; a missing CLI gets a tab that says how to
//! install it.

use std::path::PathBuf;
use std::time::Duration;

use serde::Serialize;
use wta_agent::delegate::{self, DelegateChoice};
use wta_host::{NewTab, PaneCommand, PaneInfo, Split, SplitDirection, TerminalHost, TmuxHost};
use wta_protocol::{PaneId, TmuxSessionId, WindowId};

use super::agent_pane::{self, OpenSpec, Side};
use super::{master, shell};
use crate::config::UserConfig;
use wta_i18n::tr;

/// How long a new tab's shell may wait for its agent pane's watcher.
const GATE_TIMEOUT: Duration = Duration::from_secs(10);

/// Where the delegate goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    Tab,
    /// A split of the source pane.
    Panel,
}

/// What to delegate, and where from.
#[derive(Debug, Clone)]
pub struct DelegateRequest {
    pub task: String,
    /// A delegate CLI (`claude`, …), or with `acp` an agent id.
    pub agent: Option<String>,
    pub cwd: Option<PathBuf>,
    pub place: Place,
    /// The pane it was started from: its context goes with the task, and
    /// the new tab or panel opens beside it.
    pub source: Option<PaneInfo>,
    /// Without a source: the session the new tab opens in (the host picks
    /// the one attached last when this is `None` too).
    pub session: Option<TmuxSessionId>,
    /// A WTA agent pane instead of the agent CLI.
    pub acp: bool,
}

/// What `wta delegate --json` prints.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Delegated {
    /// The pane the delegate runs in (the agent pane, with `acp`).
    pub pane: PaneId,
    pub window: WindowId,
    pub agent: String,
    /// The session id the delegate CLI was pinned to, when it takes one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// `false`: the CLI is missing; the tab says how to install it.
    pub installed: bool,
    /// With `acp`: the new tab's shell, the delegate's target.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shell: Option<PaneId>,
}

/// The task with the source pane's last lines, as untrusted context.
fn enriched(host: &TmuxHost, request: &DelegateRequest) -> String {
    let Some(source) = &request.source else {
        return request.task.clone();
    };
    let lines = u32::try_from(delegate::CONTEXT_LINES).unwrap_or(30);
    match host.capture(&source.id, Some(lines)) {
        Ok(screen) => delegate::enrich(&request.task, source.id.as_str(), &screen),
        Err(err) => {
            tracing::debug!("no context from {}: {err}", source.id);
            request.task.clone()
        }
    }
}

/// Starts the delegate.
pub fn launch(
    config: &UserConfig,
    host: &TmuxHost,
    request: &DelegateRequest,
) -> anyhow::Result<Delegated> {
    let task = enriched(host, request);
    if request.acp {
        return launch_acp(config, host, request, task);
    }
    let choice = delegate::choose(config.registry()?, request.agent.as_deref())?;
    let (command, session_id, installed) = match delegate::plan(&choice, &task)? {
        Some(plan) => (
            kept_command(choice.name(), &plan.argv),
            plan.session_id,
            true,
        ),
        None => {
            let notice = match &choice {
                DelegateChoice::Missing { cli } => delegate::missing_notice(cli),
                other => format!(
                    "wta: {}",
                    tr!("cli.delegate.cannot_start", agent = other.name())
                ),
            };
            (PaneCommand::Argv(notice_argv(&notice)), None, false)
        }
    };
    let pane = open(host, request, command, Vec::new())?;
    if installed {
        // The footer waits for Enter; then the pane goes with its program.
        host.keep_when_dead(&pane.id, false)?;
    }
    Ok(Delegated {
        window: pane.window.clone(),
        pane: pane.id,
        agent: choice.name().to_owned(),
        session_id,
        installed,
        shell: None,
    })
}

/// Stands in for the exit status in the footer's text while it is split
/// around it (a translation puts the status anywhere in its sentence).
const STATUS_SLOT: &str = "\u{1}status\u{1}";

/// The delegate CLI, then a one-line footer with its exit status; the pane
/// stays, with the CLI's output and the footer, until the user presses
/// Enter there (or closes it): a delegate that ended leaves its answer to
/// read. The pane waits alive rather than dead (`remain-on-exit`): tmux
/// 3.3 can drop what a program printed right before it exited.
fn kept_command(agent: &str, argv: &[String]) -> PaneCommand {
    PaneCommand::Shell(kept_line(agent, argv))
}

/// `argv…; s=$?; record s; printf footer; read; exit $s`, every word
/// quoted for `sh`.
fn kept_line(agent: &str, argv: &[String]) -> String {
    let run = argv
        .iter()
        .map(|word| wta_host::sh_quote(word))
        .collect::<Vec<_>>()
        .join(" ");
    let footer = tr!("cli.delegate.ended", agent = agent, status = STATUS_SLOT);
    let (before, after) = footer.split_once(STATUS_SLOT).unwrap_or((&footer, ""));
    format!(
        concat!(
            "{}; s=$?; ",
            r#"tmux set-option -p -t "$TMUX_PANE" @wta_exit_status "$s" 2>/dev/null; "#,
            r#"printf '\n\033[7m %s%s%s \033[0m' {} "$s" {}; read -r _; exit "$s""#
        ),
        run,
        wta_host::sh_quote(before),
        wta_host::sh_quote(after),
    )
}

/// A pane that says `notice` and then is the user's shell, so the error
/// stays in view and the install line can be run right there.
fn notice_argv(notice: &str) -> Vec<String> {
    vec![
        "/bin/sh".into(),
        "-c".into(),
        r#"printf '%s\n\n' "$1"; exec "${SHELL:-/bin/sh}""#.into(),
        "wta-delegate".into(),
        notice.to_owned(),
    ]
}

/// Opens a tab after the source's (or in the current session) or a panel
/// beside the source, running `command`.
fn open(
    host: &TmuxHost,
    request: &DelegateRequest,
    command: PaneCommand,
    env: Vec<(String, String)>,
) -> anyhow::Result<PaneInfo> {
    let cwd = request
        .cwd
        .clone()
        .or_else(|| request.source.as_ref().map(|s| s.cwd.clone()))
        .filter(|c| c.is_dir());
    match (request.place, &request.source) {
        (Place::Panel, Some(source)) => Ok(host.split(&Split {
            target: source.id.clone(),
            direction: SplitDirection::Down,
            percent: Some(50),
            command: Some(command),
            cwd,
            env,
            full: false,
            focus: true,
        })?),
        (Place::Panel, None) => {
            anyhow::bail!(tr!("cli.delegate.panel_needs_pane"))
        }
        (Place::Tab, source) => Ok(host.new_tab(&NewTab {
            after: None,
            session: source
                .as_ref()
                .map(|s| s.session.clone())
                .or_else(|| request.session.clone()),
            command: Some(command),
            cwd,
            title: Some("delegate".into()),
            env,
            focus: true,
        })?),
    }
}

/// `--acp`: a new tab with the user's shell and a WTA agent pane beside it
/// whose first prompt is the task.
fn launch_acp(
    config: &UserConfig,
    host: &TmuxHost,
    request: &DelegateRequest,
    task: String,
) -> anyhow::Result<Delegated> {
    open_agent_tab(config, host, request, Some(task), None)
}

/// A new tab with the user's shell and a WTA agent pane beside it working
/// on it: its first prompt `task` (a delegate), or the agent's session
/// `load` resumed (`session/load`).
pub fn open_agent_tab(
    config: &UserConfig,
    host: &TmuxHost,
    request: &DelegateRequest,
    task: Option<String>,
    load: Option<String>,
) -> anyhow::Result<Delegated> {
    if let Some(agent) = &request.agent {
        agent_pane::check_agent(config, agent)?;
    }
    let launch = shell::gated_user_shell()?;
    let tab = DelegateRequest {
        place: Place::Tab,
        ..request.clone()
    };
    let shell_pane = open(host, &tab, PaneCommand::Argv(launch.argv), launch.env)?;
    if let Some(gate) = &launch.gate {
        shell::mark_gated(host, &shell_pane.id, gate)?;
    }
    let master_socket = master::socket_for(&host.location().socket_path());
    let spec = OpenSpec {
        agent: request.agent.clone(),
        side: Side::Right,
        size: 50,
        auto_approve_tools: false,
        master: master_socket,
        first_prompt: task,
        load_session: load.clone(),
    };
    let opened = agent_pane::open(host, &shell_pane, &spec);
    if let Some(gate) = &launch.gate {
        let wait = if opened.is_ok() {
            GATE_TIMEOUT
        } else {
            Duration::ZERO
        };
        shell::wait_gate_taken(host, &shell_pane.id, gate, wait)?;
    }
    let agent_pane = match opened? {
        agent_pane::Outcome::Opened(pane) => pane,
        other => anyhow::bail!(tr!(
            "cli.delegate.tab_had_agent_pane",
            outcome = format!("{other:?}")
        )),
    };
    let agent = host
        .option(&agent_pane, wta_agent::PANE_AGENT_OPTION)
        .ok()
        .filter(|a| !a.is_empty())
        .or_else(|| request.agent.clone())
        .or_else(|| {
            // The pane has not said yet: it starts the default agent.
            let registry = config.registry().ok()?;
            Some(registry.default_agent().as_str().to_owned())
        })
        .unwrap_or_else(|| wta_agent::registry::DEMO_ID.to_owned());
    Ok(Delegated {
        pane: agent_pane,
        window: shell_pane.window,
        agent,
        session_id: load,
        installed: true,
        shell: Some(shell_pane.id),
    })
}

/// The tab the delegate was started from, for messages.
pub fn describe(done: &Delegated) -> String {
    let key = if done.installed {
        "cli.delegate.started"
    } else {
        "cli.delegate.not_installed"
    };
    let mut text = tr!(key, agent = done.agent, tab = done.window, pane = done.pane);
    if let Some(id) = &done.session_id {
        text.push_str(&tr!("cli.delegate.session", id = id));
    }
    text
}
