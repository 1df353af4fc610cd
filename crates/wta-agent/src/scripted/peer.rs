//! The client at the other end of a scripted agent's connection: session
//! updates out, requests out and their answers back, all through `wire.rs`.

use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::{Client, Error, UntypedMessage};
use serde_json::{Value, json};

use super::step::{Permission, PermissionAnswer, Update};
use super::wire;

/// A handle on the client (cheap to clone).
#[derive(Clone)]
pub struct Peer {
    cx: ConnectionTo<Client>,
}

impl Peer {
    pub(crate) fn new(cx: ConnectionTo<Client>) -> Self {
        Self { cx }
    }

    /// A `session/update` for `session`.
    pub fn notify(&self, session: &str, update: &Update) -> Result<(), Error> {
        self.cx.send_notification(UntypedMessage::new(
            "session/update",
            json!({"sessionId": session, "update": wire::update(update)}),
        )?)
    }

    /// `session/request_permission`, waiting for the answer. Only from a
    /// spawned task: waiting inside the dispatch loop would deadlock it.
    pub(crate) async fn ask(
        &self,
        session: &str,
        permission: &Permission,
    ) -> Result<PermissionAnswer, Error> {
        let params = wire::permission(session, permission);
        wire::permission_answer(self.request("session/request_permission", params).await?)
    }

    /// Any request, waiting for its result (only from a spawned task).
    pub(crate) async fn request(&self, method: &str, params: Value) -> Result<Value, Error> {
        self.cx
            .send_request(UntypedMessage::new(method, params)?)
            .block_task()
            .await
    }
}
