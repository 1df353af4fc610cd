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
use wta_shell::{
    Effect, Host, LastCommand, PaneWatcher, TrackerConfig, WatchEvent, WatchOptions,
};

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
                    let exit = record.exit_code.map_or("?".to_owned(), |c| c.to_string());
                    crate::output::line(&format!(
                        "■ {} → exit {exit} in {} ms{}",
                        record.cmdline.unwrap_or_default(),
                        record.duration_ms.unwrap_or(0),
                        if record.truncated {
                            " (output truncated)"
                        } else {
                            ""
                        }
                    ))?;
                    if !record.output.is_empty() {
                        crate::output::line(&record.output)?;
                    }
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
