//! `wta pane open|toggle|close`: the agent pane of the caller's tab.

use std::process::ExitCode;

use clap::{Args, Subcommand};
use wta_host::{HostError, TerminalHost};
use wta_protocol::{PaneId, WindowId};

use super::Ctx;
use crate::launch::agent_pane::{self, OpenSpec, Outcome, Side};
use crate::launch::master;
use crate::launch::prewarm::{self, Prewarmed};
use crate::output;
use wta_i18n::tr;

#[derive(Debug, Args)]
pub struct PaneArgs {
    #[command(subcommand)]
    pub action: PaneAction,
}

#[derive(Debug, Subcommand)]
pub enum PaneAction {
    /// Open the agent pane beside the caller's pane (a second open focuses it).
    Open(OpenCmd),
    /// Hide the agent pane (it keeps running) or bring it back; opens one if none.
    Toggle(OpenCmd),
    /// Close the agent pane and end its helper and sessions.
    Close(WhereArgs),
    /// Start a hidden agent pane for a tab (or every tab of the session), so
    /// autofix catches failures there before the pane was ever opened.
    /// `[autofix] prewarm = true` does this for `wta up` and `wta pane open`,
    /// and for tabs created later.
    Prewarm(PrewarmCmd),
}

/// `pane prewarm`: which tabs.
#[derive(Debug, Args)]
pub struct PrewarmCmd {
    #[command(flatten)]
    pub at: WhereArgs,
    /// The tab to prewarm (default: the one of -t or the caller's pane).
    // `--window` is the old name, kept as a hidden alias for scripts and tmux hooks.
    #[arg(long = "tab", alias = "window", value_name = "TAB", conflicts_with = "all",
          add = clap_complete::ArgValueCandidates::new(super::completions::tabs))]
    pub window: Option<WindowId>,
    /// Every tab of the session, and tabs created in it later.
    #[arg(long)]
    pub all: bool,
    /// Only when `[autofix] prewarm` is on (what the session hook runs).
    #[arg(long, hide = true)]
    pub if_enabled: bool,
    #[command(flatten)]
    pub open: OpenArgs,
}

#[derive(Debug, Args)]
pub struct WhereArgs {
    /// Act for this pane instead of the caller's (key bindings pass `#{pane_id}`).
    // `--pane` is the old name, kept as a hidden alias for scripts and bindings.
    #[arg(short = 't', long = "target", alias = "pane", value_name = "PANE",
          add = clap_complete::ArgValueCandidates::new(super::completions::panes))]
    pub pane: Option<PaneId>,
}

/// `pane open` / `pane toggle`: where, and how to open.
#[derive(Debug, Args)]
pub struct OpenCmd {
    #[command(flatten)]
    pub at: WhereArgs,
    #[command(flatten)]
    pub open: OpenArgs,
}

/// How to open an agent pane (shared with `wta up`).
#[derive(Debug, Args)]
pub struct OpenArgs {
    /// Agent id (copilot, claude, codex, gemini, opencode, demo, custom:NAME).
    /// Default: the configured or first installed agent, else the demo.
    #[arg(long, value_name = "ID")]
    pub agent: Option<String>,
    /// Put the agent pane on the left.
    #[arg(long, conflicts_with_all = ["right", "bottom"])]
    pub left: bool,
    /// Put the agent pane on the right (the default).
    #[arg(long, conflicts_with = "bottom")]
    pub right: bool,
    /// Put the agent pane at the bottom.
    #[arg(long)]
    pub bottom: bool,
    /// Size in percent of the tab.
    #[arg(long, value_name = "PCT", default_value_t = 40, value_parser = clap::value_parser!(u8).range(10..=90))]
    pub size: u8,
    /// Yolo: approve the agent's own tool permissions automatically in every
    /// session of this pane (never terminal-action cards; a system policy can forbid it).
    #[arg(long)]
    pub auto_approve_tools: bool,
}

impl OpenArgs {
    /// How to open an agent pane on `host`'s server.
    pub fn spec(&self, host: &wta_host::TmuxHost) -> OpenSpec {
        OpenSpec {
            agent: self.agent.clone(),
            side: self.side(),
            size: self.size,
            auto_approve_tools: self.auto_approve_tools,
            master: master::socket_for(&host.location().socket_path()),
            first_prompt: None,
            load_session: None,
        }
    }

    pub fn side(&self) -> Side {
        if self.left {
            Side::Left
        } else if self.bottom {
            Side::Bottom
        } else {
            Side::Right
        }
    }
}

