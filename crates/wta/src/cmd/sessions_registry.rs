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
use wta_protocol::agent_sessions::{
    AgentSessionRow, AgentSessionsResponse, AgentStatus, SessionSource,
};

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
                    reason: why.english().to_owned(),
                })
                .collect(),
        })?;
        return Ok(status);
    }
    if let Some(why) = &missing {
        eprintln!(
            "wta: {}",
            wta_i18n::tr!("cli.sessions.partial", why = why.shown())
        );
    }
    if rows.is_empty() {
        output::line(&wta_i18n::tr!("sessions.none"))?;
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
        let status = match missing {
            Some(_) => wta_i18n::tr!("sessions.status.unknown"),
            None => status_text(r),
        };
        table.row(vec![
            r.key.clone(),
            r.agent.clone(),
            status,
            place_text(r).unwrap_or_else(|| "-".into()),
            r.cwd.clone().unwrap_or_else(|| "-".into()),
            r.title.clone().unwrap_or_else(|| "-".into()),
        ]);
    }
    table.print()?;
    Ok(status)
}

/// The status of a row the master did not vouch for (`--json`).
const UNKNOWN: &str = "unknown";

/// A status in the user's language.
pub fn status_word(status: AgentStatus) -> String {
    wta_i18n::tr(
        match status {
            AgentStatus::Idle => "sessions.status.idle",
            AgentStatus::Working => "sessions.status.working",
            AgentStatus::Attention => "sessions.status.attention",
            AgentStatus::Error => "sessions.status.error",
            AgentStatus::Ended => "sessions.status.ended",
            AgentStatus::Historical => "sessions.status.historical",
        },
        &[],
    )
}

/// A row's status for people: with the tool it runs, or that it can be
/// resumed (`sessions all`, `sessions pick`).
pub fn status_text(row: &AgentSessionRow) -> String {
    let status = status_word(row.status);
    match (&row.current_tool, row.resumable) {
        (Some(tool), _) => wta_i18n::tr!("sessions.pick.with_tool", status = status, tool = tool),
        (None, true) => wta_i18n::tr!("sessions.pick.resumable", status = status),
        (None, false) => status,
    }
}

/// Where a row's session runs, for people: an agent CLI in a shell pane,
/// or the agent pane for its shell; `None` without a pane.
pub fn place_text(row: &AgentSessionRow) -> Option<String> {
    let pane = row.pane.as_ref()?;
    Some(match row.source {
        SessionSource::ShellPane => wta_i18n::tr!("sessions.pick.in_shell", pane = pane),
        SessionSource::AgentPane => wta_i18n::tr!("sessions.pick.for_pane", pane = pane),
    })
}

/// The agent panes tmux shows (shown or stashed), as rows without what
/// only the master knows: for a listing when the master does not answer.
/// Keyed `tmux:%N` (the agent pane): focus, resume and close need the
/// master's keys.
fn seen_in_tmux(ctx: &Ctx) -> Vec<AgentSessionRow> {
    use wta_host::TerminalHost;
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
        None => bail!(wta_i18n::tr!("sessions.err.unknown_key", key = args.key)),
    }
}

pub fn focus(ctx: &Ctx, args: &KeyArgs) -> anyhow::Result<ExitCode> {
    let row = find(ctx, args)?;
    actions::focus(&ctx.host()?, &row)?.print(ctx.json)
}

pub fn resume(ctx: &Ctx, args: &KeyArgs) -> anyhow::Result<ExitCode> {
    let row = find(ctx, args)?;
    actions::resume(ctx.config(), &ctx.host()?, &row)?.print(ctx.json)
}

/// `wta sessions close KEY`.
pub fn close(ctx: &Ctx, args: &KeyArgs) -> anyhow::Result<ExitCode> {
    let row = find(ctx, args)?;
    actions::close(ctx, args.master_socket.as_deref(), &row)?.print(ctx.json)
}
