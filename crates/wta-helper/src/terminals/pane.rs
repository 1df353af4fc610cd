//! An agent terminal in a tmux pane: the pane opened behind a gate, its
//! output piped (`pipe-pane -O` into `wta pipe-sink`, framed) to a socket of
//! this helper before the gate opens, and its end read from the pane option
//! the wrapper writes ([`super::spec::EXIT_OPTION`]), polled, or the pane
//! gone (then it was hung up). The pane stays after the command (dead,
//! `remain-on-exit`) until the agent releases the terminal.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::net::{UnixListener, UnixStream};
use wta_host::{AsyncHost, NewTab, PaneCommand, Split, SplitDirection, TerminalHost, TmuxHost};
use wta_protocol::PaneId;
use wta_shell::sink_wire::{Frame, FrameDecoder};

use super::Term;
use super::spec::{EXIT_OPTION, PGID_OPTION, TerminalSpec, decode_exit};
use agent_client_protocol::v1::schema::TerminalExitStatus;

/// Pane option naming the socket a terminal pane's pipe writes to.
pub const PIPE_OPTION: &str = "@wta_terminal_pipe";
/// How long the pipe sink may take to connect.
const CONNECT_WITHIN: Duration = Duration::from_secs(5);
/// How often the end of the command is looked for.
const POLL: Duration = Duration::from_millis(100);
/// Share of the target pane's height a split takes.
const SPLIT_PERCENT: u8 = 30;

/// Where the pane goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Place {
    Below(PaneId),
    Window,
}

/// What opening a terminal pane needs.
pub(super) struct Open<'a> {
    pub host: &'a TmuxHost,
    pub spec: &'a TerminalSpec,
    pub place: &'a Place,
    pub exe: &'a Path,
    pub socket: PathBuf,
    pub gate: String,
    pub keep: bool,
}

/// A pane whose command runs, and the connection its output comes on.
#[derive(Debug)]
pub(super) struct Opened {
    pub pane: PaneId,
    stream: UnixStream,
    /// The command's process group, when it started.
    pub pgid: Option<i32>,
}

impl Open<'_> {
    /// Opens the pane, attaches the pipe, then lets the command start.
    pub async fn run(self) -> Result<Opened, String> {
        if let Some(dir) = self.socket.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        let _ = std::fs::remove_file(&self.socket);
        let listener = UnixListener::bind(&self.socket)
            .map_err(|e| format!("cannot listen on {}: {e}", self.socket.display()))?;
        let exe = self.exe.to_string_lossy().into_owned();
        let mut argv = vec![
            exe.clone(),
            "terminal-exec".into(),
            "--gate".into(),
            self.gate.clone(),
        ];
        if self.keep {
            argv.push("--keep".into());
        }
        argv.push("--".into());
        argv.extend(self.spec.argv.iter().cloned());
        let host = self.host.clone();
        let (spec, place) = (self.spec.clone(), self.place.clone());
        let keep = self.keep;
        let pane = tokio::task::spawn_blocking(move || make_pane(&host, &spec, &place, argv, keep))
            .await
            .map_err(|e| e.to_string())?
            .map_err(|e| e.to_string())?;
        let sink = [
            exe,
            "pipe-sink".into(),
            self.socket.to_string_lossy().into_owned(),
        ];
        let socket = self.socket.to_string_lossy().into_owned();
        let attached = async {
            self.host
                .open_pipe(&pane, &sink, (PIPE_OPTION, &socket))
                .await
                .map_err(|e| e.to_string())?;
            match tokio::time::timeout(CONNECT_WITHIN, listener.accept()).await {
                Ok(Ok((stream, _))) => Ok(stream),
                Ok(Err(e)) => Err(e.to_string()),
                Err(_) => Err("the output pipe did not connect".to_owned()),
            }
        };
        let stream = match attached.await {
            Ok(stream) => stream,
            Err(err) => {
                close(self.host, &pane).await;
                return Err(err);
            }
        };
        let _ = std::fs::remove_file(&self.socket);
        AsyncHost::signal(self.host, &self.gate)
            .await
            .map_err(|e| e.to_string())?;
        // Until the command runs (its group known) or could not start, so a
        // `kill` right after `create` reaches exactly the command.
        let pgid = started(self.host, &pane).await;
        Ok(Opened { pane, stream, pgid })
    }
}

