//! One agent pane per tmux window: open, focus, stash/restore, close.
//!
//! The window remembers its agent pane in the window option
//! `@wta_agent_pane`; the pane carries `@wta_role agent` and `@wta_target`
//! (the shell pane it works on). A stashed pane lives in the private stash
//! session, still running, with its helper, ACP session and transcript alive.

use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Serialize;
use wta_host::{PaneCommand, PaneInfo, Split, SplitDirection, TerminalHost, TmuxHost};
use wta_protocol::{PaneId, WindowId};

const WINDOW_OPTION: &str = "@wta_agent_pane";

/// Where the agent pane goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    Left,
    #[default]
    Right,
    Bottom,
}

/// How to open an agent pane.
#[derive(Debug, Clone)]
pub struct OpenSpec {
    pub agent: Option<String>,
    pub side: Side,
    /// Percent of the window.
    pub size: u8,
    /// Start the helper with `--auto-approve-tools` (yolo for every session).
    pub auto_approve_tools: bool,
    /// The master socket the helper connects to.
    pub master: PathBuf,
    /// The helper's first prompt, sent once its session is open (a delegate pane's task).
    pub first_prompt: Option<String>,
    /// The session the helper resumes (`session/load`) instead of a new one.
    pub load_session: Option<String>,
}

/// What an agent-pane command did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "action", content = "pane")]
pub enum Outcome {
    Opened(PaneId),
    Focused(PaneId),
    Restored(PaneId),
    Stashed(PaneId),
    Closed(PaneId),
    NothingToClose,
}

/// The agent pane of `window`, if it still exists, and whether it is shown there.
pub fn find(host: &TmuxHost, window: &WindowId) -> anyhow::Result<Option<(PaneInfo, bool)>> {
    let value = host.tab_option(window, WINDOW_OPTION)?;
    let Ok(pane) = PaneId::parse(value.trim()) else {
        return Ok(None);
    };
    match host.pane(&pane) {
        Ok(info) if !info.dead => {
            let visible = &info.window == window;
            Ok(Some((info, visible)))
        }
        _ => Ok(None),
    }
}

/// The helper's command line for an agent pane working on `target`.
fn helper_argv(spec: &OpenSpec, window: &WindowId, target: &PaneId) -> anyhow::Result<Vec<String>> {
    let exe = std::env::current_exe().context(wta_i18n::tr!("cli.no_binary"))?;
    let mut argv = vec![
        exe.to_string_lossy().into_owned(),
        "--connect-master".into(),
        spec.master.to_string_lossy().into_owned(),
        "--owner-tab".into(),
        window.to_string(),
        "--target-pane".into(),
        target.to_string(),
    ];
    if let Some(agent) = &spec.agent {
        argv.extend(["--agent".into(), agent.clone()]);
    }
    if spec.auto_approve_tools {
        argv.push("--auto-approve-tools".into());
    }
    // The pane speaks the language this command resolved (flag, config, env).
    argv.extend(["--language".into(), wta_i18n::language()]);
    if let Some(prompt) = &spec.first_prompt {
        argv.extend(["--prompt".into(), prompt.clone()]);
    }
    if let Some(session) = &spec.load_session {
        argv.extend(["--load-session".into(), session.clone()]);
    }
    Ok(argv)
}

/// Opens the agent pane beside `caller`, or focuses (restoring if stashed)
/// the one its window already has.
pub fn open(host: &TmuxHost, caller: &PaneInfo, spec: &OpenSpec) -> anyhow::Result<Outcome> {
    if let Some((agent, visible)) = find(host, &caller.window)? {
        if !visible {
            host.restore(&agent.id)?;
            host.focus(&agent.id)?;
            return Ok(Outcome::Restored(agent.id));
        }
        host.focus(&agent.id)?;
        return Ok(Outcome::Focused(agent.id));
    }
    super::master::ensure(&spec.master, &host.location().socket_path())?;
    let agent = host.split(&split_beside(caller, spec)?)?;
    adopt(host, &caller.window, &agent.id, &caller.id)?;
    Ok(Outcome::Opened(agent.id))
}

/// The split that puts an agent pane for `spec` beside `caller`.
pub(super) fn split_beside(caller: &PaneInfo, spec: &OpenSpec) -> anyhow::Result<Split> {
    Ok(Split {
        target: caller.id.clone(),
        direction: match spec.side {
            Side::Left => SplitDirection::Left,
            Side::Right => SplitDirection::Right,
            Side::Bottom => SplitDirection::Down,
        },
        percent: Some(spec.size),
        command: Some(PaneCommand::Argv(helper_argv(
            spec,
            &caller.window,
            &caller.id,
        )?)),
        cwd: Some(caller.cwd.clone()).filter(|c| c.is_dir()),
        env: Vec::new(),
        full: true,
        focus: true,
    })
}

