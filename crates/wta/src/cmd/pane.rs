//! Commands on one pane: capture-pane, kill-pane, pane-status, wait-for.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::Args;
use serde::Serialize;
use wta_host::{HostError, PaneState, PaneStatus, TerminalHost, TmuxHost};
use wta_protocol::PaneId;

use super::Ctx;
use crate::output;
use wta_i18n::tr;

#[derive(Debug, Args)]
pub struct TargetArgs {
    /// Pane (`%N`). Default: the caller's pane.
    #[arg(short = 't', long = "target", value_name = "PANE", add = clap_complete::ArgValueCandidates::new(super::completions::panes))]
    pub target: Option<PaneId>,
}

#[derive(Debug, Args)]
pub struct CaptureArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// The last LINES lines, reaching into history. Default: the visible screen.
    #[arg(short = 'l', long = "lines", value_name = "LINES")]
    pub lines: Option<u32>,
    /// The last command a watcher (`wta listen`, the agent pane) saw finish:
    /// command line, exit code and output.
    #[arg(long = "last-command", conflicts_with = "lines")]
    pub last_command: bool,
}

#[derive(Debug, Args)]
#[command(
    after_help = "Exit status: 0 once the program has exited (its own status is printed), \
124 on --timeout, 1 when the pane was closed (killed) before its program's end was seen."
)]
pub struct WaitArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// Give up after S seconds (exit status 124). 0 waits forever.
    #[arg(long = "timeout", value_name = "S", default_value_t = 0.0, value_parser = parse_timeout)]
    pub timeout: f64,
}

fn target(host: &TmuxHost, args: &TargetArgs) -> Result<PaneId, HostError> {
    match &args.target {
        Some(p) => Ok(p.clone()),
        None => host.caller_pane().ok_or(HostError::NoCallerPane),
    }
}

#[derive(Debug, Serialize)]
struct Captured<'a> {
    pane: &'a PaneId,
    text: &'a str,
}

