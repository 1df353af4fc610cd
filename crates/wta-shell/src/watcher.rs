//! The pane watcher: follows one pane's raw output and drives its tracker.
//!
//! It attaches the host's output pipe into `<sink> <socket>` (never replacing
//! a pipe someone else owns), accepts the sink's connection on a private Unix
//! socket (0700 directory, peer uid checked), feeds parser → [`step`] and
//! publishes effects. After pipe EOF it re-arms while the pane lives and
//! reports pane death with its exit status. Integration verdicts go to the
//! pane ([`crate::pane_state`]). It also submits commands (see [`submit`]).
//! A pane whose shell waits on a readiness gate named in [`crate::GATE_OPTION`] is
//! released once the pipe is attached. The background half (stream, re-arm,
//! death) lives in `watcher_follow.rs`. Every watcher also serves the pane's
//! command events to listeners ([`crate::fanout`]); one started by
//! [`PaneWatcher::attach_yielding`] (`wta listen`) hands the pipe over to a
//! watcher started by [`PaneWatcher::attach`] (an agent pane's, which types
//! cards' commands and so must own the tracker) and goes on as its listener.
//!
//! Every host operation goes through [`AsyncHost`]: tmux in production, the
//! in-memory fake in unit tests (a test plays tmux by connecting to the
//! socket named last in the recorded sink argv).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::{Mutex, mpsc};
use wta_host::{AsyncHost, Key, Typing};
use wta_protocol::PaneId;

use crate::error::ShellError;
use crate::fanout::LISTENERS_OPTION;
use crate::fanout_wire::PaneNote;
use crate::handoff::{Delivery, Intent};
use crate::pane_state::publish;
use crate::submit::{SubmitRefusal, decide_submit};
use crate::tracker::{
    Effect, Event, Integration, Millis, Run, State, Tracker, TrackerConfig, step,
};

#[path = "watcher_attach.rs"]
mod attach;
#[path = "watcher_follow.rs"]
mod follow;

/// How long a silent stream waits before checking that the pane is alive.
const LIVENESS_POLL: Duration = Duration::from_millis(500);

/// Pane option holding the socket path of the WTA watcher that owns the pipe.
pub const PIPE_OWNER_OPTION: &str = "@wta_pipe";

/// The host a watcher talks to.
pub type Host = Arc<dyn AsyncHost>;

/// How the watcher starts its sink process inside tmux.
#[derive(Debug, Clone)]
pub struct WatchOptions {
    /// argv before the socket path, e.g. `["/usr/bin/wta", "pipe-sink"]`.
    pub sink_argv: Vec<String>,
    /// Private directory for the watcher socket: created 0700, refused when it
    /// exists and is not ours with mode 0700 ([`wta_env::private_dir`]).
    pub runtime_dir: PathBuf,
    pub config: TrackerConfig,
}

/// One update from the watcher.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WatchEvent {
    Effect(Effect),
    /// Right after `Effect(RunFinished)`: that run as it stood when its end
    /// was stepped. Read the run from here, not from the tracker: commands
    /// typed ahead finish back to back, and by the time a reader gets to the
    /// event the tracker may have let the run go.
    Finished(Arc<FinishedRun>),
    /// The watcher stopped (pane died or gone, or the pipe was taken over).
    Ended {
        reason: String,
    },
}

/// What a card needs to know of the pane before anything is sent there:
/// whether a command runs (its command line, else empty), whether a
/// full-screen program shows, whether text was typed at the prompt, and
/// whether the shell takes commands by hand-off ([`crate::handoff`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShellFacts {
    /// False until the watcher has read the pane once: nothing is known.
    pub known: bool,
    pub running: Option<String>,
    pub full_screen: bool,
    pub typed_text: bool,
    pub hand_off: bool,
    /// Whether the shell's integration marks were seen (`Present`), proven
    /// missing (`Absent`), or neither yet.
    pub integration: Integration,
}

