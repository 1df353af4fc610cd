//! `/history` and `/export` on the machine: what the app asks goes to the
//! runtime as it is (`Command::History`), and what the runtime found
//! (`Input::History`) is said in the pane. Pure, like every file here.

use wta_env::history::{Decision, HistoryRecord};
use wta_i18n::tr;
use wta_state::{DomainEvent, PickerItem, history_picker::HistoryEffect};

use super::{Command, Machine, Out};

/// What the runtime found for a `Command::History`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HistoryNews {
    /// The entries, newest first, or why the history could not be read.
    Listed(Result<Vec<HistoryRecord>, String>),
    /// The entry is a new card (it comes as any proposal), or why not.
    Reproposed(Result<(), String>),
    /// The transcript was written to this path, or (path, why) not.
    Exported(Result<String, (String, String)>),
}

impl Machine {
    /// The app asked for the history or an export.
    pub(super) fn history_effect(&mut self, effect: HistoryEffect, out: &mut Out) {
        out.cmd(Command::History(effect));
    }

    /// The runtime's answer, said in the pane.
    pub(super) fn history_news(&mut self, news: HistoryNews, out: &mut Out) {
        match news {
            HistoryNews::Listed(Ok(records)) => {
                let items = records.iter().map(item).collect();
                out.event(DomainEvent::HistoryList(items));
            }
            HistoryNews::Listed(Err(err)) => out.error(tr!("history.picker_unreadable", err = err)),
            HistoryNews::Reproposed(Ok(())) => {}
            HistoryNews::Reproposed(Err(err)) => {
                out.error(tr!("history.repropose_failed", err = err));
            }
            HistoryNews::Exported(Ok(path)) => {
                out.event(DomainEvent::Notice(tr!("history.exported", path = path)));
            }
            HistoryNews::Exported(Err((path, err))) => {
                out.error(tr!("history.export_failed", path = path, err = err));
            }
        }
    }
}

/// One picker row: the commands, then when, what was decided, how it
/// exited and where.
fn item(record: &HistoryRecord) -> PickerItem {
    let decision = match record.decision {
        Decision::Confirmed => tr!("history.decision.confirmed"),
        Decision::Inserted => tr!("history.decision.inserted"),
        Decision::Cancelled => tr!("history.decision.cancelled"),
        Decision::TimedOut => tr!("history.decision.timed_out"),
    };
    let mut detail = vec![record.time.replace('T', " ").replace('Z', ""), decision];
    if let Some(code) = record.exit_status() {
        detail.push(format!("exit {code}"));
    }
    detail.extend(record.pane.clone());
    detail.extend(record.host.clone());
    PickerItem {
        id: record.proposal_id.clone(),
        label: record.commands(),
        detail: detail.join(" · "),
        current: false,
    }
}
