//! What one executed action produced, and how it becomes an execution line
//! (DESIGN §4.4); and what a run that outlived its proposal's time limit
//! reports when it ends ([`LateResult`]). Pure: built from tracker runs, no I/O.

use wta_i18n::tr;
use wta_protocol::{ExecutionId, ExecutionLine, ExecutionStatus, PaneId, ProposalId};
use wta_shell::{EndReason, Run};

/// Exit status a shell reports for a command ended by Ctrl+C (128 + SIGINT).
const INTERRUPTED_EXIT: i32 = 130;
/// Output lines shown under the card.
pub const TAIL_LINES: usize = 3;
/// Characters kept of each shown output line.
const TAIL_LINE_CHARS: usize = 200;

fn timing(r: &RunReport) -> String {
    r.duration_ms.map_or_else(String::new, |ms| {
        if ms == 0 {
            // Start and end were seen in one read: too fast to time here.
            String::new()
        } else if ms < 10_000 {
            format!(" {}", tr!("helper.outcome.after_ms", ms = ms))
        } else {
            format!(" {}", tr!("helper.outcome.after_s", s = ms / 1000))
        }
    })
}

/// A tracked command as the agent should see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunReport {
    /// Pane the command ran in.
    pub pane: String,
    /// `None` when the run has not ended or ended without a `D` mark.
    pub exit: Option<i32>,
    /// Output between the run's `C` and its end, rendered at the pane width
    /// and bounded (head and tail kept).
    pub output: String,
    pub truncated: bool,
    pub duration_ms: Option<u64>,
    /// The pane's working directory as last reported by the shell.
    pub cwd: Option<String>,
    /// The shell's own command line (`cmdline_url`), when it sent one.
    pub cmdline: Option<String>,
    /// False when the shell reported a different command than we sent
    /// (the user typed concurrently): reported, never hidden.
    pub cmdline_matches: bool,
    /// The command switched to the alternate screen.
    pub interactive: bool,
    pub end: Option<EndReason>,
    /// Why following stopped before the end (timeout, interactive), for
    /// the agent; `None` for a run that ended.
    pub note: Option<String>,
}

impl RunReport {
    /// Summarises `run` (finished or not) with output bounded to `cap` bytes.
    pub fn from_run(pane: &str, run: &Run, cwd: Option<String>, cap: usize) -> Self {
        let rendered = run.render();
        let (output, cut) = bound_text(rendered.text.trim_end_matches('\n'), cap);
        Self {
            pane: pane.to_owned(),
            exit: run.exit,
            output,
            truncated: rendered.truncated || cut,
            duration_ms: run.duration_ms(),
            cwd,
            cmdline: run.cmdline.clone(),
            cmdline_matches: run.cmdline_matches,
            interactive: run.alt_screen,
            end: run.end_reason,
            note: None,
        }
    }
}

/// How one action of a confirmed choice ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ActionOutcome {
    /// The command ran to its end (`D` mark, or an end without one).
    Finished(RunReport),
    /// Still running when the execution timeout hit; never killed.
    TimedOut(RunReport),
    /// Insert: typed without Enter, nothing ran.
    Inserted { pane: String },
    /// A tab or panel was opened (`open` only); its shell was started
    /// behind the readiness gate and is followed from its first prompt.
    Opened { pane: String },
    /// A delegate agent was started in a new tab or panel with the task.
    Delegated { pane: String, agent: String },
    /// The text was sent, but the pane has no shell integration, so its end
    /// cannot be observed.
    CompletionUnavailable { pane: String },
    /// Nothing was sent, or the run could not be followed; says why.
    Unavailable { reason: String },
    /// Never dispatched: an earlier action of the choice stopped it, or the
    /// proposal's execution time was used up. The reason names which.
    Cancelled { reason: String },
}

impl ActionOutcome {
    /// What the agent pane shows under the card for action `action`: a
    /// status line (exit code, duration) and the last [`TAIL_LINES`] lines
    /// of the output, the same facts the agent gets in its execution line,
    /// in the user's language.
    pub fn display(&self, action: u64) -> String {
        let head = match self {
            Self::Finished(r) => {
                let status = match r.exit {
                    Some(0) => tr!("helper.outcome.completed_exit_0"),
                    Some(INTERRUPTED_EXIT) => tr!("helper.outcome.interrupted"),
                    Some(code) => tr!("helper.outcome.failed", code = code),
                    None => tr!(
                        "helper.outcome.unavailable",
                        reason = end_reason_shown(r.end)
                    ),
                };
                format!("{} {status}{}", r.pane, timing(r))
            }
            Self::TimedOut(r) if r.interactive => tr!(
                "helper.outcome.interactive",
                pane = r.pane,
                timing = timing(r)
            ),
            Self::TimedOut(r) => tr!(
                "helper.outcome.timed_out",
                pane = r.pane,
                timing = timing(r)
            ),
            other => other.summary(),
        };
        let mut text = tr!("helper.outcome.action", action = action, head = head);
        if let Self::Finished(r) | Self::TimedOut(r) = self {
            if !r.cmdline_matches {
                text.push_str("\n  ");
                text.push_str(&tr!("helper.outcome.other_command"));
            }
            let lines: Vec<&str> = r.output.lines().collect();
            for l in &lines[lines.len().saturating_sub(TAIL_LINES)..] {
                let cut: String = l.chars().take(TAIL_LINE_CHARS).collect();
                text.push_str("\n  ");
                text.push_str(&cut);
            }
        }
        text
    }

