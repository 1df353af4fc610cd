//! `wta listen [-t PANE] [--json]`: follows one pane and prints command events
//! (started with its command line; finished with exit code, duration and the
//! rendered, bounded output) until Ctrl+C or the pane dies. Read-only: it
//! never types into the pane. Each finished command is also recorded for
//! `wta capture-pane --last-command`.
//!
//! It refuses a dead pane up front (naming its exit status), and it does not
//! wait silently on a shell without WTA integration: once a command ran there
//! without marks ([`super::listen_verdict`], or the watcher's own verdict) it
//! says how to add the integration and exits 1. Whatever ends it (Ctrl+C,
//! SIGTERM, SIGHUP, SIGPIPE, the pane's death, a closed stdout), the pane's
//! pipe is detached before it returns, so its `pipe-pane` and sink go too.
//! A signal ends it as Ctrl+C does (exit 0), except SIGPIPE: its reader is
//! gone, so it exits 141 without a word, as `ls | head` ends.

use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use clap::Args;
use serde_json::json;
use wta_host::{HostError, PaneState, TerminalHost, TmuxHost};
use wta_protocol::ids::PaneId;
use wta_shell::{
    Effect, GATE_OPTION, Host, INTEGRATION_EXPECTED_OPTION, INTEGRATION_STATE_OPTION, Integration,
    LastCommand, PaneWatcher, TrackerConfig, WatchEvent, WatchOptions,
};

use super::Ctx;
use super::listen_verdict::{self, Look, Probe};
use crate::output;
use wta_i18n::tr;

#[derive(Debug, Args)]
pub struct ListenArgs {
    /// Pane (`%N`). Default: the caller's pane.
    #[arg(short = 't', long = "target", value_name = "PANE", add = clap_complete::ArgValueCandidates::new(super::completions::panes))]
    pub target: Option<PaneId>,
}

/// How often a pane whose shell never announced itself is looked at, until
/// its marks or their absence settle the question.
const LOOK_EVERY: Duration = Duration::from_millis(300);

/// Grace for the first marks after a command ran, when the pane expects
/// integration (a shell WTA started, whose rc file may still be loading).
const EXPECTED_GRACE_MS: u64 = 5000;

