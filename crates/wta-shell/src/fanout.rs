//! One watcher per pane, many listeners.
//!
//! tmux gives a pane one `pipe-pane`, so one [`PaneWatcher`] owns it (an
//! agent pane's, or the first `wta listen`'s). Every watcher also serves its
//! pane's command events ([`PaneNote`], [`crate::fanout_wire`]) on a second
//! socket in its private runtime dir (0700, socket 0600, peer uid checked on
//! both ends) and names that socket in the pane option [`LISTENERS_OPTION`].
//! [`follow`] is how a reader joins a pane: as its listener when a live WTA
//! watcher owns the pipe, else as the owner.
//!
//! Invariants: a watcher never types on a listener's behalf (listeners only
//! read); a slow listener loses notes (each connection has its own queue
//! position), never stalls the pane or other listeners; the accept loop
//! ends with the watcher, and every connection with it (EOF without an
//! [`Ended`] note means the owner went away, not the pane).

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::{Mutex, broadcast};
use tokio::task::JoinSet;
use wta_protocol::PaneId;

use crate::error::ShellError;
use crate::fanout_wire::{
    Ended, Fate, FinishedNote, Hello, IntegrationNote, NOTE_VERSION, NoteDecoder, PaneNote,
    Started, encode_line,
};
use crate::last_command::{Finished, LastCommand};
use crate::tracker::{Effect, Tracker};
use crate::watcher::{Host, PIPE_OWNER_OPTION, PaneWatcher, WatchEvent, WatchOptions};

/// Pane option holding the socket path a pane's watcher serves listeners on.
pub const LISTENERS_OPTION: &str = "@wta_listeners";

/// Notes a listener may fall behind by before it loses the oldest.
pub const NOTE_QUEUE: usize = 256;

/// Listeners one watcher serves at a time; more are closed at once.
pub const MAX_LISTENERS: usize = 32;

/// How long the last notes may take to reach listeners after the end.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(2);

/// How long a listener waits for the owner to answer its connection.
const HELLO_TIMEOUT: Duration = Duration::from_secs(2);

/// How often [`follow`] looks again when the pane's owner is between two
/// states (stopping, or just attached by someone else), and for how long.
const RESOLVE_TRIES: u32 = 30;
const RESOLVE_PAUSE: Duration = Duration::from_millis(100);

fn our_uid() -> u32 {
    nix::unistd::getuid().as_raw()
}

/// True when the other end of `stream` runs as us.
fn peer_is_us(stream: &UnixStream) -> bool {
    match stream.peer_cred() {
        Ok(cred) if cred.uid() == our_uid() => true,
        Ok(cred) => {
            tracing::warn!(
                uid = cred.uid(),
                "listeners socket: peer of another user refused"
            );
            false
        }
        Err(err) => {
            tracing::warn!("listeners socket: no peer credentials: {err}");
            false
        }
    }
}

/// What the accept loop needs of its watcher.
pub(crate) struct Serve {
    pub(crate) pane: PaneId,
    pub(crate) tracker: Arc<Mutex<Tracker>>,
    pub(crate) notes: broadcast::Sender<PaneNote>,
    pub(crate) yields: bool,
    pub(crate) socket: PathBuf,
}

impl Serve {
    /// Accepts listeners until the watcher ends (its [`Ended`] note) or the
    /// task is aborted; dropping the loop closes every connection.
    pub(crate) async fn run(self, listener: UnixListener) {
        let mut ended = self.notes.subscribe();
        let mut connections = JoinSet::new();
        loop {
            tokio::select! {
                accepted = listener.accept() => match accepted {
                    Ok((stream, _)) => {
                        while connections.try_join_next().is_some() {}
                        if !peer_is_us(&stream) || connections.len() >= MAX_LISTENERS {
                            continue; // dropped: closed at once
                        }
                        // Subscribed before the hello reads the tracker: a
                        // change made in between is in the stream.
                        let rx = self.notes.subscribe();
                        let integration = self.tracker.lock().await.integration;
                        let hello = Hello {
                            version: NOTE_VERSION,
                            pane: self.pane.clone(),
                            integration: integration.into(),
                            yields: self.yields,
                        };
                        connections.spawn(serve_one(stream, hello, rx));
                    }
                    Err(err) => {
                        tracing::warn!("listeners socket accept failed: {err}");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                },
                note = ended.recv() => match note {
                    Ok(PaneNote::Ended(_)) | Err(broadcast::error::RecvError::Closed) => break,
                    Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {}
                },
            }
        }
        drop(listener);
        let _ = std::fs::remove_file(&self.socket);
        // Let each connection write the end it has queued, then close; one
        // whose reader stopped reading is not waited on for long.
        let drained = async { while connections.join_next().await.is_some() {} };
        let _ = tokio::time::timeout(DRAIN_TIMEOUT, drained).await;
    }
}

/// One listener: the hello, then every note until the end.
async fn serve_one(mut stream: UnixStream, hello: Hello, mut rx: broadcast::Receiver<PaneNote>) {
    let mut note = PaneNote::Hello(hello);
    loop {
        let last = matches!(note, PaneNote::Ended(_));
        match encode_line(&note) {
            Ok(line) => {
                if stream.write_all(&line).await.is_err() {
                    return;
                }
            }
            Err(err) => tracing::warn!("a note not sent to a listener: {err}"),
        }
        if last {
            return;
        }
        note = loop {
            match rx.recv().await {
                Ok(note) => break note,
                Err(broadcast::error::RecvError::Lagged(missed)) => {
                    tracing::debug!("a listener missed {missed} notes");
                }
                Err(broadcast::error::RecvError::Closed) => return,
            }
        };
    }
}

/// Binds the listeners socket of a watcher of `pane` in `dir` (already
/// checked private), 0600.
pub(crate) fn bind(
    dir: &Path,
    pane: &PaneId,
    tag: &str,
) -> Result<(UnixListener, PathBuf), ShellError> {
    use std::os::unix::fs::PermissionsExt;
    let socket = dir.join(format!(
        "listen-{}-{tag}.sock",
        pane.as_str().trim_start_matches('%')
    ));
    let _ = std::fs::remove_file(&socket);
    let fail = |source| ShellError::Socket {
        path: socket.clone(),
        source,
    };
    let listener = UnixListener::bind(&socket).map_err(fail)?;
    std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(0o600)).map_err(fail)?;
    Ok((listener, socket))
}

