//! The ACP serving loop every scripted agent shares, and the trait through
//! which an agent says what is its own.
//!
//! The core answers `initialize` (with the agent's answer), `session/new`
//! (ids, state), `session/prompt` (a turn of the agent's steps, played on a
//! spawned task so the dispatch loop never waits on the client) and
//! `session/cancel`; it routes responses to the agent's own requests. Every
//! other request goes to [`ScriptedAgent::request`], and is "method not
//! found" when the agent does not serve it.

use std::sync::Arc;

use agent_client_protocol::v1::{ConnectionTo, Dispatch, Responder};
use agent_client_protocol::{Agent, ByteStreams, Client, Error, UntypedMessage};
use serde_json::{Map, Value, json};
use wta_protocol::prompt::request_and_context;

use super::peer::Peer;
use super::sessions::Sessions;
use super::step::Step;
use super::turn;

/// One `session/prompt`, as the core hands it to the agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    pub session: String,
    /// The user's request: the prompt's text before WTA's context block.
    pub text: String,
    /// The context block WTA appended (empty without one).
    pub context: String,
    /// Whether `session` is open (the agent decides what an unknown one gets).
    pub known: bool,
}

/// What makes a scripted agent itself; the core does the rest.
pub trait ScriptedAgent: Send + Sync + 'static {
    /// The agent's own state of each open session.
    type Session: Send + 'static;
    /// The ACP connection's name.
    const NAME: &'static str;
    /// Session ids read `<SESSION_PREFIX>-<pid>-<n>`.
    const SESSION_PREFIX: &'static str;

    /// The `initialize` answer.
    fn initialize(&self) -> Value;

    /// A new session `id`: its state, and the fields the `session/new`
    /// answer carries beside `sessionId`.
    fn open_session(&self, id: &str) -> (Self::Session, Map<String, Value>);

    /// The steps of this prompt's turn, or the error that answers it at once.
    fn prompt(
        &self,
        prompt: &Prompt,
        sessions: &Sessions<Self::Session>,
    ) -> Result<Vec<Step>, Error>;

    /// Any other request, answered at once; `None` for "method not found".
    fn request(
        &self,
        method: &str,
        params: &Value,
        peer: &Peer,
        sessions: &Sessions<Self::Session>,
    ) -> Option<Result<Value, Error>> {
        let _ = (method, params, peer, sessions);
        None
    }

    /// Sees every request and notification from the client before the core
    /// handles it.
    fn received(&self, method: &str, params: &Value) {
        let _ = (method, params);
    }
}

/// The `sessionId` of a message's params (empty when missing).
pub fn session_id(params: &Value) -> String {
    params
        .get("sessionId")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// Serves `agent` to one client on the given byte streams until it hangs up.
pub async fn serve<A, W, R>(agent: A, outgoing: W, incoming: R) -> Result<(), Error>
where
    A: ScriptedAgent,
    W: futures::AsyncWrite + Send + 'static,
    R: futures::AsyncRead + Send + 'static,
{
    let core = Arc::new(Core {
        sessions: Sessions::new(A::SESSION_PREFIX),
        agent,
    });
    Agent
        .v1()
        .name(A::NAME)
        .on_receive_dispatch(
            async move |dispatch: Dispatch, cx: ConnectionTo<Client>| {
                let core = core.clone();
                match dispatch {
                    Dispatch::Request(msg, responder) => core.request(msg, responder, cx),
                    Dispatch::Notification(msg) => {
                        core.notification(&msg);
                        Ok(())
                    }
                    Dispatch::Response(result, router) => router.route_with_result(result),
                }
            },
            agent_client_protocol::on_receive_dispatch!(),
        )
        .connect_to(ByteStreams::new(outgoing, incoming))
        .await
}

struct Core<A: ScriptedAgent> {
    agent: A,
    sessions: Sessions<A::Session>,
}

impl<A: ScriptedAgent> Core<A> {
    fn request(
        &self,
        msg: UntypedMessage,
        responder: Responder<Value>,
        cx: ConnectionTo<Client>,
    ) -> Result<(), Error> {
        let params = msg.params;
        self.agent.received(&msg.method, &params);
        match msg.method.as_str() {
            "initialize" => responder.respond(self.agent.initialize()),
            "session/new" => {
                let id = self.sessions.next_id();
                let (state, mut answer) = self.agent.open_session(&id);
                self.sessions.insert(id.clone(), state);
                answer.insert("sessionId".into(), json!(id));
                responder.respond(Value::Object(answer))
            }
            "session/prompt" => {
                let session = session_id(&params);
                let cancel = self.sessions.begin_turn(&session);
                let (text, context) = request_and_context(&params);
                let prompt = Prompt {
                    known: cancel.is_some(),
                    session,
                    text,
                    context,
                };
                match self.agent.prompt(&prompt, &self.sessions) {
                    Ok(steps) => {
                        let peer = Peer::new(cx.clone());
                        let cancel = cancel.unwrap_or_default();
                        cx.spawn(async move {
                            turn::play(peer, prompt.session, cancel, steps, responder).await;
                            Ok(())
                        })
                    }
                    Err(err) => responder.respond_with_error(err),
                }
            }
            method => {
                let answer = self
                    .agent
                    .request(method, &params, &Peer::new(cx), &self.sessions);
                match answer {
                    Some(Ok(value)) => responder.respond(value),
                    Some(Err(err)) => responder.respond_with_error(err),
                    None => {
                        responder.respond_with_error(Error::method_not_found().data(json!(method)))
                    }
                }
            }
        }
    }

    fn notification(&self, msg: &UntypedMessage) {
        self.agent.received(&msg.method, &msg.params);
        if msg.method == "session/cancel" {
            self.sessions.cancel(&session_id(&msg.params));
        }
    }
}
