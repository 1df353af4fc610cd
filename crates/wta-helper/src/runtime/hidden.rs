//! What a pane nobody sees does through tmux (the machine decides when,
//! `machine/hidden_card.rs`): the owner tab's "a card waits" indicator, the
//! bell in the tab, and the answer to a `wta fix`. Blocking tmux calls on
//! blocking threads; nothing here waits on the UI task.
//!
//! The indicator's updates may finish out of order on the blocking pool,
//! so each one writes the newest wanted value under one lock: the last
//! write is always the machine's last word.
//!
//! The bell is a BEL written to the terminal of the target pane (the shell
//! this agent works on, in the owner tab): tmux then rings the attached
//! client's bell and flags the tab (`bell-action`, `monitor-bell`), as for
//! any program there. tmux has no command that rings a bell, and the agent
//! pane itself may sit in the private stash, whose bells reach no client.
//! A BEL is not text: the shell's tracker never takes it for typing.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use wta_host::TerminalHost;
use wta_protocol::PaneId;
use wta_protocol::helper_master::CARD_WAITING_OPTION;

use super::Runtime;
use crate::autofix::request::{FixAnswer, ReplyToken};
use crate::machine::hidden_card::{CARD_WAITING_TEXT_OPTION, CardKind};

/// The I/O state of a pane nobody sees.
#[derive(Debug, Default)]
pub(super) struct Unseen {
    /// A thread waits for a master to be announced (one at a time).
    pub awaiting_master: Arc<AtomicBool>,
    /// The indicator's wanted value (see the module doc).
    indicator: Arc<Mutex<Option<CardKind>>>,
}

impl Runtime {
    /// `Command::CardWaiting`: sets or clears the owner tab's indicator.
    pub(super) fn card_waiting(&mut self, kind: Option<CardKind>) {
        let (Some(host), Some(tab)) = (self.host.clone(), self.config.owner_tab.clone()) else {
            return;
        };
        let wanted = self.unseen.indicator.clone();
        *lock(&wanted) = kind;
        self.spawn_blocking(move || {
            let newest = lock(&wanted);
            let value = newest.map(CardKind::as_str);
            let text = newest.map(CardKind::shown);
            // The mark shows while the indicator is set: its text goes
            // first when it is set, and last when it is cleared.
            let options = [
                (CARD_WAITING_TEXT_OPTION, text.as_deref()),
                (CARD_WAITING_OPTION, value),
            ];
            let ordered: Vec<_> = match value {
                Some(_) => options.iter().collect(),
                None => options.iter().rev().collect(),
            };
            for (name, value) in ordered {
                if let Err(err) = host.set_tab_option(&tab, name, *value) {
                    tracing::debug!("the card indicator {name} on {tab}: {err}");
                }
            }
            drop(newest);
            None
        });
    }

    /// `Command::Bell`: one BEL on the target pane's terminal.
    pub(super) fn bell(&mut self) {
        let (Some(host), Some(target)) = (self.host.clone(), self.config.target_pane.clone())
        else {
            return;
        };
        self.spawn_blocking(move || {
            if let Err(err) = ring(&host, &target) {
                tracing::debug!("no bell in {target}: {err}");
            }
            None
        });
    }

    /// `Command::AnswerFix`: the answer where `wta fix` waits for it.
    pub(super) fn answer_fix(&mut self, reply: ReplyToken, answer: FixAnswer) {
        let (Some(host), Some(own)) = (self.host.clone(), self.config.own_pane.clone()) else {
            return;
        };
        self.spawn_blocking(move || {
            if let Err(err) = crate::autofix::request::answer(&host, &own, &reply, &answer) {
                tracing::debug!("answering wta fix: {err}");
            }
            None
        });
    }
}

/// Writes BEL to the terminal of `pane`'s process.
fn ring(host: &wta_host::TmuxHost, pane: &PaneId) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let info = host.pane(pane).map_err(std::io::Error::other)?;
    let tty = terminal_of(info.pid)?;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(nix::libc::O_NOCTTY | nix::libc::O_NONBLOCK)
        .open(&tty)?;
    if !nix::unistd::isatty(&file).unwrap_or(false) {
        return Err(std::io::Error::other(format!(
            "{} is not a terminal",
            tty.display()
        )));
    }
    file.write_all(b"\x07")
}

/// The terminal `pid` runs on: its stdin's (Linux), else what `ps` says.
fn terminal_of(pid: u32) -> std::io::Result<std::path::PathBuf> {
    if let Ok(path) = std::fs::read_link(format!("/proc/{pid}/fd/0"))
        && path.starts_with("/dev/")
    {
        return Ok(path);
    }
    let out = std::process::Command::new("ps")
        .args(["-o", "tty=", "-p", &pid.to_string()])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()?;
    let name = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    if name.is_empty() || name.starts_with('?') || name.contains("..") {
        return Err(std::io::Error::other(format!(
            "process {pid} has no terminal"
        )));
    }
    Ok(std::path::Path::new("/dev").join(name))
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
