//! One file per command group; `dispatch` routes a parsed command to it.

pub mod agent_pane;
pub mod completions;
pub mod connect;
pub mod delegate;
pub mod doctor;
mod doctor_agents;
mod doctor_checks;
mod doctor_shell;
pub mod fix;
pub mod history;
pub mod hook;
pub mod hooks;
pub mod list;
pub mod listen;
mod listen_verdict;
pub mod man;
pub mod master;
pub mod open;
pub mod pane;
pub mod pipe_sink;
pub mod popup;
mod popup_flow;
pub mod propose;
pub mod resolve_command;
pub mod sessions;
pub mod sessions_actions;
pub mod sessions_pick;
pub mod sessions_registry;
pub mod shell_integration;
pub mod ssh;
mod ssh_args;
mod ssh_hosts;
mod ssh_pty;
mod target;
pub mod terminal_exec;
pub mod tmux_config;
pub mod up;

use std::process::ExitCode;

use wta_host::{HostError, TmuxHost};

use crate::cli::{Command, ServerArgs};

/// What every command gets: how to find the server, the output mode and
/// the user's config.
#[derive(Debug)]
pub struct Ctx {
    pub server: ServerArgs,
    pub json: bool,
}

impl Ctx {
    /// The tmux host named by flags or the environment.
    pub fn host(&self) -> Result<TmuxHost, HostError> {
        TmuxHost::discover(self.server.socket.clone(), self.server.name.clone())
    }

    /// The user's config file and the agent registry, read once per
    /// process at the first need ([`crate::config`]).
    pub fn config(&self) -> &'static crate::config::UserConfig {
        crate::config::user()
    }
}

/// Runs one command.
pub fn dispatch(ctx: &Ctx, command: Command) -> anyhow::Result<ExitCode> {
    match command {
        Command::ListWindows => list::list_windows(ctx),
        Command::ListTabs(args) => list::list_tabs(ctx, &args),
        Command::ListPanes(args) => list::list_panes(ctx, &args),
        Command::ActivePane => list::active_pane(ctx),
        Command::Info => list::info(ctx),
        Command::NewTab(args) => open::new_tab(ctx, &args),
        Command::SplitPane(args) => open::split_pane(ctx, &args),
        Command::CapturePane(args) => pane::capture(ctx, &args),
        Command::KillPane(args) => pane::kill(ctx, &args),
        Command::PaneStatus(args) => pane::status(ctx, &args),
        Command::WaitFor(args) => pane::wait_for(ctx, &args),
        Command::Sessions(args) => sessions::run(ctx, &args),
        Command::Hooks(args) => hooks::run(ctx, &args),
        Command::Hook(args) => Ok(hook::run(ctx, &args)),
        Command::ShellIntegration(args) => shell_integration::run(&args),
        Command::Listen(args) => listen::run(ctx, &args),
        Command::Ssh(args) => ssh::run(ctx, &args),
        Command::Fix(args) => fix::run(ctx, &args),
        Command::Delegate(args) => delegate::run(ctx, &args),
        Command::History(args) => history::run(ctx, &args),
        Command::PipeSink(args) => pipe_sink::run(&args),
        Command::TerminalExec(args) => Ok(terminal_exec::run(&args)),
        Command::Up(args) => up::run(ctx, &args),
        Command::Pane(args) => agent_pane::run(ctx, &args),
        Command::Popup(args) => popup::run(ctx, &args),
        Command::TmuxConfig => tmux_config::run(ctx),
        Command::ProposeTerminalActions(args) => Ok(propose::run(&args)),
        Command::Resolve(args) => resolve_command::run(ctx, &args),
        Command::Completions(args) => completions::run(&args),
        Command::Doctor(args) => doctor::run(ctx, &args),
        Command::Man(args) => man::run(ctx, &args),
    }
}

/// Exit status for an error: 2 when there is no server to talk to.
pub fn exit_status(err: &anyhow::Error) -> u8 {
    match err.downcast_ref::<HostError>() {
        Some(e) if e.is_no_server() => 2,
        _ => 1,
    }
}
