//! [`Recorder`]: the cards awaiting a decision, and the writer thread that
//! appends their records. Locks are held for map work only.
//!
//! A command still running at its proposal's time limit is recorded
//! `timed_out` when the card's lines end, and the card stays *followed*
//! here until its final result ([`Recorder::late_result`], from the
//! executor's long runs): then a second, complete record of the same
//! proposal is appended with that result (`ended_after_limit`), which the
//! reader puts in the first one's place (`wta_env::history::merge`). The
//! final result can come before the card's record is finished (the run
//! ended while later actions were settled): it waits, and the one record
//! written has it. Both waits are bounded ([`MAX_FOLLOWED`],
//! [`MAX_EARLY`]): a run never followed to its end (no watcher, the pane
//! gone with the helper) is forgotten with the oldest.

use std::collections::{HashMap, VecDeque};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::SystemTime;

use wta_env::history::{
    ActionRecord, Decision, HistoryRecord, OutputDigest, Store, record::RECORD_VERSION, rfc3339,
};
use wta_host::TmuxHost;
use wta_protocol::{
    Action, Choice, ExecutionLine, ExecutionStatus, FinalStatus, PaneId, ProposalId,
    ProposalPayload, WindowId,
};

use crate::proposals::types::{ProposalAccepted, ProposalEvent, TurnContext};
use wta_state::ConfirmMode;

/// A shown card, until its decision.
#[derive(Debug, Clone)]
struct Waiting {
    payload: ProposalPayload,
    turn: TurnContext,
}

/// Written cards with an action still running at the time limit, kept
/// for its final result (the oldest forgotten first).
pub const MAX_FOLLOWED: usize = 32;
/// Final results heard before their card's record was finished.
pub const MAX_EARLY: usize = 16;

/// A written record with actions still `timed_out`, until each ends.
#[derive(Debug)]
struct Followed {
    id: ProposalId,
    record: HistoryRecord,
    pane: Option<PaneId>,
}

#[derive(Debug, Default)]
struct Known {
    waiting: HashMap<ProposalId, Waiting>,
    followed: VecDeque<Followed>,
    early: VecDeque<ExecutionLine>,
    agent: Option<String>,
    session: Option<String>,
}

/// One record on its way to the file, with the pane its host is read from.
struct Job {
    record: HistoryRecord,
    pane: Option<PaneId>,
}

/// The pane's history recorder; cheap to clone (one shared state, one writer).
#[derive(Clone)]
pub struct Recorder {
    known: Arc<Mutex<Known>>,
    tab: Option<WindowId>,
    jobs: Option<mpsc::Sender<Job>>,
}

impl std::fmt::Debug for Recorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recorder")
            .field("writing", &self.jobs.is_some())
            .finish_non_exhaustive()
    }
}

impl Recorder {
    /// A recorder writing to `store` from a thread of its own; the host
    /// (this machine's name, or a `wta ssh` pane's destination) is read
    /// there through `tmux`.
    pub fn new(store: Store, tmux: Option<TmuxHost>, tab: Option<WindowId>) -> Self {
        let (tx, rx) = mpsc::channel::<Job>();
        let spawned = std::thread::Builder::new()
            .name("wta-history".into())
            .spawn(move || {
                let local = local_hostname();
                while let Ok(mut job) = rx.recv() {
                    let remote = match (&tmux, &job.pane) {
                        (Some(host), Some(pane)) => {
                            wta_shell::remote::read_remote_shell(host, pane).map(|r| r.host)
                        }
                        _ => None,
                    };
                    job.record.remote = remote.is_some();
                    job.record.host = remote.or_else(|| local.clone());
                    if let Err(err) = store.append(&job.record) {
                        tracing::warn!(
                            "action history: cannot write {}: {err}",
                            store.path().display()
                        );
                    }
                }
            });
        let jobs = match spawned {
            Ok(_) => Some(tx),
            Err(err) => {
                tracing::warn!("action history: no writer thread, nothing is recorded: {err}");
                None
            }
        };
        Self {
            known: Arc::default(),
            tab,
            jobs,
        }
    }

    fn known(&self) -> MutexGuard<'_, Known> {
        self.known
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The agent of the sessions opened from now on.
    pub fn note_agent(&self, agent: &str) {
        self.known().agent = Some(agent.to_owned());
    }

    /// The session prompts go to (so the next cards belong to it).
    pub fn note_session(&self, session: &str) {
        self.known().session = Some(session.to_owned());
    }