impl ShellFacts {
    /// The facts `tracker` holds, for a shell that takes commands by
    /// hand-off or not.
    pub fn of(tracker: &Tracker, hand_off: bool) -> Self {
        let running = match (&tracker.state, &tracker.current) {
            (State::Running, Some(run)) => Some(run.cmdline.clone().unwrap_or_default()),
            (State::Running | State::Submitted { .. }, _) => Some(String::new()),
            _ => None,
        };
        ShellFacts {
            // A watcher that has seen no mark of the shell yet knows nothing
            // (but that it has none, once proven).
            known: tracker.state != State::Unknown || tracker.integration != Integration::Unknown,
            running,
            full_screen: tracker.alt_screen,
            typed_text: tracker.typed_text,
            hand_off,
            integration: tracker.integration,
        }
    }
}

/// A finished run and the shell's cwd when it finished (if reported).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FinishedRun {
    pub run: Run,
    pub cwd: Option<String>,
}

/// How the shell `tracker` follows takes a command, as it announced on
/// `pane` (an inbox WTA writes to, or its keys).
async fn delivery_of(host: &Host, pane: &PaneId, tracker: &Tracker) -> Option<Delivery> {
    let pid: u32 = tracker.shell_aid.as_deref()?.parse().ok()?;
    let nonce = tracker.trust.nonce_of(pid)?.to_owned();
    let option = crate::handoff::inbox_option(pid);
    let probe = host.probe(pane, &[option.as_str()]).await.ok()?;
    Delivery::announced(probe.option(0), &nonce)
}

/// The watcher events for `fx`, just stepped into `t`: each effect, and
/// after each finished run its snapshot. The command line of each started
/// run goes to `cmdlines`, in order (for the listeners' notes: a later
/// event of the batch may end the run before they are made).
fn announce(
    t: &Tracker,
    fx: &[Effect],
    out: &mut Vec<WatchEvent>,
    cmdlines: &mut std::collections::VecDeque<Option<String>>,
) {
    for effect in fx {
        out.push(WatchEvent::Effect(effect.clone()));
        if let Effect::RunStarted { id } = effect {
            let run = t.current.iter().chain(t.last.iter()).find(|r| r.id == *id);
            cmdlines.push_back(run.and_then(|r| r.cmdline.clone()));
        }
        if let Effect::RunFinished { id } = effect
            && let Some(run) = t.finished(*id)
        {
            out.push(WatchEvent::Finished(Arc::new(FinishedRun {
                run: run.clone(),
                cwd: t.cwd.as_ref().map(|c| c.path.clone()),
            })));
        }
    }
}

/// A running watcher. The tracker is shared; read it with [`PaneWatcher::tracker`].
pub struct PaneWatcher {
    pub pane: PaneId,
    host: Host,
    tracker: Arc<Mutex<Tracker>>,
    events: mpsc::Receiver<WatchEvent>,
    /// For timer verdicts; weak so the channel still closes when the follow task ends.
    timer_tx: mpsc::WeakSender<WatchEvent>,
    started: Instant,
    task: tokio::task::JoinHandle<()>,
    socket: PathBuf,
    finished: tokio::sync::broadcast::Sender<crate::last_command::Finished>,
    facts: tokio::sync::watch::Sender<ShellFacts>,
    /// What listeners are told ([`crate::fanout`]).
    notes: tokio::sync::broadcast::Sender<PaneNote>,
    /// The listeners socket's accept loop, and its path.
    serve: tokio::task::JoinHandle<()>,
    listeners: PathBuf,
    yields: bool,
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

/// Finished commands a slow subscriber may fall behind by.
pub const FINISHED_QUEUE: usize = 16;

impl PaneWatcher {
    /// Every command that finishes in the pane from now on (a subscriber
    /// that falls [`FINISHED_QUEUE`] behind loses the oldest).
    pub fn finished_commands(
        &self,
    ) -> tokio::sync::broadcast::Receiver<crate::last_command::Finished> {
        self.finished.subscribe()
    }

    /// The pane's [`ShellFacts`], updated whenever they change.
    pub fn facts(&self) -> tokio::sync::watch::Receiver<ShellFacts> {
        self.facts.subscribe()
    }

    /// The shared tracker (lock briefly; the watcher feeds it).
    pub fn tracker(&self) -> Arc<Mutex<Tracker>> {
        self.tracker.clone()
    }

