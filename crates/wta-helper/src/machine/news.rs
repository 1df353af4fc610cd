//! What the I/O layer's own work came to, as typed inputs, and the words
//! the pane says for each. The runtime never words anything (no `tr!` in
//! `runtime/`): it reports a `wta delegate` or `wta sessions` run, a tmux
//! call, a call with nothing waiting for its answer, an agent terminal or
//! the pane's start as data, and this file decides what the transcript
//! says. The card side's news (the proposal engine, the executor) is
//! `cards.rs`'s.

use agent_client_protocol::v1::schema::TerminalExitStatus;
use wta_protocol::WindowId;
use wta_state::{DomainEvent, SessionVerb, TerminalView};

use super::{ConnectionError, Machine, Out};

/// Why a `wta` run for the pane (`wta delegate`, `wta sessions …`) did
/// not do its work.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CliFailure {
    /// The helper cannot find its own binary (why).
    NoBinary(String),
    /// The binary could not be started (why).
    CannotRun(String),
    /// It ran and failed: what it said on stderr, already in the user's
    /// language (the CLI words its own errors).
    Failed(String),
    /// It answered in a shape the pane cannot read (why).
    Unreadable(String),
}

/// What `wta delegate --json` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Delegated {
    /// The delegate agent started in `window` (pane `pane`), on `session`
    /// when the CLI pinned one.
    Started {
        agent: String,
        window: String,
        pane: String,
        session: Option<String>,
    },
    /// The delegate is not installed; `window` says how to install it.
    NotInstalled { agent: String, window: String },
}

/// An agent terminal (`terminal/*`) as it is now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TerminalNews {
    pub id: String,
    /// The command line it runs, as shown.
    pub command: String,
    /// How it ended; `None` while it runs.
    pub exit: Option<TerminalExitStatus>,
    /// The newest lines of its output.
    pub last_lines: Vec<String>,
}

impl Machine {
    /// `wta delegate` answered.
    pub(super) fn delegated(&mut self, result: Result<Delegated, CliFailure>, out: &mut Out) {
        use wta_i18n::tr;
        match result {
            Ok(Delegated::Started {
                agent,
                window,
                pane,
                session,
            }) => {
                let pinned = session
                    .map(|id| tr!("helper.delegate.pinned", id = id))
                    .unwrap_or_default();
                out.event(DomainEvent::Notice(tr!(
                    "helper.delegate.done",
                    agent = agent,
                    window = window,
                    pane = pane,
                    pinned = pinned
                )));
            }
            Ok(Delegated::NotInstalled { agent, window }) => out.error(tr!(
                "helper.delegate.not_installed",
                agent = agent,
                window = window
            )),
            Err(CliFailure::NoBinary(err)) => {
                out.error(tr!("helper.delegate.no_binary", err = err))
            }
            Err(CliFailure::CannotRun(err)) => {
                out.error(tr!("helper.delegate.cannot_run", err = err));
            }
            Err(CliFailure::Failed(why)) => out.error(tr!("helper.delegate.failed", why = why)),
            Err(CliFailure::Unreadable(err)) => {
                out.error(tr!("helper.delegate.unreadable", err = err));
            }
        }
    }

    /// `wta sessions VERB KEY` answered: its own line (stdout) on success.
    pub(super) fn session_action_done(
        &mut self,
        verb: SessionVerb,
        result: Result<String, CliFailure>,
        out: &mut Out,
    ) {
        use wta_i18n::tr;
        match result {
            Ok(said) => out.event(DomainEvent::Notice(said)),
            Err(CliFailure::NoBinary(err)) => {
                out.error(tr!("helper.sessions.no_binary", err = err))
            }
            Err(CliFailure::CannotRun(err)) => out.error(tr!(
                "helper.sessions.cannot_run",
                action = verb.as_str(),
                err = err
            )),
            Err(CliFailure::Failed(why) | CliFailure::Unreadable(why)) => out.error(why),
        }
    }

    /// The sign-in window opened in tmux (or could not be).
    pub(super) fn auth_window(
        &mut self,
        agent: &str,
        method: &str,
        result: Result<WindowId, String>,
        out: &mut Out,
    ) {
        match result {
            Ok(window) => out.event(DomainEvent::Notice(wta_i18n::tr!(
                "helper.auth.window",
                agent = agent,
                method = method,
                window = window
            ))),
            Err(err) => out.error(wta_i18n::tr!("helper.auth.window_failed", err = err)),
        }
    }

    /// A call whose answer nobody waits for failed (a cancel, a permission
    /// answer): said, unless the master is gone (the link's end says that).
    pub(super) fn call_failed(&mut self, err: &ConnectionError, out: &mut Out) {
        match err {
            ConnectionError::MasterClosed => tracing::debug!("a call after the master went: {err}"),
            err => out.error(err.localized()),
        }
    }

    /// An agent terminal changed: its row in the transcript shows it.
    pub(super) fn terminal(&mut self, news: TerminalNews, out: &mut Out) {
        out.event(DomainEvent::Terminal(TerminalView {
            id: news.id,
            command: news.command,
            exit: news.exit.as_ref().map(describe_exit),
            last_lines: news.last_lines,
        }));
    }
}

/// How a terminal ended, as its row says (`exit N` is read back by the
/// transcript for the tool call's exit code).
fn describe_exit(status: &TerminalExitStatus) -> String {
    match (&status.exit_code, &status.signal) {
        (Some(code), _) => format!("exit {code}"),
        (None, Some(signal)) => format!("killed by {signal}"),
        (None, None) => "ended".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_terminals_end_reads_as_its_code_its_signal_or_ended() {
        let status = |code: Option<u32>, signal: Option<&str>| {
            TerminalExitStatus::new()
                .exit_code(code)
                .signal(signal.map(str::to_owned))
        };
        assert_eq!(describe_exit(&status(Some(3), None)), "exit 3");
        assert_eq!(describe_exit(&status(Some(0), Some("SIGTERM"))), "exit 0");
        assert_eq!(
            describe_exit(&status(None, Some("SIGKILL"))),
            "killed by SIGKILL"
        );
        assert_eq!(describe_exit(&status(None, None)), "ended");
    }
}
