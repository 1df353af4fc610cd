//! The shells WTA opens: [`wta_shell::launch`] with the running `wta` binary
//! as the script source (an upgraded binary brings its script), started
//! behind a readiness gate so their first prompt is never missed.
//!
//! Who releases the gate depends on who will follow the pane:
//! - `wta up`: the helper of the agent pane. The gate's name is left in the
//!   pane's `@wta_gate` option; the helper's watcher releases it when it
//!   attaches ([`wait_gate_taken`] releases it if the helper never does).
//! - `wta new-tab` / `wta split-pane`: no helper follows the new pane, so
//!   the command itself follows it until its first prompt ([`first_prompt`]):
//!   it then records the integration verdict on the pane and returns with
//!   the shell ready.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::Context;
use wta_host::{TerminalHost, TmuxHost};
use wta_protocol::PaneId;
use wta_shell::{Integration, PaneWatcher, State, TrackerConfig, WatchOptions};

pub use wta_shell::launch::{ShellLaunch, user_shell};

/// Builds the launch for `shell`, writing helper rc files under `dir`.
pub fn integrated(shell: &str, wta: &Path, dir: &Path) -> anyhow::Result<ShellLaunch> {
    wta_shell::launch::integrated(shell, wta_shell::ScriptSource::Binary(wta), dir)
        .with_context(|| wta_i18n::tr!("cli.launch.cannot_prepare_shell", shell = shell))
}

/// The user's shell for a pane WTA opens: with integration and, when the
/// shell is one WTA integrates (bash, zsh, fish), behind a readiness gate.
#[derive(Debug, Clone)]
pub struct GatedShell {
    /// The pane command: wait on the gate, then exec the shell.
    pub argv: Vec<String>,
    /// Extra environment for the pane.
    pub env: Vec<(String, String)>,
    /// The gate's channel; `None` for a shell without WTA integration
    /// (nothing to wait for: it starts at once, as before).
    pub gate: Option<String>,
}

/// The user's shell with integration, behind a fresh gate (rc files under
/// the launcher dir).
pub fn gated_user_shell() -> anyhow::Result<GatedShell> {
    let dir = super::agent_pane::launcher_dir();
    super::agent_pane::ensure_runtime_dir(&dir)?;
    let wta = std::env::current_exe().context(wta_i18n::tr!("cli.no_binary"))?;
    let program = user_shell();
    let launch = integrated(&program, &wta, &dir)?;
    let integrable = matches!(
        wta_shell::Shell::from_program(&program),
        Some(wta_shell::Shell::Bash | wta_shell::Shell::Zsh | wta_shell::Shell::Fish)
    );
    if !integrable {
        return Ok(GatedShell {
            argv: launch.argv,
            env: launch.env,
            gate: None,
        });
    }
    let gate = wta_shell::new_gate_name();
    Ok(GatedShell {
        argv: wta_shell::gated_argv(&gate, &launch.argv),
        env: launch.env,
        gate: Some(gate),
    })
}

/// What [`first_prompt`] saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FirstPrompt {
    /// The shell's first prompt and its marks.
    Seen,
    /// The shell drew something but no mark: it has no integration.
    NoIntegration,
    /// Nothing conclusive in time (a slow rc file); the shell still runs.
    NotYet,
}

