//! `wta sessions all | focus KEY | resume KEY | close KEY`: every agent
//! session the master tracks (agent panes, agent CLIs in shell panes, ended
//! ones), searched, and one of them gone to, resumed or closed
//! ([`super::sessions_actions`]).
//!
//! `sessions all` answers within 2 s whatever the master does: it waits
//! [`LIST_WITHIN`] for it (the master bounds the agents' history to 0.8 s),
//! and when the master listens but does not answer (stopped, stuck) it
//! lists the agent panes tmux shows instead, their state `unknown`, says
//! on stderr what is missing (and in the JSON's `missing`), and exits 1.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, bail};
use clap::Args;
use wta_protocol::agent_sessions::{AgentSessionRow, AgentSessionsResponse, SessionSource};

use super::Ctx;
use super::sessions::{Unanswered, ask_master, try_ask_master};
use super::sessions_actions as actions;
use crate::json::agents as json;
use crate::output::{self, Table};

/// How long the master may take to list (connect, initialize, and its own
/// 0.8 s for the agents' history), leaving room inside the 2 s for the
/// process to start and tmux to be asked when the master stays silent.
pub const LIST_WITHIN: Duration = Duration::from_millis(1200);

#[derive(Debug, Args)]
pub struct AllArgs {
    /// Only sessions whose agent, title, directory, pane or id contain TEXT.
    #[arg(long, value_name = "TEXT")]
    pub search: Option<String>,
    /// Only live sessions (not ended or historical).
    #[arg(long)]
    pub live: bool,
    /// The master's socket (default: the one of the tmux server the flags name).
    #[arg(long, value_name = "PATH")]
    pub master_socket: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct KeyArgs {
    /// The session's key (the KEY column of `wta sessions all`).
    #[arg(value_name = "KEY")]
    pub key: String,
    /// The master's socket (default: the one of the tmux server the flags name).
    #[arg(long, value_name = "PATH")]
    pub master_socket: Option<PathBuf>,
}

pub fn rows(ctx: &Ctx, socket: Option<&std::path::Path>) -> anyhow::Result<Vec<AgentSessionRow>> {
    let listed: AgentSessionsResponse = ask_master(ctx, socket, LIST_WITHIN, |conn| async move {
        conn.agent_sessions()
            .await
            .with_context(|| wta_i18n::tr!("cli.sessions.not_listed"))
    })?;
    Ok(listed.sessions)
}

/// Whether `row` matches `text` (case-insensitive) anywhere a user would look.
pub fn matches(row: &AgentSessionRow, text: &str) -> bool {
    let text = text.to_lowercase();
    [
        Some(row.agent.as_str()),
        row.title.as_deref(),
        row.cwd.as_deref(),
        row.session_id.as_deref(),
        row.pane.as_ref().map(|p| p.as_str()),
        Some(row.key.as_str()),
    ]
    .into_iter()
    .flatten()
    .any(|field| field.to_lowercase().contains(&text))
}

pub fn all(ctx: &Ctx, args: &AllArgs) -> anyhow::Result<ExitCode> {
    let listed = try_ask_master(
        ctx,
        args.master_socket.as_deref(),
        LIST_WITHIN,
        |conn| async move {
            conn.agent_sessions()
                .await
                .with_context(|| wta_i18n::tr!("cli.sessions.not_listed"))
        },
    );
    let (rows, missing) = match listed {
        Ok(listed) => (listed.sessions, None),
        Err(Unanswered::Silent(why)) => (seen_in_tmux(ctx), Some(why)),
        Err(Unanswered::Failed(err)) => return Err(err),
    };
    let rows: Vec<AgentSessionRow> = rows
        .into_iter()
        .filter(|r| !args.live || r.status.is_live() || missing.is_some())
        .filter(|r| args.search.as_deref().is_none_or(|t| matches(r, t)))
        .collect();
    let status = match &missing {
        Some(_) => ExitCode::FAILURE,
        None => ExitCode::SUCCESS,
    };
    if ctx.json {
        let unknown = missing.as_ref().map(|_| UNKNOWN);
        output::json(&json::AllSessions {
            sessions: rows
                .iter()
                .map(|r| json::SessionRow::new(r, unknown))
                .collect(),
            missing: missing
                .iter()
                .map(|why| json::Missing {
                    part: "master",
                    reason: format!("{why:#}"),
                })
                .collect(),
        })?;
        return Ok(status);
    }
    if let Some(why) = &missing {
        eprintln!(
            "wta: {}",
            wta_i18n::tr!("cli.sessions.partial", why = format!("{why:#}"))
        );
    }
    if rows.is_empty() {
        output::line("no sessions")?;
        return Ok(status);
    }
    let mut table = Table::localized(&[
        "cli.col.key",
        "cli.col.agent",
        "cli.col.state",
        "cli.col.where",
        "cli.col.directory",
        "cli.col.title",
    ]);
    for r in &rows {
        let place = match (&r.pane, r.source) {
            (Some(p), SessionSource::ShellPane) => format!("shell {p}"),
            (Some(p), SessionSource::AgentPane) => format!("pane for {p}"),
            (None, _) => "-".into(),
        };
        let status = match (&r.current_tool, r.resumable) {
            _ if missing.is_some() => UNKNOWN.to_owned(),
            (Some(tool), _) => format!("{} ({tool})", r.status.as_str()),
            (None, true) => format!("{} (resumable)", r.status.as_str()),
            (None, false) => r.status.as_str().to_owned(),
        };
        table.row(vec![
            r.key.clone(),
            r.agent.clone(),
            status,
            place,
            r.cwd.clone().unwrap_or_else(|| "-".into()),
            r.title.clone().unwrap_or_else(|| "-".into()),
        ]);
    }
    table.print()?;
    Ok(status)
}

/// The status of a row the master did not vouch for.
const UNKNOWN: &str = "unknown";

/// The agent panes tmux shows (shown or stashed), as rows without what
/// only the master knows: for a listing when the master does not answer.
/// Keyed `tmux:%N` (the agent pane): focus, resume and close need the
/// master's keys.
fn seen_in_tmux(ctx: &Ctx) -> Vec<AgentSessionRow> {
    use wta_host::TerminalHost;
    use wta_protocol::agent_sessions::AgentStatus;
    let Ok(host) = ctx.host() else {
        return Vec::new();
    };
    let Ok(windows) = host.list_windows(None) else {
        return Vec::new();
    };
    let mut rows = Vec::new();
    for window in windows {
        let Ok(Some((agent, _shown))) = crate::launch::agent_pane::find(&host, &window.id) else {
            continue;
        };
        let option = |name: &str| {
            host.option(&agent.id, name)
                .ok()
                .filter(|v| !v.trim().is_empty())
        };
        rows.push(AgentSessionRow {
            key: format!("tmux:{}", agent.id),
            source: SessionSource::AgentPane,
            agent: option(wta_agent::PANE_AGENT_OPTION).unwrap_or_else(|| "?".into()),
            session_id: None,
            pane: option("@wta_target").and_then(|p| wta_protocol::PaneId::parse(p.trim()).ok()),
            tab: Some(window.id.clone()),
            cwd: Some(agent.cwd.to_string_lossy().into_owned()),
            title: None,
            // Not shown (the row says `unknown`): nothing vouches for it.
            status: AgentStatus::Idle,
            last_activity_ms: None,
            current_tool: None,
            resumable: false,
        });
    }
    rows
}

fn find(ctx: &Ctx, args: &KeyArgs) -> anyhow::Result<AgentSessionRow> {
    let rows = rows(ctx, args.master_socket.as_deref())?;
    match rows.into_iter().find(|r| r.key == args.key) {
        Some(row) => Ok(row),
        None => bail!(
            "no session `{}` is known (see `wta sessions all` for the keys)",
            args.key
        ),
    }
}

pub fn focus(ctx: &Ctx, args: &KeyArgs) -> anyhow::Result<ExitCode> {
    let row = find(ctx, args)?;
    actions::focus(&ctx.host()?, &row)?.print(ctx.json)
}

pub fn resume(ctx: &Ctx, args: &KeyArgs) -> anyhow::Result<ExitCode> {
    let row = find(ctx, args)?;
    actions::resume(&ctx.host()?, &row)?.print(ctx.json)
}

/// `wta sessions close KEY`.
pub fn close(ctx: &Ctx, args: &KeyArgs) -> anyhow::Result<ExitCode> {
    let row = find(ctx, args)?;
    actions::close(ctx, args.master_socket.as_deref(), &row)?.print(ctx.json)
}
