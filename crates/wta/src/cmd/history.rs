//! `wta history`: the action history the agent panes keep (DESIGN §4.12):
//! every card the user decided on, newest last. A table by default;
//! `--json` prints the records as one list, `entries`, with the file's
//! field names (`wta_env::history::HistoryRecord`). A line that cannot be read is
//! skipped with a warning on stderr, never failing the listing. One entry
//! per proposal: a command that ended after its time limit shows its final
//! result (`ended_after_limit`), the reader having merged its records.

use std::process::ExitCode;

use clap::Args;
use wta_env::history::{Decision, HistoryRecord};
use wta_i18n::tr;

use super::Ctx;
use crate::output::{self, Table};

/// `--json`: `{"schema_version": 2, "entries": […]}`, oldest first.
#[derive(Debug, serde::Serialize)]
struct Entries<'a> {
    entries: &'a [HistoryRecord],
}

#[derive(Debug, Args)]
pub struct HistoryArgs {
    /// Show the last N entries (0: all).
    #[arg(short = 'n', value_name = "N", default_value_t = 20)]
    pub count: usize,
    /// Only entries whose title, command, agent, host, pane, session or decision contains TEXT (any case).
    #[arg(long, value_name = "TEXT")]
    pub search: Option<String>,
}

pub fn run(ctx: &Ctx, args: &HistoryArgs) -> anyhow::Result<ExitCode> {
    let store = wta_env::history::default_store();
    let listing = store.read().map_err(|e| {
        anyhow::anyhow!(tr!(
            "history.cannot_read",
            path = store.path().display(),
            err = e
        ))
    })?;
    for skipped in &listing.skipped {
        eprintln!(
            "wta: {}",
            tr!(
                "history.skipped",
                file = skipped.file.display(),
                line = skipped.line,
                why = skipped.why
            )
        );
    }
    let shown = select(listing.records, args);
    if ctx.json {
        output::json(&Entries { entries: &shown })?;
        return Ok(ExitCode::SUCCESS);
    }
    if shown.is_empty() {
        println!("{}", tr!("history.empty", path = store.path().display()));
        return Ok(ExitCode::SUCCESS);
    }
    let mut t = Table::localized(&[
        "history.col.time",
        "history.col.decision",
        "history.col.exit",
        "history.col.duration",
        "history.col.pane",
        "history.col.host",
        "history.col.agent",
        "history.col.title",
        "history.col.command",
    ]);
    for r in &shown {
        t.row(vec![
            r.time.clone(),
            decision_shown(r.decision),
            r.exit_status()
                .map_or_else(|| "-".into(), |c| c.to_string()),
            r.duration_ms().map_or_else(|| "-".into(), duration_shown),
            r.pane.clone().unwrap_or_else(|| "-".into()),
            r.host.clone().unwrap_or_else(|| "-".into()),
            r.agent.clone().unwrap_or_else(|| "-".into()),
            r.title.clone(),
            r.commands(),
        ]);
    }
    t.print()?;
    Ok(ExitCode::SUCCESS)
}

/// The records `args` asks for, oldest first: matches of `--search`, then
/// the last `-n`.
fn select(records: Vec<HistoryRecord>, args: &HistoryArgs) -> Vec<HistoryRecord> {
    let needle = args.search.as_deref().map(str::to_lowercase);
    let mut kept: Vec<HistoryRecord> = records
        .into_iter()
        .filter(|r| needle.as_deref().is_none_or(|n| r.matches(n)))
        .collect();
    if args.count > 0 && kept.len() > args.count {
        kept.drain(..kept.len() - args.count);
    }
    kept
}

/// A decision in the user's language.
pub fn decision_shown(decision: Decision) -> String {
    match decision {
        Decision::Confirmed => tr!("history.decision.confirmed"),
        Decision::Inserted => tr!("history.decision.inserted"),
        Decision::Cancelled => tr!("history.decision.cancelled"),
        Decision::TimedOut => tr!("history.decision.timed_out"),
    }
}

fn duration_shown(ms: u64) -> String {
    if ms < 10_000 {
        format!("{ms} ms")
    } else {
        format!("{} s", ms / 1000)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use wta_env::history::record::RECORD_VERSION;

    fn record(title: &str, command: &str) -> HistoryRecord {
        HistoryRecord {
            version: RECORD_VERSION,
            time: "2026-12-02T04:30:00Z".into(),
            agent: Some("demo".into()),
            session_id: None,
            tab: None,
            pane: Some("%1".into()),
            host: Some("box".into()),
            remote: false,
            proposal_id: "p".into(),
            origin: None,
            choice: 1,
            title: title.into(),
            decision: Decision::Confirmed,
            reason: None,
            actions: vec![wta_env::history::ActionRecord {
                kind: "send".into(),
                command: Some(command.into()),
                ..Default::default()
            }],
        }
    }

    #[test]
    fn search_then_the_last_n_oldest_first() {
        let all = vec![
            record("Build", "cargo build"),
            record("List", "ls -la"),
            record("Test", "cargo test"),
            record("Other", "echo CARGO"),
        ];
        let args = |count, search: Option<&str>| HistoryArgs {
            count,
            search: search.map(str::to_owned),
        };
        let titles = |v: Vec<HistoryRecord>| v.into_iter().map(|r| r.title).collect::<Vec<_>>();
        assert_eq!(
            titles(select(all.clone(), &args(2, Some("Cargo")))),
            ["Test", "Other"]
        );
        assert_eq!(titles(select(all.clone(), &args(0, None))).len(), 4);
        assert_eq!(titles(select(all, &args(1, Some("ls")))), ["List"]);
    }
}
