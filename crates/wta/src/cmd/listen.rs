//! `wta listen [-t PANE] [--json]`: follows one pane and prints command events
//! (started with its command line; finished with exit code, duration and the
//! rendered, bounded output) until Ctrl+C or the pane dies. Read-only: it
//! never types into the pane. Each finished command is also recorded for
//! `wta capture-pane --last-command`.

use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use serde_json::json;
use wta_host::TerminalHost;
use wta_protocol::ids::PaneId;
use wta_shell::{Effect, Host, LastCommand, PaneWatcher, TrackerConfig, WatchEvent, WatchOptions};

use super::Ctx;

#[derive(Debug, Args)]
pub struct ListenArgs {
    /// Pane (`%N`). Default: the caller's pane.
    #[arg(short = 't', long = "target", value_name = "PANE")]
    pub target: Option<PaneId>,
}

/// One compact JSON object per line (a stream, unlike one-shot `--json` output).
fn json_line(value: &impl serde::Serialize) -> anyhow::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    serde_json::to_writer(&mut out, value)?;
    out.write_all(b"\n")?;
    out.flush()?;
    Ok(())
}

pub fn run(ctx: &Ctx, args: &ListenArgs) -> anyhow::Result<ExitCode> {
    let host = ctx.host()?;
    let pane = match &args.target {
        Some(p) => p.clone(),
        None => host
            .caller_pane()
            .ok_or(wta_host::HostError::NoCallerPane)?,
    };
    // A typo names the pane as missing (before any pipe is touched).
    host.pane(&pane)?;
    let exe = std::env::current_exe().context("locating the wta binary for the pipe sink")?;
    let opts = WatchOptions {
        sink_argv: vec![exe.to_string_lossy().into_owned(), "pipe-sink".into()],
        runtime_dir: wta_protocol::private_dir::private_runtime_dir()?.join("listen"),
        config: TrackerConfig::default(),
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    rt.block_on(listen(std::sync::Arc::new(host), &pane, opts, ctx.json))
}

async fn listen(
    host: Host,
    pane: &PaneId,
    opts: WatchOptions,
    as_json: bool,
) -> anyhow::Result<ExitCode> {
    let mut watcher = PaneWatcher::attach(host, pane, opts).await?;
    if !as_json {
        eprintln!("wta: listening to pane {pane} (Ctrl+C to stop)");
    }
    loop {
        let event = tokio::select! {
            ev = watcher.next_event() => ev,
            _ = tokio::signal::ctrl_c() => None,
        };
        let Some(event) = event else { break };
        match event {
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
                    json_line(&json!({"event": "started", "pane": pane, "cmdline": cmdline}))?;
                } else {
                    crate::output::line(&format!("▶ {}", cmdline.unwrap_or_default()))?;
                }
            }
            WatchEvent::Effect(Effect::RunFinished { id }) => {
                let t = watcher.tracker();
                let t = t.lock().await;
                let Some(record) = t
                    .last
                    .as_ref()
                    .filter(|r| r.id == id)
                    .map(|r| LastCommand::from_run(pane, r))
                else {
                    continue;
                };
                drop(t);
                if as_json {
                    let mut v = serde_json::to_value(&record)?;
                    v["event"] = json!("finished");
                    json_line(&v)?;
                } else {
                    crate::output::line(&finished_text(&record))?;
                }
            }
            WatchEvent::Effect(_) => {}
            WatchEvent::Ended { reason } => {
                if as_json {
                    json_line(&json!({"event": "ended", "pane": pane, "reason": reason}))?;
                } else {
                    crate::output::line(&format!("wta: stopped: {reason}"))?;
                }
                return Ok(ExitCode::SUCCESS);
            }
        }
    }
    watcher.stop().await;
    Ok(ExitCode::SUCCESS)
}

/// A finished command for people: `■ <command line> → exit <code> in <ms> ms`,
/// then its output. `wta listen` prints one per command and `wta capture-pane
/// --last-command` the last one, so both read the same.
pub fn finished_text(record: &LastCommand) -> String {
    let cmdline = record
        .cmdline
        .as_deref()
        .unwrap_or("(the shell did not report the command line)");
    let end = match (record.exit_code, record.end_reason.as_str()) {
        (Some(code), _) => format!("exit {code}"),
        (None, "pane_died") => "the pane died".to_owned(),
        (None, "detached") => "end not seen (the watcher stopped)".to_owned(),
        (None, _) => "exit code unknown".to_owned(),
    };
    let mut text = format!(
        "■ {cmdline} → {end} in {} ms",
        record.duration_ms.unwrap_or(0)
    );
    if record.interactive {
        text.push_str(" (full-screen)");
    }
    if record.truncated {
        text.push_str(" (output truncated)");
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
