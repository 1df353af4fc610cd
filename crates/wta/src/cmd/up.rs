//! `wta up`: from any terminal, a tmux session with a shell (shell
//! integration loaded, started behind a readiness gate that the agent pane's
//! helper releases once it follows the shell) and the agent pane beside it;
//! the master is started on demand; then attach (or switch, inside tmux).
//!
//! A session `up` created is whole or gone: when a step after its creation
//! fails (the agent pane cannot be opened, its marks cannot be set, …) the
//! session is killed before the error is reported, so no shell is left
//! waiting at its gate and a second `up` never reuses a half-built one.

use std::io::IsTerminal;
use std::os::unix::process::CommandExt;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use clap::Args;
use wta_host::{
    HostError, NewSession, PaneInfo, PaneSize, ServerLocation, SessionInfo, TerminalHost, TmuxHost,
};
use wta_protocol::{PaneId, TmuxSessionId};

use super::Ctx;
use super::agent_pane::OpenArgs;
use crate::config::UserConfig;
use crate::launch::agent_pane::{self, OpenSpec};
use crate::launch::{master, shell};
use crate::output;
use wta_i18n::tr;

#[derive(Debug, Args)]
pub struct UpArgs {
    /// tmux session to create or reuse.
    #[arg(long, value_name = "NAME", default_value = "wta")]
    pub session: String,
    /// Set everything up but do not attach (prints the panes instead).
    #[arg(long)]
    pub detach: bool,
    #[command(flatten)]
    pub open: OpenArgs,
}

/// Flags, else `$TMUX`, else tmux's default server (which may not run yet).
/// The default is named (`-L default`), not given as a path: on a machine
/// where tmux never ran, its socket directory does not exist, and only a
/// named server makes tmux create it (with `-S` tmux 3.3 exits 0 and starts
/// nothing).
fn host_for_up(ctx: &Ctx) -> anyhow::Result<TmuxHost> {
    match ctx.host() {
        Ok(host) => Ok(host),
        Err(HostError::NoServerNamed) => {
            Ok(TmuxHost::new(ServerLocation::Name("default".into()), None))
        }
        Err(e) => Err(e.into()),
    }
}

fn terminal_size() -> (u16, u16) {
    // SAFETY-free query through crossterm is not linked here; read $COLUMNS/$LINES
    // when exported, else a roomy default for a detached session.
    let get = |k: &str, d: u16| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(d)
    };
    (get("COLUMNS", 200), get("LINES", 50))
}

/// How long `wta up` waits for the agent pane's helper to take the shell's
/// readiness gate before releasing it itself.
const GATE_TIMEOUT: Duration = Duration::from_secs(10);

/// What [`build`] made: the shell, its session and the agent pane beside
/// it (`reused`: the tab already had that agent pane).
struct Built {
    shell: PaneInfo,
    session: TmuxSessionId,
    agent_pane: PaneId,
    reused: bool,
}

/// Everything after `session` exists: the master, the agent pane beside
/// `shell` (released from its `gate`, if it waits on one), the prewarmed
/// panes.
fn build(
    config: &UserConfig,
    host: &TmuxHost,
    shell: PaneInfo,
    session: TmuxSessionId,
    gate: Option<String>,
    spec: &OpenSpec,
) -> anyhow::Result<Built> {
    // Only once the shell exists: an `up` that fails before this starts no
    // master (one started here follows its tmux server, which ends with the
    // removed session when that was its last).
    master::ensure(&spec.master, &host.location().socket_path())?;
    let outcome = agent_pane::open(host, &shell, spec);
    if let Some(gate) = &gate {
        // The helper's watcher releases the shell; never leave it waiting.
        let taken = match &outcome {
            Ok(_) => shell::wait_gate_taken(host, &shell.id, gate, GATE_TIMEOUT)?,
            Err(_) => shell::wait_gate_taken(host, &shell.id, gate, Duration::ZERO)?,
        };
        // (When the agent pane failed, its error says enough.)
        if !taken && outcome.is_ok() {
            eprintln!("wta: {}", tr!("cli.up.gate_not_taken", pane = shell.id));
        }
    }
    let outcome = outcome?;
    super::agent_pane::prewarm_if_enabled(config, host, &session, spec);
    let (agent_pane, reused) = match &outcome {
        agent_pane::Outcome::Opened(p) => (p.clone(), false),
        agent_pane::Outcome::Focused(p) | agent_pane::Outcome::Restored(p) => (p.clone(), true),
        other => anyhow::bail!(tr!(
            "cli.up.unexpected_outcome",
            outcome = format!("{other:?}")
        )),
    };
    Ok(Built {
        shell,
        session,
        agent_pane,
        reused,
    })
}

