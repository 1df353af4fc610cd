//! `wta listen [-t PANE] [--json]`: follows one pane and prints command events
//! (started with its command line; finished with exit code, duration and the
//! rendered, bounded output) until Ctrl+C or the pane dies. Read-only: it
//! never types into the pane. Each finished command is also recorded for
//! `wta capture-pane --last-command`.
//!
//! One watcher per pane, many listeners ([`wta_shell::fanout`]): when a WTA
//! watcher already owns the pane's pipe (an agent pane's, another listen's)
//! it listens to that one; else it owns the pipe itself, serving later
//! listens, and yields it to an agent pane's watcher that needs it. Either
//! way it prints the same notes the same way. When its owner goes away while
//! the pane lives (the agent pane closed, the other listen stopped), it joins
//! the pane again, as owner or as a listener of the next one: the stream goes
//! on (commands that ended in between are not seen).
//!
//! It refuses a dead pane up front (naming its exit status), and it does not
//! wait silently on a shell without WTA integration: once a command ran there
//! without marks ([`super::listen_verdict`], or the watcher's own verdict) it
//! says how to add the integration. Whatever ends it (Ctrl+C, SIGTERM,
//! SIGHUP, SIGPIPE, the pane's death, a closed stdout), a pipe it owns is
//! detached before it returns, so its `pipe-pane` and sink go too.
//! Exit statuses ([`AFTER_HELP`]): 0 on a signal, 1 when the pane died or was
//! closed, 3 when it cannot follow the pane, 141 (silently) on SIGPIPE.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::Args;
use serde_json::json;
use wta_host::{HostError, PaneState, TerminalHost, TmuxHost};
use wta_protocol::ids::PaneId;
use wta_shell::fanout_wire::FinishedNote;
use wta_shell::{
    EXIT_STATUS_OPTION, Fate, Following, GATE_OPTION, Host, INTEGRATION_EXPECTED_OPTION,
    INTEGRATION_STATE_OPTION, Integration, LastCommand, NoteIntegration, PaneNote, ShellError,
    TrackerConfig, WatchOptions,
};

use super::Ctx;
use super::listen_verdict::{self, Look, Probe};
use crate::output;
use wta_i18n::tr;

/// What `wta listen --help` says after the options.
pub const AFTER_HELP: &str = "\
Another watcher of the pane (an agent pane beside it, another `wta listen`) is shared, not refused: every listen prints the same events, and one whose watcher goes away while the pane lives follows the pane on its own.

Exit status: 0 when stopped (Ctrl+C, SIGTERM, SIGHUP), 1 when the pane died or was closed (before or while listening), 2 on a usage error or with no tmux server, 3 when it cannot follow the pane (its shell has no WTA integration, another tool's `pipe-pane` holds it, an unsafe runtime directory), 141 without a word when its reader goes away (SIGPIPE).";

#[derive(Debug, Args)]
#[command(after_help = AFTER_HELP)]
pub struct ListenArgs {
    /// Pane (`%N`). Default: the caller's pane.
    #[arg(short = 't', long = "target", value_name = "PANE", add = clap_complete::ArgValueCandidates::new(super::completions::panes))]
    pub target: Option<PaneId>,
}

/// Exit status when the pane died or was closed.
const PANE_ENDED: u8 = 1;

/// Exit status when wta cannot follow the pane (no integration, another
/// tool's pipe, an unsafe runtime dir, tmux failing).
const CANNOT_FOLLOW: u8 = 3;

/// How often a pane whose shell never announced itself is looked at, until
/// its marks or their absence settle the question.
const LOOK_EVERY: Duration = Duration::from_millis(300);

/// Grace for the first marks after a command ran, when the pane expects
/// integration (a shell WTA started, whose rc file may still be loading).
const EXPECTED_GRACE_MS: u64 = 5000;

/// Pause before joining the pane again after its watcher went away: a
/// watcher handing over is never waited on in a tight loop.
const REJOIN_PAUSE: Duration = Duration::from_millis(50);

pub fn run(ctx: &Ctx, args: &ListenArgs) -> anyhow::Result<ExitCode> {
    let host = ctx.host()?;
    let pane = match &args.target {
        Some(p) => p.clone(),
        None => host.caller_pane().ok_or(HostError::NoCallerPane)?,
    };
    // A typo names the pane as missing, a dead pane as dead (before any pipe
    // is touched): both exit 1.
    let info = host.pane(&pane)?;
    if info.dead {
        return Err(dead_pane(&host, &pane));
    }
    if info.integration.state == "absent" {
        // A watcher already saw a command run there without marks.
        return no_integration(&pane, ctx.json, false);
    }
    match follow_pane(&host, &pane, ctx.json) {
        Ok(Ended::Stopped) => Ok(ExitCode::SUCCESS),
        Ok(Ended::PaneGone) => Ok(ExitCode::from(PANE_ENDED)),
        Ok(Ended::ReaderGone) => Ok(ExitCode::from(output::BROKEN_PIPE_STATUS)),
        Ok(Ended::NoIntegration) => no_integration(&pane, ctx.json, true),
        // The pane died or went between the check above and the attach.
        Err(_) if host.pane(&pane).is_ok_and(|p| p.dead) => Err(dead_pane(&host, &pane)),
        Err(e) if pane_vanished(&e) => Err(e),
        // No server (2) and a closed stdout (141) end as every command's do.
        Err(e) if output::is_broken_pipe(&e) || super::exit_status(&e) != 1 => Err(e),
        Err(e) => {
            if ctx.json {
                // The last line a script reads says why (in English, as all JSON).
                let ended = json!({"event": "ended", "pane": pane, "reason": e.to_string()});
                let _ = output::json_line(&ended);
            }
            eprintln!("wta: {}", output::user_message(&e));
            Ok(ExitCode::from(CANNOT_FOLLOW))
        }
    }
}

/// Sets up (the sink, the private runtime dir, the runtime) and listens.
fn follow_pane(host: &TmuxHost, pane: &PaneId, as_json: bool) -> anyhow::Result<Ended> {
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
    rt.block_on(listen(
        std::sync::Arc::new(host.clone()),
        pane,
        opts,
        as_json,
    ))
}

/// True for an error that says the pane is not there (any more).
fn pane_vanished(err: &anyhow::Error) -> bool {
    matches!(
        err.downcast_ref::<ShellError>(),
        Some(ShellError::PaneGone { .. })
    ) || matches!(
        err.downcast_ref::<HostError>(),
        Some(HostError::PaneNotFound(_))
    )
}

/// "pane %N is dead (exit status N)", with the signal when that ended it.
fn dead_pane(host: &TmuxHost, pane: &PaneId) -> anyhow::Error {
    let how = match host.pane_status(pane) {
        Ok(s) if s.state == PaneState::Dead => super::pane::dead_status(&s),
        _ => tr!("cli.pane.exit_status_unknown"),
    };
    anyhow::anyhow!(tr!("cli.listen.dead_pane", pane = pane, how = how))
}

/// Says that the pane's shell has no integration and how to add it; exit 3.
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
    Ok(ExitCode::from(CANNOT_FOLLOW))
}

