//! Command-line grammar and dispatch. Each command's behaviour lives in its
//! own file under `cmd/`; this file only names commands and routes to them.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use crate::cmd;

const ABOUT: &str = "WTA connects ACP agent CLIs (Copilot, Claude, Gemini, Codex, OpenCode, …) to your tmux terminal.";

const AFTER_HELP: &str = "\
Start here:
  wta up                 open a tmux session with a shell and an agent pane beside it

Terms: a WT window is a tmux session ($N), a tab is a tmux window (@N), a pane is a pane (%N).
Every command prints a table by default and stable JSON with --json.
-t omitted means the pane wta runs in ($TMUX_PANE).";

/// Top-level arguments.
#[derive(Debug, Parser)]
#[command(name = "wta", version, about = ABOUT, after_help = AFTER_HELP, disable_help_subcommand = true)]
pub struct Cli {
    #[command(flatten)]
    pub server: ServerArgs,

    /// Print stable JSON instead of a table.
    #[arg(long, global = true)]
    pub json: bool,

    /// The language of the agent pane and messages: en, de, es, fr, ja,
    /// zh-CN, zh-TW, pt-BR, or pseudo (default: the config's `language`,
    /// else LC_ALL / LC_MESSAGES / LANG).
    #[arg(long, global = true, value_name = "TAG")]
    pub language: Option<String>,

    #[command(subcommand)]
    pub command: Option<Command>,

    /// Role: run the master daemon on this socket (started on demand by the launcher).
    #[arg(
        long,
        value_name = "SOCKET",
        hide = true,
        conflicts_with = "connect_master"
    )]
    pub master: Option<PathBuf>,

    /// With --master: the tmux server it serves (the master exits once it is gone).
    #[arg(long, value_name = "SOCKET", hide = true, requires = "master")]
    pub tmux_socket: Option<PathBuf>,

    /// Role: run an agent-pane helper connected to the master at this socket.
    #[arg(long, value_name = "SOCKET", hide = true)]
    pub connect_master: Option<PathBuf>,

    #[command(flatten)]
    pub helper: cmd::connect::HelperArgs,

    /// Role: serve the built-in offline demo agent on stdin/stdout (agent id `demo`).
    #[arg(long, hide = true)]
    pub demo_agent: bool,

    /// Role: the master's agent reaper (stops agent process groups once the master is gone).
    #[arg(long, hide = true)]
    pub agent_reaper: bool,
}

/// Which tmux server to talk to (default: the one this pane runs in).
#[derive(Debug, Clone, Default, Args)]
pub struct ServerArgs {
    /// tmux server socket path (like `tmux -S`).
    #[arg(long = "socket", short = 'S', value_name = "PATH", global = true)]
    pub socket: Option<PathBuf>,

    /// tmux server socket name (like `tmux -L`).
    #[arg(short = 'L', value_name = "NAME", global = true,
          add = clap_complete::ArgValueCandidates::new(cmd::completions::servers))]
    pub name: Option<String>,
}