pub fn capture(ctx: &Ctx, args: &CaptureArgs) -> anyhow::Result<ExitCode> {
    let host = ctx.host()?;
    let pane = target(&host, &args.target)?;
    if args.last_command {
        // A typo names the pane as missing, not as one with no command yet.
        host.pane(&pane)?;
        let record = wta_shell::read_last_command(&host, &pane)?;
        if ctx.json {
            output::json(&record)?;
        } else {
            output::line(&super::listen::finished_text(&record))?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let text = host.capture(&pane, args.lines)?;
    if ctx.json {
        output::json(&Captured {
            pane: &pane,
            text: &text,
        })?;
    } else {
        output::line(&text)?;
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Debug, Serialize)]
struct Killed<'a> {
    pane: &'a PaneId,
    killed: bool,
}

pub fn kill(ctx: &Ctx, args: &TargetArgs) -> anyhow::Result<ExitCode> {
    let host = ctx.host()?;
    let pane = target(&host, args)?;
    host.kill_pane(&pane)?;
    if ctx.json {
        output::json(&Killed {
            pane: &pane,
            killed: true,
        })?;
    } else {
        output::line(&tr!("cli.pane.killed", pane = pane))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// How a dead pane's program ended: `exit status N`, `killed by signal N`.
pub(super) fn dead_status(s: &PaneStatus) -> String {
    match (s.exit_status, s.exit_signal) {
        (Some(code), _) => tr!("cli.pane.exit_status", code = code),
        (None, Some(sig)) => tr!("cli.pane.killed_by_signal", signal = sig),
        (None, None) => tr!("cli.pane.exit_status_unknown"),
    }
}

fn describe(s: &PaneStatus) -> String {
    match s.state {
        PaneState::Running => tr!(
            "cli.pane.running",
            pane = s.pane,
            command = s.command.as_deref().unwrap_or("?"),
            pid = s.pid.map(|p| p.to_string()).unwrap_or_else(|| "?".into())
        ),
        PaneState::Dead => match (s.exit_status, s.exit_signal) {
            (None, None) => tr!("cli.pane.dead", pane = s.pane),
            _ => tr!("cli.pane.dead_with", pane = s.pane, status = dead_status(s)),
        },
        PaneState::Gone => tr!("cli.pane.gone", pane = s.pane),
    }
}

pub fn status(ctx: &Ctx, args: &TargetArgs) -> anyhow::Result<ExitCode> {
    let host = ctx.host()?;
    let s = host.pane_status(&target(&host, args)?)?;
    if ctx.json {
        output::json(&s)?;
    } else {
        output::line(&describe(&s))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `wait-for --json`: the final status plus how long we waited.
#[derive(Debug, Serialize)]
struct Waited {
    #[serde(flatten)]
    status: PaneStatus,
    waited_ms: u64,
    timed_out: bool,
}

/// `--timeout` on the command line: a usage error unless [`timeout_limit`]
/// accepts it.
fn parse_timeout(text: &str) -> Result<f64, String> {
    let secs: f64 = text
        .parse()
        .map_err(|_| format!("{text:?} is not a number of seconds"))?;
    timeout_limit(secs).map(|_| secs).map_err(|_| {
        format!(
            "{text:?}: give 0 (wait forever) or a number of seconds up to about 500 billion years"
        )
    })
}

/// `--timeout S` as a limit: 0 waits forever; negative, NaN, infinite or
/// too large a number is refused (never a panic).
fn timeout_limit(secs: f64) -> Result<Option<Duration>, HostError> {
    if secs == 0.0 {
        return Ok(None);
    }
    Duration::try_from_secs_f64(secs)
        .map(Some)
        .map_err(|_| HostError::InvalidArgument(tr!("cli.pane.bad_timeout", secs = secs)))
}

pub fn wait_for(ctx: &Ctx, args: &WaitArgs) -> anyhow::Result<ExitCode> {
    let limit = timeout_limit(args.timeout)?;
    let host = ctx.host()?;
    let pane = target(&host, &args.target)?;
    if host.caller_pane().as_ref() == Some(&pane) {
        return Err(HostError::InvalidArgument(tr!("cli.pane.wait_for_self", pane = pane)).into());
    }
    // The first query also proves the pane exists (a typo fails at once).
    let mut status = host.pane_status(&pane)?;
    let start = Instant::now();
    let mut pause = Duration::from_millis(10);
    // A dead pane's status arrives a moment after its pty closes; give
    // tmux a bounded grace to reap it.
    let mut dead_since: Option<Instant> = None;
    while status.state == PaneState::Running || !status.is_settled() {
        if limit.is_some_and(|l| start.elapsed() >= l) {
            break;
        }
        if status.state == PaneState::Dead {
            let since = *dead_since.get_or_insert_with(Instant::now);
            if since.elapsed() >= Duration::from_secs(2) {
                break;
            }
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(100));
        status = match host.pane_status(&pane) {
            Ok(s) => s,
            Err(HostError::PaneNotFound(_)) => PaneStatus {
                pane: pane.clone(),
                state: PaneState::Gone,
                exit_status: None,
                exit_signal: None,
                command: None,
                pid: None,
            },
            Err(e) => return Err(e.into()),
        };
    }
    let timed_out = status.state == PaneState::Running;
    let waited = Waited {
        waited_ms: start.elapsed().as_millis() as u64,
        timed_out,
        status,
    };
    if ctx.json {
        output::json(&waited)?;
    } else {
        output::line(&describe(&waited.status))?;
    }
    match waited.status.state {
        PaneState::Running if timed_out => {
            eprintln!(
                "wta: {}",
                tr!("cli.pane.still_running", pane = pane, secs = args.timeout)
            );
            Ok(ExitCode::from(124))
        }
        // Not success: the program's end (and so its exit status) was never seen.
        PaneState::Gone => {
            eprintln!("wta: {}", tr!("cli.pane.closed_while_waiting", pane = pane));
            Ok(ExitCode::FAILURE)
        }
        PaneState::Running | PaneState::Dead => Ok(ExitCode::SUCCESS),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use proptest::prelude::*;

    use super::*;

    #[test]
    fn timeouts_are_checked_not_trusted() {
        assert_eq!(timeout_limit(0.0).unwrap(), None);
        assert_eq!(
            timeout_limit(1.5).unwrap(),
            Some(Duration::from_millis(1500))
        );
        for bad in [-1.0, f64::NAN, f64::INFINITY, 1e20] {
            let err = timeout_limit(bad).unwrap_err().to_string();
            assert!(err.contains("--timeout"), "{bad}: {err}");
        }
    }

    proptest! {
        /// 0 waits forever; any other finite, non-negative number of
        /// seconds Duration can hold is that limit; anything else is
        /// refused with a message naming the flag and the number given.
        #[test]
        fn any_number_is_a_limit_or_a_clear_refusal(
            secs in prop_oneof![
                any::<f64>(),
                0.0..1e6f64,
                -1e6..0.0f64,
                Just(0.0),
                Just(-0.0),
                Just(f64::NAN),
                Just(f64::INFINITY),
                Just(f64::NEG_INFINITY),
                Just(1e300),
            ],
        ) {
            let holdable = (0.0..1e19).contains(&secs);
            let refused = !(0.0..=2e19).contains(&secs);
            match timeout_limit(secs) {
                Ok(None) => prop_assert_eq!(secs, 0.0),
                Ok(Some(limit)) => {
                    prop_assert!(holdable && secs != 0.0, "{secs} gave {limit:?}");
                    let error = (limit.as_secs_f64() - secs).abs();
                    prop_assert!(error <= 1e-9_f64.max(secs * 1e-15), "{secs} gave {limit:?}");
                }
                Err(err) => {
                    prop_assert!(!holdable, "{secs} refused: {err}");
                    let text = err.to_string();
                    prop_assert!(text.contains("--timeout") && text.contains(&secs.to_string()), "{text}");
                }
            }
            if refused {
                prop_assert!(timeout_limit(secs).is_err(), "{secs} accepted");
            }
        }
    }
}
