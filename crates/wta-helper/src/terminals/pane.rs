//! An agent terminal in a tmux pane: the pane opened behind a gate, its
//! output piped (`pipe-pane -O` into `wta pipe-sink`, framed) to a socket of
//! this helper before the gate opens, and its end read from the pane option
//! the wrapper writes ([`super::spec::EXIT_OPTION`]), polled, or the pane
//! gone (then it was hung up). The pane stays after the command (dead,
//! `remain-on-exit`) until the agent releases the terminal.
//!
//! A split goes below the target shell only while that leaves the shell
//! [`MIN_SHELL_ROWS`] and the terminal [`MIN_TERMINAL_ROWS`]; otherwise (or
//! when tmux refuses the split) the terminal gets a window of its own in
//! the target's session, named for the agent. Placements are made one at a
//! time, so two creates never both take the last room.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::net::{UnixListener, UnixStream};
use wta_host::{AsyncHost, NewTab, PaneCommand, Split, SplitDirection, TerminalHost, TmuxHost};
use wta_protocol::PaneId;
use wta_shell::sink_wire::{Frame, FrameDecoder};

use super::Term;
use super::end_mark::EndMarkFilter;
use super::spec::{EXIT_OPTION, PGID_OPTION, TerminalSpec, decode_exit};
use agent_client_protocol::v1::schema::TerminalExitStatus;

/// Pane option naming the socket a terminal pane's pipe writes to.
pub const PIPE_OPTION: &str = "@wta_terminal_pipe";
/// How long the pipe sink may take to connect.
const CONNECT_WITHIN: Duration = Duration::from_secs(5);
/// How often the end of the command is looked for.
const POLL: Duration = Duration::from_millis(100);
/// How long the output may take to arrive after the end was recorded.
const DRAIN_WITHIN: Duration = Duration::from_secs(2);
/// Share of the target pane's height a split takes.
const SPLIT_PERCENT: u8 = 30;
/// Rows the target shell keeps at least when a terminal is split off it.
pub(super) const MIN_SHELL_ROWS: u16 = 10;
/// Rows a split terminal gets at least.
pub(super) const MIN_TERMINAL_ROWS: u16 = 5;
/// Characters of the command in a terminal window's name.
const NAME_COMMAND_CHARS: usize = 32;

/// Whether a pane of `rows` rows has room for a terminal below it: tmux
/// gives the new pane [`SPLIT_PERCENT`] of them and the border one.
pub(super) fn has_room(rows: u16) -> bool {
    let new = u32::from(rows) * u32::from(SPLIT_PERCENT) / 100;
    let kept = u32::from(rows).saturating_sub(new + 1);
    new >= u32::from(MIN_TERMINAL_ROWS) && kept >= u32::from(MIN_SHELL_ROWS)
}