/// The notes for `events` (a batch just stepped), in order: `cmdlines`
/// holds the command line of each `RunStarted` among them, in order. Also
/// the finished commands, for the watcher's own subscribers.
pub(crate) fn notes_for(
    pane: &PaneId,
    events: &[WatchEvent],
    mut cmdlines: VecDeque<Option<String>>,
) -> (Vec<PaneNote>, Vec<Finished>) {
    let mut notes = Vec::new();
    let mut finished = Vec::new();
    for event in events {
        match event {
            WatchEvent::Effect(Effect::RunStarted { .. }) => {
                let cmdline = cmdlines.pop_front().flatten();
                notes.push(PaneNote::Started(Started { cmdline }));
            }
            WatchEvent::Effect(Effect::IntegrationChanged { integration }) => {
                notes.push(PaneNote::Integration(IntegrationNote {
                    integration: (*integration).into(),
                }));
            }
            WatchEvent::Finished(f) => {
                let record = LastCommand::from_run(pane, &f.run);
                let dispatched = f.run.submitted.is_some();
                notes.push(PaneNote::Finished(FinishedNote {
                    record: record.clone(),
                    cwd: f.cwd.clone(),
                    dispatched,
                }));
                finished.push(Finished {
                    record,
                    dispatched,
                    cwd: f.cwd.clone(),
                });
            }
            WatchEvent::Effect(_) => {}
            WatchEvent::Ended { reason } => {
                // Ends are announced by the follow task with their fate.
                tracing::debug!("pane {pane}: {reason}");
            }
        }
    }
    (notes, finished)
}

/// A connection to the watcher that owns a pane, as one of its listeners.
pub struct Subscription {
    stream: UnixStream,
    decoder: NoteDecoder,
    queued: VecDeque<PaneNote>,
    buf: Vec<u8>,
    hello: Hello,
}

impl std::fmt::Debug for Subscription {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Subscription")
            .field("hello", &self.hello)
            .finish_non_exhaustive()
    }
}

fn socket_error(path: &Path, source: std::io::Error) -> ShellError {
    ShellError::Socket {
        path: path.to_owned(),
        source,
    }
}

fn protocol_error(path: &Path, why: impl std::fmt::Display) -> ShellError {
    socket_error(
        path,
        std::io::Error::new(std::io::ErrorKind::InvalidData, why.to_string()),
    )
}

impl Subscription {
    /// Connects to the listeners socket at `path` for `pane`: its server must
    /// run as us and greet with a [`Hello`] for that pane within a moment.
    pub async fn connect(path: &Path, pane: &PaneId) -> Result<Self, ShellError> {
        let stream = UnixStream::connect(path)
            .await
            .map_err(|e| socket_error(path, e))?;
        if !peer_is_us(&stream) {
            let denied = std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                "the socket's server runs as another user",
            );
            return Err(socket_error(path, denied));
        }
        let mut sub = Subscription {
            stream,
            decoder: NoteDecoder::new(),
            queued: VecDeque::new(),
            buf: vec![0u8; 64 * 1024],
            hello: Hello {
                version: NOTE_VERSION,
                pane: pane.clone(),
                integration: crate::fanout_wire::NoteIntegration::Unknown,
                yields: false,
            },
        };
        let first = tokio::time::timeout(HELLO_TIMEOUT, sub.read_note())
            .await
            .map_err(|_| protocol_error(path, "no hello from the pane's watcher"))?;
        match first? {
            Some(PaneNote::Hello(hello))
                if hello.version == NOTE_VERSION && hello.pane == *pane =>
            {
                sub.hello = hello;
                Ok(sub)
            }
            Some(PaneNote::Hello(hello)) => Err(protocol_error(
                path,
                format!(
                    "a watcher of {} (version {}) answered",
                    hello.pane, hello.version
                ),
            )),
            Some(_) => Err(protocol_error(path, "the watcher did not greet first")),
            None => Err(protocol_error(path, "the watcher closed the connection")),
        }
    }

    /// What the owner said when this listener joined.
    pub fn hello(&self) -> &Hello {
        &self.hello
    }

    /// The next note; `None` when the owner closed the connection (after
    /// its [`Ended`], or because it went away). A malformed line is an error.
    pub async fn next(&mut self) -> Result<Option<PaneNote>, ShellError> {
        self.read_note().await
    }

    async fn read_note(&mut self) -> Result<Option<PaneNote>, ShellError> {
        loop {
            if let Some(note) = self.queued.pop_front() {
                return Ok(Some(note));
            }
            let n = self.stream.read(&mut self.buf).await?;
            if n == 0 {
                return Ok(None);
            }
            let mut out = Vec::new();
            let fed = self.decoder.feed(&self.buf[..n], &mut out);
            self.queued.extend(out);
            if let Err(bad) = fed {
                return Err(ShellError::Io(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    bad,
                )));
            }
        }
    }
}

