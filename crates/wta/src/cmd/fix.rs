//! `wta fix [-t PANE] [--hint TEXT]`: asks the agent pane of PANE's tab to
//! fix the last command that failed there, as its `/fix` would (what the
//! `prefix F` binding of `wta tmux-config` runs). The agent pane may be
//! hidden (stashed): its helper still answers, and the card waits there
//! with the tab's indicator up. The request is a pane option on the agent
//! pane and a tmux channel that wakes its helper; the helper's answer comes
//! back the same way (`wta_helper::autofix::request`), so the command says
//! whether the fix turn started, and fails (exit 1) when the pane cannot
//! act: no master, nothing failed, a turn running, or no answer within
//! [`ANSWER_WITHIN`].

use std::process::ExitCode;
use std::sync::mpsc;
use std::time::Duration;

use anyhow::Context;
use clap::Args;
use serde::Serialize;
use wta_helper::autofix::request::{
    FIX_REQUEST_OPTION, FixAnswer, FixRequest, ReplyToken, fix_channel, reply_channel, reply_option,
};
use wta_host::{HostError, TerminalHost, TmuxHost};
use wta_protocol::PaneId;

use super::Ctx;
use crate::output;
use wta_i18n::tr;

/// How long the agent pane's helper may take to answer. It answers at once
/// (a tmux round trip or two); this only bounds a stuck or old helper.
pub const ANSWER_WITHIN: Duration = Duration::from_secs(5);

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
    /// The agent pane is not in the tab: its card waits in hidden.
    hidden: bool,
}

pub fn run(ctx: &Ctx, args: &FixArgs) -> anyhow::Result<ExitCode> {
    let host = ctx.host()?;
    let pane = match &args.target {
        Some(p) => p.clone(),
        None => host.caller_pane().ok_or(HostError::NoCallerPane)?,
    };
    let info = host.pane(&pane)?;
    let Some((agent, shown)) = crate::launch::agent_pane::find(&host, &info.window)? else {
        anyhow::bail!(tr!("cli.fix.no_agent_pane", pane = pane));
    };
    let token = ReplyToken::random().context(tr!("cli.fix.cannot_encode"))?;
    let request = FixRequest {
        pane: Some(pane.clone()),
        hint: args.hint.clone(),
        reply: Some(token.clone()),
    };
    let json = serde_json::to_string(&request).context(tr!("cli.fix.cannot_encode"))?;
    host.set_option(&agent.id, FIX_REQUEST_OPTION, &json)?;
    let answered = wait_for_answer(&host, &token);
    host.signal_channel(&fix_channel(&agent.id))?;
    let answer = match answered.recv_timeout(ANSWER_WITHIN) {
        Ok(()) => read_answer(&host, &agent.id, &token)?,
        Err(_) => {
            // Withdrawn, and our own wait ended: a helper that wakes later
            // finds nothing to do.
            let _ = host.unset_option(&agent.id, FIX_REQUEST_OPTION);
            let _ = host.signal_channel(&reply_channel(&token));
            anyhow::bail!(tr!(
                "cli.fix.no_answer",
                agent_pane = agent.id,
                secs = ANSWER_WITHIN.as_secs()
            ));
        }
    };
    let refused = |key: &str| {
        anyhow::anyhow!(wta_i18n::tr(
            key,
            &[("agent_pane", agent.id.as_str()), ("pane", pane.as_str()),]
        ))
    };
    match answer {
        FixAnswer::Started { pane: failed } => {
            if ctx.json {
                output::json(&Asked {
                    agent_pane: &agent.id,
                    failed_pane: &failed,
                    hidden: !shown,
                })?;
            } else {
                output::line(&tr!("cli.fix.asked", agent_pane = agent.id, pane = failed))?;
                if !shown {
                    output::line(&tr!("cli.fix.hidden_note", agent_pane = agent.id))?;
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        FixAnswer::OtherPane { last } => Err(anyhow::anyhow!(tr!(
            "cli.fix.other_pane",
            agent_pane = agent.id,
            pane = pane,
            last = last
        ))),
        FixAnswer::NoMaster => Err(refused("cli.fix.no_master")),
        FixAnswer::NothingToFix => Err(refused("cli.fix.nothing")),
        FixAnswer::TurnRunning => Err(refused("cli.fix.turn_running")),
        FixAnswer::NotReady => Err(refused("cli.fix.not_ready")),
    }
}

/// Starts waiting on the answer's channel (tmux keeps a signal that comes
/// before the wait); the receiver hears when it was signalled.
fn wait_for_answer(host: &TmuxHost, token: &ReplyToken) -> mpsc::Receiver<()> {
    let (tx, rx) = mpsc::channel();
    let (host, channel) = (host.clone(), reply_channel(token));
    std::thread::spawn(move || {
        if host.wait_for(&channel).is_ok() {
            let _ = tx.send(());
        }
    });
    rx
}

/// The helper's answer, taken from the agent pane's option.
fn read_answer(host: &TmuxHost, agent: &PaneId, token: &ReplyToken) -> anyhow::Result<FixAnswer> {
    let option = reply_option(token);
    let text = host.option(agent, &option)?;
    let _ = host.unset_option(agent, &option);
    serde_json::from_str(&text).with_context(|| tr!("cli.fix.bad_answer", agent_pane = agent))
}
