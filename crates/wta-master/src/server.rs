//! The master's socket server: singleton lock, private socket, peer-uid check,
//! one ACP connection (master = agent role) per accepted helper.
//!
//! Caps (DESIGN §7, a flood never grows the master for good, and idle
//! connections never starve a helper): a connection is *unproven* until its
//! first line is read ([`wta_agent::admission`]): at most
//! [`MAX_UNPROVEN_CONNECTIONS`] of them, a new one evicting the oldest (silent
//! ones first), each closed unless its first line is complete within
//! [`FIRST_LINE_TIMEOUT`]; nothing is registered and no ACP connection runs
//! for it before. With its first line it becomes a helper connection, at most
//! [`MAX_CONNECTIONS`] at once (one more is closed unanswered). Evictions,
//! timeouts and refusals are each logged once per burst. At most
//! [`MAX_LINE_BYTES`] are buffered per connection: [`HelperLines`] reads into
//! a stack buffer only when bytes are there and grows a line only as they
//! arrive, so an idle connection holds no read buffer; a longer line ends
//! that connection with one log line.
//! Big buffers get their own mappings ([`wta_agent::heap::map_big_allocations`],
//! at start), and a connection that buffered a big line hands the rest of the
//! freed heap back to the OS when it ends
//! ([`wta_agent::heap::release_free_memory`]).

use std::collections::VecDeque;
use std::fs::File;
use std::io::{Read, Seek, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixStream as StdUnixStream;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use agent_client_protocol::v1::Dispatch;
use agent_client_protocol::{Agent, Lines};
use futures::{Stream, StreamExt};
use nix::fcntl::{Flock, FlockArg};
use tokio::io::Interest;
use tokio::io::unix::AsyncFd;
use tokio::net::{UnixListener, UnixStream};
use wta_agent::admission::{Pending, Unproven, Watch};
use wta_agent::heap::ConnectionSlots;
use wta_agent::{Registry, RegistryPaths};
use wta_protocol::{FrameReader, ProtocolError};

use crate::pool::{Pool, Wiring};
use crate::reaper::Reaper;
use crate::session_mcp::SessionMcp;
use crate::state::{Master, Parts};
use crate::table::{HelperHandle, Table};
use wta_env::{dirs, private_dir};

use crate::MasterError;

/// Longest JSON-RPC line accepted from a helper, without its newline: the
/// shared [`wta_protocol::limits::MAX_HELPER_LINE_BYTES`] (what flows and why
/// it fits is said there; the old 16 MiB let eight unterminated lines pin
/// 128 MiB).
pub const MAX_LINE_BYTES: usize = wta_protocol::limits::MAX_HELPER_LINE_BYTES;
/// Helper connections served at once, past their first line. Real use is
/// one helper per agent pane plus short `wta sessions`-style connections: a
/// few dozen at most.
pub const MAX_CONNECTIONS: usize = 128;
/// Connections whose first line has not arrived yet. A full pool takes a
/// new connection anyway, closing the oldest waiting one (one that sent
/// nothing, when there is one), so a helper, which writes `initialize` at
/// once, is served whatever the number of idle connections.
pub const MAX_UNPROVEN_CONNECTIONS: usize = 64;
/// How long a connection may take to send its first line, counted from its
/// accept. Helpers and CLIs write `initialize` as soon as they are connected
/// (milliseconds); 3 s leaves a loaded machine room and bounds how long an
/// idle connection holds a place.
pub const FIRST_LINE_TIMEOUT: Duration = Duration::from_secs(3);
/// Bytes read per `read` call (on the stack, only while reading).
const READ_CHUNK: usize = 16 * 1024;
/// A connection that buffered a line this long hands freed heap back to the
/// OS when it ends (glibc keeps it otherwise).
const BIG_LINE_BYTES: usize = 1024 * 1024;
/// Default bound of queued notifications per helper.
pub const DEFAULT_OUTBOUND_CAP: usize = 4096;

/// What `wta --master <socket>` runs with.
#[derive(Debug, Clone)]
pub struct MasterConfig {
    pub socket: PathBuf,
    pub outbound_cap: usize,
    /// The wta binary to run as `--agent-reaper` (see [`crate::reaper`]);
    /// `None` runs without one (agent groups may then outlive a killed master).
    pub reaper_program: Option<PathBuf>,
    /// The tmux server this master serves: it exits once that server is gone.
    pub tmux_socket: Option<PathBuf>,
    /// Once serving, point stdio at this log file (the daemon role does;
    /// an in-process master in a test does not).
    pub stdio_log: Option<PathBuf>,
    /// Count and time the agent → helper relay into these (the routing
    /// benchmark reads them after [`run`] returns); `None` in normal use.
    pub stats: Option<Arc<crate::RelayStats>>,
}

impl MasterConfig {
    pub fn new(socket: PathBuf) -> Self {
        Self {
            socket,
            outbound_cap: DEFAULT_OUTBOUND_CAP,
            reaper_program: None,
            tmux_socket: None,
            stdio_log: None,
            stats: None,
        }
    }
}

/// Takes the singleton lock next to `socket` or says who holds it.
fn take_lock(socket: &Path) -> Result<Flock<File>, MasterError> {
    let lock_path = socket.with_extension("lock");
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&lock_path)
        .map_err(|e| MasterError::io("cannot open lock file", &lock_path, e))?;
    let _ = file.set_permissions(std::fs::Permissions::from_mode(0o600));
    match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
        Ok(mut lock) => {
            let _ = lock.set_len(0);
            let _ = lock.rewind();
            let _ = write!(lock, "{}", std::process::id());
            Ok(lock)
        }
        Err((mut file, _)) => {
            let mut pid = String::new();
            let _ = file.read_to_string(&mut pid);
            Err(MasterError::AlreadyRunning {
                socket: socket.to_path_buf(),
                pid: if pid.trim().is_empty() {
                    "unknown".into()
                } else {
                    pid.trim().to_owned()
                },
            })
        }
    }
}

