//! The pane watcher: follows one tmux pane's raw output and drives its tracker.
//!
//! It attaches `pipe-pane -O 'exec <sink> <socket>'` (never replacing a pipe
//! someone else owns), accepts the sink's connection on a private Unix socket
//! (0700 directory, peer uid checked), feeds parser → [`step`] and publishes
//! effects. After pipe EOF it re-arms while the pane lives and reports pane
//! death with `pane_dead_status` (falling back to the `@wta_exit_status` a
//! gated wrapper records, since tmux 3.3a sometimes never records the former).
//! Integration verdicts go to the pane ([`crate::pane_state`]). It also submits
//! commands (see [`submit`]). A pane whose shell waits on a readiness gate
//! named in [`GATE_OPTION`] is released once the pipe is attached. The
//! background half (stream, re-arm, death) lives in `watcher_follow.rs`.

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::net::UnixListener;
use tokio::sync::{Mutex, mpsc};

use crate::error::ShellError;
use crate::launch::GATE_OPTION;
use crate::pane_state::{announced_for, publish};
use crate::scripts::{INTEGRATION_OPTION, IntegrationMark};
use crate::sink::sh_quote;
use crate::submit::{SubmitRefusal, decide_submit, submit_commands};
use crate::tracker::{Effect, Event, Millis, State, Tracker, TrackerConfig, step};

#[path = "watcher_follow.rs"]
mod follow;
use follow::Follow;

/// How long a silent stream waits before checking that the pane is alive.
const LIVENESS_POLL: Duration = Duration::from_millis(500);

/// Pane option holding the socket path of the WTA watcher that owns the pipe.
pub const PIPE_OWNER_OPTION: &str = "@wta_pipe";

/// How to reach a tmux server: `tmux -S <socket>`.
#[derive(Debug, Clone)]
pub struct TmuxTarget {
    pub socket: PathBuf,
}

impl TmuxTarget {
    /// Runs one tmux command and returns stdout.
    pub async fn run(&self, args: &[&str]) -> Result<String, ShellError> {
        let out = tokio::process::Command::new("tmux")
            .arg("-S")
            .arg(&self.socket)
            .args(args)
            .env_remove("TMUX")
            .stdin(std::process::Stdio::null())
            .output()
            .await
            .map_err(ShellError::TmuxSpawn)?;
        tmux_stdout(args, out)
    }

    async fn display(&self, pane: &str, format: &str) -> Result<String, ShellError> {
        let out = self.run(&["display", "-p", "-t", pane, format]).await;
        match out {
            Err(ShellError::Tmux { stderr, .. }) if stderr.contains("can't find") => {
                Err(ShellError::PaneGone {
                    pane: pane.to_owned(),
                })
            }
            other => other.map(|s| s.trim_end_matches('\n').to_owned()),
        }
    }
}

/// The stdout of a finished tmux command `args`, or its error (named by the
/// command word, with tmux's stderr).
pub(crate) fn tmux_stdout(args: &[&str], out: std::process::Output) -> Result<String, ShellError> {
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(ShellError::Tmux {
            command: args.first().copied().unwrap_or("").to_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
        })
    }
}

/// How the watcher starts its sink process inside tmux.
#[derive(Debug, Clone)]
pub struct WatchOptions {
    /// argv before the socket path, e.g. `["/usr/bin/wta", "pipe-sink"]`.
    pub sink_argv: Vec<String>,
    /// Private directory for the watcher socket: created 0700, refused when it
    /// exists and is not ours with mode 0700 ([`wta_protocol::private_dir`]).
    pub runtime_dir: PathBuf,
    pub config: TrackerConfig,
}

/// One update from the watcher.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WatchEvent {
    Effect(Effect),
    /// The watcher stopped (pane died or gone, or the pipe was taken over).
    Ended {
        reason: String,
    },
}