/// Creates the session; its shell waits on a readiness gate (named in the
/// pane's `@wta_gate`) for the helper's watcher, so its first prompt is seen.
/// A session whose gate cannot be marked is removed again.
fn create_session(host: &TmuxHost, name: &str) -> anyhow::Result<(PaneInfo, Option<String>)> {
    let launch = shell::gated_user_shell()?;
    let (cols, rows) = terminal_size();
    let spec = NewSession {
        name: name.to_owned(),
        size: PaneSize { cols, rows },
        cwd: std::env::current_dir().ok(),
        env: launch.env,
        argv: launch.argv,
    };
    let pane = host.new_session(&spec)?;
    if let Some(gate) = &launch.gate
        && let Err(e) = shell::mark_gated(host, &pane.id, gate)
    {
        let _ = host.kill_session(&pane.session);
        return Err(e);
    }
    Ok((pane, launch.gate))
}

pub fn run(ctx: &Ctx, args: &UpArgs) -> anyhow::Result<ExitCode> {
    TmuxHost::check_session_name(&args.session).context("--session")?;
    let host = host_for_up(ctx)?;
    let config = ctx.config();
    let master_socket = master::socket_for(&host.location().socket_path());
    let (agent, missing) = choose_agent(config, args.open.agent.as_deref())?;
    let existing = host.session_named(&args.session)?;
    let created = existing.is_none();
    let spec = OpenSpec {
        agent: Some(agent.clone()),
        side: args.open.side(),
        size: args.open.size,
        auto_approve_tools: args.open.auto_approve_tools,
        master: master_socket.clone(),
        first_prompt: None,
        load_session: None,
    };
    let built = create_or_reuse(config, &host, &args.session, existing, &spec)?;
    let running = running_agent(&host, &built);
    let said = started_what(
        &Started {
            asked: args.open.agent.as_deref(),
            missing: missing.as_ref(),
            agent: &agent,
            reused: built.reused,
            running: running.as_deref(),
        },
        &built.agent_pane,
    );
    if let Some(said) = said {
        eprintln!("wta: {said}");
    }
    let agent = running.unwrap_or(agent);
    let summary = crate::json::tmux::Up {
        session: &built.session,
        session_name: &args.session,
        tab: &built.shell.window,
        shell_pane: &built.shell.id,
        agent_pane: &built.agent_pane,
        agent: &agent,
        master_socket: master_socket.to_string_lossy().into_owned(),
        tmux_socket: host.location().socket_path().to_string_lossy().into_owned(),
        created,
    };
    go_to(&host, &built.session, args.detach)?;
    if ctx.json {
        output::json(&summary)?;
    } else {
        print_summary(&host, &summary)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// A reused agent pane keeps its agent: the one it says it runs.
fn running_agent(host: &TmuxHost, built: &Built) -> Option<String> {
    built
        .reused
        .then(|| {
            host.option(&built.agent_pane, wta_agent::PANE_AGENT_OPTION)
                .ok()
        })
        .flatten()
        .filter(|a| !a.is_empty())
}

/// The session named `name`: created with its shell when it is not
/// `existing` (and removed again when a later step fails), else its
/// active tab's shell; then [`build`].
fn create_or_reuse(
    config: &UserConfig,
    host: &TmuxHost,
    name: &str,
    existing: Option<SessionInfo>,
    spec: &OpenSpec,
) -> anyhow::Result<Built> {
    match existing {
        None => {
            let (pane, gate) = create_session(host, name)?;
            let session = pane.session.clone();
            build(config, host, pane, session.clone(), gate, spec).inspect_err(|_| {
                // Whole or gone (see the module docs).
                if let Err(e) = host.kill_session(&session) {
                    tracing::warn!("cannot remove the half-built session {session}: {e}");
                }
            })
        }
        Some(session) => {
            let window = host.active_window(&session.id)?;
            let shell = agent_pane::shell_pane_of(host, &window.id)?;
            build(config, host, shell, session.id, None, spec)
        }
    }
}

/// Inside tmux: switches the client to `session`. Outside, on a terminal
/// and without `--detach`: becomes `tmux attach` (returns only when that
/// cannot start). Else nothing: the summary says how to attach.
fn go_to(host: &TmuxHost, session: &TmuxSessionId, detach: bool) -> anyhow::Result<()> {
    if host.caller_pane().is_some() {
        host.switch_client(session)?;
    } else if !detach && std::io::stdin().is_terminal() && std::io::stdout().is_terminal() {
        let err = host.attach_command(session).exec();
        return Err(err).context(tr!("cli.up.cannot_attach"));
    }
    Ok(())
}

/// The summary for people: the session (created or reused), the panes and
/// how to attach.
fn print_summary(host: &TmuxHost, summary: &crate::json::tmux::Up<'_>) -> anyhow::Result<()> {
    let [flag, value] = host.location().args();
    let how = tr!(if summary.created {
        "cli.up.created"
    } else {
        "cli.up.reused"
    });
    let labels = [
        tr!("cli.up.session"),
        tr!("cli.up.shell_pane"),
        tr!("cli.up.agent_pane"),
        tr!("cli.up.attach_with"),
    ];
    output::pairs(&[
        (
            labels[0].as_str(),
            format!("{} ({how})", summary.session_name),
        ),
        (labels[1].as_str(), summary.shell_pane.to_string()),
        (
            labels[2].as_str(),
            format!("{} ({})", summary.agent_pane, summary.agent),
        ),
        (
            labels[3].as_str(),
            format!(
                "tmux {flag} {value} attach -t {}",
                attach_target(summary.session_name)
            ),
        ),
    ])
}

/// An agent asked for with `--agent` that is not installed, and how to
/// install it (a built-in's install command, or a custom agent's config entry).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Missing {
    asked: String,
    how: String,
}

/// The agent a new agent pane starts: the one asked for when it is
/// installed, else the default one (the first installed built-in, or the
/// offline demo agent) with what is missing. An id that is unknown or not
/// allowed fails.
fn choose_agent(
    config: &UserConfig,
    asked: Option<&str>,
) -> anyhow::Result<(String, Option<Missing>)> {
    let registry = config.registry()?;
    let Some(asked) = asked else {
        return Ok((registry.default_agent().as_str().to_owned(), None));
    };
    let id = wta_agent::AgentId::parse(asked)?;
    match registry.resolve(&id) {
        Ok(_) => Ok((asked.to_owned(), None)),
        Err(wta_agent::AgentError::NotInstalled { .. }) => {
            let how = match (
                wta_agent::registry::install_command(asked),
                id.custom_name(),
            ) {
                (Some(command), _) => tr!("cli.up.install_with", command = command),
                (None, name) => tr!(
                    "cli.up.fix_argv",
                    name = name.unwrap_or(asked),
                    config = registry.paths().config_file.display()
                ),
            };
            let missing = Missing {
                asked: asked.to_owned(),
                how,
            };
            Ok((registry.default_agent().as_str().to_owned(), Some(missing)))
        }
        Err(e) => Err(e.into()),
    }
}

/// What `up` did about the agent, for [`started_what`].
struct Started<'a> {
    /// `--agent`.
    asked: Option<&'a str>,
    /// `asked`, when it is not installed.
    missing: Option<&'a Missing>,
    /// The agent a new pane starts ([`choose_agent`]).
    agent: &'a str,
    /// The tab already had its agent pane, which keeps its agent.
    reused: bool,
    /// A reused pane's agent, when it says.
    running: Option<&'a str>,
}