    /// One short line for the outcome, in the user's language.
    pub fn summary(&self) -> String {
        match self {
            Self::Finished(r) => {
                let status = match r.exit {
                    Some(0) => tr!("helper.outcome.completed"),
                    Some(code) => tr!("helper.outcome.failed", code = code),
                    // Say why, as the execution line does.
                    None => tr!("helper.outcome.ended", reason = end_reason_shown(r.end)),
                };
                let tail = r.output.lines().last().unwrap_or("").trim();
                let mismatch = if r.cmdline_matches {
                    String::new()
                } else {
                    format!(" [{}]", tr!("helper.outcome.other_command_short"))
                };
                if tail.is_empty() {
                    format!("{} {status}{mismatch}", r.pane)
                } else {
                    format!("{} {status}{mismatch}: {tail}", r.pane)
                }
            }
            Self::TimedOut(r) if r.interactive => {
                tr!("helper.outcome.interactive_not_followed", pane = r.pane)
            }
            Self::TimedOut(r) => tr!("helper.outcome.result_timed_out", pane = r.pane),
            Self::Inserted { pane } => tr!("helper.outcome.inserted", pane = pane),
            Self::Opened { pane } => tr!("helper.outcome.opened", pane = pane),
            Self::Delegated { pane, agent } => {
                tr!("helper.outcome.delegated", agent = agent, pane = pane)
            }
            Self::CompletionUnavailable { pane } => {
                tr!("helper.outcome.completion_unavailable", pane = pane)
            }
            Self::Unavailable { reason } => tr!("helper.outcome.not_run", reason = reason),
            Self::Cancelled { reason } => tr!("helper.outcome.cancelled", reason = reason),
        }
    }

    /// The execution line for this outcome, for actions that type input
    /// (`send`, `open_and_send`); `None` for opens and delegates.
    pub fn execution_line(
        &self,
        proposal: ProposalId,
        execution: ExecutionId,
        action: u64,
    ) -> Option<ExecutionLine> {
        let line = |status| ExecutionLine::new(status, proposal, execution, action);
        Some(match self {
            Self::Finished(r) => {
                let status = match r.exit {
                    Some(code) => ExecutionStatus::from_exit_code(code),
                    None => ExecutionStatus::Unavailable,
                };
                let mut l = fill(line(status), r);
                if r.exit.is_none() {
                    l.reason = Some(end_reason_text(r.end));
                }
                l
            }
            Self::TimedOut(r) => {
                let mut l = fill(line(ExecutionStatus::TimedOut), r);
                l.still_running = Some(true);
                l
            }
            Self::Inserted { .. } => line(ExecutionStatus::Inserted),
            Self::CompletionUnavailable { .. } => {
                let mut l = line(ExecutionStatus::CompletionUnavailable);
                l.reason = Some("the pane's shell has no WTA shell integration".to_owned());
                l
            }
            Self::Unavailable { reason } => {
                let mut l = line(ExecutionStatus::Unavailable);
                l.reason = Some(reason.clone());
                l
            }
            Self::Cancelled { reason } => {
                let mut l = line(ExecutionStatus::Cancelled);
                l.reason = Some(reason.clone());
                l
            }
            Self::Opened { .. } | Self::Delegated { .. } => return None,
        })
    }
}

// Long runs (issue 30): a run still going at its proposal's time limit is
// followed on (`super::long_runs`); these are the values it reports.

/// Which run of which proposal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LongRunKey {
    pub proposal: ProposalId,
    pub execution: ExecutionId,
    /// 1-based within the confirmed choice.
    pub action: u64,
    pub pane: PaneId,
    /// The command as the card typed it (its first line).
    pub command: String,
}

/// A long run still going.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Running {
    pub key: LongRunKey,
    /// When the command started (our Enter's run opened).
    pub since: std::time::Instant,
}

/// How a long run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LateResult {
    pub key: LongRunKey,
    /// `Finished` (with its exit code and output) or `Unavailable` (why it
    /// could no longer be followed).
    pub outcome: ActionOutcome,
}