    /// The host this watcher talks to.
    pub fn host(&self) -> &Host {
        &self.host
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

    /// Puts `text` on the shell's line without running it: handed off when
    /// the shell announced an inbox or its keys (what was typed comes back
    /// after the next command), else typed as keys over a cleared line.
    /// Refused while a command runs or the pane is dead. `Ok(true)` when
    /// handed off.
    pub async fn insert(&self, text: &str) -> Result<Result<bool, SubmitRefusal>, ShellError> {
        let mut guard = self.tracker.lock().await;
        match &guard.state {
            State::Running | State::Submitted { .. } => return Ok(Err(SubmitRefusal::Busy)),
            State::Dead { .. } => return Ok(Err(SubmitRefusal::PaneDead)),
            _ => {}
        }
        if let Some(delivery) = self.delivery(&guard).await {
            self.hand_over(&delivery, text, Intent::Insert).await?;
            let (next, _) = step(take(&mut guard), Event::HandedOff, self.now());
            *guard = next;
            return Ok(Ok(true));
        }
        let typing = Typing {
            clear_line: true,
            enter: false,
        };
        self.host.type_text(&self.pane, text, typing).await?;
        Ok(Ok(false))
    }

    /// Whether a command reaches this pane's shell by hand-off (it
    /// announced an inbox, or takes it after its RunHex key) rather than as
    /// typed keys.
    pub async fn hands_off(&self) -> bool {
        let guard = self.tracker.lock().await;
        self.delivery(&guard).await.is_some()
    }

    /// Hands `text` over by `delivery`: written to the inbox and its key
    /// pressed, or sent after the key as the hex payload.
    async fn hand_over(
        &self,
        delivery: &Delivery,
        text: &str,
        intent: Intent,
    ) -> Result<(), ShellError> {
        let key = delivery.key(intent);
        match delivery {
            Delivery::Inbox(inbox) => {
                crate::handoff::deliver(inbox, text)?;
                self.host.press(&self.pane, &[Key::Private(key)]).await?;
            }
            Delivery::Keys => {
                let payload = crate::handoff::hex_payload(text);
                self.host
                    .press_with_payload(&self.pane, key, &payload)
                    .await?;
            }
        }
        Ok(())
    }

    /// How the pane's own shell takes a command, when it announced a way
    /// WTA uses ([`Delivery::announced`]: an inbox named for that shell's
    /// nonce, or its keys).
    async fn delivery(&self, tracker: &Tracker) -> Option<Delivery> {
        delivery_of(&self.host, &self.pane, tracker).await
    }

    /// Sends `text` to be run — handed off to a shell that announced an
    /// inbox, else typed (leaving copy mode, clearing the line, Enter) in
    /// one host call — steps the tracker and arms the submit timer. An
    /// unverified submission compares the pane with how it looked before
    /// anything was typed (the echo alone shows the shell read it); a
    /// verified one with how it looked right after. The tracker stays
    /// locked throughout, so the `C` our key causes is stepped after
    /// `Submitted`.
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
        let delivery = match unverified {
            true => None,
            false => self.delivery(&guard).await,
        };
        match &delivery {
            Some(delivery) => self.hand_over(delivery, text, Intent::Run).await?,
            None => {
                let typing = Typing {
                    clear_line: true,
                    enter: true,
                };
                self.host.type_text(&self.pane, text, typing).await?;
            }
        }
        let text = text.to_owned();
        let event = if unverified {
            Event::SubmittedUnverified { text }
        } else {
            Event::Submitted { text }
        };
        let (mut next, mut fx) = step(take(&mut guard), event, self.now());
        if delivery.is_some() {
            let (after, more) = step(next, Event::HandedOff, self.now());
            next = after;
            fx.extend(more);
        }
        *guard = next;
        drop(guard);
        for effect in fx {
            if let Effect::StartSubmitTimer { id, after_ms } = effect {
                let timer = self.timer();
                let early = early.clone();
                tokio::spawn(async move {
                    let before = match early {
                        Some(before) => before,
                        None => snapshot(&timer.host, &timer.pane).await,
                    };
                    tokio::time::sleep(Duration::from_millis(after_ms)).await;
                    let changed = snapshot(&timer.host, &timer.pane).await != before;
                    timer
                        .conclude(Event::SubmitTimerExpired { id, changed })
                        .await;
                });
            }
        }
        Ok(())
    }