pub fn run(ctx: &Ctx, args: &ListenArgs) -> anyhow::Result<ExitCode> {
    let host = ctx.host()?;
    let pane = match &args.target {
        Some(p) => p.clone(),
        None => host.caller_pane().ok_or(HostError::NoCallerPane)?,
    };
    // A typo names the pane as missing, a dead pane as dead (before any pipe
    // is touched).
    let info = host.pane(&pane)?;
    if info.dead {
        return Err(dead_pane(&host, &pane));
    }
    if info.integration.state == "absent" {
        // A watcher already saw a command run there without marks.
        return no_integration(&pane, ctx.json, false);
    }
    let exe = std::env::current_exe().context(tr!("cli.no_pipe_sink_binary"))?;
    let opts = WatchOptions {
        sink_argv: vec![exe.to_string_lossy().into_owned(), "pipe-sink".into()],
        runtime_dir: wta_env::private_dir::private_runtime_dir()?.join("listen"),
        config: TrackerConfig::default(),
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let listened = rt.block_on(listen(
        std::sync::Arc::new(host.clone()),
        &pane,
        opts,
        ctx.json,
    ));
    match listened {
        Ok(Ended::Stopped) => Ok(ExitCode::SUCCESS),
        Ok(Ended::ReaderGone) => Ok(ExitCode::from(output::BROKEN_PIPE_STATUS)),
        Ok(Ended::NoIntegration) => no_integration(&pane, ctx.json, true),
        // The pane died between the check above and the attach.
        Err(_) if host.pane(&pane).is_ok_and(|p| p.dead) => Err(dead_pane(&host, &pane)),
        Err(e) => Err(e),
    }
}

/// "pane %N is dead (exit status N)", with the signal when that ended it.
fn dead_pane(host: &TmuxHost, pane: &PaneId) -> anyhow::Error {
    let how = match host.pane_status(pane) {
        Ok(s) if s.state == PaneState::Dead => super::pane::dead_status(&s),
        _ => tr!("cli.pane.exit_status_unknown"),
    };
    anyhow::anyhow!(tr!("cli.listen.dead_pane", pane = pane, how = how))
}

/// Says that the pane's shell has no integration and how to add it; exit 1.
fn no_integration(pane: &PaneId, as_json: bool, seen_now: bool) -> anyhow::Result<ExitCode> {
    // The JSON event keeps its English reason: scripts read it.
    let reason = "the pane's shell shows no WTA shell integration";
    if as_json {
        output::json_line(
            &json!({"event": "ended", "pane": pane, "reason": reason, "integration": "absent"}),
        )?;
    }
    let when = tr!(if seen_now {
        "cli.listen.ran_without_marks"
    } else {
        "cli.listen.watcher_saw_no_marks"
    });
    eprintln!(
        "wta: {}",
        tr!("cli.listen.no_integration", pane = pane, when = when)
    );
    Ok(ExitCode::FAILURE)
}

/// How a listen that attached ended.
enum Ended {
    /// Ctrl+C, SIGTERM or SIGHUP, or the pane died or was taken over.
    Stopped,
    /// SIGPIPE: whoever read stdout went away.
    ReaderGone,
    /// A command ran without marks.
    NoIntegration,
}

async fn listen(
    host: Host,
    pane: &PaneId,
    opts: WatchOptions,
    as_json: bool,
) -> anyhow::Result<Ended> {
    // Gated: the watcher starts the shell and judges its first prompt itself.
    let options = host
        .probe(pane, &[GATE_OPTION, INTEGRATION_EXPECTED_OPTION])
        .await?;
    let gated = !options.option(0).is_empty();
    let grace = if options.option(1).is_empty() {
        opts.config.submit_timeout_ms
    } else {
        EXPECTED_GRACE_MS
    };
    let mut watcher = PaneWatcher::attach(host, pane, opts).await?;
    if !as_json {
        eprintln!("wta: {}", tr!("cli.listen.listening", pane = pane));
    }
    // Nothing to judge when the shell announced itself, or when the watcher
    // judges a gated start itself.
    let announced = watcher.tracker().lock().await.integration == Integration::Present;
    let probe = if gated || announced {
        Probe::Present
    } else {
        Probe::Start
    };
    // Errors (a closed stdout) end the loop too: the pipe is detached first.
    let ended = match Signals::new() {
        Ok(mut signals) => follow(&mut watcher, pane, as_json, probe, grace, &mut signals).await,
        Err(err) => Err(err),
    };
    watcher.stop().await;
    ended
}

/// The signals that end a listen besides Ctrl+C. Handled rather than
/// left to kill the process, so the pipe is detached first; SIGPIPE is
/// ignored by Rust's runtime until then (a write to a closed stdout fails
/// with `BrokenPipe` either way).
struct Signals {
    term: tokio::signal::unix::Signal,
    hup: tokio::signal::unix::Signal,
    pipe: tokio::signal::unix::Signal,
}

impl Signals {
    fn new() -> anyhow::Result<Self> {
        use tokio::signal::unix::{SignalKind, signal};
        let on = |kind: SignalKind| signal(kind).context(tr!("cli.no_async_runtime"));
        Ok(Self {
            term: on(SignalKind::terminate())?,
            hup: on(SignalKind::hangup())?,
            pipe: on(SignalKind::pipe())?,
        })
    }
}

async fn follow(
    watcher: &mut PaneWatcher,
    pane: &PaneId,
    as_json: bool,
    mut probe: Probe,
    grace_ms: u64,
    signals: &mut Signals,
) -> anyhow::Result<Ended> {
    let mut looks = tokio::time::interval(LOOK_EVERY);
    looks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let probing = !matches!(probe, Probe::Present | Probe::Absent);
        let event = tokio::select! {
            ev = watcher.next_event() => ev,
            _ = tokio::signal::ctrl_c() => None,
            _ = signals.term.recv() => None,
            _ = signals.hup.recv() => None,
            _ = signals.pipe.recv() => return Ok(Ended::ReaderGone),
            _ = looks.tick(), if probing => {
                probe = look_again(watcher, pane, probe, grace_ms).await;
                if probe == Probe::Absent {
                    // Recorded like the watcher's verdicts, for list-panes and the agent pane.
                    let _ = watcher.host().set_option(pane, INTEGRATION_STATE_OPTION, "absent").await;
                    return Ok(Ended::NoIntegration);
                }
                continue;
            }
        };
        let Some(event) = event else {
            return Ok(Ended::Stopped);
        };
        match event {
            WatchEvent::Effect(Effect::IntegrationChanged {
                integration: Integration::Absent,
            }) => return Ok(Ended::NoIntegration),
            WatchEvent::Effect(Effect::RunStarted { id }) => {
                let t = watcher.tracker();
                let t = t.lock().await;
                // A fast command may already have finished: look in `last` too.
                let cmdline = t
                    .current
                    .iter()
                    .chain(t.last.iter())
                    .find(|r| r.id == id)
                    .and_then(|r| r.cmdline.clone());
                drop(t);
                if as_json {
                    output::json_line(
                        &json!({"event": "started", "pane": pane, "cmdline": cmdline}),
                    )?;
                } else {
                    output::line(&format!("▶ {}", cmdline.unwrap_or_default()))?;
                }
            }
            WatchEvent::Finished(finished) => {
                let record = LastCommand::from_run(pane, &finished.run);
                if as_json {
                    let mut v = serde_json::to_value(&record)?;
                    v["event"] = json!("finished");
                    output::json_line(&v)?;
                } else {
                    output::line(&finished_text(&record))?;
                }
            }
            WatchEvent::Effect(_) => {}
            WatchEvent::Ended { reason } => {
                if as_json {
                    output::json_line(&json!({"event": "ended", "pane": pane, "reason": reason}))?;
                } else {
                    output::line(&format!(
                        "wta: {}",
                        tr!("cli.listen.stopped", reason = reason)
                    ))?;
                }
                return Ok(Ended::Stopped);
            }
        }
    }
}

