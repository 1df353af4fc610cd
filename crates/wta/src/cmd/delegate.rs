//! `wta delegate TASK`: hand a task to a delegate agent in a new tab (or
//! panel), with the context of the pane it was started from.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use wta_host::{HostError, TerminalHost};
use wta_protocol::PaneId;

use super::Ctx;
use crate::launch::delegate::{self, DelegateRequest, Place};
use crate::output;
use wta_i18n::tr;

#[derive(Debug, Args)]
#[command(after_long_help = "\
The task goes to the agent CLI as its first prompt (claude and gemini take it as an argument, \
copilot with -i, opencode with --prompt, codex as an argument), with the last 30 lines of the \
pane it was started from (at most 12 KiB) marked as terminal context. claude, copilot and \
gemini are pinned to a fresh session id, printed with --json. A [delegate] table in \
~/.config/wta/config.toml (argv; the task is appended) overrides the choice. An agent CLI that \
is not installed gets a tab that says how to install it.

With --acp the delegate is a WTA agent pane instead (any agent id, e.g. claude or custom:NAME): \
a new tab with your shell and the agent pane beside it, the task as its first prompt once its \
session is open; what it proposes to run comes as cards, as in your own agent pane.

Examples:
  wta delegate \"fix the failing build\"
  wta delegate --agent codex --panel \"explain this error\"
  wta delegate --acp --agent claude \"update the changelog\"")]
pub struct DelegateArgs {
    /// The task, as you would type it to the agent.
    #[arg(value_name = "TASK", required_unless_present = "task_buffer")]
    pub task: Option<String>,
    /// The delegate agent: claude, copilot, codex, gemini, opencode (with --acp: any agent id).
    /// Default: the [delegate] config, else your default agent, else the first installed.
    #[arg(long, value_name = "ID")]
    pub agent: Option<String>,
    /// Directory to start in (default: the source pane's).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// Open a panel below the source pane instead of a tab.
    #[arg(long)]
    pub panel: bool,
    /// Open a new tab (the default).
    #[arg(long, conflicts_with = "panel")]
    pub tab: bool,
    /// A WTA agent pane as the delegate (its terminal actions come as cards).
    #[arg(long, conflicts_with = "panel")]
    pub acp: bool,
    /// Start from this pane instead of the caller's (key bindings pass `#{pane_id}`).
    // `--pane` is the old name, kept as a hidden alias for scripts and bindings.
    #[arg(short = 't', long = "target", alias = "pane", value_name = "PANE",
          add = clap_complete::ArgValueCandidates::new(super::completions::panes))]
    pub pane: Option<PaneId>,
    /// Take the task from this tmux paste buffer and delete it (the prompt binding's way).
    #[arg(long, value_name = "NAME", hide = true, conflicts_with = "task")]
    pub task_buffer: Option<String>,
}

pub fn run(ctx: &Ctx, args: &DelegateArgs) -> anyhow::Result<ExitCode> {
    let host = ctx.host()?;
    let task = match (&args.task, &args.task_buffer) {
        (Some(task), _) => task.clone(),
        (None, Some(buffer)) => host.take_buffer(buffer)?,
        (None, None) => anyhow::bail!(tr!("cli.delegate.give_task")),
    };
    if task.trim().is_empty() {
        anyhow::bail!(tr!("cli.delegate.empty_task"));
    }
    if let Some(cwd) = &args.cwd
        && !cwd.is_dir()
    {
        anyhow::bail!(tr!("cli.delegate.cwd_not_dir", dir = cwd.display()));
    }
    let source = match &args.pane {
        Some(pane) => Some(host.pane(pane)?),
        None => match host.caller_pane() {
            Some(pane) => Some(host.pane(&pane)?),
            None if args.panel => return Err(HostError::NoCallerPane.into()),
            None => None,
        },
    };
    // Outside tmux, with no pane to start from: the session attached last.
    let session = match &source {
        None => Some(super::target::outside_tmux(
            &host,
            super::target::NameIt::PaneFlag,
        )?),
        Some(_) => None,
    };
    let request = DelegateRequest {
        task,
        agent: args.agent.clone(),
        cwd: args.cwd.clone(),
        place: if args.panel { Place::Panel } else { Place::Tab },
        source,
        session,
        acp: args.acp,
    };
    let done = delegate::launch(ctx.config(), &host, &request)?;
    if ctx.json {
        output::json(&crate::json::agents::Delegate::new(&done))?;
    } else {
        output::line(&delegate::describe(&done))?;
    }
    Ok(ExitCode::SUCCESS)
}
