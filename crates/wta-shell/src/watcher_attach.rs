//! Attaching a [`PaneWatcher`]: checks whose pipe the pane has (a foreign
//! tool's is refused, a dead WTA watcher's replaced, a yielding one's taken
//! over), binds the sink and listeners sockets in the private runtime dir,
//! starts the tracker, the listeners' accept loop and the follow task, arms
//! the pipe and releases a gated shell. Nothing here reads the stream.

use std::os::unix::fs::PermissionsExt;
use std::sync::Arc;
use std::time::Instant;

use tokio::net::UnixListener;
use tokio::sync::{Mutex, mpsc};
use wta_protocol::PaneId;

use super::follow::Follow;
use super::{
    FINISHED_QUEUE, Host, PIPE_OWNER_OPTION, PaneWatcher, ShellFacts, WatchOptions, now_nanos,
};
use crate::error::ShellError;
use crate::fanout::{LISTENERS_OPTION, Serve};
use crate::fanout_wire::{Hello, NOTE_VERSION, PaneNote};
use crate::launch::GATE_OPTION;
use crate::pane_state::announced_for;
use crate::scripts::{INTEGRATION_OPTION, IntegrationMark};
use crate::tracker::{Event, Tracker, step};

/// Options a watcher reads when it attaches, in [`wta_host::PaneProbe::option`] order.
const ATTACH_OPTIONS: [&str; 4] = [
    PIPE_OWNER_OPTION,
    GATE_OPTION,
    INTEGRATION_OPTION,
    LISTENERS_OPTION,
];

/// Checks that nobody else owns the pane's pipe. A pipe recorded as ours by
/// a WTA watcher whose socket no longer answers is stale and may be
/// replaced; so is a live one that yields it (`wta listen`'s), unless the
/// watcher attaching yields too.
async fn check_pipe_free(
    pane: &PaneId,
    pipe_open: bool,
    owner: &str,
    listeners: &str,
    yields: bool,
) -> Result<(), ShellError> {
    if !pipe_open {
        return Ok(());
    }
    if owner.is_empty() {
        return Err(ShellError::ForeignPipe {
            pane: pane.to_string(),
        });
    }
    if tokio::net::UnixStream::connect(owner).await.is_err() {
        return Ok(()); // a dead WTA watcher's pipe
    }
    if !yields && crate::fanout::owner_yields(listeners, pane).await {
        return Ok(()); // it goes on as our listener
    }
    Err(ShellError::FollowedByWta {
        pane: pane.to_string(),
    })
}

impl PaneWatcher {
    /// Attaches to `pane` and starts following it, taking the pipe over from
    /// a watcher that yields it (a `wta listen`, which then listens to us).
    pub async fn attach(host: Host, pane: &PaneId, opts: WatchOptions) -> Result<Self, ShellError> {
        Ok(Self::attach_as(host, pane, opts, false).await?.0)
    }

    /// Attaches as a watcher that yields the pipe to one started by
    /// [`PaneWatcher::attach`] (ending with [`crate::Fate::TakenOver`]), with
    /// a receiver of its notes from the very start.
    pub async fn attach_yielding(
        host: Host,
        pane: &PaneId,
        opts: WatchOptions,
    ) -> Result<(Self, tokio::sync::broadcast::Receiver<PaneNote>), ShellError> {
        Self::attach_as(host, pane, opts, true).await
    }

    async fn attach_as(
        host: Host,
        pane: &PaneId,
        opts: WatchOptions,
        yields: bool,
    ) -> Result<(Self, tokio::sync::broadcast::Receiver<PaneNote>), ShellError> {
        let probe = host.probe(pane, &ATTACH_OPTIONS).await?;
        let (owner, listeners) = (probe.option(0), probe.option(3));
        check_pipe_free(pane, probe.pipe_open, owner, listeners, yields).await?;
        let gate = Some(probe.option(1).to_owned()).filter(|g| !g.is_empty());
        let announced =
            IntegrationMark::parse(probe.option(2)).is_some_and(|m| announced_for(&m, probe.pid));

        // Created 0700, and refused if someone else made it first or loosened it.
        wta_env::private_dir::ensure_private_dir(&opts.runtime_dir)?;
        let tag = format!("{:x}{:x}", std::process::id(), now_nanos());
        let socket = opts.runtime_dir.join(format!(
            "pipe-{}-{tag}.sock",
            pane.as_str().trim_start_matches('%'),
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

        let mut tracker = Tracker::new(probe.width, opts.config);
        if announced {
            tracker = step(tracker, Event::IntegrationAnnounced, 0).0;
        }
        let tracker = Arc::new(Mutex::new(tracker));
        let (tx, events) = mpsc::channel(1024);
        let timer_tx = tx.downgrade();
        let started = Instant::now();
        let mut sink = opts.sink_argv.clone();
        sink.push(socket.to_string_lossy().into_owned());
        let (finished, _) = tokio::sync::broadcast::channel(FINISHED_QUEUE);
        let (facts, _) = tokio::sync::watch::channel(ShellFacts::default());
        let (notes, first_notes) = tokio::sync::broadcast::channel(crate::fanout::NOTE_QUEUE);
        let (listener_socket, listeners) = match crate::fanout::bind(&opts.runtime_dir, pane, &tag)
        {
            Ok(bound) => bound,
            Err(e) => {
                let _ = std::fs::remove_file(&socket);
                return Err(e);
            }
        };
        let serve = Serve {
            pane: pane.clone(),
            tracker: tracker.clone(),
            notes: notes.clone(),
            yields,
            socket: listeners.clone(),
        };
        let serve = tokio::spawn(serve.run(listener_socket));
        let follow = Follow {
            host: host.clone(),
            pane: pane.clone(),
            tracker: tracker.clone(),
            tx,
            started,
            sink,
            socket: socket.clone(),
            finished: finished.clone(),
            facts: facts.clone(),
            hand_off: Mutex::new(None),
            notes: notes.clone(),
            listeners: listeners.clone(),
        };
        if let Err(e) = follow.arm().await {
            serve.abort();
            let _ = std::fs::remove_file(&socket);
            let _ = std::fs::remove_file(&listeners);
            return Err(e);
        }
        let task = tokio::spawn(follow.run(listener));
        let watcher = PaneWatcher {
            pane: pane.clone(),
            host,
            tracker,
            events,
            timer_tx,
            started,
            task,
            socket,
            finished,
            facts,
            notes,
            serve,
            listeners,
            yields,
        };
        if let Some(gate) = gate {
            // The pane's shell waits for a watcher: ours is attached now.
            let _ = watcher.host.unset_option(pane, GATE_OPTION).await;
            if let Err(e) = watcher.release_gate(&gate).await {
                watcher.stop().await;
                return Err(e);
            }
        }
        Ok((watcher, first_notes))
    }

    /// A new receiver of the notes this watcher serves its listeners, from
    /// now on (a receiver that falls [`crate::fanout::NOTE_QUEUE`] behind
    /// loses the oldest).
    pub fn notes(&self) -> tokio::sync::broadcast::Receiver<PaneNote> {
        self.notes.subscribe()
    }

    /// What a listener joining now is told first.
    pub async fn hello(&self) -> Hello {
        Hello {
            version: NOTE_VERSION,
            pane: self.pane.clone(),
            integration: self.tracker.lock().await.integration.into(),
            yields: self.yields,
        }
    }

    /// The socket this watcher serves listeners on.
    pub fn listeners_socket(&self) -> &std::path::Path {
        &self.listeners
    }
}
