//! Test-agent switches about its own life and memory, set per `custom:` argv
//! (modelling real agents that differ in these ways):
//!
//! - `--record <file>`: append one line per message received from the client
//!   (`<method> <sessionId>`), plus `stdin closed` and `SIGTERM` when those
//!   happen, so black-box tests can see what the master sent the agent.
//! - `--load-session`: advertise `loadSession` and serve `session/load` from the
//!   prompts this process remembers of each session (closed ones included),
//!   replayed as `user_message_chunk` updates before the answer.
//! - `--ignore-eof`: keep running after the client closes stdin (like
//!   claude-code-acp and codex-acp); `--ignore-sigterm`: survive SIGTERM too,
//!   so only a SIGKILL (to the process group) stops it.

use std::collections::HashMap;
use std::fs::File;
use std::io::Write;
use std::sync::{Arc, Mutex};

use tokio_util::compat::{TokioAsyncReadCompatExt, TokioAsyncWriteCompatExt};

fn args() -> Vec<String> {
    std::env::args().skip(1).collect()
}

fn has(args: &[String], flag: &str) -> bool {
    args.iter().any(|a| a == flag)
}

/// The `--record <file>` log (a no-op without the flag).
#[derive(Debug, Clone, Default)]
pub(super) struct Recorder(Option<Arc<Mutex<File>>>);

impl Recorder {
    pub(super) fn from_args() -> Self {
        let args = args();
        let path = args
            .iter()
            .position(|a| a == "--record")
            .and_then(|i| args.get(i + 1));
        let file = path.and_then(|p| {
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(p)
                .ok()
        });
        Self(file.map(|f| Arc::new(Mutex::new(f))))
    }

    pub(super) fn line(&self, text: &str) {
        if let Some(file) = &self.0 {
            let mut file = file
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let _ = writeln!(file, "{text}");
            let _ = file.flush();
        }
    }
}

/// The prompts of every session this process served, for `session/load`.
#[derive(Debug, Default)]
pub(super) struct History(Mutex<HashMap<String, Vec<String>>>);

impl History {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Vec<String>>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(super) fn started(&self, session: &str) {
        self.lock().entry(session.to_owned()).or_default();
    }

    pub(super) fn prompted(&self, session: &str, text: &str) {
        self.lock()
            .entry(session.to_owned())
            .or_default()
            .push(text.to_owned());
    }

    /// The prompts of `session`, or `None` if this process never served it.
    pub(super) fn replay(&self, session: &str) -> Option<Vec<String>> {
        self.lock().get(session).cloned()
    }
}

/// Whether `--load-session` was given.
pub(super) fn load_session() -> bool {
    has(&args(), "--load-session")
}

/// The `wta-test-agent` binary: serves stdio, then honours `--ignore-eof` and
/// `--ignore-sigterm`.
pub async fn run_binary() -> agent_client_protocol::Result<()> {
    let args = args();
    if let [flag, url, bearer, tool, json] = args.as_slice()
        && flag == "--mcp-call"
    {
        return match super::mcp::call(url, bearer, tool, json).await {
            Ok(result) => {
                println!("{result}");
                Ok(())
            }
            Err(err) => Err(agent_client_protocol::Error::internal_error().data(err)),
        };
    }
    let record = Recorder::from_args();
    if has(&args, "--ignore-sigterm") {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            .map_err(|e| agent_client_protocol::Error::internal_error().data(e.to_string()))?;
        let record = record.clone();
        tokio::spawn(async move {
            while term.recv().await.is_some() {
                record.line("SIGTERM");
            }
        });
    }
    let result = super::serve(
        tokio::io::stdout().compat_write(),
        tokio::io::stdin().compat(),
    )
    .await;
    record.line("stdin closed");
    if has(&args, "--ignore-eof") {
        std::future::pending::<()>().await;
    }
    result
}