/// A running watcher. The tracker is shared; read it with [`PaneWatcher::tracker`].
pub struct PaneWatcher {
    pub pane: String,
    tmux: TmuxTarget,
    tracker: Arc<Mutex<Tracker>>,
    events: mpsc::Receiver<WatchEvent>,
    /// For timer verdicts; weak so the channel still closes when the follow task ends.
    timer_tx: mpsc::WeakSender<WatchEvent>,
    started: Instant,
    task: tokio::task::JoinHandle<()>,
    socket: PathBuf,
}

impl std::fmt::Debug for PaneWatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PaneWatcher")
            .field("pane", &self.pane)
            .finish()
    }
}

fn now_ms(started: Instant) -> Millis {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// Checks that nobody else owns the pane's pipe. A pipe recorded as ours by
/// a WTA watcher whose socket no longer answers is stale and may be replaced.
async fn check_pipe_free(tmux: &TmuxTarget, pane: &str) -> Result<(), ShellError> {
    let info = tmux
        .display(pane, &format!("#{{pane_pipe}}\x1f#{{{PIPE_OWNER_OPTION}}}"))
        .await?;
    let (pipe, owner) = info.split_once('\x1f').unwrap_or((&info, ""));
    if pipe != "1" {
        return Ok(());
    }
    if owner.is_empty() {
        return Err(ShellError::ForeignPipe {
            pane: pane.to_owned(),
        });
    }
    if tokio::net::UnixStream::connect(owner).await.is_err() {
        return Ok(()); // a dead WTA watcher's pipe
    }
    Err(ShellError::FollowedByWta {
        pane: pane.to_owned(),
    })
}

impl PaneWatcher {
    /// Attaches to `pane` (e.g. `%3`) and starts following it.
    pub async fn attach(
        tmux: TmuxTarget,
        pane: &str,
        opts: WatchOptions,
    ) -> Result<Self, ShellError> {
        check_pipe_free(&tmux, pane).await?;
        let info = tmux
            .display(
                pane,
                &format!(
                    "#{{pane_width}}\x1f#{{pane_pid}}\x1f#{{{GATE_OPTION}}}\x1f#{{{INTEGRATION_OPTION}}}"
                ),
            )
            .await?;
        let mut parts = info.splitn(4, '\x1f');
        let width = parts.next().and_then(|w| w.parse().ok()).unwrap_or(80);
        let pane_pid: u32 = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
        let gate = parts.next().filter(|g| !g.is_empty()).map(str::to_owned);
        let announced = parts
            .next()
            .and_then(IntegrationMark::parse)
            .is_some_and(|m| announced_for(&m, pane_pid));

        // Created 0700, and refused if someone else made it first or loosened it.
        wta_protocol::private_dir::ensure_private_dir(&opts.runtime_dir)?;
        let nonce = format!(
            "{:x}{:x}",
            std::process::id(),
            Instant::now().elapsed().as_nanos() ^ now_nanos()
        );
        let socket = opts.runtime_dir.join(format!(
            "pipe-{}-{nonce}.sock",
            pane.trim_start_matches('%')
        ));
        let _ = std::fs::remove_file(&socket);
        let listener = UnixListener::bind(&socket).map_err(|source| ShellError::Socket {
            path: socket.clone(),
            source,
        })?;
        std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(0o600)).map_err(
            |source| ShellError::Socket {
                path: socket.clone(),
                source,
            },
        )?;

        let mut tracker = Tracker::new(width, opts.config);
        if announced {
            tracker = step(tracker, Event::IntegrationAnnounced, 0).0;
        }
        let tracker = Arc::new(Mutex::new(tracker));
        let (tx, events) = mpsc::channel(1024);
        let timer_tx = tx.downgrade();
        let started = Instant::now();
        let mut sink_cmd: Vec<String> = opts.sink_argv.iter().map(|a| sh_quote(a)).collect();
        sink_cmd.push(sh_quote(&socket.to_string_lossy()));
        let pipe_cmd = format!("exec {}", sink_cmd.join(" "));
        let follow = Follow {
            tmux: tmux.clone(),
            pane: pane.to_owned(),
            tracker: tracker.clone(),
            tx,
            started,
            pipe_cmd,
            socket: socket.clone(),
        };
        follow.arm().await?;
        let task = tokio::spawn(follow.run(listener));
        let watcher = PaneWatcher {
            pane: pane.to_owned(),
            tmux,
            tracker,
            events,
            timer_tx,
            started,
            task,
            socket,
        };
        if let Some(gate) = gate {
            // The pane's shell waits for a watcher: ours is attached now.
            let _ = watcher
                .tmux
                .run(&["set", "-p", "-u", "-t", pane, GATE_OPTION])
                .await;
            if let Err(e) = watcher.release_gate(&gate).await {
                watcher.stop().await;
                return Err(e);
            }
        }
        Ok(watcher)
    }

    /// The shared tracker (lock briefly; the watcher feeds it).
    pub fn tracker(&self) -> Arc<Mutex<Tracker>> {
        self.tracker.clone()
    }

    /// The next watcher event; `None` after the watcher ended and all were read.
    pub async fn next_event(&mut self) -> Option<WatchEvent> {
        self.events.recv().await
    }

    /// Milliseconds since attach, the clock used in run records.
    pub fn now(&self) -> Millis {
        now_ms(self.started)
    }

    /// Sends `text` + Enter if and only if the shell is idle at a prompt.
    /// Typeahead is never sent: a running command refuses with `Busy`.
    pub async fn submit(&self, text: &str) -> Result<Result<(), SubmitRefusal>, ShellError> {
        let guard = self.tracker.lock().await;
        if let Err(refusal) = decide_submit(&guard.state, guard.integration) {
            return Ok(Err(refusal));
        }
        self.send_tracked(guard, text, false).await?;
        Ok(Ok(()))
    }

    /// Types `text` + Enter into a pane whose shell never showed a prompt
    /// mark (a plain shell opened outside WTA, or one whose integration is
    /// absent), and tells the tracker ([`Event::SubmittedUnverified`]): a `C`
    /// within the submit timeout still opens a run; none while the screen or
    /// the foreground process changed makes the pane Absent (published like
    /// any verdict). Refused only while a command runs or the pane is dead;
    /// whether the pane shows a shell at all is the caller's judgement.
    pub async fn submit_unverified(
        &self,
        text: &str,
    ) -> Result<Result<(), SubmitRefusal>, ShellError> {
        let guard = self.tracker.lock().await;
        match &guard.state {
            State::Running | State::Submitted { .. } => return Ok(Err(SubmitRefusal::Busy)),
            State::Dead { .. } => return Ok(Err(SubmitRefusal::PaneDead)),
            _ => {}
        }
        self.send_tracked(guard, text, true).await?;
        Ok(Ok(()))
    }

    /// Sends `text` (leaving copy mode, clearing the line), steps the tracker
    /// and arms the submit timer. An unverified submission compares the pane
    /// with how it looked before anything was typed (the echo alone shows
    /// the shell read it); a verified one with how it looked right after.
    async fn send_tracked(
        &self,
        mut guard: tokio::sync::MutexGuard<'_, Tracker>,
        text: &str,
        unverified: bool,
    ) -> Result<(), ShellError> {
        let early = if unverified {
            Some(self.snapshot().await)
        } else {
            None
        };
        let in_mode = self.tmux.display(&self.pane, "#{pane_in_mode}").await? == "1";
        let buffer = format!("wta-{}", now_nanos());
        for cmd in submit_commands(&self.pane, text, in_mode, &buffer) {
            let args: Vec<&str> = cmd.iter().map(String::as_str).collect();
            self.tmux.run(&args).await?;
        }
        let before = match early {
            Some(before) => before,
            None => self.snapshot().await,
        };
        let text = text.to_owned();
        let event = if unverified {
            Event::SubmittedUnverified { text }
        } else {
            Event::Submitted { text }
        };
        let (next, fx) = step(take(&mut guard), event, self.now());
        *guard = next;
        drop(guard);
        for effect in fx {
            if let Effect::StartSubmitTimer { id, after_ms } = effect {
                let timer = self.timer();
                let before = before.clone();
                tokio::spawn(async move {
                    tokio::time::sleep(Duration::from_millis(after_ms)).await;
                    let changed = snapshot(&timer.tmux, &timer.pane).await != before;
                    timer
                        .conclude(Event::SubmitTimerExpired { id, changed })
                        .await;
                });
            }
        }
        Ok(())
    }

    /// Releases a pane started with [`crate::gated_command`] and, one submit
    /// timeout later, reports whether its shell showed any mark
    /// ([`Event::StartQuiet`]). Attach first, then release.
    pub async fn release_gate(&self, gate: &str) -> Result<(), ShellError> {
        let before = self.snapshot().await;
        self.tmux.run(&["wait-for", "-S", gate]).await?;
        let after_ms = self.tracker.lock().await.config.submit_timeout_ms;
        let timer = self.timer();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(after_ms)).await;
            // Only the screen counts: the foreground command always changes
            // when the gate's `sh` gives way to the shell, even when a slow rc
            // file has drawn nothing yet.
            let changed = snapshot(&timer.tmux, &timer.pane).await.1 != before.1;
            timer.conclude(Event::StartQuiet { changed }).await;
        });
        Ok(())
    }

    fn timer(&self) -> Timer {
        Timer {
            tracker: self.tracker.clone(),
            tmux: self.tmux.clone(),
            pane: self.pane.clone(),
            started: self.started,
            tx: self.timer_tx.clone(),
        }
    }

    async fn snapshot(&self) -> (String, String) {
        snapshot(&self.tmux, &self.pane).await
    }

    /// Stops following: detaches our pipe (if it is still ours) and ends the task.
    pub async fn stop(self) {
        self.task.abort();
        let owner = self
            .tmux
            .display(&self.pane, &format!("#{{{PIPE_OWNER_OPTION}}}"))
            .await;
        if owner.is_ok_and(|o| o == self.socket.to_string_lossy()) {
            let _ = self.tmux.run(&["pipe-pane", "-t", &self.pane]).await;
            let _ = self
                .tmux
                .run(&["set", "-p", "-u", "-t", &self.pane, PIPE_OWNER_OPTION])
                .await;
        }
        let _ = std::fs::remove_file(&self.socket);
    }
}

