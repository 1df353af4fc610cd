//! The master's socket server: singleton lock, private socket, peer-uid check,
//! one ACP connection (master = agent role) per accepted helper.

use std::fs::File;
use std::io::{Read, Seek, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use agent_client_protocol::v1::Dispatch;
use agent_client_protocol::{Agent, Lines};
use futures::StreamExt;
use nix::fcntl::{Flock, FlockArg};
use tokio::net::{UnixListener, UnixStream};
use tokio_util::codec::{FramedRead, LinesCodec};
use wta_agent::{Registry, RegistryPaths};

use crate::reaper::Reaper;
use crate::state::Master;
use crate::{MasterError, paths};

/// Longest JSON-RPC line accepted from a helper.
const MAX_LINE: usize = 16 * 1024 * 1024;
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
}

impl MasterConfig {
    pub fn new(socket: PathBuf) -> Self {
        Self {
            socket,
            outbound_cap: DEFAULT_OUTBOUND_CAP,
            reaper_program: None,
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

/// Binds `socket` with mode 0600 (umask while binding, then chmod).
fn bind(socket: &Path) -> Result<UnixListener, MasterError> {
    match std::fs::remove_file(socket) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(MasterError::io("cannot remove stale socket", socket, e)),
    }
    let old = nix::sys::stat::umask(nix::sys::stat::Mode::from_bits_truncate(0o177));
    let listener = UnixListener::bind(socket);
    nix::sys::stat::umask(old);
    let listener = listener.map_err(|e| MasterError::io("cannot listen on", socket, e))?;
    std::fs::set_permissions(socket, std::fs::Permissions::from_mode(0o600))
        .map_err(|e| MasterError::io("cannot chmod", socket, e))?;
    Ok(listener)
}

/// Runs the master until SIGTERM/SIGINT/SIGHUP. Agents are stopped on the way out.
pub async fn run(config: MasterConfig) -> Result<(), MasterError> {
    let dir = config
        .socket
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map(Path::to_path_buf)
        .unwrap_or_else(paths::runtime_dir);
    paths::ensure_private_dir(&dir)?;
    let _lock = take_lock(&config.socket)?;
    let listener = bind(&config.socket)?;
    let registry = Registry::load(RegistryPaths::from_env()?)?;
    let reaper = match &config.reaper_program {
        Some(program) => Reaper::spawn(program)
            .map_err(|e| MasterError::io("cannot start the agent reaper", program, e))?,
        None => Reaper::disabled(),
    };
    let master = Master::new(registry, config.outbound_cap, reaper);
    tracing::info!(socket = %config.socket.display(), pid = std::process::id(), "master listening");

    let mut term = signal(tokio::signal::unix::SignalKind::terminate())?;
    let mut int = signal(tokio::signal::unix::SignalKind::interrupt())?;
    let mut hup = signal(tokio::signal::unix::SignalKind::hangup())?;
    let uid = nix::unistd::getuid().as_raw();
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => accept(&master, stream, uid),
                Err(err) => tracing::warn!("accept failed: {err}"),
            },
            _ = term.recv() => break,
            _ = int.recv() => break,
            _ = hup.recv() => break,
        }
    }
    tracing::info!("master shutting down");
    let _ = std::fs::remove_file(&config.socket);
    master.stop_all_agents();
    // Give lifecycle tasks time to stop their process groups (1 s + 2 s worst case).
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(4);
    while !master.pool.all().is_empty() && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    Ok(())
}

fn signal(
    kind: tokio::signal::unix::SignalKind,
) -> Result<tokio::signal::unix::Signal, MasterError> {
    tokio::signal::unix::signal(kind)
        .map_err(|e| MasterError::io("cannot install signal handler", "", e))
}

fn accept(master: &Arc<Master>, stream: UnixStream, uid: u32) {
    let cred = stream.peer_cred();
    let (peer_uid, pid) = match &cred {
        Ok(c) => (Some(c.uid()), c.pid()),
        Err(_) => (None, None),
    };
    if peer_uid != Some(uid) {
        tracing::warn!(?peer_uid, ?pid, "refused a connection from another user");
        return;
    }
    let helper = master.add_helper(pid);
    let master = master.clone();
    tokio::spawn(async move {
        let (read, write) = stream.into_split();
        let sink = crate::outbound::line_sink(helper.gate.clone(), write);
        let incoming = FramedRead::new(read, LinesCodec::new_with_max_length(MAX_LINE))
            .map(|r| r.map_err(std::io::Error::other));
        let handler_master = master.clone();
        let handler_helper = helper.clone();
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
            .connect_with(Lines::new(sink, incoming), async move |cx| {
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
        master.helper_gone(helper.id);
    });
}