/// How a reader follows a pane: as its watcher, or as a listener of the one
/// that owns the pipe.
#[derive(Debug)]
pub enum Following {
    Owner {
        watcher: PaneWatcher,
        notes: broadcast::Receiver<PaneNote>,
        hello: Hello,
    },
    Listener(Subscription),
}

impl Following {
    /// True when this reader owns the pane's pipe.
    pub fn is_owner(&self) -> bool {
        matches!(self, Following::Owner { .. })
    }

    /// Where the pane stood when this reader joined.
    pub fn hello(&self) -> &Hello {
        match self {
            Following::Owner { hello, .. } => hello,
            Following::Listener(sub) => sub.hello(),
        }
    }

    /// The next note; `None` when the stream ended without an [`Ended`]
    /// note (the owner went away: look at the pane again).
    pub async fn next(&mut self) -> Option<PaneNote> {
        match self {
            Following::Owner { notes, .. } => loop {
                match notes.recv().await {
                    Ok(note) => return Some(note),
                    Err(broadcast::error::RecvError::Lagged(missed)) => {
                        tracing::debug!("listen missed {missed} notes");
                    }
                    Err(broadcast::error::RecvError::Closed) => return None,
                }
            },
            Following::Listener(sub) => match sub.next().await {
                Ok(note) => note,
                Err(err) => {
                    tracing::debug!("the pane's watcher: {err}");
                    None
                }
            },
        }
    }

    /// Stops following: an owner detaches its pipe (if still its own).
    pub async fn stop(self) {
        if let Following::Owner { watcher, .. } = self {
            watcher.stop().await;
        }
    }
}

/// Joins `pane`: as a listener of the live WTA watcher that owns its pipe,
/// else as its owner (a watcher that [yields](Hello::yields) the pipe to an
/// agent pane's watcher). A pipe another tool opened is refused
/// ([`ShellError::ForeignPipe`]); an owner that answers no listener (an
/// older WTA) too ([`ShellError::FollowedByWta`]), after a moment's retries
/// that ride out an owner stopping or starting.
pub async fn follow(
    host: Host,
    pane: &PaneId,
    opts: WatchOptions,
) -> Result<Following, ShellError> {
    let mut tries = 0;
    loop {
        tries += 1;
        let probe = host
            .probe(pane, &[PIPE_OWNER_OPTION, LISTENERS_OPTION])
            .await?;
        let listeners = probe.option(1);
        if probe.pipe_open && !probe.option(0).is_empty() && !listeners.is_empty() {
            match Subscription::connect(Path::new(listeners), pane).await {
                Ok(sub) => return Ok(Following::Listener(sub)),
                Err(err) => tracing::debug!("pane {pane}: not a listener: {err}"),
            }
        }
        match PaneWatcher::attach_yielding(host.clone(), pane, opts.clone()).await {
            Ok((watcher, notes)) => {
                let hello = watcher.hello().await;
                return Ok(Following::Owner {
                    watcher,
                    notes,
                    hello,
                });
            }
            Err(ShellError::FollowedByWta { .. }) if tries < RESOLVE_TRIES => {
                tokio::time::sleep(RESOLVE_PAUSE).await;
            }
            Err(err) => return Err(err),
        }
    }
}

/// Whether the live owner serving listeners at `path` hands its pipe over
/// to a watcher that needs it (a `wta listen`'s does).
pub(crate) async fn owner_yields(path: &str, pane: &PaneId) -> bool {
    if path.is_empty() {
        return false;
    }
    match Subscription::connect(Path::new(path), pane).await {
        Ok(sub) => sub.hello().yields,
        Err(_) => false,
    }
}

/// The [`Ended`] note for a watcher's end.
pub(crate) fn ended(reason: &str, fate: Fate) -> PaneNote {
    PaneNote::Ended(Ended {
        reason: reason.to_owned(),
        fate,
    })
}
