//! What can be done to one registry row, for `wta sessions focus | resume |
//! close` and the `wta sessions pick` view alike: go to a live session,
//! resume an ended one (`session/load` into a new agent pane when its agent
//! loads sessions, else the agent CLI's own resume flag in a new tab),
//! close one (a live agent pane closes; an ended row leaves the history).
//! Each answers with a [`Done`]: its `--json` object and its line for people.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use wta_host::{NewTab, PaneCommand, TerminalHost, TmuxHost};
use wta_i18n::tr;
use wta_protocol::agent_sessions::{AgentSessionRow, AgentStatus, SessionSource};

use super::Ctx;
use super::sessions::ask_master;
use crate::json::agents::SessionAction;
use crate::launch::agent_pane;
use crate::launch::delegate::{self, DelegateRequest, Place};
use crate::output;

/// How long the master may take to drop a row.
const FORGET_WITHIN: std::time::Duration = std::time::Duration::from_secs(5);

/// What an action did.
#[derive(Debug, Clone, PartialEq)]
pub struct Done {
    /// The `--json` answer.
    pub json: SessionAction,
    /// The line for people.
    pub line: String,
}

impl Done {
    /// Prints the answer as `--json` asks.
    pub fn print(&self, json: bool) -> anyhow::Result<ExitCode> {
        if json {
            output::json(&self.json)?;
        } else {
            output::line(&self.line)?;
        }
        Ok(ExitCode::SUCCESS)
    }
}

/// Selects the tab and pane of the live session `row`: an agent pane's
/// own pane where it shows, else the pane the session works in.
pub fn focus(host: &TmuxHost, row: &AgentSessionRow) -> anyhow::Result<Done> {
    if !row.status.is_live() {
        bail!(tr("sessions.err.focus_ended", &[("key", row.key.as_str())]));
    }
    // An agent pane's session is its chat: that pane when it shows in its
    // tab, else (hidden) the shell it works on.
    let chat = match (row.source, &row.tab) {
        (SessionSource::AgentPane, Some(tab)) => match agent_pane::find(host, tab)? {
            Some((agent, true)) => Some(agent.id),
            _ => None,
        },
        _ => None,
    };
    let Some(pane) = chat.as_ref().or(row.pane.as_ref()) else {
        bail!(tr("sessions.err.no_pane", &[("key", row.key.as_str())]));
    };
    let info = host.pane(pane)?;
    host.focus(pane)?;
    Ok(Done {
        json: SessionAction {
            key: row.key.clone(),
            action: "focused",
            pane: Some(pane.clone()),
            tab: Some(info.window.clone()),
            session_id: None,
        },
        line: tr(
            "sessions.focused",
            &[("pane", pane.as_str()), ("tab", info.window.as_str())],
        ),
    })
}

/// Resumes the ended session `row` in a new tab.
pub fn resume(
    config: &crate::config::UserConfig,
    host: &TmuxHost,
    row: &AgentSessionRow,
) -> anyhow::Result<Done> {
    let session = resumable(row)?;
    let source = host.caller_pane().map(|p| host.pane(&p)).transpose()?;
    // Outside tmux: back in the tmux session of the tab the session lived
    // in, while that tab is there.
    let home = row
        .tab
        .as_ref()
        .and_then(|tab| host.window_panes(tab).ok())
        .and_then(|panes| panes.first().map(|p| p.session.clone()));
    let cwd = row.cwd.clone().map(PathBuf::from).filter(|d| d.is_dir());
    let pane = match row.source {
        SessionSource::AgentPane => {
            let request = DelegateRequest {
                task: String::new(),
                agent: Some(row.agent.clone()),
                cwd,
                place: Place::Tab,
                source,
                session: home,
                acp: true,
            };
            delegate::open_agent_tab(config, host, &request, None, Some(session.clone()))?.pane
        }
        SessionSource::ShellPane => {
            let session_of_tab = source.as_ref().map(|s| s.session.clone()).or(home);
            resume_in_cli_tab(host, &row.agent, &session, session_of_tab, cwd)?
        }
    };
    Ok(Done {
        json: SessionAction {
            key: row.key.clone(),
            action: "resumed",
            pane: Some(pane.clone()),
            tab: None,
            session_id: Some(session.clone()),
        },
        line: tr(
            "sessions.resumed",
            &[
                ("agent", row.agent.as_str()),
                ("session", &session),
                ("pane", pane.as_str()),
            ],
        ),
    })
}