/// How a listen ended.
enum Ended {
    /// Ctrl+C, SIGTERM or SIGHUP.
    Stopped,
    /// The pane died or was closed (its `ended` event printed).
    PaneGone,
    /// SIGPIPE: whoever read stdout went away.
    ReaderGone,
    /// A command ran without marks.
    NoIntegration,
}

/// What one stretch of following (as owner or listener) came to.
enum Next {
    End(Ended),
    /// The pane's watcher went away (or gave the pipe to another): join again.
    Rejoin,
}

async fn listen(
    host: Host,
    pane: &PaneId,
    opts: WatchOptions,
    as_json: bool,
) -> anyhow::Result<Ended> {
    let mut signals = Signals::new()?;
    let mut announced = false;
    loop {
        // A pane that died while nobody watched it still ends the listen.
        if let Some(reason) = pane_end(&host, pane).await? {
            print_ended(pane, &reason, as_json)?;
            return Ok(Ended::PaneGone);
        }
        // Gated: the owner starts the shell and judges its first prompt itself.
        let options = host
            .probe(pane, &[GATE_OPTION, INTEGRATION_EXPECTED_OPTION])
            .await?;
        let gated = !options.option(0).is_empty();
        let grace = if options.option(1).is_empty() {
            opts.config.submit_timeout_ms
        } else {
            EXPECTED_GRACE_MS
        };
        // A signal while it joins (an owner stopping takes a moment) ends it too.
        let mut following = tokio::select! {
            joined = wta_shell::follow(host.clone(), pane, opts.clone()) => joined?,
            ended = signals.next() => return Ok(ended),
        };
        tracing::debug!(owner = following.is_owner(), "listen joined pane {pane}");
        if !announced && !as_json {
            eprintln!("wta: {}", tr!("cli.listen.listening", pane = pane));
        }
        announced = true;
        let stretch = Stretch {
            host: &host,
            pane,
            as_json,
            grace_ms: grace,
            gated,
        };
        // Errors (a closed stdout) end the loop too: an owned pipe is detached first.
        let next = stretch.follow(&mut following, &mut signals).await;
        following.stop().await;
        match next? {
            Next::End(ended) => return Ok(ended),
            Next::Rejoin => tokio::time::sleep(REJOIN_PAUSE).await,
        }
    }
}

/// Why the pane is no more, in the watcher's words; `None` while it lives.
async fn pane_end(host: &Host, pane: &PaneId) -> anyhow::Result<Option<String>> {
    match host.probe(pane, &[EXIT_STATUS_OPTION]).await {
        Err(HostError::PaneNotFound(_)) => Ok(Fate::Gone.reason(pane)),
        Err(e) => Err(e.into()),
        Ok(probe) if probe.dead => {
            let status = probe.dead_status.or_else(|| probe.option(0).parse().ok());
            Ok(Fate::Died { status }.reason(pane))
        }
        Ok(_) => Ok(None),
    }
}