/// Binds `socket` with mode 0600 (umask while binding, then chmod). The
/// socket is bound and listening under a name of its own first and only
/// then renamed to `socket` (replacing a stale one), so a client that sees
/// the path can connect: a socket file exists from `bind(2)` on, before
/// `listen(2)`, and a connect in between is refused.
fn bind(socket: &Path) -> Result<UnixListener, MasterError> {
    let staged = staged_path(socket);
    remove_if_there(&staged)?;
    let old = nix::sys::stat::umask(nix::sys::stat::Mode::from_bits_truncate(0o177));
    let listener = UnixListener::bind(&staged);
    nix::sys::stat::umask(old);
    let listener = listener.map_err(|e| MasterError::io("cannot listen on", &staged, e))?;
    let placed = std::fs::set_permissions(&staged, std::fs::Permissions::from_mode(0o600))
        .map_err(|e| MasterError::io("cannot chmod", &staged, e))
        .and_then(|()| {
            std::fs::rename(&staged, socket)
                .map_err(|e| MasterError::io("cannot put in place the socket", socket, e))
        });
    if let Err(err) = placed {
        let _ = std::fs::remove_file(&staged);
        return Err(err);
    }
    Ok(listener)
}

/// Where [`bind`] makes the socket before it is in place: beside it, named
/// for this process (no longer than `master.sock`, so a path that fits a
/// socket address still fits).
fn staged_path(socket: &Path) -> PathBuf {
    socket.with_file_name(format!(".{}", std::process::id()))
}

fn remove_if_there(path: &Path) -> Result<(), MasterError> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(MasterError::io("cannot remove stale socket", path, e)),
    }
}

/// Runs the master until SIGTERM/SIGINT/SIGHUP, or until its tmux server is
/// gone. Agents are stopped on the way out.
pub async fn run(config: MasterConfig) -> Result<(), MasterError> {
    wta_agent::heap::map_big_allocations();
    let dir = config
        .socket
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map(Path::to_path_buf)
        .unwrap_or_else(dirs::runtime_dir);
    private_dir::ensure_private_dir(&dir)?;
    let _lock = take_lock(&config.socket)?;
    let listener = bind(&config.socket)?;
    // Startup refusals (a second master, an unsafe dir) went to stderr; from
    // here on everything goes to the log.
    if let Some(log) = &config.stdio_log {
        crate::daemon::stdio_to_log(log)?;
    }
    let (master, router) = assemble(&config).await?;
    if let Some(home) = std::env::var_os("HOME") {
        tokio::spawn(crate::log_watch::run(master.clone(), home.into()));
    }
    tracing::info!(socket = %config.socket.display(), pid = std::process::id(), "master listening");
    announce(config.tmux_socket.clone());
    serve(&listener, &master, config.tmux_socket.clone()).await?;
    tracing::info!("master shutting down");
    let _ = std::fs::remove_file(&config.socket);
    master.stop_all_agents();
    // Give lifecycle tasks time to stop their process groups (1 s + 2 s worst case).
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(4);
    while !master.pool.all().is_empty() && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    router.abort();
    Ok(())
}

