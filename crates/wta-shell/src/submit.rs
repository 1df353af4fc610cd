//! The submit decision and the tmux commands that carry a submission.
//!
//! Pure: [`decide_submit`] says whether a command may be sent now, and
//! [`submit_commands`] builds the tmux argument lists (leave copy mode, clear
//! the line, type or paste the text, Enter). Typeahead is never sent: a pane
//! whose command is still running refuses with [`SubmitRefusal::Busy`].

use serde::Serialize;

use crate::tracker::{Integration, State};

/// Why a submission was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(rename_all = "snake_case")]
pub enum SubmitRefusal {
    #[error("a command is still running in the pane")]
    Busy,
    #[error("the shell is not waiting at a prompt")]
    NotAtPrompt,
    #[error("the pane's shell has no WTA shell integration (run `wta shell-integration --help`)")]
    IntegrationAbsent,
    #[error("the pane is dead")]
    PaneDead,
}

/// Only `Idle` accepts a submission.
pub fn decide_submit(state: &State, integration: Integration) -> Result<(), SubmitRefusal> {
    match state {
        State::Idle if integration != Integration::Absent => Ok(()),
        State::Idle | State::Absent => Err(SubmitRefusal::IntegrationAbsent),
        State::Running | State::Submitted { .. } => Err(SubmitRefusal::Busy),
        State::Dead { .. } => Err(SubmitRefusal::PaneDead),
        State::Unknown | State::Prompt | State::Finished => {
            if integration == Integration::Absent {
                Err(SubmitRefusal::IntegrationAbsent)
            } else {
                Err(SubmitRefusal::NotAtPrompt)
            }
        }
    }
}

/// tmux argument lists (without `tmux -S …`) that submit `text` to `pane`.
/// Multi-line text goes through a named buffer and a bracketed paste so no
/// partial line executes; `buffer` must be unique (e.g. `wta-<nonce>`).
pub fn submit_commands(
    pane: &str,
    text: &str,
    in_copy_mode: bool,
    buffer: &str,
) -> Vec<Vec<String>> {
    let s = |v: &[&str]| v.iter().map(|x| (*x).to_owned()).collect::<Vec<String>>();
    let mut cmds = Vec::new();
    if in_copy_mode {
        cmds.push(s(&["copy-mode", "-q", "-t", pane]));
    }
    cmds.push(s(&["send-keys", "-t", pane, "C-e", "C-u"]));
    if text.contains('\n') {
        cmds.push(s(&["set-buffer", "-b", buffer, "--", text]));
        cmds.push(s(&[
            "paste-buffer",
            "-p",
            "-r",
            "-d",
            "-b",
            buffer,
            "-t",
            pane,
        ]));
    } else {
        cmds.push(s(&["send-keys", "-t", pane, "-l", "--", text]));
    }
    cmds.push(s(&["send-keys", "-t", pane, "Enter"]));
    cmds
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tracker::SubmitId;

    #[test]
    fn only_idle_with_integration_accepts() {
        use Integration::*;
        let submitted = State::Submitted {
            id: SubmitId(1),
            text: "x".into(),
            at: 0,
        };
        let dead = State::Dead { status: Some(1) };
        let table: [(&State, Integration, Result<(), SubmitRefusal>); 12] = [
            (&State::Idle, Present, Ok(())),
            (&State::Idle, Unknown, Ok(())),
            (&State::Idle, Absent, Err(SubmitRefusal::IntegrationAbsent)),
            (&State::Running, Present, Err(SubmitRefusal::Busy)),
            (&submitted, Present, Err(SubmitRefusal::Busy)),
            (&State::Prompt, Present, Err(SubmitRefusal::NotAtPrompt)),
            (&State::Unknown, Unknown, Err(SubmitRefusal::NotAtPrompt)),
            (&State::Finished, Present, Err(SubmitRefusal::NotAtPrompt)),
            (
                &State::Unknown,
                Absent,
                Err(SubmitRefusal::IntegrationAbsent),
            ),
            (
                &State::Absent,
                Absent,
                Err(SubmitRefusal::IntegrationAbsent),
            ),
            (&dead, Present, Err(SubmitRefusal::PaneDead)),
            (&dead, Absent, Err(SubmitRefusal::PaneDead)),
        ];
        for (state, integration, want) in table {
            assert_eq!(
                decide_submit(state, integration),
                want,
                "{state:?} {integration:?}"
            );
        }
    }

    #[test]
    fn commands_leave_copy_mode_clear_and_paste_multiline() {
        let one = submit_commands("%3", "ls -l", false, "b");
        assert_eq!(one.len(), 3);
        assert_eq!(one[1], ["send-keys", "-t", "%3", "-l", "--", "ls -l"]);
        let multi = submit_commands("%3", "a\nb", true, "wta-1");
        assert_eq!(multi[0], ["copy-mode", "-q", "-t", "%3"]);
        assert!(
            multi
                .iter()
                .any(|c| c[0] == "paste-buffer" && c.contains(&"-p".to_owned()))
        );
        assert_eq!(multi.last().map(|c| c[3].as_str()), Some("Enter"));
    }
}