/// One look at the pane for [`listen_verdict::step`]; a failed look changes nothing
/// (the pane's death reaches us as the watcher's `Ended`).
async fn look_again(watcher: &PaneWatcher, pane: &PaneId, probe: Probe, grace_ms: u64) -> Probe {
    let host = watcher.host();
    let (Ok(facts), Ok(screen)) = (host.probe(pane, &[]).await, host.screen(pane).await) else {
        return probe;
    };
    let integration = watcher.tracker().lock().await.integration;
    let look = Look {
        foreground: facts.command,
        screen,
    };
    listen_verdict::step(probe, watcher.now(), look, integration, grace_ms)
}

/// A finished command for people: `■ <command line> → exit <code> in <ms> ms`,
/// then its output. `wta listen` prints one per command and `wta capture-pane
/// --last-command` the last one, so both read the same.
pub fn finished_text(record: &LastCommand) -> String {
    let cmdline = record
        .cmdline
        .as_deref()
        .map_or_else(|| tr!("cli.listen.no_cmdline"), str::to_owned);
    let end = match (record.exit_code, record.end_reason.as_str()) {
        (Some(code), _) => tr!("cli.listen.exit", code = code),
        (None, "pane_died") => tr!("cli.listen.pane_died"),
        (None, "detached") => tr!("cli.listen.end_not_seen"),
        (None, _) => tr!("cli.listen.exit_unknown"),
    };
    let mut text = tr!(
        "cli.listen.finished",
        cmdline = cmdline,
        end = end,
        ms = record.duration_ms.unwrap_or(0)
    );
    if record.interactive {
        text.push_str(&tr!("cli.listen.full_screen"));
    }
    if record.truncated {
        text.push_str(&tr!("cli.listen.truncated"));
    }
    if !record.output.is_empty() {
        text.push('\n');
        text.push_str(&record.output);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(exit_code: Option<i32>, end_reason: &str, output: &str) -> LastCommand {
        LastCommand {
            pane: "%1".into(),
            cmdline: Some("ls /nope".into()),
            exit_code,
            end_reason: end_reason.into(),
            duration_ms: Some(12),
            output: output.into(),
            truncated: false,
            interactive: false,
            output_bytes: output.len() as u64,
        }
    }

    #[test]
    fn a_finished_command_shows_its_line_exit_code_and_output() {
        assert_eq!(
            finished_text(&record(Some(2), "mark", "ls: cannot access '/nope'")),
            "■ ls /nope → exit 2 in 12 ms\nls: cannot access '/nope'"
        );
        assert_eq!(
            finished_text(&record(None, "prompt_without_d", "")),
            "■ ls /nope → exit code unknown in 12 ms"
        );
        assert_eq!(
            finished_text(&record(None, "pane_died", "")),
            "■ ls /nope → the pane died in 12 ms"
        );
        let mut odd = record(Some(0), "mark", "x");
        odd.cmdline = None;
        odd.truncated = true;
        odd.interactive = true;
        assert_eq!(
            finished_text(&odd),
            "■ (the shell did not report the command line) → exit 0 in 12 ms (full-screen) (output truncated)\nx"
        );
    }
}