/// Hidden agent panes whose master went away link again on this signal;
/// proposal sockets of helpers killed while no master ran go.
fn announce(tmux_socket: Option<PathBuf>) {
    tokio::task::spawn_blocking(move || {
        if let Some(socket) = tmux_socket {
            crate::daemon::announce(&socket);
        }
        crate::leftovers::remove_dead_proposal_sockets(
            &dirs::runtime_dir(),
            std::time::SystemTime::now(),
        );
    });
}

/// Accepts helpers until SIGTERM/SIGINT/SIGHUP, or until the tmux server at
/// `tmux_socket` is gone.
async fn serve(
    listener: &UnixListener,
    master: &Arc<Master>,
    tmux_socket: Option<PathBuf>,
) -> Result<(), MasterError> {
    let mut term = signal(tokio::signal::unix::SignalKind::terminate())?;
    let mut int = signal(tokio::signal::unix::SignalKind::interrupt())?;
    let mut hup = signal(tokio::signal::unix::SignalKind::hangup())?;
    let uid = nix::unistd::getuid().as_raw();
    let unproven = Unproven::new(
        "master socket",
        MAX_UNPROVEN_CONNECTIONS,
        FIRST_LINE_TIMEOUT,
    );
    let slots = Arc::new(ConnectionSlots::new("master socket", MAX_CONNECTIONS));
    let server_gone = async move {
        match &tmux_socket {
            Some(socket) => crate::daemon::tmux_server_gone(socket).await,
            None => std::future::pending().await,
        }
    };
    tokio::pin!(server_gone);
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                // Another user's stream is dropped here: closed at once.
                Ok((stream, _)) => if let Ok(pid) = our_peer(&stream, uid) {
                    accept(master, stream, pid, unproven.admit(), slots.clone());
                },
                Err(err) => tracing::warn!("accept failed: {err}"),
            },
            _ = term.recv() => return Ok(()),
            _ = int.recv() => return Ok(()),
            _ = hup.recv() => return Ok(()),
            () = &mut server_gone => {
                tracing::info!("the tmux server is gone");
                return Ok(());
            }
        }
    }
}

/// The master's parts, wired: the table (helpers, routes), the session MCP
/// endpoint (it finds helpers in the table), the pool (its events go to the
/// router task returned, its relays find routes in the table).
async fn assemble(
    config: &MasterConfig,
) -> Result<(Arc<Master>, tokio::task::JoinHandle<()>), MasterError> {
    let registry_paths = RegistryPaths::from_env()?;
    // Read again at each agent spawn; a broken file now is only logged.
    if let Err(err) = Registry::load(registry_paths.clone()) {
        tracing::warn!("the agent config cannot be read yet: {err}");
    }
    let reaper = match &config.reaper_program {
        Some(program) => Reaper::spawn(program)
            .map_err(|e| MasterError::io("cannot start the agent reaper", program, e))?,
        None => Reaper::disabled(),
    };
    let table = Table::new(config.outbound_cap, config.stats.clone());
    let mcp = match SessionMcp::start(table.clone()).await {
        Ok(mcp) => {
            tracing::info!(url = %mcp.url(), "session MCP endpoint ready");
            Some(mcp)
        }
        // Sessions then go without the endpoint's tools (the CLI path stays).
        Err(err) => {
            tracing::warn!("no session MCP endpoint: {err}");
            None
        }
    };
    let (events, agent_events) = tokio::sync::mpsc::unbounded_channel();
    let pool = Pool::new(Wiring {
        reaper,
        events,
        routes: table.clone(),
        stats: config.stats.clone(),
    });
    let master = Master::new(Parts {
        registry_paths,
        pool,
        table,
        mcp,
        tmux_socket: config.tmux_socket.clone(),
    });
    let router = tokio::spawn(crate::router::serve_agents(master.clone(), agent_events));
    Ok((master, router))
}

