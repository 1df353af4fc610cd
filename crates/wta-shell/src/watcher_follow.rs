//! The background half of a [`super::PaneWatcher`]: arms the pane's pipe,
//! accepts the sink (peer uid checked), decodes its frames into parser
//! tokens and [`Event::OutputLost`] gaps, steps the tracker, publishes
//! effects (the reader first, then the listeners' notes; recording a
//! finished run on the pane comes after, off the path), re-arms after pipe
//! EOF while the pane lives and reports the pane's death, with its
//! [`Fate`], to the reader and the listeners. It never types into the pane.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::AsyncReadExt;
use tokio::net::UnixListener;
use tokio::sync::{Mutex, mpsc};

use wta_protocol::PaneId;

use super::Host;
use super::{
    LIVENESS_POLL, PIPE_OWNER_OPTION, WatchEvent, announce, now_ms, publish_changes, take,
};
use crate::error::ShellError;
use crate::fanout::LISTENERS_OPTION;
use crate::fanout_wire::{Fate, PaneNote};
use crate::last_command::{Finished, LAST_COMMAND_OPTION};
use crate::parser::{Parser, Token};
use crate::sink::EXIT_STATUS_OPTION;
use crate::sink_wire::{Frame, FrameDecoder};
use crate::tracker::{Effect, Event, PaneFate, Tracker, remote_option, step};
use crate::trust::nonce_option;

/// The background half of a watcher.
pub(super) struct Follow {
    pub(super) host: Host,
    pub(super) pane: PaneId,
    pub(super) tracker: Arc<Mutex<Tracker>>,
    pub(super) tx: mpsc::Sender<WatchEvent>,
    pub(super) started: Instant,
    /// The sink's argv, the socket path last.
    pub(super) sink: Vec<String>,
    pub(super) socket: PathBuf,
    /// Where finished commands are announced.
    pub(super) finished: tokio::sync::broadcast::Sender<Finished>,
    /// Where the pane's facts are published.
    pub(super) facts: tokio::sync::watch::Sender<super::ShellFacts>,
    /// Whether the shell (pid, nonce) takes commands by hand-off, as last asked.
    pub(super) hand_off: Mutex<Option<HandOffSeen>>,
    /// Where the listeners' notes go ([`crate::fanout`]), and the socket
    /// they connect to (named on the pane before each arm).
    pub(super) notes: tokio::sync::broadcast::Sender<PaneNote>,
    pub(super) listeners: PathBuf,
}

/// The shell a hand-off answer is for (pid and nonce), and the answer.
pub(super) type HandOffSeen = ((Option<String>, Option<String>), bool);

/// Options read when the pipe ends, in probe order.
const EOF_OPTIONS: [&str; 2] = [PIPE_OWNER_OPTION, EXIT_STATUS_OPTION];

impl Follow {
    pub(super) async fn arm(&self) -> Result<(), ShellError> {
        // Named before the pipe: whoever sees our pipe finds our listeners.
        let listeners = self.listeners.to_string_lossy();
        self.host
            .set_option(&self.pane, LISTENERS_OPTION, &listeners)
            .await?;
        let owner = self.socket.to_string_lossy();
        self.host
            .open_pipe(&self.pane, &self.sink, (PIPE_OWNER_OPTION, &owner))
            .await?;
        Ok(())
    }

