//! Read-only listing commands: list-windows, list-tabs, list-panes,
//! active-pane and info.

use std::process::ExitCode;

use clap::Args;
use wta_host::{HostError, PaneInfo, TerminalHost, WindowInfo};
use wta_protocol::{PaneId, TmuxSessionId, WindowId};

use super::Ctx;
use crate::json::tmux as json;
use crate::output::{self, Table, yes};
use wta_i18n::tr;

#[derive(Debug, Args)]
pub struct ListTabsArgs {
    /// Window (tmux session) to list: `$N` or its name. Default: the caller's.
    #[arg(short = 'w', long = "window", value_name = "SESSION",
          add = clap_complete::ArgValueCandidates::new(super::completions::windows))]
    pub session: Option<String>,
    /// List the tabs of every window.
    #[arg(short = 'a', long = "all", conflicts_with = "session")]
    pub all: bool,
}

#[derive(Debug, Args)]
pub struct ListPanesArgs {
    /// Tab: `@N`, a pane `%N` meaning its tab, or a tab's name. Default: the caller's tab.
    #[arg(short = 't', long = "target", value_name = "TAB",
          add = clap_complete::ArgValueCandidates::new(super::completions::tabs))]
    pub target: Option<String>,
    /// List every pane of the server.
    #[arg(short = 'a', long = "all", conflicts_with = "target")]
    pub all: bool,
}