/// Every `wta` command.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Open (or reuse) a tmux session with your shell and an agent pane beside it.
    #[command(
        after_help = "Examples:\n  wta up                      a session named `wta`, attached\n  wta up --agent claude --left\n  wta up --detach --json      set up only; print where things are"
    )]
    Up(cmd::up::UpArgs),
    /// Open, hide/show (toggle) or close the agent pane of this tab.
    Pane(cmd::agent_pane::PaneArgs),
    /// Show the tab's agent pane in a popup over the focused pane; again (or its key) closes it.
    Popup(cmd::popup::PopupArgs),
    /// Print tmux key bindings for the agent pane and the sessions view.
    TmuxConfig,
    /// List terminal windows (tmux sessions).
    #[command(visible_alias = "lsw")]
    ListWindows,
    /// List tabs (tmux windows) of a window, default: the caller's.
    #[command(visible_alias = "lst")]
    ListTabs(cmd::list::ListTabsArgs),
    /// List panes of a tab, default: the caller's current tab.
    #[command(visible_alias = "lsp")]
    ListPanes(cmd::list::ListPanesArgs),
    /// Show the active pane: id, size, process, cwd and shell integration.
    ActivePane,
    /// Open a new tab, optionally running a command in a directory.
    #[command(visible_alias = "neww")]
    NewTab(cmd::open::NewTabArgs),
    /// Split a pane, optionally running a command in a directory.
    #[command(visible_alias = "splitw")]
    SplitPane(cmd::open::SplitPaneArgs),
    /// Print a pane's text (wrapped lines joined).
    #[command(visible_alias = "capturep")]
    CapturePane(cmd::pane::CaptureArgs),
    /// Close a pane and end its process.
    #[command(visible_alias = "killp")]
    KillPane(cmd::pane::TargetArgs),
    /// Is a pane's program running, or dead with which exit status?
    PaneStatus(cmd::pane::TargetArgs),
    /// Wait until a pane's program exits.
    WaitFor(cmd::pane::WaitArgs),
    /// Show the tmux server, its version, and the caller's pane, tab and window.
    Info,
    /// Every agent session of this tmux server: list, search, go to, resume, close.
    Sessions(cmd::sessions::SessionsArgs),
    /// Install, check or remove the hooks that tell WTA about agent CLIs in shell panes.
    Hooks(cmd::hooks::HooksArgs),
    /// Internal: the bridge an agent CLI's hook runs (see `wta hooks --help`); always exits 0.
    #[command(hide = true)]
    Hook(cmd::hook::HookArgs),
    /// Print the shell-integration script to load from your rc file (see --help).
    ShellIntegration(cmd::shell_integration::ShellIntegrationArgs),
    /// Follow a pane and print each command's start, exit code and output.
    Listen(cmd::listen::ListenArgs),
    /// Your ssh, with WTA's integration in the remote shell: its commands are followed like local ones.
    #[command(
        after_help = "Examples:\n  wta ssh build-box\n  wta ssh -p 2222 -J jump me@db -- journalctl -f"
    )]
    Ssh(cmd::ssh::SshArgs),
    /// Hand a task to a delegate agent in a new tab, with this pane's context.
    Delegate(cmd::delegate::DelegateArgs),
    /// The actions you decided on in agent panes (run, inserted, cancelled, timed out), newest last.
    History(cmd::history::HistoryArgs),
    /// Ask the tab's agent pane to fix the last command that failed (as its /fix).
    Fix(cmd::fix::FixArgs),
    /// Internal: the pipe-pane sink of a pane watcher.
    #[command(hide = true)]
    PipeSink(cmd::pipe_sink::PipeSinkArgs),
    /// Internal: the process of an agent terminal's pane.
    #[command(hide = true)]
    TerminalExec(cmd::terminal_exec::TerminalExecArgs),
    /// Propose terminal actions to the user (run by agents; prints JSON lines).
    ProposeTerminalActions(cmd::propose::ProposeArgs),
    /// Does a command exist here (your shell, the directory, PATH)? If not, near matches.
    #[command(name = "resolve-command")]
    Resolve(cmd::resolve_command::ResolveCommandArgs),
    /// Check tmux, your shell's integration, the master, the config file, the language and each agent CLI, and say how to fix what fails.
    Doctor(cmd::doctor::DoctorArgs),
    /// Print a shell completion script (bash, zsh, fish); ids complete from the running server.
    Completions(cmd::completions::CompletionsArgs),
    /// Print the manual (roff), or write one page per command into a directory: `wta man --dir ~/.local/share/man/man1`.
    Man(cmd::man::ManArgs),
}

/// Parses arguments, runs the command and maps errors to exit statuses:
/// 2 for usage errors and a missing server, 141 (silently) when stdout was
/// closed early, 1 for everything else.
pub fn main() -> ExitCode {
    // A Tab in a shell that loaded `wta completions`: answered, then exit.
    cmd::completions::answer_if_asked();
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    crate::language::init(
        crate::cli_help::language_flag(&args).as_deref(),
        crate::config::user(),
    );
    // ssh's words go to ssh as they are (its -L and -S are not wta's).
    if let Some(code) = cmd::ssh::intercept(&args) {
        return code;
    }
    let cli = crate::cli_help::parse(&args);
    if cli.agent_reaper {
        return cmd::master::agent_reaper();
    }
    if cli.demo_agent {
        return cmd::master::demo_agent();
    }
    if let Some(socket) = cli.master {
        return cmd::master::run(socket, cli.tmux_socket);
    }
    if let Some(socket) = cli.connect_master {
        return cmd::connect::run(socket, &cli.helper, crate::config::user());
    }
    let Some(command) = cli.command else {
        eprintln!("wta: {}", wta_i18n::tr!("cli.no_command"));
        return ExitCode::from(2);
    };
    let ctx = cmd::Ctx {
        server: cli.server,
        json: cli.json,
    };
    match cmd::dispatch(&ctx, command) {
        Ok(code) => code,
        // The reader of our stdout went away (`| head`): end quietly, as `ls` does.
        Err(err) if crate::output::is_broken_pipe(&err) => {
            ExitCode::from(crate::output::BROKEN_PIPE_STATUS)
        }
        Err(err) => {
            // `wta:` names the program: the same in every language.
            eprintln!("wta: {}", crate::output::user_message(&err));
            ExitCode::from(cmd::exit_status(&err))
        }
    }
}