/// The agent's id of the session `row`, when it has ended and can be
/// resumed.
fn resumable(row: &AgentSessionRow) -> anyhow::Result<String> {
    let key = row.key.as_str();
    if row.status.is_live() {
        bail!(tr("sessions.err.resume_live", &[("key", key)]));
    }
    let Some(session) = row.session_id.clone() else {
        bail!(tr("sessions.err.no_id", &[("key", key)]));
    };
    if !row.resumable {
        bail!(tr(
            "sessions.err.not_resumable",
            &[("agent", row.agent.as_str()), ("session", &session)]
        ));
    }
    Ok(session)
}

/// A new tab (in tmux session `in_session`, else the current one) running
/// the agent CLI with its own resume flag for `session`.
fn resume_in_cli_tab(
    host: &TmuxHost,
    agent: &str,
    session: &str,
    in_session: Option<wta_protocol::TmuxSessionId>,
    cwd: Option<PathBuf>,
) -> anyhow::Result<wta_protocol::PaneId> {
    let Some(cli) = wta_agent::delegate::cli(agent) else {
        bail!(tr("sessions.err.no_resume_flag_known", &[("agent", agent)]));
    };
    let Some(flag) = cli.resume else {
        bail!(tr("sessions.err.no_resume_flag", &[("agent", agent)]));
    };
    let tab = host.new_tab(&NewTab {
        after: None,
        session: in_session,
        command: Some(PaneCommand::Argv(vec![
            cli.program.to_owned(),
            flag.to_owned(),
            session.to_owned(),
        ])),
        cwd,
        title: Some(format!("{} {session}", cli.id)),
        env: Vec::new(),
        focus: true,
    })?;
    Ok(tab.id)
}

/// Closes `row`: a live agent pane closes (its session becomes history),
/// an ended row leaves the master's history (asked on `socket`, else the
/// one of the tmux server `ctx` names). A CLI in the user's shell pane and
/// an agent's own history are refused.
pub fn close(ctx: &Ctx, socket: Option<&Path>, row: &AgentSessionRow) -> anyhow::Result<Done> {
    let (key, agent) = (row.key.as_str(), row.agent.as_str());
    match (row.status, row.source) {
        (AgentStatus::Historical, _) => bail!(tr(
            "sessions.err.close_history",
            &[("key", key), ("agent", agent)]
        )),
        (AgentStatus::Ended, _) => {
            let owned = key.to_owned();
            let forgotten = ask_master(ctx, socket, FORGET_WITHIN, |conn| async move {
                conn.forget_session(&owned)
                    .await
                    .context(tr("sessions.err.forget_failed", &[]))
            })?;
            if !forgotten {
                bail!(tr("sessions.err.already_forgotten", &[("key", key)]));
            }
            Ok(Done {
                json: SessionAction {
                    key: key.to_owned(),
                    action: "forgot",
                    pane: None,
                    tab: None,
                    session_id: row.session_id.clone(),
                },
                line: tr("sessions.forgot", &[("key", key)]),
            })
        }
        (_, SessionSource::ShellPane) => {
            let pane = row.pane.as_ref().map_or("?", |p| p.as_str());
            bail!(tr(
                "sessions.err.close_shell",
                &[("key", key), ("agent", agent), ("pane", pane)]
            ))
        }
        (_, SessionSource::AgentPane) => {
            let Some(tab) = &row.tab else {
                bail!(tr("sessions.err.no_tab", &[("key", key)]));
            };
            let host = ctx.host()?;
            match agent_pane::close_in(&host, tab)? {
                agent_pane::Outcome::Closed(pane) => Ok(Done {
                    json: SessionAction {
                        key: key.to_owned(),
                        action: "closed",
                        pane: Some(pane.clone()),
                        tab: Some(tab.clone()),
                        session_id: row.session_id.clone(),
                    },
                    line: tr(
                        "sessions.closed",
                        &[("agent", agent), ("pane", pane.as_str()), ("key", key)],
                    ),
                }),
                _ => bail!(tr("sessions.err.no_agent_pane", &[("tab", tab.as_str())])),
            }
        }
    }
}