/// Follows the gated `pane` until its first prompt: attaches a watcher,
/// releases `gate`, waits at most `timeout` for the prompt (or the verdict
/// that the shell has no integration, which the watcher records on the
/// pane), then detaches. If attaching fails the gate is still released, so
/// the shell never hangs; the error is returned for the caller to report.
pub fn first_prompt(
    host: &TmuxHost,
    pane: &PaneId,
    gate: &str,
    timeout: Duration,
) -> anyhow::Result<FirstPrompt> {
    let release = || TerminalHost::signal(host, gate);
    let prepared = (|| -> anyhow::Result<_> {
        let exe = std::env::current_exe().context(wta_i18n::tr!("cli.no_pipe_sink_binary"))?;
        let runtime_dir = wta_env::private_dir::private_runtime_dir()?.join("watch");
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let opts = WatchOptions {
            sink_argv: vec![exe.to_string_lossy().into_owned(), "pipe-sink".into()],
            runtime_dir,
            config: TrackerConfig::default(),
        };
        Ok((rt, opts))
    })();
    let (rt, opts) = match prepared {
        Ok(p) => p,
        Err(e) => {
            release()?;
            return Err(e);
        }
    };
    let shared: wta_shell::Host = std::sync::Arc::new(host.clone());
    rt.block_on(async {
        let watcher = match PaneWatcher::attach(shared, pane, opts).await {
            Ok(w) => w,
            Err(e) => {
                release()?;
                return Err(anyhow::Error::new(e)
                    .context(wta_i18n::tr!("cli.launch.cannot_follow", pane = pane)));
            }
        };
        watcher.release_gate(gate).await?;
        let seen = settled(&watcher, pane, timeout).await;
        watcher.stop().await;
        Ok(seen)
    })
}

/// Waits until the watcher saw the first prompt (or decided the shell has
/// no integration) *and* its verdict is on the pane, so detaching right
/// after loses nothing.
async fn settled(watcher: &PaneWatcher, pane: &PaneId, timeout: Duration) -> FirstPrompt {
    let tracker = watcher.tracker();
    let deadline = Instant::now() + timeout;
    let options = [wta_shell::INTEGRATION_STATE_OPTION];
    while Instant::now() < deadline {
        let (state, integration) = {
            let t = tracker.lock().await;
            (t.state.clone(), t.integration)
        };
        let want = match (state, integration) {
            (State::Idle, Integration::Present) => Some((FirstPrompt::Seen, "present")),
            (_, Integration::Absent) => Some((FirstPrompt::NoIntegration, "absent")),
            _ => None,
        };
        if let Some((seen, value)) = want {
            let shown = watcher.host().probe(pane, &options).await;
            if shown.is_ok_and(|p| p.option(0) == value) {
                return seen;
            }
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    FirstPrompt::NotYet
}

/// Marks `pane` as waiting on `gate` for a watcher (`@wta_gate`) and as a
/// shell that is starting, not one without integration; releases the gate
/// when the marks cannot be set, so the shell never hangs.
pub fn mark_gated(host: &TmuxHost, pane: &PaneId, gate: &str) -> anyhow::Result<()> {
    let marked = host.set_options(
        pane,
        &[
            (wta_shell::GATE_OPTION, gate),
            // Until its first prompt, this shell is starting, not integration-less.
            (wta_shell::INTEGRATION_EXPECTED_OPTION, "1"),
        ],
    );
    if let Err(e) = marked {
        let _ = host.signal(gate);
        return Err(e.into());
    }
    Ok(())
}

/// Waits until the gated `pane`'s watcher took the gate named in its
/// `@wta_gate` option (it clears the option when it releases the gate), at
/// most `timeout`; releases the gate itself when none did, so the shell
/// never hangs. Returns whether a watcher took it.
pub fn wait_gate_taken(
    host: &TmuxHost,
    pane: &PaneId,
    gate: &str,
    timeout: Duration,
) -> anyhow::Result<bool> {
    let deadline = Instant::now() + timeout;
    loop {
        if host.option(pane, wta_shell::GATE_OPTION)?.is_empty() {
            return Ok(true);
        }
        if Instant::now() >= deadline {
            TerminalHost::unset_option(host, pane, wta_shell::GATE_OPTION)?;
            TerminalHost::signal(host, gate)?;
            return Ok(false);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launcher_loads_integration_from_this_binary() {
        let dir = tempfile::tempdir().unwrap();
        let bash = integrated("/bin/bash", Path::new("/opt/wta"), dir.path()).unwrap();
        let rc = std::fs::read_to_string(&bash.argv[2]).unwrap();
        assert!(rc.contains("'/opt/wta' shell-integration bash"), "{rc}");
    }
}