    /// An event of the proposal engine, seen before the machine gets it: a
    /// card shown is remembered; one cancelled or timed out is recorded;
    /// one that ended without a decision is forgotten. A confirmed card is
    /// left to [`Recorder::confirmed`].
    pub fn observe(&self, event: &ProposalEvent) {
        match event {
            ProposalEvent::Accepted(ProposalAccepted {
                id, payload, turn, ..
            }) => {
                let waiting = Waiting {
                    payload: payload.clone(),
                    turn: turn.clone(),
                };
                self.known().waiting.insert(*id, waiting);
            }
            ProposalEvent::Ended {
                status: FinalStatus::Confirmed,
                ..
            } => {}
            ProposalEvent::Ended { id, status, reason } => {
                let decision = match status {
                    FinalStatus::Cancelled => Some(Decision::Cancelled),
                    FinalStatus::TimedOut => Some(Decision::TimedOut),
                    _ => None,
                };
                let Some(waiting) = self.known().waiting.remove(id) else {
                    return;
                };
                if let Some(decision) = decision {
                    let recommended = waiting.payload.recommended_choice;
                    let choice = waiting
                        .payload
                        .choices
                        .iter()
                        .find(|c| c.choice == recommended)
                        .or_else(|| waiting.payload.choices.first());
                    if let Some(choice) = choice {
                        let mut record = self.record(*id, &waiting, choice, decision);
                        record.reason = reason.clone();
                        self.write(record, waiting.turn.target_pane.clone());
                    }
                }
            }
        }
    }

    /// The user confirmed `choice` of card `id` (the claim succeeded): the
    /// pending record, to be finished with each action's result by
    /// [`Pending::finish`].
    pub fn confirmed(&self, id: ProposalId, choice: &Choice, mode: ConfirmMode) -> Pending {
        let waiting = self.known().waiting.remove(&id);
        let decision = match mode {
            ConfirmMode::Insert => Decision::Inserted,
            ConfirmMode::Run | ConfirmMode::Open => Decision::Confirmed,
        };
        let turn = waiting
            .as_ref()
            .map_or_else(|| TurnContext::agent_turn(None, None), |w| w.turn.clone());
        let waiting = Waiting {
            payload: waiting.map_or_else(
                || ProposalPayload {
                    schema_version: 1,
                    origin: turn.origin,
                    recommended_choice: choice.choice,
                    choices: vec![choice.clone()],
                },
                |w| w.payload,
            ),
            turn,
        };
        Pending {
            id,
            record: self.record(id, &waiting, choice, decision),
            pane: waiting.turn.target_pane,
            recorder: self.clone(),
        }
    }

    fn record(
        &self,
        id: ProposalId,
        waiting: &Waiting,
        choice: &Choice,
        decision: Decision,
    ) -> HistoryRecord {
        let known = self.known();
        HistoryRecord {
            version: RECORD_VERSION,
            time: rfc3339(SystemTime::now()),
            agent: known.agent.clone(),
            session_id: known.session.clone(),
            tab: self.tab.as_ref().map(ToString::to_string),
            pane: waiting.turn.target_pane.as_ref().map(ToString::to_string),
            host: None,
            remote: false,
            proposal_id: id.to_string(),
            origin: Some(waiting.turn.origin.as_str().to_owned()),
            choice: choice.choice,
            title: choice.title.clone(),
            decision,
            reason: None,
            actions: record_actions(&choice.actions),
        }
    }

    /// The final result of a command that outlived its proposal's time
    /// limit (`LateResult::execution_line`): the card's record is written
    /// again with it, or, when that record is not finished yet, it waits
    /// for [`Pending::finish`].
    pub fn late_result(&self, line: &ExecutionLine) {
        let mut known = self.known();
        let Some(index) = known.followed.iter().position(|f| f.id == line.proposal_id) else {
            if known.early.len() >= MAX_EARLY {
                known.early.pop_front();
            }
            known.early.push_back(line.clone());
            return;
        };
        let followed = &mut known.followed[index];
        if !ended_after_limit(&mut followed.record, line) {
            return;
        }
        let (record, pane) = if still_running(&followed.record) {
            (followed.record.clone(), followed.pane.clone())
        } else {
            let Some(done) = known.followed.remove(index) else {
                return;
            };
            (done.record, done.pane)
        };
        drop(known);
        self.write(record, pane);
    }

    fn write(&self, record: HistoryRecord, pane: Option<PaneId>) {
        if let Some(jobs) = &self.jobs
            && jobs.send(Job { record, pane }).is_err()
        {
            tracing::warn!("action history: the writer thread is gone");
        }
    }
}

/// A confirmed card's record, waiting for its actions' results.
#[derive(Debug)]
pub struct Pending {
    id: ProposalId,
    record: HistoryRecord,
    pane: Option<PaneId>,
    recorder: Recorder,
}