pub fn run(ctx: &Ctx, args: &PaneArgs) -> anyhow::Result<ExitCode> {
    let host = ctx.host()?;
    let at = match &args.action {
        PaneAction::Open(o) | PaneAction::Toggle(o) => &o.at,
        PaneAction::Close(w) => w,
        // Its tab may be given without a pane (the session hook's way).
        PaneAction::Prewarm(p) => return run_prewarm(ctx, &host, p),
    };
    let caller_id = match &at.pane {
        Some(p) => p.clone(),
        None => host.caller_pane().ok_or(HostError::NoCallerPane)?,
    };
    let caller = host.pane(&caller_id)?;
    if let PaneAction::Open(o) | PaneAction::Toggle(o) = &args.action
        && let Some(agent) = &o.open.agent
    {
        agent_pane::check_agent(ctx.config(), agent)?;
    }
    let spec = |o: &OpenArgs| o.spec(&host);
    let outcome = match &args.action {
        PaneAction::Prewarm(p) => return run_prewarm(ctx, &host, p),
        PaneAction::Open(o) => {
            let outcome = agent_pane::open(&host, &caller, &spec(&o.open))?;
            prewarm_if_enabled(ctx.config(), &host, &caller.session, &spec(&o.open));
            outcome
        }
        PaneAction::Toggle(o) => agent_pane::toggle(&host, &caller, &spec(&o.open))?,
        PaneAction::Close(_) => agent_pane::close(&host, &caller)?,
    };
    if ctx.json {
        output::json(&crate::json::agents::PaneAction::new(&outcome))?;
    } else {
        output::line(&match &outcome {
            Outcome::Opened(p) => tr!("cli.pane.opened", pane = p),
            Outcome::Focused(p) => tr!("cli.pane.focused", pane = p),
            Outcome::Restored(p) => tr!("cli.pane.restored", pane = p),
            Outcome::Stashed(p) => tr!("cli.pane.hid", pane = p),
            Outcome::Closed(p) => tr!("cli.pane.closed", pane = p),
            Outcome::NothingToClose => tr!("cli.pane.nothing_to_close"),
        })?;
    }
    Ok(ExitCode::SUCCESS)
}

/// With `[autofix] prewarm = true`: every tab of `session` gets a hidden
/// agent pane, now and when created. A failure here is reported, never
/// fatal: the pane the user asked for is open.
pub fn prewarm_if_enabled(
    config: &crate::config::UserConfig,
    host: &wta_host::TmuxHost,
    session: &wta_protocol::TmuxSessionId,
    spec: &OpenSpec,
) {
    if !prewarm::enabled(config) {
        return;
    }
    if let Err(err) = prewarm::prewarm_session(host, session, spec) {
        eprintln!(
            "wta: {}",
            tr!("cli.pane.prewarm_failed", error = format!("{err:#}"))
        );
    }
}

fn run_prewarm(
    ctx: &Ctx,
    host: &wta_host::TmuxHost,
    args: &PrewarmCmd,
) -> anyhow::Result<ExitCode> {
    if args.if_enabled && !prewarm::enabled(ctx.config()) {
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(agent) = &args.open.agent {
        agent_pane::check_agent(ctx.config(), agent)?;
    }
    let spec = args.open.spec(host);
    let caller = || -> anyhow::Result<wta_host::PaneInfo> {
        let id = match &args.at.pane {
            Some(p) => p.clone(),
            None => host.caller_pane().ok_or(HostError::NoCallerPane)?,
        };
        Ok(host.pane(&id)?)
    };
    let done = match (&args.window, args.all) {
        (Some(window), _) => vec![prewarm::prewarm_tab(host, window, &spec)?],
        (None, true) => prewarm::prewarm_session(host, &caller()?.session, &spec)?,
        (None, false) => vec![prewarm::prewarm_tab(host, &caller()?.window, &spec)?],
    };
    if ctx.json {
        output::json(&crate::json::agents::Prewarms::new(&done))?;
        return Ok(ExitCode::SUCCESS);
    }
    for tab in &done {
        output::line(&match tab {
            Prewarmed::Started { window, pane } => {
                tr!("cli.pane.prewarm_started", tab = window, pane = pane)
            }
            Prewarmed::Present { window, pane } => {
                tr!("cli.pane.prewarm_present", tab = window, pane = pane)
            }
        })?;
    }
    Ok(ExitCode::SUCCESS)
}