impl LateResult {
    /// The final execution line: same proposal, execution id and action as
    /// the `timed_out` one it replaces.
    pub fn execution_line(&self) -> Option<ExecutionLine> {
        self.outcome
            .execution_line(self.key.proposal, self.key.execution, self.key.action)
    }
}

fn fill(mut l: ExecutionLine, r: &RunReport) -> ExecutionLine {
    l.exit_code = r.exit;
    l.output = Some(r.output.clone());
    l.truncated = Some(r.truncated);
    l.duration_ms = r.duration_ms;
    l.cwd = r.cwd.clone();
    if r.interactive {
        l.interactive = Some(true);
    }
    if r.exit == Some(INTERRUPTED_EXIT) {
        l.interrupted = Some(true);
    }
    l.reason = r.note.clone();
    if !r.cmdline_matches {
        let mismatch = match &r.cmdline {
            Some(c) => format!("the shell reported a different command: {c}"),
            None => "the shell did not confirm the command line".to_owned(),
        };
        l.reason = Some(match l.reason.take() {
            Some(note) => format!("{note}; {mismatch}"),
            None => mismatch,
        });
    }
    l
}

/// Why a run ended without an exit status, as the user reads it (the
/// agent's execution line keeps [`end_reason_text`]).
fn end_reason_shown(end: Option<EndReason>) -> String {
    match end {
        Some(EndReason::PaneDied { status }) => match status {
            Some(s) => tr!("helper.outcome.pane_closed_status", status = s),
            None => tr!("helper.outcome.pane_closed"),
        },
        Some(EndReason::PromptWithoutD) => tr!("helper.outcome.lost_integration"),
        Some(EndReason::Detached) => tr!("helper.outcome.detached"),
        Some(EndReason::SessionEnded) => tr!("helper.outcome.session_ended"),
        Some(EndReason::Mark) | None => tr!("helper.outcome.not_observed"),
    }
}

/// Why a run ended without an exit status, for the agent: never translated.
fn end_reason_text(end: Option<EndReason>) -> String {
    match end {
        Some(EndReason::PaneDied { status }) => match status {
            Some(s) => format!("the pane closed while the command ran (status {s})"),
            None => "the pane closed while the command ran".to_owned(),
        },
        Some(EndReason::PromptWithoutD) => {
            "the shell lost its integration mid-command; exit status unknown".to_owned()
        }
        Some(EndReason::Detached) => "another program took over the pane's output".to_owned(),
        Some(EndReason::SessionEnded) => {
            "the ssh session of the remote shell ended mid-command; exit status unknown".to_owned()
        }
        Some(EndReason::Mark) | None => "the command's end was not observed".to_owned(),
    }
}

