//! `wta --connect-master <SOCKET> [--agent ID] [--owner-tab @W] [--target-pane %P]`:
//! the helper role. By default it runs the agent pane's chat TUI (`tui.rs`);
//! with `--headless` the line-based driver (`wta_helper::driver`): commands on
//! stdin, JSON event lines on stdout.
//!
//! The TUI outlives its master: when the master goes away the pane stays,
//! says so and offers to reconnect (Enter starts a master for this tmux
//! server through [`crate::launch::master::ensure`] when none runs).
//!
//! Exit statuses: 0 the user closed the pane (or SIGTERM/SIGHUP); 3 the
//! master closed the connection (`--headless` only: a script's driver fails
//! closed); 1 anything else (no terminal, …).

mod tui;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use wta_helper::autofix::AutofixSettings;
use wta_helper::config_file::SettingsTable as _;
use wta_helper::driver::{DriverExit, run_headless};
use wta_helper::proposals::ProposalSettings;
use wta_helper::runtime::{MasterStarter, Runtime, RuntimeConfig};
use wta_host::TmuxHost;
use wta_protocol::{PaneId, WindowId};

use crate::config::UserConfig;

/// Options of the helper role.
#[derive(Debug, Clone, Default, Args)]
pub struct HelperArgs {
    /// Agent id for this pane (copilot, claude, codex, gemini, opencode, demo, custom:NAME).
    #[arg(long, value_name = "ID", requires = "connect_master", hide = true)]
    pub agent: Option<String>,
    /// The tmux window (@N) that owns this agent pane.
    #[arg(long, value_name = "@W", requires = "connect_master", hide = true)]
    pub owner_tab: Option<WindowId>,
    /// The shell pane (%N) this agent works on.
    #[arg(long, value_name = "%P", requires = "connect_master", hide = true)]
    pub target_pane: Option<PaneId>,
    /// Run the line-based driver instead of a UI (for tests and scripts).
    #[arg(long, requires = "connect_master", hide = true)]
    pub headless: bool,
    /// Yolo for every new session of this pane (system policy can forbid it).
    #[arg(long, requires = "connect_master", hide = true)]
    pub auto_approve_tools: bool,
    /// Sent as the first prompt once the agent's session is open (a delegate pane's task).
    #[arg(long, value_name = "TEXT", requires = "connect_master", hide = true)]
    pub prompt: Option<String>,
    /// Resume this session of the agent (`session/load`) instead of a new one.
    #[arg(long, value_name = "ID", requires = "connect_master", hide = true)]
    pub load_session: Option<String>,
}

/// How long the exiting helper waits for its async runtime to wind down.
const RUNTIME_GRACE: std::time::Duration = std::time::Duration::from_millis(500);

/// Exit status when the master went away.
const MASTER_CLOSED: u8 = 3;

pub fn run(socket: PathBuf, args: &HelperArgs, config: &UserConfig) -> ExitCode {
    let _guard = wta_env::logging::init_file_logging(
        &wta_env::dirs::state_dir(),
        &format!("helper-{}.log", std::process::id()),
    )
    .ok();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(err) => {
            eprintln!("wta: {}", wta_i18n::tr!("cli.no_runtime", error = err));
            return ExitCode::from(1);
        }
    };
    let config = pane_config(socket, args, config);
    if !args.headless {
        let code = interactive(&runtime, config);
        // Background tasks (tmux probes, the terminal reader) may delay the
        // exit by this much at most; the watcher tasks are dropped by then.
        runtime.shutdown_timeout(RUNTIME_GRACE);
        // So no task can arm a pipe again: release what an action left.
        Runtime::release_leftover_pipes();
        return code;
    }
    let result = runtime.block_on(run_headless(
        config,
        TmuxHost::discover(None, None).ok(),
        tokio::io::BufReader::new(tokio::io::stdin()),
        tokio::io::stdout(),
    ));
    // stdin reads run on a blocking thread that cannot be interrupted: do not wait for it.
    runtime.shutdown_background();
    match result {
        Ok(DriverExit::InputClosed) => ExitCode::SUCCESS,
        Ok(DriverExit::MasterClosed) => {
            eprintln!("wta: {}", wta_i18n::tr!("cli.connect.master_closed"));
            ExitCode::from(MASTER_CLOSED)
        }
        Err(err) => {
            eprintln!("wta: {err}");
            ExitCode::from(1)
        }
    }
}