    /// Steps the tracker through `events` in order. A mark whose shell's
    /// nonce is not known yet waits for one lookup of it (rate-limited by
    /// the tracker's [`crate::trust::MarkTrust`]); the tracker is not locked
    /// while the host answers.
    async fn feed(&self, events: Vec<Event>) {
        let mut effects = Vec::new();
        let mut out = Vec::new();
        let mut cmdlines = std::collections::VecDeque::new();
        let mut events = events.into_iter();
        let mut learned = None;
        loop {
            let lookup = {
                let mut t = self.tracker.lock().await;
                let mut cur = take(&mut t);
                let now = now_ms(self.started);
                let mut lookup = None;
                for event in learned.take().into_iter().flatten().chain(events.by_ref()) {
                    if let Event::Token(Token::Mark(mark)) = &event
                        && let Some(pid) = cur.trust.lookup_for(mark, now)
                    {
                        lookup = Some((pid, event));
                        break;
                    }
                    let (next, fx) = step(cur, event, now);
                    cur = next;
                    // Snapshot now: a later event of this batch may end
                    // another run and push this one out of the tracker.
                    announce(&cur, &fx, &mut out, &mut cmdlines);
                    effects.extend(fx);
                }
                *t = cur;
                lookup
            };
            let Some((pid, mark)) = lookup else { break };
            let (nonce, host) = self.announced(pid).await;
            learned = Some([
                Event::NonceLearned { pid, nonce },
                Event::HopLearned { pid, host },
                mark,
            ]);
        }
        if effects
            .iter()
            .any(|e| matches!(e, Effect::RunFinished { .. }))
        {
            // A stage mark for the execution-latency bench.
            tracing::trace!(target: "wta::latency", "tracker: run finished");
        }
        let batch: Vec<WatchEvent> = out.clone();
        for event in out {
            // A slow consumer loses events, never stalls the pane stream.
            let _ = self.tx.try_send(event);
        }
        let (notes, finished) = crate::fanout::notes_for(&self.pane, &batch, cmdlines);
        for note in notes {
            // No listener is fine; a slow one loses the oldest.
            let _ = self.notes.send(note);
        }
        // After the reader has the effects: none of this is on its path.
        publish_changes(&self.host, &self.pane, &effects).await;
        if effects
            .iter()
            .any(|e| matches!(e, Effect::RemoteChanged | Effect::CwdChanged))
        {
            let place = crate::remote::RemoteShell::of(&*self.tracker.lock().await);
            crate::remote::publish(&self.host, &self.pane, place.as_ref()).await;
        }
        self.publish_facts().await;
        if effects.contains(&Effect::RestoreTyped) {
            // The command handed off earlier ran and the prompt is back: the
            // shell puts back what the user had typed (if anything).
            let key = [wta_host::Key::Private(wta_host::PrivateKey::Restore)];
            if let Err(err) = self.host.press(&self.pane, &key).await {
                tracing::debug!(pane = %self.pane, "restore key: {err}");
            }
        }
        self.record(finished);
        for effect in &effects {
            if let Effect::RunStarted { id } = effect {
                self.refresh_width(*id);
            }
        }
    }

    /// Publishes the pane's facts when they changed. Whether the shell takes
    /// commands by hand-off is asked of tmux only when the shell the
    /// tracker follows (its pid and nonce) is new.
    async fn publish_facts(&self) {
        let (shell, mut facts) = {
            let t = self.tracker.lock().await;
            let pid = t.shell_aid.clone();
            let nonce = pid
                .as_deref()
                .and_then(|p| p.parse().ok())
                .and_then(|p| t.trust.nonce_of(p))
                .map(str::to_owned);
            ((pid, nonce), super::ShellFacts::of(&t, false))
        };
        let known = self.hand_off.lock().await.clone();
        facts.hand_off = match known {
            Some((seen, hand_off)) if seen == shell => hand_off,
            _ => {
                let t = self.tracker.lock().await.clone();
                let hand_off = super::delivery_of(&self.host, &self.pane, &t)
                    .await
                    .is_some();
                *self.hand_off.lock().await = Some((shell, hand_off));
                hand_off
            }
        };
        self.facts.send_if_modified(|was| {
            let changed = *was != facts;
            *was = facts;
            changed
        });
    }

    /// The nonce the shell with pid `pid` announced on the pane, and the
    /// host when `wta ssh` announced it as a remote shell, if any.
    async fn announced(&self, pid: u32) -> (Option<String>, Option<String>) {
        let options = [nonce_option(pid), remote_option(pid)];
        let names = [options[0].as_str(), options[1].as_str()];
        let Ok(probe) = self.host.probe(&self.pane, &names).await else {
            return (None, None);
        };
        let given = |i: usize| Some(probe.option(i).to_owned()).filter(|v| !v.is_empty());
        (given(0), given(1))
    }

    /// Announces each finished run to the subscribers and stores the last
    /// one in `@wta_last_command` for `capture-pane --last-command`, in the
    /// background (the pane may be gone by then).
    fn record(&self, finished: Vec<Finished>) {
        let mut last = None;
        for f in finished {
            last = Some(f.record.clone());
            // No subscriber is fine: nobody asked.
            let _ = self.finished.send(f);
        }
        let Some(Ok(json)) = last.map(|r| serde_json::to_string(&r)) else {
            return;
        };
        let (host, pane) = (self.host.clone(), self.pane.clone());
        tokio::spawn(async move {
            let _ = host.set_option(&pane, LAST_COMMAND_OPTION, &json).await;
        });
    }

    /// Reads the pane's width for run `id` (its output wraps at the width it
    /// ran at) in the background: the stream never waits on it, so a fast
    /// command's `D` is stepped at once. A run that already ended gets the
    /// width too, for whoever renders it later.
    fn refresh_width(&self, id: crate::tracker::RunId) {
        let (host, pane, tracker) = (self.host.clone(), self.pane.clone(), self.tracker.clone());
        tokio::spawn(async move {
            let Ok(probe) = host.probe(&pane, &[]).await else {
                return;
            };
            let mut t = tracker.lock().await;
            t.width = probe.width;
            let tracker = &mut *t;
            if let Some(run) = tracker
                .current
                .iter_mut()
                .chain(tracker.last.iter_mut())
                .find(|r| r.id == id)
            {
                run.width = probe.width;
            }
        });
    }