/// Makes `agent` the agent pane of `window`, working on `target`.
pub(super) fn adopt(
    host: &TmuxHost,
    window: &WindowId,
    agent: &PaneId,
    target: &PaneId,
) -> anyhow::Result<()> {
    host.set_tab_option(window, WINDOW_OPTION, Some(agent.as_str()))?;
    host.set_options(
        agent,
        &[("@wta_role", "agent"), ("@wta_target", target.as_str())],
    )?;
    // The agent pane closes when its helper exits, whatever the user's default.
    host.keep_when_dead(agent, false)?;
    Ok(())
}

/// Stashes a shown agent pane, restores a stashed one, or opens one.
pub fn toggle(host: &TmuxHost, caller: &PaneInfo, spec: &OpenSpec) -> anyhow::Result<Outcome> {
    match find(host, &caller.window)? {
        Some((agent, true)) => {
            let target = host.option(&agent.id, "@wta_target").ok();
            let neighbour = target
                .and_then(|t| PaneId::parse(&t).ok())
                .filter(|t| t != &agent.id)
                .unwrap_or_else(|| caller.id.clone());
            host.stash(&agent.id, &neighbour)?;
            // Give the keyboard back to the pane the agent worked on.
            if host
                .pane(&neighbour)
                .is_ok_and(|p| p.window == caller.window)
            {
                host.focus(&neighbour)?;
            }
            Ok(Outcome::Stashed(agent.id))
        }
        Some((agent, false)) => {
            host.restore(&agent.id)?;
            host.focus(&agent.id)?;
            Ok(Outcome::Restored(agent.id))
        }
        None => open(host, caller, spec),
    }
}

/// Ends the window's agent pane, its helper and (through the master) its sessions.
pub fn close(host: &TmuxHost, caller: &PaneInfo) -> anyhow::Result<Outcome> {
    close_in(host, &caller.window)
}

/// Ends the agent pane of tab `window` (visible or stashed), as [`close`].
pub fn close_in(host: &TmuxHost, window: &WindowId) -> anyhow::Result<Outcome> {
    let Some((agent, _)) = find(host, window)? else {
        return Ok(Outcome::NothingToClose);
    };
    host.kill_pane(&agent.id)?;
    host.set_tab_option(window, WINDOW_OPTION, None)?;
    Ok(Outcome::Closed(agent.id))
}

/// The shell pane of a window that has an agent pane: its target if alive,
/// else the first pane that is not the agent.
pub fn shell_pane_of(host: &TmuxHost, window: &WindowId) -> anyhow::Result<PaneInfo> {
    let panes = host.window_panes(window)?;
    let agent = find(host, window)?.map(|(p, _)| p.id);
    let target = match &agent {
        Some(a) => host
            .option(a, "@wta_target")
            .ok()
            .and_then(|t| PaneId::parse(&t).ok()),
        None => None,
    };
    panes
        .iter()
        .find(|p| Some(&p.id) == target.as_ref())
        .or_else(|| {
            panes
                .iter()
                .find(|p| p.active && Some(&p.id) != agent.as_ref())
        })
        .or_else(|| panes.iter().find(|p| Some(&p.id) != agent.as_ref()))
        .cloned()
        .with_context(|| wta_i18n::tr!("cli.launch.no_shell_pane", tab = window))
}

/// Refuses an agent id that cannot work here (malformed, unknown, not
/// allowed) before anything is created. An agent that is only not installed
/// passes: its pane shows how to install it.
pub fn check_agent(config: &crate::config::UserConfig, id: &str) -> anyhow::Result<()> {
    let registry = config.registry()?;
    let id = wta_agent::AgentId::parse(id)?;
    match registry.resolve(&id) {
        Ok(_) | Err(wta_agent::AgentError::NotInstalled { .. }) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// The runtime directory for launcher files (rc files for integrated shells).
pub fn launcher_dir() -> PathBuf {
    wta_env::dirs::runtime_dir().join("launch")
}

/// Makes sure `dir`'s parent (the private runtime dir) exists with mode 0700
/// and is ours, then creates `dir` in it (0700 too; the private parent
/// already keeps every other user out).
pub fn ensure_runtime_dir(dir: &Path) -> anyhow::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    let runtime = wta_env::dirs::runtime_dir();
    wta_env::private_dir::ensure_private_dir(&runtime)
        .with_context(|| wta_i18n::tr!("cli.cannot_prepare", path = runtime.display()))?;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .with_context(|| wta_i18n::tr!("cli.cannot_create", path = dir.display()))
}