/// Caps `text` at `cap` bytes keeping the head and the tail around an
/// elision marker; true when something was cut. Cuts on char boundaries.
pub fn bound_text(text: &str, cap: usize) -> (String, bool) {
    if text.len() <= cap {
        return (text.to_owned(), false);
    }
    let omitted = text.len().saturating_sub(cap);
    let marker = format!("\n… {omitted} bytes omitted …\n");
    let room = cap.saturating_sub(marker.len());
    let mut head = room / 2;
    while !text.is_char_boundary(head) {
        head -= 1;
    }
    let mut tail = text.len() - (room - head);
    while !text.is_char_boundary(tail) {
        tail += 1;
    }
    (format!("{}{marker}{}", &text[..head], &text[tail..]), true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(exit: Option<i32>) -> RunReport {
        RunReport {
            pane: "%3".into(),
            exit,
            output: "ls: cannot access '/nope'".into(),
            truncated: false,
            duration_ms: Some(12),
            cwd: Some("/tmp".into()),
            cmdline: Some("ls /nope".into()),
            cmdline_matches: true,
            interactive: false,
            end: Some(EndReason::Mark),
            note: None,
        }
    }

    fn ids() -> (ProposalId, ExecutionId) {
        (
            ProposalId::from_bytes([1; 16]),
            ExecutionId::from_bytes([2; 16]),
        )
    }

    #[test]
    fn exit_codes_map_to_statuses_and_fields() {
        let (p, e) = ids();
        let l = ActionOutcome::Finished(report(Some(2)))
            .execution_line(p, e, 1)
            .unwrap();
        assert_eq!(l.status, ExecutionStatus::Failed);
        assert_eq!(l.exit_code, Some(2));
        assert_eq!(l.output.as_deref(), Some("ls: cannot access '/nope'"));
        assert_eq!((l.duration_ms, l.cwd.as_deref()), (Some(12), Some("/tmp")));
        assert_eq!(l.interrupted, None);
        let ok = ActionOutcome::Finished(report(Some(0)))
            .execution_line(p, e, 2)
            .unwrap();
        assert_eq!((ok.status, ok.action), (ExecutionStatus::Completed, 2));
        let int = ActionOutcome::Finished(report(Some(130)))
            .execution_line(p, e, 1)
            .unwrap();
        assert_eq!(
            (int.status, int.interrupted),
            (ExecutionStatus::Failed, Some(true))
        );
    }

    #[test]
    fn special_cases() {
        let (p, e) = ids();
        let mut died = report(None);
        died.end = Some(EndReason::PaneDied { status: None });
        let l = ActionOutcome::Finished(died)
            .execution_line(p, e, 1)
            .unwrap();
        assert_eq!(l.status, ExecutionStatus::Unavailable);
        assert!(l.reason.unwrap().contains("pane closed"));
        let mut slow = report(None);
        slow.interactive = true;
        let l = ActionOutcome::TimedOut(slow)
            .execution_line(p, e, 1)
            .unwrap();
        assert_eq!(
            (l.status, l.still_running, l.interactive),
            (ExecutionStatus::TimedOut, Some(true), Some(true))
        );
        let mut other = report(Some(0));
        other.cmdline_matches = false;
        let l = ActionOutcome::Finished(other)
            .execution_line(p, e, 1)
            .unwrap();
        assert!(l.reason.unwrap().contains("different command"));
        let inserted = ActionOutcome::Inserted { pane: "%3".into() };
        assert_eq!(
            inserted.execution_line(p, e, 1).unwrap().status,
            ExecutionStatus::Inserted
        );
        let opened = ActionOutcome::Opened { pane: "%4".into() };
        assert!(opened.execution_line(p, e, 1).is_none());
        let cancelled = ActionOutcome::Cancelled {
            reason: "not run because action 1 failed: x".into(),
        };
        let l = cancelled.execution_line(p, e, 2).unwrap();
        assert_eq!(
            (l.status, l.action, l.reason.as_deref()),
            (
                ExecutionStatus::Cancelled,
                2,
                Some("not run because action 1 failed: x")
            )
        );
        assert_eq!(
            cancelled.display(2),
            "Action 2: cancelled: not run because action 1 failed: x"
        );
    }

    /// The lines the executor builds match the protocol's golden fixtures
    /// byte for byte (compact JSON as sent to the CLI).
    #[test]
    fn golden_executor_lines() {
        let (p, e) = ids();
        let encode = |l: ExecutionLine| {
            String::from_utf8(wta_protocol::ResponseLine::Execution(l).to_line().unwrap()).unwrap()
        };
        let mut waiting = report(None);
        waiting.output = "read> ".into();
        waiting.duration_ms = Some(3010);
        waiting.interactive = true;
        waiting.end = None;
        waiting.note =
            Some("the command is waiting for input typed in the terminal; it keeps running".into());
        let line = ActionOutcome::TimedOut(waiting)
            .execution_line(p, e, 2)
            .unwrap();
        assert_eq!(
            encode(line),
            include_str!("../../../wta-protocol/tests/golden/execution_executor_interactive.json")
        );
        let mut closed = report(None);
        closed.output = "go".into();
        closed.duration_ms = Some(25);
        closed.end = Some(EndReason::PaneDied { status: None });
        let line = ActionOutcome::Finished(closed)
            .execution_line(p, e, 1)
            .unwrap();
        assert_eq!(
            encode(line),
            include_str!("../../../wta-protocol/tests/golden/execution_executor_pane_closed.json")
        );
    }

    #[test]
    fn display_shows_status_and_a_short_tail() {
        let mut r = report(Some(2));
        r.output = "one\ntwo\nthree\nfour".into();
        assert_eq!(
            ActionOutcome::Finished(r.clone()).display(1),
            "Action 1: %3 failed (exit 2) after 12 ms\n  two\n  three\n  four"
        );
        r.exit = None;
        r.end = Some(EndReason::PaneDied { status: None });
        r.output.clear();
        assert_eq!(
            ActionOutcome::Finished(r.clone()).display(2),
            "Action 2: %3 unavailable: the pane closed while the command ran after 12 ms"
        );
        r.interactive = true;
        assert!(
            ActionOutcome::TimedOut(r)
                .display(1)
                .contains("interactive, still running")
        );
        assert_eq!(
            ActionOutcome::Inserted { pane: "%3".into() }.display(1),
            "Action 1: typed into %3 without Enter (nothing ran)"
        );
    }

    #[test]
    fn bounding_keeps_head_and_tail_on_char_boundaries() {
        assert_eq!(bound_text("short", 10), ("short".to_owned(), false));
        let text = "é".repeat(1000) + "END";
        let (out, cut) = bound_text(&text, 200);
        assert!(cut);
        assert!(out.len() <= 200, "{}", out.len());
        assert!(out.starts_with('é') && out.ends_with("END"));
        assert!(out.contains("bytes omitted"));
    }
}