fn signal(
    kind: tokio::signal::unix::SignalKind,
) -> Result<tokio::signal::unix::Signal, MasterError> {
    tokio::signal::unix::signal(kind)
        .map_err(|e| MasterError::io("cannot install signal handler", "", e))
}

/// The peer's pid when the peer runs as `uid`; `Err` (logged) for anyone else.
fn our_peer(stream: &UnixStream, uid: u32) -> Result<Option<i32>, ()> {
    let cred = stream.peer_cred();
    let (peer_uid, pid) = match &cred {
        Ok(c) => (Some(c.uid()), c.pid()),
        Err(_) => (None, None),
    };
    if peer_uid != Some(uid) {
        tracing::warn!(?peer_uid, ?pid, "refused a connection from another user");
        return Err(());
    }
    Ok(pid)
}

/// Serves one accepted connection: its first line while it holds `pending`,
/// then, in one of `slots`, the ACP connection of a registered helper.
fn accept(
    master: &Arc<Master>,
    stream: UnixStream,
    pid: Option<i32>,
    pending: Pending,
    slots: Arc<ConnectionSlots>,
) {
    let (read, write) = match split(stream) {
        Ok(halves) => halves,
        Err(err) => {
            tracing::warn!(?pid, "cannot serve a helper connection: {err}");
            return;
        }
    };
    let master = master.clone();
    tokio::spawn(async move {
        let longest = Arc::new(AtomicUsize::new(0));
        let mut incoming = HelperLines::new(read, longest.clone(), pending.watch());
        let first = tokio::select! {
            first = incoming.next() => first,
            // Evicted or late: closed without a word.
            _lost = pending.lost() => None,
        };
        // An end, an error (logged by `HelperLines`) or over the cap (logged
        // once per burst): closed, the first line unanswered.
        let taken = match first {
            Some(Ok(first)) => slots.try_take().map(|slot| (first, slot)),
            Some(Err(_)) | None => None,
        };
        let Some((first, slot)) = taken else {
            drop((incoming, write, pending));
            release_if_big(&longest);
            return;
        };
        pending.prove();
        let helper = master.table.add_helper(pid);
        incoming.helper = Some(helper.id);
        let sink = helper.out.attach(write);
        let incoming = futures::stream::iter([Ok(first)]).chain(incoming);
        serve_helper(&master, &helper, Lines::new(sink, incoming)).await;
        master.helper_gone(helper.id);
        drop(slot);
        release_if_big(&longest);
    });
}

/// The ACP connection of a registered helper (the master in the agent
/// role), until the helper closes it.
async fn serve_helper(
    master: &Arc<Master>,
    helper: &Arc<HelperHandle>,
    transport: impl agent_client_protocol::ConnectTo<Agent> + 'static,
) {
    let (handler_master, handler_helper) = (master.clone(), helper.clone());
    let registered = helper.clone();
    let result = Agent
        .v1()
        .name("wta-master")
        .on_receive_dispatch(
            async move |dispatch: Dispatch, cx| {
                crate::router::from_helper(&handler_master, &handler_helper, dispatch, cx)
            },
            agent_client_protocol::on_receive_dispatch!(),
        )
        .connect_with(transport, async move |cx| {
            let _ = registered.cx.set(cx.clone());
            cx.incoming_closed().await;
            Ok(())
        })
        .await;
    if let Err(err) = result {
        tracing::debug!(
            helper = helper.id,
            "helper connection ended: {}",
            err.message
        );
    }
}

/// After a connection that buffered a big line: hands freed heap back.
fn release_if_big(longest: &AtomicUsize) {
    if longest.load(Ordering::Relaxed) >= BIG_LINE_BYTES {
        wta_agent::heap::release_free_memory();
    }
}

/// A helper's socket as a read side, registered with the runtime for
/// readability only, and a write side (a second descriptor of it) that
/// `outbound` registers only while a write waits. A socket registered for
/// both would wake a runtime thread each time the helper reads, its send
/// buffer draining: once per relayed batch.
fn split(stream: UnixStream) -> std::io::Result<(AsyncFd<Arc<StdUnixStream>>, StdUnixStream)> {
    // Non-blocking, as tokio left it (a flag both descriptors share).
    let stream = stream.into_std()?;
    let write = stream.try_clone()?;
    let read = crate::outbound::register(Arc::new(stream), Interest::READABLE)?;
    Ok((read, write))
}

