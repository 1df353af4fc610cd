//! `wta popup`: the tab's agent pane in a tmux popup over whatever pane is
//! focused, and the same command (or key) closes it. The pane is the tab's
//! own (the same helper, transcript and session), found from any pane of
//! the tab or from the agent pane itself (the key pressed inside the
//! popup); the decision and its steps are `popup_flow`'s, this file finds
//! the pane, reads the sizes and says what happened.
//!
//! The command returns once the popup is closed (tmux's `display-popup`
//! waits for it): the key binding runs it in the background.

use std::process::ExitCode;

use clap::Args;
use serde::Serialize;
use wta_host::{
    ClientName, HostError, MAX_POPUP_PERCENT, MIN_POPUP_PERCENT, PaneInfo, Popup, TerminalHost,
    TmuxHost,
};
use wta_i18n::tr;
use wta_protocol::PaneId;

use super::Ctx;
use super::agent_pane::{OpenArgs, WhereArgs};
use super::popup_flow::{self, Agent, Back, Found, Outcome};
use crate::launch::agent_pane;
use crate::launch::prewarm::{self, Prewarmed};
use crate::output;

#[derive(Debug, Args)]
#[command(
    after_help = "The command returns once the popup is closed. In the popup, Esc \
    stays the agent pane's (it cancels a card or a turn); the popup binding's key (prefix P \
    from `wta tmux-config`) closes it, as does tmux's detach (prefix d). A pane that was \
    beside the shell goes back there; a hidden one stays hidden. A tab without an agent pane \
    gets a hidden one first, opened as the options below say."
)]
pub struct PopupArgs {
    #[command(flatten)]
    pub at: WhereArgs,
    /// The terminal to show it on (key bindings pass `#{client_name}`).
    /// Default: the one that used the tab last.
    #[arg(long, value_name = "CLIENT")]
    pub client: Option<ClientName>,
    /// Width in percent of the terminal, border included (default: `[pane] popup_width`, else 80).
    #[arg(long, value_name = "PCT", value_parser = percent())]
    pub width: Option<u8>,
    /// Height in percent of the terminal, border included (default: `[pane] popup_height`, else 80).
    #[arg(long, value_name = "PCT", value_parser = percent())]
    pub height: Option<u8>,
    /// The popup's left column on the terminal (default: centred).
    #[arg(long, value_name = "COL")]
    pub column: Option<u16>,
    /// The popup's top row on the terminal (default: centred).
    #[arg(long, value_name = "ROW")]
    pub row: Option<u16>,
    #[command(flatten)]
    pub open: OpenArgs,
}

fn percent() -> clap::builder::RangedI64ValueParser<u8> {
    clap::value_parser!(u8).range(i64::from(MIN_POPUP_PERCENT)..=i64::from(MAX_POPUP_PERCENT))
}

/// `wta popup --json`: `action` is `shown` (then `back` says where the pane
/// is now: `beside`, `stash` or `gone`) or `closed`.
#[derive(Debug, Serialize)]
struct Done<'a> {
    action: &'static str,
    pane: &'a PaneId,
    back: Option<&'static str>,
}

pub fn run(ctx: &Ctx, args: &PopupArgs) -> anyhow::Result<ExitCode> {
    let host = ctx.host()?;
    let caller_id = match &args.at.pane {
        Some(p) => p.clone(),
        None => host.caller_pane().ok_or(HostError::NoCallerPane)?,
    };
    let caller = host.pane(&caller_id)?;
    if let Some(agent) = &args.open.agent {
        agent_pane::check_agent(ctx.config(), agent)?;
    }
    let (found, agent) = locate(&host, &caller)?;
    let plan = popup_flow::plan(found);
    let agent = match (plan.start_first, agent) {
        (false, Some(agent)) => agent,
        // No agent pane in the tab: one starts out stashed, then shows.
        _ => {
            let spec = args.open.spec(&host);
            let (Prewarmed::Started { pane, .. } | Prewarmed::Present { pane, .. }) =
                prewarm::prewarm_tab(&host, &caller.window, &spec)?;
            Agent {
                pane,
                tab: caller.window.clone(),
                neighbour: caller.id.clone(),
            }
        }
    };
    let (width, height) = sizes(ctx);
    let popup = Popup {
        client: args.client.clone(),
        over: agent.neighbour.clone(),
        width_percent: args.width.unwrap_or(width),
        height_percent: args.height.unwrap_or(height),
        column: args.column,
        row: args.row,
    };
    let outcome = popup_flow::carry_out(&host, &agent, plan.step, &popup)?;
    say(ctx, &outcome)?;
    Ok(ExitCode::SUCCESS)
}

