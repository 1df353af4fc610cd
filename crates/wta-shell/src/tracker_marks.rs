//! What a trusted mark does to the tracker ([`on_mark`]): a prompt, a
//! command line, a command's start and end, a cwd; and how a run's reported
//! command line is held against what was submitted ([`cmdline_matches`]).
//! Part of the pure [`step`](super::step).

use super::*;

/// Is this mark from the pane's own shell (not a nested shell or ssh)?
fn is_own(t: &Tracker, mark: &Mark) -> bool {
    match (&t.state, &t.current) {
        (State::Running, Some(run)) => mark.aid == run.aid,
        _ => true,
    }
}

pub(super) fn on_mark(t: &mut Tracker, mark: Mark, now: Millis, fx: &mut Vec<Effect>) {
    if !is_own(t, &mark) {
        // Nested shell or ssh: its marks are part of the outer command's output.
        return;
    }
    if mark.kind == MarkKind::CommandLine {
        match t.current.as_mut() {
            Some(run) if run.cmdline.is_none() => run.cmdline = mark.cmdline,
            _ => t.pending_cmdline = mark.cmdline,
        }
        return;
    }
    if let MarkKind::Cwd(path) = &mark.kind {
        // Only the shell the tracker follows reports its cwd (a nested
        // shell's marks are output of the outer command: `is_own` above).
        if !path.is_empty() && t.cwd.as_ref().is_none_or(|c| c.path != *path) {
            t.cwd = Some(Cwd {
                host: t.hops.host().map(str::to_owned),
                path: path.clone(),
            });
            fx.push(Effect::CwdChanged);
        }
        return;
    }
    if mark.aid.is_some() && t.state != State::Running {
        // First mark, or the shell exec'd into another one: adopt its aid.
        t.shell_aid = mark.aid.clone();
    }
    set_integration(t, Integration::Present, fx);
    match mark.kind {
        MarkKind::PromptStart | MarkKind::InputStart => {
            if t.state == State::Running {
                close_run(t, None, EndReason::PromptWithoutD, now, fx);
            }
            t.typed_text = false;
            if matches!(t.state, State::Submitted { .. }) {
                // A redraw of the prompt (readline accepting a bracketed
                // paste redraws PS1 with its marks): the submission stays
                // pending until its `C`, or its timer.
                t.prompted_while_submitted = true;
            } else if mark.kind == MarkKind::PromptStart {
                t.state = State::Prompt;
            } else {
                t.state = State::Idle;
                if t.restore == Restore::AtPrompt {
                    t.restore = Restore::None;
                    fx.push(Effect::RestoreTyped);
                }
            }
        }
        MarkKind::CommandStart => {
            if t.state == State::Running {
                // Another `C` from the same shell with no prompt between: bash
                // runs each line of one accepted multi-line buffer with its
                // own `C` and ends them all with one `D`. They are one run.
                continue_run(t, mark.cmdline);
                return;
            }
            let submitted = match std::mem::replace(&mut t.state, State::Running) {
                State::Submitted { text, .. } => Some(text),
                _ => None,
            };
            let cmdline = mark.cmdline.or_else(|| t.pending_cmdline.take());
            let cmdline_matches = match (&submitted, &cmdline) {
                (Some(s), Some(c)) => cmdline_matches(s, c),
                (Some(_), None) => true,
                (None, _) => false,
            };
            let id = RunId(t.next_run);
            t.next_run += 1;
            t.current = Some(Run {
                id,
                aid: mark.aid,
                cmdline,
                submitted,
                cmdline_matches,
                started_at: now,
                ended_at: None,
                exit: None,
                end_reason: None,
                output: CappedOutput::new(t.config.head_cap, t.config.tail_cap),
                alt_screen: false,
                width: t.width,
            });
            fx.push(Effect::RunStarted { id });
        }
        MarkKind::CommandEnd { exit } => {
            if t.state == State::Running {
                close_run(t, exit, EndReason::Mark, now, fx);
                t.state = State::Finished;
                if t.restore == Restore::AfterNextRun {
                    t.restore = Restore::AtPrompt;
                }
            }
        }
        MarkKind::CommandLine | MarkKind::Cwd(_) | MarkKind::ShellGone => {}
    }
}

/// Adds the next line's command line to the running run and checks the
/// whole against what was submitted.
fn continue_run(t: &mut Tracker, cmdline: Option<String>) {
    let next = cmdline.or_else(|| t.pending_cmdline.take());
    let (Some(run), Some(next)) = (t.current.as_mut(), next) else {
        return;
    };
    let joined = match run.cmdline.take() {
        Some(earlier) => format!("{earlier}\n{next}"),
        None => next,
    };
    if let Some(submitted) = &run.submitted {
        run.cmdline_matches = cmdline_matches(submitted, &joined);
    }
    run.cmdline = Some(joined);
}

/// Compares a submitted text with the shell's reported command line,
/// ignoring whitespace differences (bash joins pasted lines with `; `).
pub fn cmdline_matches(submitted: &str, reported: &str) -> bool {
    let norm = |s: &str| {
        s.split(|c: char| c.is_whitespace() || c == ';')
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    };
    norm(submitted) == norm(reported)
}
