//! The master going away and coming back, on [`Runtime`]. A master EOF (or
//! a master that cannot be reached) drops the connection, the session and
//! the turn, and reports `MasterGone` with what the helper can tell about
//! it ([`crate::connection::lost::why_master_went_away`]); the pane stays.
//! Only `Effect::Reconnect` (the user's Enter) starts a master through
//! [`MasterStarter`] when none runs, connects again and opens a new
//! session; there is no reconnect on its own.

use std::path::Path;
use std::sync::Arc;

use super::engine::{Done, Runtime};
use crate::connection::{ConnectionError, lost};
use wta_state::DomainEvent;

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

impl Runtime {
    /// The master connection ended: forget it, its session and its turn,
    /// then say why once the helper has looked (off the UI task).
    pub(super) fn master_closed(&mut self) -> Vec<DomainEvent> {
        if self.conn.is_none() {
            // A second notice of the same end (the event channel closing).
            return Vec::new();
        }
        self.drop_connection();
        let socket = self.config.socket.clone();
        let tx = self.done_tx.clone();
        tokio::task::spawn_blocking(move || {
            let why = lost::why_master_went_away(&socket);
            tracing::info!("the master connection ended: {why}");
            let _ = tx.send(Done::Event(DomainEvent::MasterGone { why }));
        });
        self.reset_session_yolo()
    }

    /// Connecting failed: no master answers at the socket (or it hung up
    /// during the handshake).
    pub(super) fn master_unreachable(&mut self, err: &ConnectionError) -> Vec<DomainEvent> {
        self.reconnecting = false;
        let why = match err {
            ConnectionError::MasterClosed => {
                "the wta master closed the connection before it was set up".to_owned()
            }
            other => other.to_string(),
        };
        vec![DomainEvent::MasterGone { why }]
    }

    fn drop_connection(&mut self) {
        self.proposals.service().transport_lost();
        // Their responders went with the connection; the app drops the cards.
        let _ = self.permissions.cancel_session(None);
        self.conn = None;
        self.events = None;
        self.session = None;
        self.turn = None;
        self.session_lost = false;
        self.pending_prompt = None;
    }

    /// `Effect::Reconnect`: start a master if none runs, then connect.
    pub(super) fn reconnect(&mut self) -> Vec<DomainEvent> {
        if self.conn.is_some() || self.reconnecting {
            return Vec::new();
        }
        self.reconnecting = true;
        let Some(starter) = self.config.master_starter.clone() else {
            // Nothing to start one with: connect to whatever listens now.
            self.connect(self.known_agent.clone());
            return Vec::new();
        };
        let socket = self.config.socket.clone();
        let tx = self.done_tx.clone();
        tokio::task::spawn_blocking(move || {
            let _ = tx.send(Done::MasterStarted(starter.ensure(&socket)));
        });
        Vec::new()
    }

    /// The starter answered: connect, or say why no master could be started.
    pub(super) fn master_started(&mut self, result: Result<(), String>) -> Vec<DomainEvent> {
        match result {
            Ok(()) => {
                self.connect(self.known_agent.clone());
                Vec::new()
            }
            Err(why) => {
                self.reconnecting = false;
                vec![DomainEvent::MasterGone {
                    why: format!("cannot start a new wta master: {why}"),
                }]
            }
        }
    }
}