/// The line `up` says on stderr about the agent pane: which agent it
/// started when it is not the one asked for or the offline demo, or that it
/// reused the pane that was there; `None` when the new pane runs what was
/// asked for (the summary names it).
fn started_what(s: &Started<'_>, pane: &PaneId) -> Option<String> {
    let running = s.running.unwrap_or(s.agent);
    Some(match (s.reused, s.missing) {
        (false, Some(m)) => tr!(
            "cli.up.not_installed",
            asked = m.asked,
            how = m.how,
            agent = s.agent
        ),
        (true, Some(m)) => tr!(
            "cli.up.not_installed_reused",
            asked = m.asked,
            how = m.how,
            pane = pane,
            running = running
        ),
        (false, None) if s.asked.is_none() && s.agent == wta_agent::registry::DEMO_ID => {
            tr!("cli.up.demo_agent")
        }
        (false, None) => return None,
        (true, None) => match s.asked {
            Some(asked) if asked != running => tr!(
                "cli.up.already_runs",
                pane = pane,
                running = running,
                agent = asked
            ),
            _ => tr!("cli.up.reused_pane", pane = pane, running = running),
        },
    })
}

/// How a user names the session in `tmux attach -t`: its exact name (`=`),
/// quoted for their shell.
fn attach_target(name: &str) -> String {
    wta_host::sh_quote(&format!("={name}"))
}