/// What a timer task needs to step the tracker and report like the stream does.
struct Timer {
    tracker: Arc<Mutex<Tracker>>,
    tmux: TmuxTarget,
    pane: String,
    started: Instant,
    tx: mpsc::WeakSender<WatchEvent>,
}

impl Timer {
    /// Steps the tracker with a timer's event, publishes verdicts on the pane
    /// and hands the effects to the watcher's reader (e.g. a submission that
    /// never started), unless the watcher is gone.
    async fn conclude(self, event: Event) {
        let fx = {
            let mut t = self.tracker.lock().await;
            let (next, fx) = step(take(&mut t), event, now_ms(self.started));
            *t = next;
            fx
        };
        publish_changes(&self.tmux, &self.pane, &fx).await;
        if let Some(tx) = self.tx.upgrade() {
            for effect in fx {
                let _ = tx.try_send(WatchEvent::Effect(effect));
            }
        }
    }
}

/// Writes integration verdicts among `fx` to the pane.
async fn publish_changes(tmux: &TmuxTarget, pane: &str, fx: &[Effect]) {
    for effect in fx {
        if let Effect::IntegrationChanged { integration } = effect {
            publish(tmux, pane, *integration).await;
        }
    }
}

/// Moves the tracker out of its lock for a pure `step` (no clone of its buffers).
fn take(t: &mut Tracker) -> Tracker {
    let config = t.config;
    std::mem::replace(t, Tracker::new(0, config))
}

fn now_nanos() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0)
}

/// Foreground command and visible screen: what "the pane reacted" compares.
async fn snapshot(tmux: &TmuxTarget, pane: &str) -> (String, String) {
    let fg = tmux
        .display(pane, "#{pane_current_command}")
        .await
        .unwrap_or_default();
    let screen = tmux
        .run(&["capture-pane", "-p", "-t", pane])
        .await
        .unwrap_or_default();
    (fg, screen)
}