fn print_ended(pane: &PaneId, reason: &str, as_json: bool) -> anyhow::Result<()> {
    if as_json {
        output::json_line(&json!({"event": "ended", "pane": pane, "reason": reason}))
    } else {
        output::line(&format!(
            "wta: {}",
            tr!("cli.listen.stopped", reason = reason)
        ))
    }
}

/// The signals that end a listen, handled from the start rather than left
/// to kill the process, so an owned pipe is detached first; SIGPIPE is
/// ignored by Rust's runtime until then (a write to a closed stdout fails
/// with `BrokenPipe` either way).
struct Signals {
    int: tokio::signal::unix::Signal,
    term: tokio::signal::unix::Signal,
    hup: tokio::signal::unix::Signal,
    pipe: tokio::signal::unix::Signal,
}

impl Signals {
    fn new() -> anyhow::Result<Self> {
        use tokio::signal::unix::{SignalKind, signal};
        let on = |kind: SignalKind| signal(kind).context(tr!("cli.no_async_runtime"));
        Ok(Self {
            int: on(SignalKind::interrupt())?,
            term: on(SignalKind::terminate())?,
            hup: on(SignalKind::hangup())?,
            pipe: on(SignalKind::pipe())?,
        })
    }

    /// How the next signal ends the listen: SIGPIPE as its reader gone, the
    /// others (Ctrl+C, SIGTERM, SIGHUP) as a stop.
    async fn next(&mut self) -> Ended {
        tokio::select! {
            _ = self.int.recv() => Ended::Stopped,
            _ = self.term.recv() => Ended::Stopped,
            _ = self.hup.recv() => Ended::Stopped,
            _ = self.pipe.recv() => Ended::ReaderGone,
        }
    }
}

/// One stretch of following the pane, as owner or listener: the same
/// notes, printed the same way.
struct Stretch<'a> {
    host: &'a Host,
    pane: &'a PaneId,
    as_json: bool,
    grace_ms: u64,
    gated: bool,
}

impl Stretch<'_> {
    async fn follow(
        &self,
        following: &mut Following,
        signals: &mut Signals,
    ) -> anyhow::Result<Next> {
        let started = Instant::now();
        let mut integration: Integration = following.hello().integration.into();
        // Nothing to judge when the shell announced itself, or when the
        // watcher judges a gated start itself.
        let mut probe = if self.gated || integration == Integration::Present {
            Probe::Present
        } else {
            Probe::Start
        };
        let mut looks = tokio::time::interval(LOOK_EVERY);
        looks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            let probing = !matches!(probe, Probe::Present | Probe::Absent);
            let note = tokio::select! {
                note = following.next() => note,
                ended = signals.next() => return Ok(Next::End(ended)),
                _ = looks.tick(), if probing => {
                    let at = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
                    probe = self.look_again(probe, at, integration).await;
                    if probe == Probe::Absent {
                        // Recorded like the watcher's verdicts, for list-panes and the agent pane.
                        let _ = self.host.set_option(self.pane, INTEGRATION_STATE_OPTION, "absent").await;
                        return Ok(Next::End(Ended::NoIntegration));
                    }
                    continue;
                }
            };
            let Some(note) = note else {
                return Ok(Next::Rejoin);
            };
            match note {
                PaneNote::Hello(_) => {}
                PaneNote::Started(started) => {
                    if self.as_json {
                        let line = json!({"event": "started", "pane": self.pane, "cmdline": started.cmdline});
                        output::json_line(&line)?;
                    } else {
                        output::line(&format!("▶ {}", started.cmdline.unwrap_or_default()))?;
                    }
                }
                PaneNote::Finished(FinishedNote { record, .. }) => {
                    if self.as_json {
                        let mut v = serde_json::to_value(&record)?;
                        v["event"] = json!("finished");
                        output::json_line(&v)?;
                    } else {
                        output::line(&finished_text(&record))?;
                    }
                }
                PaneNote::Integration(note) => {
                    integration = note.integration.into();
                    if note.integration == NoteIntegration::Absent {
                        return Ok(Next::End(Ended::NoIntegration));
                    }
                }
                PaneNote::Ended(ended) if ended.fate.pane_ended() => {
                    print_ended(self.pane, &ended.reason, self.as_json)?;
                    return Ok(Next::End(Ended::PaneGone));
                }
                // Taken over or failed while the pane lives: join it again.
                PaneNote::Ended(ended) => {
                    tracing::debug!("pane {}: {}", self.pane, ended.reason);
                    return Ok(Next::Rejoin);
                }
            }
        }
    }

    /// One look at the pane for [`listen_verdict::step`]; a failed look
    /// changes nothing (the pane's death reaches us as the watcher's end).
    async fn look_again(&self, probe: Probe, at: u64, integration: Integration) -> Probe {
        let (Ok(facts), Ok(screen)) = (
            self.host.probe(self.pane, &[]).await,
            self.host.screen(self.pane).await,
        ) else {
            return probe;
        };
        let look = Look {
            foreground: facts.command,
            screen,
        };
        listen_verdict::step(probe, at, look, integration, self.grace_ms)
    }
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
