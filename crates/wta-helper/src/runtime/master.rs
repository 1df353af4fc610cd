//! How the pane gets a master: [`MasterStarter`] when the user reconnects
//! and none runs (the machine decides when: `Command::StartMaster`), and
//! the wait of a pane nobody sees for a master to come back
//! (`Command::AwaitMaster`): a thread blocked on the tmux channel every
//! master signals once it listens
//! ([`wta_protocol::helper_master::MASTER_UP_CHANNEL`]), which reports
//! `Input::MasterAnnounced` only once a master accepts a connection on the
//! pane's socket. tmux keeps a signal nobody waited for for the next
//! waiter, so a stale one only costs a look at the socket.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use wta_protocol::helper_master::MASTER_UP_CHANNEL;

use super::Runtime;
use crate::machine::Input;

/// Makes sure a master listens on the pane's socket, starting one when none
/// does (the error says why it could not). The `wta` binary supplies it (its
/// launcher knows how to start a master for this tmux server); blocking.
#[derive(Clone)]
pub struct MasterStarter(Arc<Start>);

/// The starter's function: the socket → started (or already running), or why not.
type Start = dyn Fn(&Path) -> Result<(), String> + Send + Sync;

impl MasterStarter {
    pub fn new(start: impl Fn(&Path) -> Result<(), String> + Send + Sync + 'static) -> Self {
        Self(Arc::new(start))
    }

    /// Runs the starter for `socket`.
    pub fn ensure(&self, socket: &Path) -> Result<(), String> {
        (self.0)(socket)
    }
}

impl std::fmt::Debug for MasterStarter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MasterStarter")
    }
}

/// Something accepts connections on `socket` (a master listens).
fn answers(socket: &Path) -> bool {
    std::os::unix::net::UnixStream::connect(socket).is_ok()
}

impl Runtime {
    /// `Command::AwaitMaster`: one waiting thread at a time; `now` looks
    /// at the socket before the first wait. It ends with its report, or
    /// when tmux can no longer be asked (the server is gone).
    pub(super) fn await_master(&mut self, now: bool) {
        let Some(host) = self.host.clone() else {
            return;
        };
        let busy = self.unseen.awaiting_master.clone();
        if busy.swap(true, Ordering::AcqRel) {
            return;
        }
        let socket = self.config.socket.clone();
        let inputs = self.inputs_tx.clone();
        let waiter = std::thread::Builder::new()
            .name("await-master".into())
            .spawn(move || {
                let mut look = now;
                loop {
                    if look && answers(&socket) {
                        // Free before the report: its answer may ask again.
                        busy.store(false, Ordering::Release);
                        let _ = inputs.send(Input::MasterAnnounced);
                        return;
                    }
                    if let Err(err) = host.wait_for(MASTER_UP_CHANNEL) {
                        tracing::debug!("no longer waiting for a master: {err}");
                        busy.store(false, Ordering::Release);
                        return;
                    }
                    look = true;
                }
            });
        if let Err(err) = waiter {
            tracing::warn!("cannot wait for a master: {err}");
            self.unseen.awaiting_master.store(false, Ordering::Release);
        }
    }
}