/// The lines a helper sends, as the ACP `Lines` transport wants them. At most
/// [`MAX_LINE_BYTES`] per line (cut as soon as it is certain, not at the
/// newline); a line that is not UTF-8 also ends the connection: JSON-RPC text
/// is UTF-8, and a request whose id cannot be read cannot be answered. A
/// partial line at EOF is dropped with the connection.
struct HelperLines {
    read: AsyncFd<Arc<StdUnixStream>>,
    frames: FrameReader,
    ready: VecDeque<Vec<u8>>,
    /// `None` until the first line made it a registered helper.
    helper: Option<u64>,
    /// Told of the first bytes (an unproven connection that speaks is
    /// evicted after the silent ones).
    first_bytes: Option<Watch>,
    /// The longest line (or unfinished line) this connection buffered.
    longest: Arc<AtomicUsize>,
    ended: bool,
}

impl HelperLines {
    fn new(
        read: AsyncFd<Arc<StdUnixStream>>,
        longest: Arc<AtomicUsize>,
        first_bytes: Watch,
    ) -> Self {
        Self {
            read,
            frames: FrameReader::new(MAX_LINE_BYTES),
            ready: VecDeque::new(),
            helper: None,
            first_bytes: Some(first_bytes),
            longest,
            ended: false,
        }
    }

    fn note_length(&self, len: usize) {
        self.longest.fetch_max(len, Ordering::Relaxed);
    }

    /// Ends the stream with `err` (the ACP transport then closes the connection).
    fn fail(&mut self, err: std::io::Error) -> Poll<Option<std::io::Result<String>>> {
        self.ended = true;
        self.ready.clear();
        Poll::Ready(Some(Err(err)))
    }
}

impl Stream for HelperLines {
    type Item = std::io::Result<String>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        loop {
            if let Some(line) = this.ready.pop_front() {
                return match String::from_utf8(line) {
                    Ok(line) => Poll::Ready(Some(Ok(line))),
                    Err(_) => {
                        tracing::warn!(
                            helper = ?this.helper,
                            "a helper sent a line that is not UTF-8; closing its connection"
                        );
                        this.fail(std::io::Error::new(
                            std::io::ErrorKind::InvalidData,
                            "a line that is not UTF-8",
                        ))
                    }
                };
            }
            if this.ended {
                return Poll::Ready(None);
            }
            let mut chunk = [0u8; READ_CHUNK];
            let read = match this.read.poll_read_ready(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Err(err)) => return this.fail(err),
                Poll::Ready(Ok(mut ready)) => ready.try_io(|fd| (&**fd.get_ref()).read(&mut chunk)),
            };
            let n = match read {
                Ok(Ok(n)) => n,
                Ok(Err(err)) if err.kind() == std::io::ErrorKind::Interrupted => continue,
                Ok(Err(err)) => return this.fail(err),
                // Not readable after all: readiness was cleared, wait again.
                Err(_would_block) => continue,
            };
            if n == 0 {
                this.ended = true;
                continue;
            }
            if let Some(watch) = this.first_bytes.take() {
                watch.saw_bytes();
            }
            match this.frames.push(&chunk[..n]) {
                Ok(lines) => {
                    for line in &lines {
                        this.note_length(line.len());
                    }
                    this.note_length(this.frames.pending());
                    this.ready.extend(lines);
                }
                Err(ProtocolError::LineTooLong { max }) => {
                    this.note_length(max);
                    tracing::warn!(
                        helper = ?this.helper,
                        "a helper sent a line over {max} bytes; closing its connection"
                    );
                    return this.fail(std::io::Error::new(
                        std::io::ErrorKind::InvalidData,
                        format!("a line over {max} bytes"),
                    ));
                }
                Err(err) => return this.fail(std::io::Error::other(err.to_string())),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt as _;

    use super::*;

    #[tokio::test]
    async fn the_socket_appears_listening_private_and_replaces_a_stale_one() {
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("master.sock");
        drop(std::os::unix::net::UnixListener::bind(&socket).unwrap());
        let listener = bind(&socket).unwrap();
        let mode = std::fs::metadata(&socket).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let client = std::os::unix::net::UnixStream::connect(&socket);
        assert!(client.is_ok(), "{client:?}");
        let (_accepted, _) = listener.accept().await.unwrap();
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, vec![std::ffi::OsString::from("master.sock")]);
    }
}