pub fn list_windows(ctx: &Ctx) -> anyhow::Result<ExitCode> {
    let sessions = ctx.host()?.list_sessions()?;
    if ctx.json {
        output::json(&json::Sessions::new(&sessions))?;
    } else {
        let mut t = Table::localized(&[
            "cli.col.id",
            "cli.col.name",
            "cli.col.tabs",
            "cli.col.attached",
        ]);
        for s in &sessions {
            t.row(vec![
                s.id.to_string(),
                s.name.clone(),
                s.windows.to_string(),
                yes(s.attached),
            ]);
        }
        t.print()?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Resolves `$N` or a session (WT window) name to an id; shared by
/// `list-tabs -w` and `new-tab -w`.
pub(super) fn resolve_session(
    host: &impl TerminalHost,
    given: &str,
) -> Result<TmuxSessionId, HostError> {
    if given.starts_with('$')
        && let Ok(id) = TmuxSessionId::parse(given)
    {
        return Ok(id);
    }
    host.list_sessions()?
        .into_iter()
        .find(|s| s.name == given)
        .map(|s| s.id)
        .ok_or_else(|| HostError::SessionNotFound(given.to_owned()))
}

pub fn list_tabs(ctx: &Ctx, args: &ListTabsArgs) -> anyhow::Result<ExitCode> {
    let host = ctx.host()?;
    let session = match (&args.session, args.all, host.caller_pane()) {
        (Some(given), _, _) => Some(resolve_session(&host, given)?),
        (None, true, _) | (None, false, None) => None,
        (None, false, Some(pane)) => Some(host.pane(&pane)?.session),
    };
    let windows = host.list_windows(session.as_ref())?;
    if ctx.json {
        output::json(&json::Tabs::new(&windows))?;
    } else {
        let mut t = Table::localized(&[
            "cli.col.id",
            "cli.col.session",
            "cli.col.index",
            "cli.col.name",
            "cli.col.panes",
            "cli.col.active",
        ]);
        for w in &windows {
            t.row(vec![
                w.id.to_string(),
                w.session.to_string(),
                w.index.to_string(),
                w.name.clone(),
                w.panes.to_string(),
                yes(w.active),
            ]);
        }
        t.print()?;
    }
    Ok(ExitCode::SUCCESS)
}

/// A `-t` for list-panes: a tab `@N`, a pane `%N` standing for its tab, or
/// the name of exactly one tab (a window linked into several sessions is
/// one tab).
fn window_of(host: &impl TerminalHost, given: &str) -> Result<WindowId, HostError> {
    let quoted = format!("{given:?}");
    let bad = || HostError::InvalidArgument(tr!("cli.list.not_a_tab", given = quoted));
    if given.starts_with('%') {
        let pane = PaneId::parse(given).map_err(|_| bad())?;
        return Ok(host.pane(&pane)?.window);
    }
    if given.starts_with('@') {
        return WindowId::parse(given).map_err(|_| bad());
    }
    let mut named: Vec<WindowInfo> = Vec::new();
    for w in host.list_windows(None)? {
        if w.name == given && !named.iter().any(|n| n.id == w.id) {
            named.push(w);
        }
    }
    match named.as_slice() {
        [] => Err(HostError::InvalidArgument(tr!(
            "cli.list.no_tab_named",
            given = quoted
        ))),
        [one] => Ok(one.id.clone()),
        several => Err(HostError::InvalidArgument(tr!(
            "cli.list.several_tabs",
            count = several.len(),
            given = quoted,
            tabs = several
                .iter()
                .map(|w| tr!("cli.list.tab_in_window", tab = w.id, window = w.session))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

pub fn list_panes(ctx: &Ctx, args: &ListPanesArgs) -> anyhow::Result<ExitCode> {
    let host = ctx.host()?;
    let panes = match (&args.target, args.all, host.caller_pane()) {
        (Some(t), _, _) => host.window_panes(&window_of(&host, t)?)?,
        (None, true, _) => host.list_panes()?,
        // The caller's current tab: tmux resolves a pane target to its window.
        (None, false, Some(pane)) => host.window_panes(&window_of(&host, pane.as_str())?)?,
        (None, false, None) => host.list_panes()?,
    };
    if ctx.json {
        output::json(&json::Panes::new(&panes))?;
    } else {
        print_panes(&panes)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn print_panes(panes: &[PaneInfo]) -> anyhow::Result<()> {
    let mut t = Table::localized(&[
        "cli.col.id",
        "cli.col.tab",
        "cli.col.session",
        "cli.col.size",
        "cli.col.active",
        "cli.col.command",
        "cli.col.state",
        "cli.col.cwd",
    ]);
    for p in panes {
        let state = match (p.dead, p.dead_status) {
            (true, Some(s)) => tr!("cli.list.dead_with", status = s),
            (true, None) => tr!("cli.list.dead"),
            (false, _) => tr!("cli.list.running"),
        };
        t.row(vec![
            p.id.to_string(),
            p.window.to_string(),
            p.session.to_string(),
            format!("{}x{}", p.size.cols, p.size.rows),
            yes(p.active),
            p.command.clone(),
            state,
            p.cwd.display().to_string(),
        ]);
    }
    t.print()
}

pub fn active_pane(ctx: &Ctx) -> anyhow::Result<ExitCode> {
    let host = ctx.host()?;
    let p = match host.caller_pane() {
        Some(_) => host.active_pane()?,
        // Outside tmux: the session attached last, said on stderr.
        None => host.active_pane_of(&super::target::outside_tmux(
            &host,
            super::target::NameIt::Inside,
        )?)?,
    };
    if ctx.json {
        output::json(&json::PaneRow::new(&p))?;
    } else {
        // The state in the user's words (JSON keeps the wire word).
        let state = match p.integration.state {
            s @ ("present" | "absent" | "unknown" | "stale") => {
                tr!(&format!("cli.integration_state.{s}"))
            }
            other => other.to_owned(),
        };
        let integration = match (&p.integration.shell, p.integration.pid) {
            (Some(shell), Some(pid)) => format!("{state} ({shell} {pid})"),
            _ => state,
        };
        let l = labels(&[
            "pane",
            "tab",
            "session",
            "size",
            "pid",
            "command",
            "cwd",
            "integration",
        ]);
        output::pairs(&[
            (l[0].as_str(), p.id.to_string()),
            (l[1].as_str(), format!("{} ({})", p.window, p.window_name)),
            (l[2].as_str(), format!("{} ({})", p.session, p.session_name)),
            (l[3].as_str(), format!("{}x{}", p.size.cols, p.size.rows)),
            (l[4].as_str(), p.pid.to_string()),
            (l[5].as_str(), p.command.clone()),
            (l[6].as_str(), p.cwd.display().to_string()),
            (l[7].as_str(), integration),
        ])?;
    }
    Ok(ExitCode::SUCCESS)
}

pub fn info(ctx: &Ctx) -> anyhow::Result<ExitCode> {
    let info = ctx.host()?.server_info()?;
    if ctx.json {
        output::json(&json::Server::new(&info))?;
    } else {
        let opt = |v: Option<String>| v.unwrap_or_else(|| tr!("cli.list.not_inside"));
        let l = labels(&["socket", "tmux", "pane", "tab", "session"]);
        output::pairs(&[
            (l[0].as_str(), info.socket.display().to_string()),
            (l[1].as_str(), info.tmux_version.clone()),
            (l[2].as_str(), opt(info.pane.map(|p| p.to_string()))),
            (l[3].as_str(), opt(info.window.map(|w| w.to_string()))),
            (
                l[4].as_str(),
                opt(info
                    .session
                    .map(|s| format!("{s} ({})", info.session_name.unwrap_or_default()))),
            ),
        ])?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The key/value labels `cli.label.<name>` in the user's language.
fn labels(names: &[&str]) -> Vec<String> {
    names
        .iter()
        .map(|n| wta_i18n::tr(&format!("cli.label.{n}"), &[]))
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use wta_host::{FakeHost, NewTab};

    use super::*;

    #[test]
    fn a_session_is_named_by_id_or_by_name() {
        let host = FakeHost::new();
        assert_eq!(resolve_session(&host, "$4").unwrap().as_str(), "$4");
        assert_eq!(resolve_session(&host, "main").unwrap().as_str(), "$0");
        match resolve_session(&host, "nope") {
            Err(HostError::SessionNotFound(name)) => assert_eq!(name, "nope"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_pane_target_stands_for_its_window() {
        let host = FakeHost::new();
        let tab = host.new_tab(&NewTab::default()).unwrap();
        assert_eq!(window_of(&host, tab.id.as_str()).unwrap(), tab.window);
        assert_eq!(window_of(&host, "@7").unwrap().as_str(), "@7");
        assert!(matches!(
            window_of(&host, "%99"),
            Err(HostError::PaneNotFound(p)) if p.contains("%99")
        ));
    }

    #[test]
    fn a_tab_is_named_by_id_pane_or_name_and_a_bad_one_names_every_form() {
        let host = FakeHost::new();
        let tab = host
            .new_tab(&NewTab {
                after: None,
                title: Some("build".into()),
                ..NewTab::default()
            })
            .unwrap();
        assert_eq!(window_of(&host, "build").unwrap(), tab.window);
        for bad in ["foo", "@x", "%y", "", "$0"] {
            match window_of(&host, bad) {
                Err(HostError::InvalidArgument(msg)) => {
                    for form in ["`@N`", "`%N`", "a tab's name"] {
                        assert!(msg.contains(form), "{bad}: {msg}");
                    }
                }
                other => panic!("{bad}: {other:?}"),
            }
        }
        host.new_tab(&NewTab {
            after: None,
            title: Some("build".into()),
            ..NewTab::default()
        })
        .unwrap();
        match window_of(&host, "build") {
            Err(HostError::InvalidArgument(msg)) => {
                assert!(msg.contains("2 tabs are named \"build\""), "{msg}")
            }
            other => panic!("{other:?}"),
        }
    }
}