fn make_pane(
    host: &TmuxHost,
    spec: &TerminalSpec,
    place: &Place,
    argv: Vec<String>,
    keep: bool,
) -> Result<PaneId, wta_host::HostError> {
    let command = Some(PaneCommand::Argv(argv));
    let env = spec.env.clone();
    let cwd = Some(spec.cwd.clone());
    let info = match place {
        Place::Below(target) => host.split(&Split {
            target: target.clone(),
            direction: SplitDirection::Down,
            percent: Some(SPLIT_PERCENT),
            command,
            cwd,
            env,
            full: false,
            focus: false,
        })?,
        Place::Window => host.new_tab(&NewTab {
            command,
            cwd,
            env,
            title: Some(format!("agent: {}", spec.display)),
            focus: false,
            ..NewTab::default()
        })?,
    };
    // The pane stays (dead) after the command, so its end is always read
    // and its output stays on screen until the agent releases it (with
    // `keep`, the wrapper itself waits for Enter, then the pane goes). The
    // command waits on the gate, so it cannot end before this.
    host.keep_when_dead(&info.id, !keep)?;
    Ok(info.id)
}

/// Reads the pane's output into `term` and watches for the command's end.
pub(super) fn follow(host: TmuxHost, opened: Opened, term: Arc<Term>) {
    let Opened {
        pane,
        mut stream,
        pgid,
    } = opened;
    if let Some(pgid) = pgid {
        term.set_pgid(pgid);
    }
    let reader = term.clone();
    tokio::spawn(async move {
        let mut decoder = FrameDecoder::default();
        let mut frames = Vec::new();
        let mut buf = vec![0u8; 16 * 1024];
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if decoder.feed(&buf[..n], &mut frames).is_err() {
                        break;
                    }
                    for frame in frames.drain(..) {
                        match frame {
                            Frame::Data(bytes) => reader.push(&bytes),
                            Frame::Gap(_) => reader.note_lost(),
                        }
                    }
                }
            }
        }
    });
    tokio::spawn(async move {
        loop {
            let probe = {
                let (host, pane) = (host.clone(), pane.clone());
                tokio::task::spawn_blocking(move || read_end(&host, &pane)).await
            };
            match probe {
                Ok(End::Running { pgid }) => {
                    if let Some(pgid) = pgid {
                        term.set_pgid(pgid);
                    }
                }
                Ok(End::Ended(status)) => return term.exited(status),
                // The pane went (closed by the user or tmux): hung up.
                Ok(End::Gone) | Err(_) => {
                    return term.exited(TerminalExitStatus::new().signal("SIGHUP".to_owned()));
                }
            }
            tokio::time::sleep(POLL).await;
        }
    });
}

enum End {
    Running { pgid: Option<i32> },
    Ended(TerminalExitStatus),
    Gone,
}

fn read_end(host: &TmuxHost, pane: &PaneId) -> End {
    match host.option(pane, EXIT_OPTION) {
        Ok(value) => match decode_exit(&value) {
            Some(status) => End::Ended(status),
            None => End::Running {
                pgid: host
                    .option(pane, PGID_OPTION)
                    .ok()
                    .and_then(|v| v.trim().parse().ok()),
            },
        },
        Err(_) => End::Gone,
    }
}

/// How long a command may take to start after its gate opened.
const START_WITHIN: Duration = Duration::from_secs(5);

/// Waits until the wrapper recorded the command's group (or its end).
async fn started(host: &TmuxHost, pane: &PaneId) -> Option<i32> {
    let deadline = tokio::time::Instant::now() + START_WITHIN;
    while tokio::time::Instant::now() < deadline {
        let (h, p) = (host.clone(), pane.clone());
        match tokio::task::spawn_blocking(move || read_end(&h, &p)).await {
            Ok(End::Running { pgid: Some(pgid) }) => return Some(pgid),
            Ok(End::Running { pgid: None }) => {}
            _ => return None,
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    None
}

/// The command's process group, once the wrapper has recorded it.
pub(super) async fn pgid(host: &TmuxHost, pane: &PaneId) -> Option<i32> {
    let (host, pane) = (host.clone(), pane.clone());
    tokio::task::spawn_blocking(move || {
        host.option(&pane, PGID_OPTION)
            .ok()
            .and_then(|v| v.trim().parse().ok())
    })
    .await
    .ok()
    .flatten()
}

/// Closes the pane (it may be gone already).
pub(super) async fn close(host: &TmuxHost, pane: &PaneId) {
    let (host, pane) = (host.clone(), pane.clone());
    let _ = tokio::task::spawn_blocking(move || {
        if let Err(err) = host.kill_pane(&pane) {
            tracing::debug!("closing terminal pane {pane}: {err}");
        }
    })
    .await;
}
