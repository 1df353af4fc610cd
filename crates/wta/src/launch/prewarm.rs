//! Warm agent panes for autofix (`[autofix] prewarm = true`): every tab of
//! a session gets an agent pane that starts out stashed, so its helper
//! follows the tab's shells and catches a failure before the user ever
//! opened the pane there; `wta pane open` then shows it with its pill. Tabs
//! created later get one from a session hook that runs `wta pane prewarm`.
//!
//! Prewarming a tab that has an agent pane (shown or stashed) does nothing;
//! a file lock keeps two prewarms (the hook and `wta up`) from both
//! creating one.

use std::path::Path;

use anyhow::Context;
use serde::Serialize;
use wta_host::{HookWord, TerminalHost, TmuxHost};
use wta_protocol::{PaneId, TmuxSessionId, WindowId};

use super::agent_pane::{self, OpenSpec, Side};

/// The slot of WTA's hook in the session's `after-new-window` array.
const HOOK_INDEX: u16 = 73;

/// What prewarming one tab did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "action")]
pub enum Prewarmed {
    /// A stashed agent pane was started for the tab.
    Started { window: WindowId, pane: PaneId },
    /// The tab already has an agent pane.
    Present { window: WindowId, pane: PaneId },
}

/// Whether `[autofix] prewarm` is on in the user's config (a broken file
/// counts as off; the helpers say what is wrong with it).
pub fn enabled(config: &crate::config::UserConfig) -> bool {
    config
        .table("autofix", |c| c.autofix.prewarm)
        .is_some_and(|(prewarm, _)| prewarm)
}

/// Gives `window` a stashed agent pane unless it has one.
pub fn prewarm_tab(
    host: &TmuxHost,
    window: &WindowId,
    spec: &OpenSpec,
) -> anyhow::Result<Prewarmed> {
    let _lock = lock(&agent_pane::launcher_dir())?;
    if let Some((agent, _)) = agent_pane::find(host, window)? {
        return Ok(Prewarmed::Present {
            window: window.clone(),
            pane: agent.id,
        });
    }
    let target = agent_pane::shell_pane_of(host, window)?;
    super::master::ensure(&spec.master, &host.location().socket_path())?;
    let agent = host.spawn_stashed(&agent_pane::split_beside(&target, spec)?)?;
    agent_pane::adopt(host, window, &agent.id, &target.id)?;
    Ok(Prewarmed::Started {
        window: window.clone(),
        pane: agent.id,
    })
}

/// Prewarms every tab of `session` and has tabs created later prewarmed too.
pub fn prewarm_session(
    host: &TmuxHost,
    session: &TmuxSessionId,
    spec: &OpenSpec,
) -> anyhow::Result<Vec<Prewarmed>> {
    install_hook(host, session, spec)?;
    host.list_windows(Some(session))?
        .iter()
        .map(|w| prewarm_tab(host, &w.id, spec))
        .collect()
}

/// `after-new-window` runs `wta pane prewarm --tab <new tab>` with the
/// same agent, side and size.
fn install_hook(host: &TmuxHost, session: &TmuxSessionId, spec: &OpenSpec) -> anyhow::Result<()> {
    let exe = std::env::current_exe().context(wta_i18n::tr!("cli.no_binary"))?;
    let text = |s: &str| HookWord::Text(s.to_owned());
    let mut argv = vec![
        text(&exe.to_string_lossy()),
        text("-S"),
        HookWord::Format("#{socket_path}"),
        text("pane"),
        text("prewarm"),
        text("--tab"),
        HookWord::Format("#{window_id}"),
        text("--size"),
        text(&spec.size.to_string()),
        text(match spec.side {
            Side::Left => "--left",
            Side::Right => "--right",
            Side::Bottom => "--bottom",
        }),
    ];
    if let Some(agent) = &spec.agent {
        argv.extend([text("--agent"), text(agent)]);
    }
    if spec.auto_approve_tools {
        argv.push(text("--auto-approve-tools"));
    }
    host.set_session_hook(session, "after-new-window", HOOK_INDEX, &argv)?;
    Ok(())
}

/// An exclusive lock on `dir/prewarm.lock`, released when dropped (or when
/// the process ends).
fn lock(dir: &Path) -> anyhow::Result<nix::fcntl::Flock<std::fs::File>> {
    agent_pane::ensure_runtime_dir(dir)?;
    let path = dir.join("prewarm.lock");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .with_context(|| wta_i18n::tr!("cli.cannot_open", path = path.display()))?;
    nix::fcntl::Flock::lock(file, nix::fcntl::FlockArg::LockExclusive).map_err(|(_, err)| {
        anyhow::anyhow!(wta_i18n::tr!(
            "cli.cannot_lock",
            path = path.display(),
            error = err
        ))
    })
}
