//! Commands that open panes: new-tab and split-pane. Both print the new
//! pane's id (or its JSON), run `-c` through `/bin/sh -c` in the `-d`
//! directory, and keep the pane after its command exits so `pane-status`
//! and `wait-for` can report the exit status.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use serde::Serialize;
use wta_host::{HostError, NewTab, PaneCommand, PaneInfo, Split, SplitDirection, TerminalHost};
use wta_protocol::{PaneId, SessionId, WindowId};

use super::Ctx;
use crate::output;

#[derive(Debug, Args)]
pub struct NewTabArgs {
    /// Command to run in the new tab (via /bin/sh -c). Default: your shell.
    #[arg(short = 'c', long = "command", value_name = "CMD")]
    pub command: Option<String>,
    /// Working directory of the new tab.
    #[arg(short = 'd', long = "cwd", value_name = "CWD")]
    pub cwd: Option<PathBuf>,
    /// Tab title.
    #[arg(short = 'n', long = "title", value_name = "TITLE")]
    pub title: Option<String>,
    /// Window (tmux session `$N`) to open the tab in. Default: the caller's.
    #[arg(short = 'w', long = "window", value_name = "SESSION")]
    pub session: Option<SessionId>,
    /// Switch to the new tab.
    #[arg(long)]
    pub focus: bool,
}

#[derive(Debug, Args)]
pub struct SplitPaneArgs {
    /// Side by side: the new pane to the right (`-H -b`: to the left).
    #[arg(short = 'H', long = "horizontal", conflicts_with = "vertical")]
    pub horizontal: bool,
    /// Stacked: the new pane below (`-V -b`: above).
    #[arg(short = 'V', long = "vertical")]
    pub vertical: bool,
    /// Put the new pane before (left of / above) the target.
    #[arg(short = 'b', long = "before")]
    pub before: bool,
    /// Pane to split. Default: the caller's pane.
    #[arg(short = 't', long = "target", value_name = "PANE")]
    pub target: Option<PaneId>,
    /// Command to run in the new pane (via /bin/sh -c). Default: your shell.
    #[arg(short = 'c', long = "command", value_name = "CMD")]
    pub command: Option<String>,
    /// Working directory of the new pane.
    #[arg(short = 'd', long = "cwd", value_name = "CWD")]
    pub cwd: Option<PathBuf>,
    /// Size of the new pane, percent of the split pane (1–99).
    #[arg(short = 'p', long = "percent", value_name = "PERCENT", value_parser = clap::value_parser!(u8).range(1..=99))]
    pub percent: Option<u8>,
    /// Move the focus to the new pane.
    #[arg(long)]
    pub focus: bool,
}

/// What `new-tab --json` and `split-pane --json` print.
#[derive(Debug, Serialize)]
pub struct Opened {
    pub pane: PaneId,
    pub window: WindowId,
    pub session: SessionId,
}

fn print_opened(ctx: &Ctx, pane: PaneInfo) -> anyhow::Result<ExitCode> {
    if ctx.json {
        output::json(&Opened {
            pane: pane.id,
            window: pane.window,
            session: pane.session,
        })?;
    } else {
        output::line(pane.id.as_str())?;
    }
    Ok(ExitCode::SUCCESS)
}

pub fn new_tab(ctx: &Ctx, args: &NewTabArgs) -> anyhow::Result<ExitCode> {
    let host = ctx.host()?;
    let spec = NewTab {
        session: args.session.clone(),
        command: args.command.clone().map(PaneCommand::Shell),
        cwd: args.cwd.clone(),
        title: args.title.clone(),
        env: Vec::new(),
        focus: args.focus,
    };
    print_opened(ctx, host.new_tab(&spec)?)
}

/// Side by side when neither flag is given and the pane is wide
/// (cells are about twice as tall as wide), else stacked.
fn direction(args: &SplitPaneArgs, target: &PaneInfo) -> SplitDirection {
    let side_by_side = if args.horizontal || args.vertical {
        args.horizontal
    } else {
        u32::from(target.size.cols) >= 2 * u32::from(target.size.rows)
    };
    match (side_by_side, args.before) {
        (true, false) => SplitDirection::Right,
        (true, true) => SplitDirection::Left,
        (false, false) => SplitDirection::Down,
        (false, true) => SplitDirection::Up,
    }
}

pub fn split_pane(ctx: &Ctx, args: &SplitPaneArgs) -> anyhow::Result<ExitCode> {
    let host = ctx.host()?;
    let target = match &args.target {
        Some(p) => p.clone(),
        None => host.caller_pane().ok_or(HostError::NoCallerPane)?,
    };
    let info = host.pane(&target)?;
    let spec = Split {
        direction: direction(args, &info),
        target,
        percent: args.percent,
        command: args.command.clone().map(PaneCommand::Shell),
        cwd: args.cwd.clone(),
        env: Vec::new(),
        full: false,
        focus: args.focus,
    };
    print_opened(ctx, host.split(&spec)?)
}
