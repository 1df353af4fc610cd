//! The background half of a [`super::PaneWatcher`]: arms `pipe-pane`,
//! accepts the sink (peer uid checked), decodes its frames into parser
//! tokens and [`Event::OutputLost`] gaps, steps the tracker, publishes
//! effects, records finished runs, re-arms after pipe EOF while the pane
//! lives and reports the pane's death. It never types into the pane.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::AsyncReadExt;
use tokio::net::UnixListener;
use tokio::sync::{Mutex, mpsc};

use super::{
    LIVENESS_POLL, PIPE_OWNER_OPTION, TmuxTarget, WatchEvent, now_ms, publish_changes, take,
};
use crate::error::ShellError;
use crate::last_command::{LastCommand, record_last_command};
use crate::parser::Parser;
use crate::sink::EXIT_STATUS_OPTION;
use crate::sink_wire::{Frame, FrameDecoder};
use crate::tracker::{Effect, Event, PaneFate, Tracker, step};

/// The background half of a watcher.
pub(super) struct Follow {
    pub(super) tmux: TmuxTarget,
    pub(super) pane: String,
    pub(super) tracker: Arc<Mutex<Tracker>>,
    pub(super) tx: mpsc::Sender<WatchEvent>,
    pub(super) started: Instant,
    pub(super) pipe_cmd: String,
    pub(super) socket: PathBuf,
}

impl Follow {
    pub(super) async fn arm(&self) -> Result<(), ShellError> {
        let owner = self.socket.to_string_lossy();
        self.tmux
            .run(&[
                "set",
                "-p",
                "-t",
                &self.pane,
                PIPE_OWNER_OPTION,
                &owner,
                ";",
                "pipe-pane",
                "-O",
                "-t",
                &self.pane,
                &self.pipe_cmd,
            ])
            .await
            .map(|_| ())
    }

    async fn feed(&self, events: Vec<Event>) {
        let mut effects = Vec::new();
        {
            let mut t = self.tracker.lock().await;
            let mut cur = take(&mut t);
            for event in events {
                let (next, fx) = step(cur, event, now_ms(self.started));
                cur = next;
                effects.extend(fx);
            }
            *t = cur;
        }
        publish_changes(&self.tmux, &self.pane, &effects).await;
        for effect in effects {
            if matches!(effect, Effect::RunStarted { .. }) {
                self.refresh_width().await;
            }
            if let Effect::RunFinished { id } = effect {
                self.record(id).await;
            }
            // A slow consumer loses effects, never stalls the pane stream.
            let _ = self.tx.try_send(WatchEvent::Effect(effect));
        }
    }

    /// Stores the finished run in `@wta_last_command` for `capture-pane --last-command`.
    async fn record(&self, id: crate::tracker::RunId) {
        let record = {
            let t = self.tracker.lock().await;
            match t.last.as_ref().filter(|r| r.id == id) {
                Some(run) => LastCommand::from_run(&self.pane, run),
                None => return,
            }
        };
        let socket = self.tmux.socket.clone();
        let _ = tokio::task::spawn_blocking(move || record_last_command(&socket, &record)).await;
    }

    async fn refresh_width(&self) {
        let Ok(w) = self.tmux.display(&self.pane, "#{pane_width}").await else {
            return;
        };
        let Ok(width) = w.parse::<u16>() else { return };
        let mut t = self.tracker.lock().await;
        t.width = width;
        if let Some(run) = t.current.as_mut() {
            run.width = width;
        }
    }

    pub(super) async fn run(self, listener: UnixListener) {
        let reason = self.follow(listener).await;
        let _ = std::fs::remove_file(&self.socket);
        let _ = self.tx.send(WatchEvent::Ended { reason }).await;
    }

    async fn follow(&self, listener: UnixListener) -> String {
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
                            Err(_) => match self.tmux.display(&self.pane, "#{pane_dead}").await {
                                Ok(dead) if dead != "1" => continue,
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
                Ok(Err(e)) => return format!("watcher socket failed: {e}"),
                Err(_) => {} // no sink yet: check the pane below
            }
            // Pipe EOF (or no sink): is the pane still there, and whose pipe is it?
            let info = self
                .tmux
                .display(&self.pane, &format!("#{{pane_dead}}\x1f#{{pane_dead_status}}\x1f#{{pane_pipe}}\x1f#{{{PIPE_OWNER_OPTION}}}\x1f#{{{EXIT_STATUS_OPTION}}}"))
                .await;
            let info = match info {
                Err(ShellError::PaneGone { .. }) => {
                    self.feed(vec![Event::PipeClosed {
                        fate: PaneFate::Gone,
                    }])
                    .await;
                    return format!("pane {} is gone", self.pane);
                }
                Err(e) => return e.to_string(),
                Ok(info) => info,
            };
            let f: Vec<&str> = info.split('\x1f').collect();
            if f.first() == Some(&"1") {
                let parse = |dead: Option<&&str>, recorded: Option<&&str>| {
                    dead.and_then(|s| s.parse().ok())
                        .or_else(|| recorded.and_then(|s| s.parse().ok()))
                };
                let mut status = parse(f.get(1), f.get(4));
                // tmux marks the pane dead at pty EOF, a moment before it reaps the
                // status (and 3.3a sometimes never does: the wrapper's record counts).
                let format = format!("#{{pane_dead_status}}\x1f#{{{EXIT_STATUS_OPTION}}}");
                for _ in 0..200 {
                    if status.is_some() {
                        break;
                    }
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    let again = self
                        .tmux
                        .display(&self.pane, &format)
                        .await
                        .unwrap_or_default();
                    let g: Vec<&str> = again.split('\x1f').collect();
                    status = parse(g.first(), g.get(1));
                }
                self.feed(vec![Event::PipeClosed {
                    fate: PaneFate::Dead { status },
                }])
                .await;
                let shown = status.map_or("unknown".to_owned(), |s: i32| s.to_string());
                return format!("pane {} died (status {shown})", self.pane);
            }
            let ours = f
                .get(3)
                .is_some_and(|o| *o == self.socket.to_string_lossy());
            if f.get(2) == Some(&"1") && !ours {
                self.feed(vec![Event::Detached]).await;
                return format!("another program took over the pipe of pane {}", self.pane);
            }
            if f.get(2) != Some(&"1")
                && let Err(e) = self.arm().await
            {
                return e.to_string();
            }
        }
    }
}

fn current_uid(socket: &Path) -> Option<u32> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(socket).ok().map(|m| m.uid())
}