impl Pending {
    /// Action `line.action`'s result.
    pub fn result(&mut self, line: &ExecutionLine) {
        if let Some(action) = action_of(&mut self.record, line) {
            set_result(action, line);
        }
    }

    /// Every action has reported (or none could run): written, with any
    /// final result that already came for a run past the time limit; an
    /// action still running is followed ([`Recorder::late_result`]).
    pub fn finish(self) {
        let Self {
            id,
            mut record,
            pane,
            recorder,
        } = self;
        {
            let mut known = recorder.known();
            let mut early = Vec::new();
            known.early.retain(|line| {
                let ours = line.proposal_id == id;
                if ours {
                    early.push(line.clone());
                }
                !ours
            });
            for line in &early {
                ended_after_limit(&mut record, line);
            }
            if still_running(&record) {
                if known.followed.len() >= MAX_FOLLOWED {
                    known.followed.pop_front();
                }
                known.followed.push_back(Followed {
                    id,
                    record: record.clone(),
                    pane: pane.clone(),
                });
            }
        }
        recorder.write(record, pane);
    }
}

/// The action of `record` that `line` reports on.
fn action_of<'a>(
    record: &'a mut HistoryRecord,
    line: &ExecutionLine,
) -> Option<&'a mut ActionRecord> {
    let index = usize::try_from(line.action.saturating_sub(1)).unwrap_or(usize::MAX);
    record.actions.get_mut(index)
}

fn set_result(action: &mut ActionRecord, line: &ExecutionLine) {
    action.result = Some(line.status.as_str().to_owned());
    action.exit_status = line.exit_code;
    action.duration_ms = line.duration_ms;
    action.output = line
        .output
        .as_deref()
        .map(|o| OutputDigest::of(o, line.truncated.unwrap_or(false)));
}

const TIMED_OUT: &str = ExecutionStatus::TimedOut.as_str();

/// `line`, a final result, set on its action when that action was left
/// `timed_out` (a second final result, or one for another action, changes
/// nothing): whether it was.
fn ended_after_limit(record: &mut HistoryRecord, line: &ExecutionLine) -> bool {
    let Some(action) = action_of(record, line) else {
        return false;
    };
    if action.result.as_deref() != Some(TIMED_OUT) || line.status == ExecutionStatus::TimedOut {
        return false;
    }
    set_result(action, line);
    action.ended_after_limit = true;
    true
}

/// Some action is still `timed_out` (its final result may come).
fn still_running(record: &HistoryRecord) -> bool {
    record
        .actions
        .iter()
        .any(|a| a.result.as_deref() == Some(TIMED_OUT))
}

/// The payload's actions as the history spells them (results unset).
pub fn record_actions(actions: &[Action]) -> Vec<ActionRecord> {
    actions
        .iter()
        .map(|action| match action {
            Action::Send { input } => ActionRecord {
                kind: "send".into(),
                command: Some(input.clone()),
                ..ActionRecord::default()
            },
            Action::Open {
                target,
                cwd,
                title,
                direction,
            } => ActionRecord {
                kind: "open".into(),
                target: Some(open_target(*target).into()),
                cwd: cwd.clone(),
                title: title.clone(),
                direction: direction.map(|d| direction_name(d).to_owned()),
                ..ActionRecord::default()
            },
            Action::OpenAndSend {
                target,
                input,
                delegate,
                cwd,
            } => ActionRecord {
                kind: "open_and_send".into(),
                command: Some(input.clone()),
                target: Some(open_target(*target).into()),
                cwd: cwd.clone(),
                delegate: Some(*delegate),
                ..ActionRecord::default()
            },
        })
        .collect()
}

pub(super) const fn open_target(target: wta_protocol::OpenTarget) -> &'static str {
    match target {
        wta_protocol::OpenTarget::Tab => "tab",
        wta_protocol::OpenTarget::Panel => "panel",
    }
}

pub(super) const fn direction_name(direction: wta_protocol::Direction) -> &'static str {
    use wta_protocol::Direction;
    match direction {
        Direction::Right => "right",
        Direction::Left => "left",
        Direction::Up => "up",
        Direction::Down => "down",
        Direction::Auto => "auto",
    }
}

/// This machine's name (`/proc/sys/kernel/hostname`, `/etc/hostname`,
/// `$HOSTNAME`), when one is found.
fn local_hostname() -> Option<String> {
    ["/proc/sys/kernel/hostname", "/etc/hostname"]
        .iter()
        .find_map(|p| std::fs::read_to_string(p).ok())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
}

#[cfg(test)]
#[path = "recorder_tests.rs"]
mod tests;
