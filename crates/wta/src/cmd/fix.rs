//! `wta fix [-t PANE] [--hint TEXT]`: asks the agent pane of PANE's tab to
//! fix the last command that failed there, as its `/fix` would (what the
//! `prefix f` binding of `wta tmux-config` runs). The agent pane may be
//! hidden (stashed): its helper still answers. The request is a pane option
//! on the agent pane and a tmux channel that wakes its helper
//! (`wta_helper::autofix::request`).

use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use serde::Serialize;
use wta_helper::autofix::request::{FIX_REQUEST_OPTION, FixRequest, fix_channel};
use wta_host::{HostError, TerminalHost};
use wta_protocol::PaneId;

use super::Ctx;
use crate::output;
use wta_i18n::tr;

#[derive(Debug, Args)]
#[command(
    after_help = "The fix runs as a turn in the agent pane: the agent reads the failed \
command's output and may propose one command, typed into the pane that failed only after you \
confirm it on the card. Example: `wta fix --hint 'use the release build'`."
)]
pub struct FixArgs {
    /// The pane whose failure to fix (`%N`). Default: the caller's pane.
    #[arg(short = 't', long = "target", value_name = "PANE", add = clap_complete::ArgValueCandidates::new(super::completions::panes))]
    pub target: Option<PaneId>,
    /// A word for the agent ("it needs sudo").
    #[arg(long = "hint", value_name = "TEXT")]
    pub hint: Option<String>,
}

#[derive(Debug, Serialize)]
struct Asked<'a> {
    agent_pane: &'a PaneId,
    failed_pane: &'a PaneId,
}

pub fn run(ctx: &Ctx, args: &FixArgs) -> anyhow::Result<ExitCode> {
    let host = ctx.host()?;
    let pane = match &args.target {
        Some(p) => p.clone(),
        None => host.caller_pane().ok_or(HostError::NoCallerPane)?,
    };
    let info = host.pane(&pane)?;
    let Some((agent, _stashed)) = crate::launch::agent_pane::find(&host, &info.window)? else {
        anyhow::bail!(tr!("cli.fix.no_agent_pane", pane = pane));
    };
    let request = FixRequest {
        pane: Some(pane.clone()),
        hint: args.hint.clone(),
    };
    let json = serde_json::to_string(&request).context(tr!("cli.fix.cannot_encode"))?;
    host.set_option(&agent.id, FIX_REQUEST_OPTION, &json)?;
    host.signal_channel(&fix_channel(&agent.id))?;
    if ctx.json {
        output::json(&Asked {
            agent_pane: &agent.id,
            failed_pane: &pane,
        })?;
    } else {
        output::line(&tr!("cli.fix.asked", agent_pane = agent.id, pane = pane))?;
    }
    Ok(ExitCode::SUCCESS)
}