/// Who this pane is: its command line, and yolo, the delegate agent, the
/// autofix mode and the proposals per turn from the config and policy
/// files (the flag or the user's config, under the system policy).
fn pane_config(socket: PathBuf, args: &HelperArgs, config: &UserConfig) -> RuntimeConfig {
    let policy = PolicySettings::of(config);
    let autofix = match config.table("autofix", AutofixSettings::from_config) {
        Some((settings, warning)) => {
            if let Some(warning) = warning {
                tracing::warn!("autofix settings ignored: {warning}");
            }
            settings.mode
        }
        None => wta_helper::autofix::AutofixMode::default(),
    };
    let proposals_per_turn = config
        .table("proposals", ProposalSettings::from_config)
        .map(|(settings, warning)| {
            if let Some(warning) = warning {
                tracing::warn!("proposal settings ignored: {warning}");
            }
            settings.per_turn
        });
    RuntimeConfig {
        socket,
        agent: args.agent.clone(),
        owner_tab: args.owner_tab.clone(),
        target_pane: args.target_pane.clone(),
        own_pane: std::env::var("TMUX_PANE")
            .ok()
            .and_then(|p| PaneId::parse(&p).ok()),
        cwd: std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/")),
        yolo_policy: policy.yolo_policy,
        auto_approve_tools: args.auto_approve_tools || policy.auto_approve_tools,
        delegate: policy.delegate,
        delegate_name: policy.delegate_name,
        master_starter: None,
        cards: true,
        autofix,
        first_prompt: args.prompt.clone(),
        load_session: args.load_session.clone(),
        proposals_per_turn,
        // This process's one reading, so the runtime reads the file no more.
        user_config: config
            .paths()
            .ok()
            .zip(config.loaded().ok())
            .map(|(paths, loaded)| wta_helper::config_file::ConfigRead {
                paths: paths.clone(),
                loaded: loaded.clone(),
            }),
    }
}

/// What the registry says about yolo and the delegate agent.
struct PolicySettings {
    yolo_policy: wta_agent::yolo::YoloPolicy,
    /// The config's `auto_approve_tools`.
    auto_approve_tools: bool,
    delegate: Option<wta_agent::registry::Delegate>,
    delegate_name: Option<String>,
}

impl PolicySettings {
    fn of(config: &UserConfig) -> Self {
        match config.registry() {
            Ok(registry) => Self {
                yolo_policy: registry.yolo_policy(),
                auto_approve_tools: registry.auto_approve_tools(),
                delegate: registry.delegate().cloned(),
                delegate_name: match wta_agent::delegate::choose(registry, None) {
                    Ok(wta_agent::delegate::DelegateChoice::Missing { .. }) | Err(_) => None,
                    Ok(choice) => Some(choice.name().to_owned()),
                },
            },
            Err(err) => {
                // Unreadable config or policy: fail closed (no yolo, no delegate).
                tracing::warn!("cannot read the wta config or policy: {err}");
                Self {
                    yolo_policy: wta_agent::yolo::YoloPolicy::Blocked,
                    auto_approve_tools: false,
                    delegate: None,
                    delegate_name: None,
                }
            }
        }
    }
}

/// The chat TUI. Messages are printed only after the terminal is restored.
fn interactive(runtime: &tokio::runtime::Runtime, config: RuntimeConfig) -> ExitCode {
    let config = RuntimeConfig {
        master_starter: master_starter(),
        ..config
    };
    let result = runtime.block_on(tui::run(config));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            tracing::error!("agent pane failed: {err:#}");
            say(&format!("wta: {err:#}"));
            ExitCode::from(1)
        }
    }
}

/// Starts a master for this pane's tmux server (`$TMUX`, else the default
/// server) when the user reconnects and none runs; `None` outside tmux.
fn master_starter() -> Option<MasterStarter> {
    let tmux = TmuxHost::discover(None, None)
        .ok()?
        .location()
        .socket_path();
    Some(MasterStarter::new(move |socket| {
        crate::launch::master::ensure(socket, &tmux).map_err(|err| format!("{err:#}"))
    }))
}

/// One line on stderr, never a panic: when the agent pane was killed its
/// terminal is gone, and `eprintln!` would panic before the exit cleanup
/// (releasing the pipes this helper left on panes) could run.
fn say(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{line}");
}