/// `[pane] popup_width`/`popup_height`; the defaults when the file is
/// unusable (the agent pane says what is wrong with it).
fn sizes(ctx: &Ctx) -> (u8, u8) {
    let pane = match ctx.config().loaded() {
        Ok(loaded) => loaded.config.pane,
        Err(_) => wta_agent::config::Config::default().pane,
    };
    (pane.popup_width, pane.popup_height)
}

/// The tab's agent pane and where it is, from `caller`: a pane of the tab,
/// or the agent pane itself (beside the shell, stashed, or in the popup,
/// where the binding's `#{pane_id}` is the agent pane).
fn locate(host: &TmuxHost, caller: &PaneInfo) -> anyhow::Result<(Found, Option<Agent>)> {
    let pane_option = |pane: &PaneId, name: &str| -> anyhow::Result<Option<PaneId>> {
        Ok(PaneId::parse(host.option(pane, name)?.trim()).ok())
    };
    let tab_agent = agent_pane::find(host, &caller.window)?;
    let (agent, beside) = match tab_agent {
        Some((agent, beside)) => (agent, beside),
        None if host.option(&caller.id, "@wta_role")? == "agent" => (caller.clone(), false),
        None => return Ok((Found::Nothing, None)),
    };
    let target = pane_option(&agent.id, "@wta_target")?.filter(|t| t != &agent.id);
    let found = if beside {
        Found::Beside {
            focused: agent.active,
        }
    } else if host.in_popup(&agent.id)? {
        Found::InPopup
    } else {
        Found::Stashed
    };
    // The tab: the caller's, unless the caller is the stashed agent pane
    // (the key pressed in the popup): then its shell's.
    let (tab, neighbour) = if caller.id == agent.id && !beside {
        match target.and_then(|t| host.pane(&t).ok()) {
            Some(shell) => (shell.window, shell.id),
            None => (caller.window.clone(), caller.id.clone()),
        }
    } else {
        let in_tab = |p: &PaneId| host.pane(p).is_ok_and(|p| p.window == caller.window);
        let neighbour = match target.filter(in_tab) {
            Some(shell) => shell,
            None if caller.id != agent.id => caller.id.clone(),
            None => other_pane(host, caller)?.unwrap_or_else(|| caller.id.clone()),
        };
        (caller.window.clone(), neighbour)
    };
    Ok((
        found,
        Some(Agent {
            pane: agent.id,
            tab,
            neighbour,
        }),
    ))
}

/// A pane of `caller`'s tab other than `caller` (the agent pane's shell
/// when its target is gone).
fn other_pane(host: &TmuxHost, caller: &PaneInfo) -> anyhow::Result<Option<PaneId>> {
    Ok(host
        .window_panes(&caller.window)?
        .into_iter()
        .map(|p| p.id)
        .find(|p| p != &caller.id))
}

fn say(ctx: &Ctx, outcome: &Outcome) -> anyhow::Result<()> {
    let (action, pane, back) = match outcome {
        Outcome::Closed(pane) => ("closed", pane, None),
        Outcome::Shown { pane, back } => ("shown", pane, Some(*back)),
    };
    if ctx.json {
        return output::json(&Done {
            action,
            pane,
            back: back.map(Back::word),
        });
    }
    output::line(&match back {
        None => tr!("cli.popup.closed", pane = pane),
        Some(Back::Beside) => tr!("cli.popup.back_beside", pane = pane),
        Some(Back::Stash) => tr!("cli.popup.back_stash", pane = pane),
        Some(Back::Gone) => tr!("cli.popup.gone", pane = pane),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The config's range and the command line's are the host's.
    #[test]
    fn the_sizes_agree_with_the_host() {
        use wta_agent::config::{
            DEFAULT_POPUP_PERCENT, MAX_POPUP_PERCENT as MAX, MIN_POPUP_PERCENT as MIN,
        };
        assert_eq!((MIN, MAX), (MIN_POPUP_PERCENT, MAX_POPUP_PERCENT));
        assert!((MIN..=MAX).contains(&DEFAULT_POPUP_PERCENT));
    }
}
