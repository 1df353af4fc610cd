//! `wta pane open|toggle|close`: the agent pane of the caller's tab.

use std::process::ExitCode;

use clap::{Args, Subcommand};
use wta_host::{HostError, TerminalHost};
use wta_protocol::PaneId;

use super::Ctx;
use crate::launch::agent_pane::{self, OpenSpec, Outcome, Side};
use crate::launch::master;
use crate::output;

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
}

#[derive(Debug, Args)]
pub struct WhereArgs {
    /// Act for this pane instead of the caller's (key bindings pass `#{pane_id}`).
    #[arg(long = "pane", value_name = "PANE", add = clap_complete::ArgValueCandidates::new(super::completions::panes))]
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
    };
    let caller_id = match &at.pane {
        Some(p) => p.clone(),
        None => host.caller_pane().ok_or(HostError::NoCallerPane)?,
    };
    let caller = host.pane(&caller_id)?;
    if let PaneAction::Open(o) | PaneAction::Toggle(o) = &args.action
        && let Some(agent) = &o.open.agent
    {
        agent_pane::check_agent(agent)?;
    }
    let spec = |o: &OpenArgs| OpenSpec {
        agent: o.agent.clone(),
        side: o.side(),
        size: o.size,
        auto_approve_tools: o.auto_approve_tools,
        master: master::socket_for(&host.location().socket_path()),
    };
    let outcome = match &args.action {
        PaneAction::Open(o) => agent_pane::open(&host, &caller, &spec(&o.open))?,
        PaneAction::Toggle(o) => agent_pane::toggle(&host, &caller, &spec(&o.open))?,
        PaneAction::Close(_) => agent_pane::close(&host, &caller)?,
    };
    if ctx.json {
        output::json(&outcome)?;
    } else {
        output::line(&match &outcome {
            Outcome::Opened(p) => format!("opened agent pane {p}"),
            Outcome::Focused(p) => format!("focused agent pane {p}"),
            Outcome::Restored(p) => format!("restored agent pane {p}"),
            Outcome::Stashed(p) => {
                format!("hid agent pane {p} (it keeps running; toggle again to bring it back)")
            }
            Outcome::Closed(p) => format!("closed agent pane {p}"),
            Outcome::NothingToClose => "this tab has no agent pane".into(),
        })?;
    }
    Ok(ExitCode::SUCCESS)
}