    /// Presses Ctrl+L so the shell redraws its prompt (and re-emits its marks).
    pub async fn redraw_prompt(&self) -> Result<(), ShellError> {
        Ok(self.host.press(&self.pane, &[Key::CtrlL]).await?)
    }

    /// Releases a pane started with [`crate::gated_command`] and, one submit
    /// timeout later, reports whether its shell showed any mark
    /// ([`Event::StartQuiet`]). Attach first, then release.
    pub async fn release_gate(&self, gate: &str) -> Result<(), ShellError> {
        let before = self.snapshot().await;
        self.host.signal(gate).await?;
        let after_ms = self.tracker.lock().await.config.submit_timeout_ms;
        let timer = self.timer();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(after_ms)).await;
            // Only the screen counts: the foreground command always changes
            // when the gate's `sh` gives way to the shell, even when a slow rc
            // file has drawn nothing yet.
            let changed = snapshot(&timer.host, &timer.pane).await.1 != before.1;
            timer.conclude(Event::StartQuiet { changed }).await;
        });
        Ok(())
    }

    fn timer(&self) -> Timer {
        Timer {
            tracker: self.tracker.clone(),
            host: self.host.clone(),
            pane: self.pane.clone(),
            started: self.started,
            tx: self.timer_tx.clone(),
            notes: self.notes.downgrade(),
        }
    }

    async fn snapshot(&self) -> (String, String) {
        snapshot(&self.host, &self.pane).await
    }

    /// Stops following: detaches our pipe (if it is still ours) and ends the
    /// task, then closes the listeners socket. In that order: a listener
    /// that sees its connection end finds the pipe free to take over.
    pub async fn stop(self) {
        self.task.abort();
        let owner = self
            .host
            .probe(&self.pane, &[PIPE_OWNER_OPTION, LISTENERS_OPTION])
            .await;
        if let Ok(probe) = owner {
            if probe.option(0) == self.socket.to_string_lossy() {
                let _ = self.host.close_pipe(&self.pane, PIPE_OWNER_OPTION).await;
            }
            if probe.option(1) == self.listeners.to_string_lossy() {
                let _ = self.host.unset_option(&self.pane, LISTENERS_OPTION).await;
            }
        }
        let _ = std::fs::remove_file(&self.socket);
        self.serve.abort();
        let _ = std::fs::remove_file(&self.listeners);
    }
}

/// What a timer task needs to step the tracker and report like the stream does.
struct Timer {
    tracker: Arc<Mutex<Tracker>>,
    host: Host,
    pane: PaneId,
    started: Instant,
    tx: mpsc::WeakSender<WatchEvent>,
    notes: tokio::sync::broadcast::WeakSender<PaneNote>,
}

impl Timer {
    /// Steps the tracker with a timer's event, publishes verdicts on the pane
    /// and hands the effects to the watcher's reader (e.g. a submission that
    /// never started), unless the watcher is gone.
    async fn conclude(self, event: Event) {
        let mut out = Vec::new();
        let mut cmdlines = std::collections::VecDeque::new();
        let fx = {
            let mut t = self.tracker.lock().await;
            let (next, fx) = step(take(&mut t), event, now_ms(self.started));
            *t = next;
            announce(&t, &fx, &mut out, &mut cmdlines);
            fx
        };
        publish_changes(&self.host, &self.pane, &fx).await;
        let (notes, _) = crate::fanout::notes_for(&self.pane, &out, cmdlines);
        if let Some(tx) = self.tx.upgrade() {
            for event in out {
                let _ = tx.try_send(event);
            }
        }
        if let Some(tx) = self.notes.upgrade() {
            for note in notes {
                let _ = tx.send(note);
            }
        }
    }
}

/// Writes integration verdicts among `fx` to the pane.
async fn publish_changes(host: &Host, pane: &PaneId, fx: &[Effect]) {
    for effect in fx {
        if let Effect::IntegrationChanged { integration } = effect {
            publish(host, pane, *integration).await;
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
async fn snapshot(host: &Host, pane: &PaneId) -> (String, String) {
    let fg = host
        .probe(pane, &[])
        .await
        .map(|p| p.command)
        .unwrap_or_default();
    let screen = host.screen(pane).await.unwrap_or_default();
    (fg, screen)
}