    pub(super) async fn run(self, listener: UnixListener) {
        let (reason, fate) = self.follow(listener).await;
        let _ = std::fs::remove_file(&self.socket);
        let _ = self.notes.send(crate::fanout::ended(&reason, fate));
        let _ = self.tx.send(WatchEvent::Ended { reason }).await;
    }

    async fn follow(&self, listener: UnixListener) -> (String, Fate) {
        let uid = current_uid(&self.socket);
        let mut parser = Parser::new();
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let accepted = tokio::time::timeout(Duration::from_secs(2), listener.accept()).await;
            match accepted {
                Ok(Ok((mut stream, _))) => {
                    // Each sink connection starts a fresh frame stream.
                    let mut decoder = FrameDecoder::new();
                    let mut frames = Vec::new();
                    let peer_ok = stream
                        .peer_cred()
                        .map(|c| Some(c.uid()) == uid)
                        .unwrap_or(false);
                    if !peer_ok {
                        continue;
                    }
                    loop {
                        // tmux keeps the pipe of a pane kept by remain-on-exit open,
                        // so a quiet stream is also a cue to check the pane is alive.
                        let read = tokio::time::timeout(LIVENESS_POLL, stream.read(&mut buf));
                        let n = match read.await {
                            Ok(Ok(0) | Err(_)) => break,
                            Ok(Ok(n)) => n,
                            Err(_) => match self.host.probe(&self.pane, &[]).await {
                                Ok(probe) if !probe.dead => continue,
                                _ => break,
                            },
                        };
                        frames.clear();
                        if let Err(e) = decoder.feed(&buf[..n], &mut frames) {
                            tracing::warn!("pane {}: {e}", self.pane);
                            break;
                        }
                        let mut events = Vec::new();
                        for frame in frames.drain(..) {
                            match frame {
                                Frame::Data(bytes) => {
                                    let mut tokens = Vec::new();
                                    parser.feed(&bytes, &mut tokens);
                                    events.extend(tokens.into_iter().map(Event::Token));
                                }
                                Frame::Gap(bytes) => {
                                    // A sequence cut by the gap must not swallow what follows.
                                    parser = Parser::new();
                                    events.push(Event::OutputLost { bytes });
                                }
                            }
                        }
                        self.feed(events).await;
                    }
                }
                Ok(Err(e)) => return (format!("watcher socket failed: {e}"), Fate::Failed),
                Err(_) => {} // no sink yet: check the pane below
            }
            // Pipe EOF (or no sink): is the pane still there, and whose pipe is it?
            let probe = match self.host.probe(&self.pane, &EOF_OPTIONS).await {
                Err(wta_host::HostError::PaneNotFound(_)) => {
                    self.feed(vec![Event::PipeClosed {
                        fate: PaneFate::Gone,
                    }])
                    .await;
                    let reason = Fate::Gone.reason(&self.pane).unwrap_or_default();
                    return (reason, Fate::Gone);
                }
                // The server went, and every pane with it.
                Err(e) if e.is_no_server() => return (e.to_string(), Fate::Gone),
                Err(e) => return (e.to_string(), Fate::Failed),
                Ok(probe) => probe,
            };
            if probe.dead {
                let status = self.exit_status(probe).await;
                self.feed(vec![Event::PipeClosed {
                    fate: PaneFate::Dead { status },
                }])
                .await;
                let fate = Fate::Died { status };
                let reason = fate.reason(&self.pane).unwrap_or_default();
                return (reason, fate);
            }
            let ours = probe.option(0) == self.socket.to_string_lossy();
            if probe.pipe_open && !ours {
                self.feed(vec![Event::Detached]).await;
                let reason = format!("another program took over the pipe of pane {}", self.pane);
                return (reason, Fate::TakenOver);
            }
            if !probe.pipe_open
                && let Err(e) = self.arm().await
            {
                return (e.to_string(), Fate::Failed);
            }
        }
    }

    /// The exit status of a dead pane: tmux marks the pane dead at pty EOF, a
    /// moment before it reaps the status (and 3.3a sometimes never does: the
    /// gated wrapper's record counts). Bounded: two seconds at most.
    async fn exit_status(&self, mut probe: wta_host::PaneProbe) -> Option<i32> {
        for _ in 0..200 {
            let recorded = probe.option(1).parse().ok();
            if let Some(status) = probe.dead_status.or(recorded) {
                return Some(status);
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
            probe = self.host.probe(&self.pane, &EOF_OPTIONS).await.ok()?;
        }
        None
    }
}

fn current_uid(socket: &Path) -> Option<u32> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(socket).ok().map(|m| m.uid())
}
