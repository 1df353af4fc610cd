//! One running agent process, as the rest of the master holds it: its key,
//! its ACP connection, its typed `initialize` result, whether it still runs.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use agent_client_protocol::Agent;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{InitializeResponse, SessionId};
use tokio::sync::oneshot;
use wta_agent::{AgentId, AgentKey};

use crate::wire::{self, Capabilities};

/// One running agent process and its ACP connection.
#[derive(Debug)]
pub(crate) struct AgentInstance {
    pub id: u64,
    pub key: AgentKey,
    /// 0: the instance shared by every helper selecting `key`; otherwise a
    /// private one started by `/restart`.
    pub generation: u64,
    pub cx: ConnectionTo<Agent>,
    /// The agent's `initialize` result, replayed to every helper.
    pub init: InitializeResponse,
    alive: Arc<AtomicBool>,
    /// Tells the lifecycle task to stop the process (taken once).
    stop: Mutex<Option<oneshot::Sender<()>>>,
}

impl AgentInstance {
    pub(super) fn new(
        (id, key, generation): (u64, AgentKey, u64),
        cx: ConnectionTo<Agent>,
        init: InitializeResponse,
        alive: Arc<AtomicBool>,
        stop: oneshot::Sender<()>,
    ) -> Arc<Self> {
        Arc::new(Self {
            id,
            key,
            generation,
            cx,
            init,
            alive,
            stop: Mutex::new(Some(stop)),
        })
    }

    pub fn is_alive(&self) -> bool {
        self.alive.load(Ordering::Acquire)
    }

    pub fn agent_id(&self) -> &AgentId {
        &self.key.id
    }

    /// Whether the agent advertised `session/close`.
    pub fn can_close_sessions(&self) -> bool {
        self.init.closes_sessions()
    }

    /// Tells the agent to stop `session`'s turn (`session/cancel`).
    pub fn cancel(&self, session: &SessionId) {
        let _ = self.cx.send_notification(wire::cancel(session.clone()));
    }

    /// Asks the lifecycle task to close stdin and stop the process group.
    pub fn stop(&self) {
        if let Some(tx) = self.stop.lock().unwrap_or_else(|p| p.into_inner()).take() {
            let _ = tx.send(());
        }
    }
}

/// An instance over an in-memory connection nobody answers (for the
/// table's tests); alive until [`AgentInstance::stop`] is called, then gone.
#[cfg(test)]
pub(crate) async fn test_instance(id: u64, agent: &str) -> Arc<AgentInstance> {
    use agent_client_protocol::{Client, Lines};
    use futures::SinkExt;
    let (cx_tx, cx_rx) = oneshot::channel();
    let (stop_tx, stop_rx) = oneshot::channel::<()>();
    let (_lines_tx, lines) = futures::channel::mpsc::unbounded::<std::io::Result<String>>();
    let sink = futures::sink::drain::<String>()
        .sink_map_err(|never: std::convert::Infallible| -> std::io::Error { match never {} });
    tokio::spawn(async move {
        let _lines = _lines_tx;
        let _ = Client
            .v1()
            .name("test")
            .connect_with(Lines::new(sink, lines), async move |cx| {
                let _ = cx_tx.send(cx);
                let _ = stop_rx.await;
                Ok(())
            })
            .await;
    });
    let cx = cx_rx
        .await
        .unwrap_or_else(|_| panic!("the test connection did not start"));
    let key = AgentKey {
        id: AgentId::parse(agent).unwrap_or_else(|e| panic!("{e}")),
        argv: vec!["/bin/true".to_owned()],
        source: wta_agent::registry::AgentSource::BuiltIn,
    };
    let init = wire::cli_initialize_response();
    AgentInstance::new(
        (id, key, 0),
        cx,
        init,
        Arc::new(AtomicBool::new(true)),
        stop_tx,
    )
}