/// The name of a terminal's own window: the agent, then the start of the
/// command's first line (control characters, which tmux would not keep,
/// as spaces).
pub(super) fn window_name(agent: &str, command: &str) -> String {
    let first = command.lines().next().unwrap_or_default().trim();
    let mut short: String = first.chars().take(NAME_COMMAND_CHARS).collect();
    if first.chars().count() > NAME_COMMAND_CHARS {
        short.push('…');
    }
    format!("{agent}: {short}")
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// Where the pane goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Place {
    /// Below this shell pane while it has room, else a window.
    Below(PaneId),
    /// A window of its own, in the target's session when there is one.
    Window { target: Option<PaneId> },
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
    /// The name of the window, when the terminal gets one.
    pub window_name: String,
    /// Held while a placement is chosen and made.
    pub placing: Arc<Mutex<()>>,
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
        let made = Made {
            host: self.host.clone(),
            spec: self.spec.clone(),
            place: self.place.clone(),
            argv,
            keep: self.keep,
            window_name: self.window_name.clone(),
            placing: self.placing.clone(),
        };
        let pane = tokio::task::spawn_blocking(move || made.make())
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

/// What making the pane needs, moved to a blocking thread.
struct Made {
    host: TmuxHost,
    spec: TerminalSpec,
    place: Place,
    argv: Vec<String>,
    keep: bool,
    window_name: String,
    placing: Arc<Mutex<()>>,
}

impl Made {
    fn make(self) -> Result<PaneId, wta_host::HostError> {
        let _placing = self.placing.lock().unwrap_or_else(|p| p.into_inner());
        let command = Some(PaneCommand::Argv(self.argv.clone()));
        let env = self.spec.env.clone();
        let cwd = Some(self.spec.cwd.clone());
        let target = match &self.place {
            Place::Below(target) => Some(target),
            Place::Window { target } => target.as_ref(),
        };
        let target = target.and_then(|t| self.host.pane(t).ok());
        let split = match (&self.place, &target) {
            (Place::Below(_), Some(info)) if has_room(info.size.rows) => {
                match self.host.split(&Split {
                    target: info.id.clone(),
                    direction: SplitDirection::Down,
                    percent: Some(SPLIT_PERCENT),
                    command: command.clone(),
                    cwd: cwd.clone(),
                    env: env.clone(),
                    full: false,
                    focus: false,
                }) {
                    Ok(info) => Some(info),
                    Err(err) => {
                        tracing::debug!("no split below {}: {err}; a window instead", info.id);
                        None
                    }
                }
            }
            _ => None,
        };
        let info = match split {
            Some(info) => info,
            None => self.host.new_tab(&NewTab {
                after: None,
                // The target's session: never the stash a hidden agent pane is in.
                session: target.map(|t| t.session),
                command,
                cwd,
                env,
                title: Some(self.window_name.clone()),
                focus: false,
            })?,
        };
        // The pane stays (dead) after the command, so its end is always read
        // and its output stays on screen until the agent releases it (with
        // `keep`, the wrapper itself waits for Enter, then the pane goes). The
        // command waits on the gate, so it cannot end before this.
        self.host.keep_when_dead(&info.id, !self.keep)?;
        Ok(info.id)
    }
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
    // True once the output has all arrived: the end mark passed, or the
    // pipe closed.
    let (arrived, mut all_arrived) = tokio::sync::watch::channel(false);
    tokio::spawn(async move {
        let mut decoder = FrameDecoder::default();
        let mut frames = Vec::new();
        let mut marks = EndMarkFilter::default();
        let mut out = Vec::new();
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
                            Frame::Data(bytes) => {
                                let seen = marks.feed(&bytes, &mut out);
                                if !out.is_empty() {
                                    reader.push(&out);
                                    out.clear();
                                }
                                if seen {
                                    arrived.send_replace(true);
                                }
                            }
                            Frame::Gap(_) => reader.note_lost(),
                        }
                    }
                }
            }
        }
        let rest = marks.finish();
        if !rest.is_empty() {
            reader.push(&rest);
        }
        arrived.send_replace(true);
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
                Ok(End::Ended(status)) => {
                    // The end is told once the output has all arrived (the
                    // mark was printed before the end was recorded).
                    let drained = all_arrived.wait_for(|all| *all);
                    if tokio::time::timeout(DRAIN_WITHIN, drained).await.is_err() {
                        tracing::debug!("terminal {pane}: its end mark did not arrive");
                    }
                    return term.exited(status);
                }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_split_leaves_the_shell_and_the_terminal_enough_rows() {
        // tmux: the new pane gets rows × 30 %, the border one, the shell the rest.
        for rows in 0..=200u16 {
            let new = rows * 30 / 100;
            let kept = rows.saturating_sub(new + 1);
            assert_eq!(
                has_room(rows),
                new >= MIN_TERMINAL_ROWS && kept >= MIN_SHELL_ROWS,
                "{rows} rows"
            );
        }
        assert!(!has_room(16), "16 rows: the terminal would get 4");
        assert!(has_room(17));
        // A 39-row shell takes three terminals, then windows.
        let mut rows = 39;
        let mut splits = 0;
        while has_room(rows) {
            rows -= rows * 30 / 100 + 1;
            splits += 1;
        }
        assert_eq!((splits, rows), (3, 12));
    }

    #[test]
    fn a_window_is_named_for_the_agent_and_holds_no_control_character() {
        assert_eq!(window_name("claude", "cargo test"), "claude: cargo test");
        assert_eq!(
            window_name("custom:x", "for i in 1 2\ndo echo $i\ndone"),
            "custom:x: for i in 1 2"
        );
        let long = window_name("codex", &"y".repeat(80));
        assert_eq!(long, format!("codex: {}…", "y".repeat(NAME_COMMAND_CHARS)));
        let odd = window_name("a\u{7}b", "x\ty\u{1b}z");
        assert!(!odd.chars().any(char::is_control), "{odd:?}");
        assert!(odd.starts_with("a b: x y"), "{odd:?}");
    }
}
